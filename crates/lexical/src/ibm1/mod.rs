//! IBM Model 1 (Brown et al. 1993) in both directions: EM training of the translation tables
//! `t(e | f)` and `t(f | e)` with a NULL word, the length-normalised sentence score of Khadivi &
//! Ney (2005), Viterbi word alignments and their symmetrisation.
//!
//! The sentence score, summed over both directions, is
//!
//! ```text
//! score(f, e) = 1/m Σ_j log p_j(e | f) + 1/l Σ_i log p_i(f | e),
//! p_j(e | f) = max(FLOOR, 1/(l+1) Σ_{i=0..l} t(e_j | f_i))      (f_0 = NULL)
//! ```
//!
//! for a source sentence of `l` tokens and a target of `m`: the mean log-probability per token
//! of each side given the other (the log of IBM-1's `p(e | f)` without its length term, divided
//! by the length). It is at most 0; higher means more parallel. A token the model never saw
//! has probability [`FLOOR`]. Zhang et al. (2016, §4.3) use this score as their filtering
//! baseline.
//!
//! ```
//! use bitext_lexical::{Ibm1, Ibm1Config, Segmenter, Symmetrization};
//! # fn main() -> bitext_lexical::Result<()> {
//! let de = ["das Haus", "das Buch", "ein Buch"];
//! let en = ["the house", "the book", "a book"];
//! let model = Ibm1::train(&Ibm1Config::default(), Segmenter::default(), &de, &en, &mut |_| {})?;
//! assert!(model.t("das", "the") > 0.8);
//! assert!(model.score("das Buch", "the book")? > model.score("das Buch", "a house")?);
//! let links = model.align("ein Haus", "a house", Symmetrization::Intersection)?;
//! assert_eq!(links, vec![(0, 0), (1, 1)]);
//! # Ok(())
//! # }
//! ```

mod file;
mod table;

use bitext_tokenize::{TokenCounter, Vocab, VocabBuilder};
use serde::{Deserialize, Serialize};

pub use self::table::IterationReport;
pub(crate) use self::table::TTable;
use crate::align::{Symmetrization, symmetrize};
use crate::error::{Error, Result};
use bitext_tokenize::{Segment, Segmenter};

/// The probability of a token the model cannot explain (never seen in training).
pub const FLOOR: f64 = 1e-7;

/// Training options.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Ibm1Config {
    /// EM iterations per direction (default 5, as GIZA++'s Model 1 schedule).
    pub iterations: usize,
    /// Whether every source sentence has the NULL word, which explains target words with no
    /// counterpart (default: on; off reproduces the textbook examples without it).
    pub null_word: bool,
}

impl Default for Ibm1Config {
    fn default() -> Self {
        Self {
            iterations: 5,
            null_word: true,
        }
    }
}

/// A direction of the model, for reports and alignments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// `t(target | source)`: target words explained by source words.
    SrcToTgt,
    /// `t(source | target)`.
    TgtToSrc,
}

/// What training reports after each EM iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainReport {
    /// The direction trained.
    pub direction: Direction,
    /// Iterations in each direction.
    pub iterations: usize,
    /// The iteration's numbers.
    pub report: IterationReport,
}

/// An IBM Model 1 in both directions over the token vocabularies of a parallel corpus.
#[derive(Debug)]
pub struct Ibm1 {
    config: Ibm1Config,
    segmenter: Segmenter,
    segment: Segment,
    src_vocab: Vocab,
    tgt_vocab: Vocab,
    /// `t(tgt | src)`: rows are source ids and NULL.
    fwd: TTable,
    /// `t(src | tgt)`: rows are target ids and NULL.
    bwd: TTable,
    pairs: usize,
}

impl Ibm1 {
    /// Train on line-parallel sentences, tokenized by `segmenter`.
    ///
    /// # Errors
    /// As [`Ibm1::train_tokens`]; a tokenizer that cannot be built.
    pub fn train<S: AsRef<str> + Sync>(
        config: &Ibm1Config,
        segmenter: Segmenter,
        src: &[S],
        tgt: &[S],
        report: &mut (dyn FnMut(TrainReport) + Send),
    ) -> Result<Self> {
        let segment = segmenter.build()?;
        let src = segment.tokens_batch(src)?;
        let tgt = segment.tokens_batch(tgt)?;
        Self::train_tokens(config, segmenter, &src, &tgt, report)
    }

    /// Train on sentences already cut into tokens; `segmenter` is what cut them, saved with the
    /// model to tokenize what it scores.
    ///
    /// # Errors
    /// [`Error::Invalid`] for sides of different lengths, no pairs, zero iterations, or a pair
    /// with an empty side (naming it); a token that a vocabulary cannot hold (tab, line break).
    pub fn train_tokens<S: AsRef<str>>(
        config: &Ibm1Config,
        segmenter: Segmenter,
        src: &[Vec<S>],
        tgt: &[Vec<S>],
        report: &mut (dyn FnMut(TrainReport) + Send),
    ) -> Result<Self> {
        if src.len() != tgt.len() {
            return Err(Error::Invalid(format!(
                "{} source and {} target sentences: IBM Model 1 trains on line-parallel pairs",
                src.len(),
                tgt.len()
            )));
        }
        if src.is_empty() {
            return Err(Error::Invalid("no sentence pairs to train on".into()));
        }
        if config.iterations == 0 {
            return Err(Error::Invalid(
                "IBM Model 1 needs at least one EM iteration".into(),
            ));
        }
        if let Some(i) = (0..src.len()).find(|&i| src[i].is_empty() || tgt[i].is_empty()) {
            let side = if src[i].is_empty() {
                "source"
            } else {
                "target"
            };
            return Err(Error::Invalid(format!(
                "pair {} has an empty {side} side: nothing to align",
                i + 1
            )));
        }
        let vocab = |side: &[Vec<S>]| -> Result<Vocab> {
            let mut counts = TokenCounter::new();
            side.iter().flatten().for_each(|t| counts.add(t.as_ref()));
            Ok(VocabBuilder::new().build(&counts)?)
        };
        let (src_vocab, tgt_vocab) = (vocab(src)?, vocab(tgt)?);
        let ids = |v: &Vocab, side: &[Vec<S>]| -> Vec<Vec<u32>> {
            side.iter().map(|s| v.encode(s)).collect()
        };
        let (s, t) = (ids(&src_vocab, src), ids(&tgt_vocab, tgt));
        let (ns, nt) = (src_vocab.len(), tgt_vocab.len());
        let iterations = config.iterations;
        // The two directions train at once (each also parallel inside); reports go through a
        // lock, in the order they come.
        let report = std::sync::Mutex::new(report);
        let direction = |d: Direction, a: &[Vec<u32>], b: &[Vec<u32>], shape| {
            TTable::train(a, b, shape, config.null_word, iterations, &mut |r| {
                if let Ok(mut f) = report.lock() {
                    f(TrainReport {
                        direction: d,
                        iterations,
                        report: r,
                    });
                }
            })
        };
        let (fwd, bwd) = rayon::join(
            || direction(Direction::SrcToTgt, &s, &t, (ns + 1, nt)),
            || direction(Direction::TgtToSrc, &t, &s, (nt + 1, ns)),
        );
        let (fwd, bwd) = (fwd?, bwd?);
        Ok(Self {
            config: config.clone(),
            segment: segmenter.build()?,
            segmenter,
            src_vocab,
            tgt_vocab,
            fwd,
            bwd,
            pairs: src.len(),
        })
    }

    /// The training options.
    #[must_use]
    pub fn config(&self) -> &Ibm1Config {
        &self.config
    }

    /// How sentences are cut into tokens.
    #[must_use]
    pub fn segmenter(&self) -> &Segmenter {
        &self.segmenter
    }

    /// Number of sentence pairs trained on.
    #[must_use]
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// Source and target vocabularies.
    #[must_use]
    pub fn vocabs(&self) -> (&Vocab, &Vocab) {
        (&self.src_vocab, &self.tgt_vocab)
    }

    /// Number of stored probabilities in each direction.
    #[must_use]
    pub fn entries(&self) -> (usize, usize) {
        (self.fwd.nnz(), self.bwd.nnz())
    }

    /// `t(tgt | src)` of two tokens; `src = None` is the NULL word. Zero for unknown tokens.
    #[must_use]
    pub fn t_fwd(&self, src: Option<&str>, tgt: &str) -> f64 {
        lookup(&self.fwd, &self.src_vocab, &self.tgt_vocab, src, tgt)
    }

    /// `t(src | tgt)` of two tokens; `tgt = None` is the NULL word.
    #[must_use]
    pub fn t_bwd(&self, tgt: Option<&str>, src: &str) -> f64 {
        lookup(&self.bwd, &self.tgt_vocab, &self.src_vocab, tgt, src)
    }

    /// `t(tgt | src)` of two tokens (shorthand for [`Ibm1::t_fwd`] with a source token).
    #[must_use]
    pub fn t(&self, src: &str, tgt: &str) -> f64 {
        self.t_fwd(Some(src), tgt)
    }

    /// The tokens of a sentence, as the model cuts them.
    ///
    /// # Errors
    /// The tokenizer's errors.
    pub fn tokens(&self, text: &str) -> Result<Vec<String>> {
        Ok(self.segment.tokens(text)?)
    }

    /// Token ids of a tokenized sentence on each side (unknown tokens: the vocabulary's unk,
    /// which has no probability).
    #[must_use]
    pub fn ids<S: AsRef<str>>(&self, src: &[S], tgt: &[S]) -> (Vec<u32>, Vec<u32>) {
        (self.src_vocab.encode(src), self.tgt_vocab.encode(tgt))
    }

    /// The score of two sentences (see the module docs).
    ///
    /// # Errors
    /// The tokenizer's errors; [`Error::Invalid`] when a side has no token.
    pub fn score(&self, src: &str, tgt: &str) -> Result<f64> {
        let (s, t) = (self.tokens(src)?, self.tokens(tgt)?);
        if s.is_empty() || t.is_empty() {
            return Err(Error::Invalid(format!(
                "cannot score {src:?} with {tgt:?}: a side has no token"
            )));
        }
        let (s, t) = self.ids(&s, &t);
        Ok(self.score_ids(&s, &t))
    }

    /// The score of two non-empty sentences of token ids (from [`Ibm1::ids`]).
    #[must_use]
    pub fn score_ids(&self, src: &[u32], tgt: &[u32]) -> f64 {
        self.side_score(Direction::SrcToTgt, src, tgt)
            + self.side_score(Direction::TgtToSrc, tgt, src)
    }

    /// The Viterbi alignment of one direction: for each word of the explained side, the
    /// position of the word on the other side with the highest `t` (`None`: the NULL word, or a
    /// token the model does not know). Ties go to NULL, then to the earlier position.
    #[must_use]
    pub fn viterbi(&self, direction: Direction, src: &[u32], tgt: &[u32]) -> Vec<Option<usize>> {
        let (table, given, explained) = match direction {
            Direction::SrcToTgt => (&self.fwd, src, tgt),
            Direction::TgtToSrc => (&self.bwd, tgt, src),
        };
        explained
            .iter()
            .map(|&e| {
                let mut best = if self.config.null_word {
                    table.get(table.null_row(), e)
                } else {
                    0.0
                };
                let mut at = None;
                for (i, &f) in given.iter().enumerate() {
                    let p = table.get(f, e);
                    if p > best {
                        best = p;
                        at = Some(i);
                    }
                }
                at
            })
            .collect()
    }

    /// The symmetrised word alignment of two sentences: links `(source token, target token)`.
    ///
    /// # Errors
    /// The tokenizer's errors.
    pub fn align(&self, src: &str, tgt: &str, how: Symmetrization) -> Result<Vec<(usize, usize)>> {
        let (s, t) = (self.tokens(src)?, self.tokens(tgt)?);
        let (s, t) = self.ids(&s, &t);
        Ok(self.align_ids(&s, &t, how))
    }

    /// [`Ibm1::align`] of sentences already cut into tokens (e.g. by another model's
    /// tokenizer; tokens the model never saw align to nothing).
    #[must_use]
    pub fn align_tokens<S: AsRef<str>>(
        &self,
        src: &[S],
        tgt: &[S],
        how: Symmetrization,
    ) -> Vec<(usize, usize)> {
        let (s, t) = self.ids(src, tgt);
        self.align_ids(&s, &t, how)
    }

    /// [`Ibm1::align_tokens`] of every pair `(src[k], tgt[k])`, pairs in parallel (e.g. the
    /// word links of a whole training corpus).
    #[must_use]
    pub fn align_all_tokens<S: AsRef<str> + Sync>(
        &self,
        src: &[Vec<S>],
        tgt: &[Vec<S>],
        how: Symmetrization,
    ) -> Vec<Vec<(usize, usize)>> {
        use rayon::prelude::*;
        src.par_iter()
            .zip(tgt)
            .map(|(s, t)| self.align_tokens(s, t, how))
            .collect()
    }

    /// [`Ibm1::align`] of token ids.
    #[must_use]
    pub fn align_ids(&self, src: &[u32], tgt: &[u32], how: Symmetrization) -> Vec<(usize, usize)> {
        let fwd = self.viterbi(Direction::SrcToTgt, src, tgt);
        let bwd = self.viterbi(Direction::TgtToSrc, src, tgt);
        symmetrize(&fwd, &bwd, how)
    }
}

fn lookup(table: &TTable, rows: &Vocab, cols: &Vocab, row: Option<&str>, col: &str) -> f64 {
    let row = match row {
        None => Some(table.null_row()),
        Some(w) => rows.id(w),
    };
    match (row, cols.id(col)) {
        (Some(r), Some(c)) => f64::from(table.get(r, c)),
        _ => 0.0,
    }
}

/// `1/m Σ_j log max(FLOOR, 1/(l+1) Σ_i t(e_j | f_i))`, looking each `t` up.
fn mean_log_prob(table: &TTable, given: &[u32], explained: &[u32], null: bool) -> f64 {
    let l = (given.len() + usize::from(null)) as f64;
    let total: f64 = explained
        .iter()
        .map(|&e| {
            // The same additions, in the same order, as `Explainer::fill`.
            let mut p = 0.0f64;
            for &f in given {
                p += f64::from(table.get(f, e));
            }
            if null {
                p += f64::from(table.get(table.null_row(), e));
            }
            (p / l).max(FLOOR).ln()
        })
        .sum();
    total / explained.len() as f64
}

/// `Σ_i t(e | f_i)` of one given sentence for every `e` at once, by walking the rows of its
/// words into a dense vector: the fast path when one sentence is scored against many (the
/// sums, and so the scores, are bit for bit those of [`mean_log_prob`]).
#[derive(Debug, Default)]
pub(crate) struct Explainer {
    dense: Vec<f64>,
}

impl Explainer {
    fn fill(&mut self, table: &TTable, given: &[u32], null: bool) {
        self.dense.resize(table.n_cols, 0.0);
        let rows = given.iter().copied().chain(null.then(|| table.null_row()));
        for r in rows {
            let (cols, prob) = table.row(r);
            for (&c, &p) in cols.iter().zip(prob) {
                self.dense[c as usize] += f64::from(p);
            }
        }
    }

    fn clear(&mut self, table: &TTable, given: &[u32], null: bool) {
        let rows = given.iter().copied().chain(null.then(|| table.null_row()));
        for r in rows {
            for &c in table.row(r).0 {
                self.dense[c as usize] = 0.0;
            }
        }
    }

    fn mean_log_prob(&self, l: usize, explained: &[u32]) -> f64 {
        let total: f64 = explained
            .iter()
            .map(|&e| {
                let p = self.dense.get(e as usize).copied().unwrap_or(0.0);
                (p / l as f64).max(FLOOR).ln()
            })
            .sum();
        total / explained.len() as f64
    }
}

impl Ibm1 {
    /// The mean log-probability per word of `explained` given `given`, in direction `dir`.
    pub(crate) fn side_score(&self, dir: Direction, given: &[u32], explained: &[u32]) -> f64 {
        mean_log_prob(self.table(dir), given, explained, self.config.null_word)
    }

    /// [`Ibm1::side_score`] of one given sentence with many explained ones.
    pub(crate) fn side_scores(
        &self,
        dir: Direction,
        given: &[u32],
        explained: &mut dyn Iterator<Item = &[u32]>,
        scratch: &mut Explainer,
    ) -> Vec<f64> {
        let (table, null) = (self.table(dir), self.config.null_word);
        scratch.fill(table, given, null);
        let l = given.len() + usize::from(null);
        let out = explained.map(|e| scratch.mean_log_prob(l, e)).collect();
        scratch.clear(table, given, null);
        out
    }

    fn table(&self, dir: Direction) -> &TTable {
        match dir {
            Direction::SrcToTgt => &self.fwd,
            Direction::TgtToSrc => &self.bwd,
        }
    }
}

#[cfg(test)]
mod tests;
