//! The lexical baselines as [`PairScorer`]s over two lists of sentences: [`Ibm1Scorer`]
//! (Khadivi & Ney's score in both directions), [`LevenshteinScorer`] (one minus the
//! length-normalised character edit distance) and [`LengthRatioScorer`] (shorter length over
//! longer, in characters or word tokens). Higher means more parallel for all three.

use std::cmp::Ordering;
use std::sync::Arc;

use bitext_similarity::PairScorer;
use bitext_tokenize::WordTokenizer;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::ibm1::{Direction, Explainer, Ibm1};
use crate::levenshtein::Pattern;

/// Pairs scored per parallel task.
const CHUNK: usize = 256;

/// Pairs sharing one given sentence from which [`Ibm1Scorer`] computes that sentence's
/// probabilities for every word at once instead of looking each up.
const DENSE_MIN: usize = 16;

/// An error naming the first empty sentence of a side.
fn check_non_empty(side: &str, lens: impl Iterator<Item = usize>) -> Result<()> {
    for (i, n) in lens.enumerate() {
        if n == 0 {
            return Err(Error::Invalid(format!(
                "{side} sentence {} is empty (no token or character to compare)",
                i + 1
            )));
        }
    }
    Ok(())
}

/// Scores pairs with an [`Ibm1`] model: the length-normalised log-probability of each side given
/// the other, summed (at most 0; see [`crate::ibm1`]).
#[derive(Debug, Clone)]
pub struct Ibm1Scorer {
    model: Arc<Ibm1>,
    src: Vec<Vec<u32>>,
    tgt: Vec<Vec<u32>>,
}

impl Ibm1Scorer {
    /// Tokenize both lists of sentences with the model's segmenter.
    ///
    /// # Errors
    /// The tokenizer's errors; [`Error::Invalid`] naming the first sentence without a token.
    pub fn new<S: AsRef<str> + Sync>(model: Arc<Ibm1>, src: &[S], tgt: &[S]) -> Result<Self> {
        let tokens = |side: &[S]| -> Result<Vec<Vec<String>>> {
            side.par_iter().map(|s| model.tokens(s.as_ref())).collect()
        };
        let (src, tgt) = (tokens(src)?, tokens(tgt)?);
        Self::from_tokens(model, &src, &tgt)
    }

    /// Build over sentences already cut into tokens (as the model's segmenter would).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first sentence without a token.
    pub fn from_tokens<S: AsRef<str> + Sync>(
        model: Arc<Ibm1>,
        src: &[Vec<S>],
        tgt: &[Vec<S>],
    ) -> Result<Self> {
        let (a, b) = model.vocabs();
        let src: Vec<Vec<u32>> = src.par_iter().map(|s| a.encode(s)).collect();
        let tgt: Vec<Vec<u32>> = tgt.par_iter().map(|t| b.encode(t)).collect();
        check_non_empty("source", src.iter().map(Vec::len))?;
        check_non_empty("target", tgt.iter().map(Vec::len))?;
        Ok(Self { model, src, tgt })
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &Ibm1 {
        &self.model
    }
}

impl PairScorer for Ibm1Scorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        let (fwd, bwd) = self.directions(pairs);
        Ok(fwd.iter().zip(bwd).map(|(a, b)| a + b).collect())
    }
}

impl Ibm1Scorer {
    /// The two parts of the scores of `pairs`: the target given the source, and the source
    /// given the target (each length-normalised; the score is their sum). Indices must be in
    /// range ([`PairScorer::score`] checks them).
    #[must_use]
    pub fn directions(&self, pairs: &[(usize, usize)]) -> (Vec<f64>, Vec<f64>) {
        (
            self.side(pairs, Direction::SrcToTgt),
            self.side(pairs, Direction::TgtToSrc),
        )
    }

    /// One direction's part of the scores of `pairs`. Pairs are grouped by the sentence
    /// given; a sentence given in at least [`DENSE_MIN`] pairs has its probabilities for every
    /// word computed at once ([`crate::ibm1::Explainer`]), the others look each one up. Both
    /// paths give the same bits.
    fn side(&self, pairs: &[(usize, usize)], dir: Direction) -> Vec<f64> {
        let (given, explained) = match dir {
            Direction::SrcToTgt => (&self.src, &self.tgt),
            Direction::TgtToSrc => (&self.tgt, &self.src),
        };
        let key = |k: usize| match dir {
            Direction::SrcToTgt => pairs[k],
            Direction::TgtToSrc => (pairs[k].1, pairs[k].0),
        };
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by_key(|&k| key(k).0);
        let groups: Vec<&[usize]> = order.chunk_by(|&a, &b| key(a).0 == key(b).0).collect();
        let parts: Vec<Vec<(usize, f64)>> = groups
            .par_iter()
            .map_init(Explainer::default, |scratch, g| {
                let g_ids = &given[key(g[0]).0];
                if g.len() >= DENSE_MIN {
                    let mut e = g.iter().map(|&k| explained[key(k).1].as_slice());
                    let s = self.model.side_scores(dir, g_ids, &mut e, scratch);
                    g.iter().copied().zip(s).collect()
                } else {
                    g.iter()
                        .map(|&k| (k, self.model.side_score(dir, g_ids, &explained[key(k).1])))
                        .collect()
                }
            })
            .collect();
        let mut out = vec![0.0; pairs.len()];
        for (k, v) in parts.into_iter().flatten() {
            out[k] = v;
        }
        out
    }
}

/// Scores pairs by `1 - d / max(|s|, |t|)`, `d` the character-level Levenshtein distance
/// (Kim et al. 2019's alignment-recovery baseline): 1 for identical sentences, 0 for sentences
/// sharing nothing.
#[derive(Debug, Clone)]
pub struct LevenshteinScorer {
    src: Vec<Pattern>,
    tgt: Vec<Vec<char>>,
}

impl LevenshteinScorer {
    /// Prepare both lists of sentences.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first empty sentence.
    pub fn new<S: AsRef<str> + Sync>(src: &[S], tgt: &[S]) -> Result<Self> {
        let chars = |side: &[S]| -> Vec<Vec<char>> {
            side.par_iter()
                .map(|s| s.as_ref().chars().collect())
                .collect()
        };
        let (s, tgt) = (chars(src), chars(tgt));
        check_non_empty("source", s.iter().map(Vec::len))?;
        check_non_empty("target", tgt.iter().map(Vec::len))?;
        let src = s.par_iter().map(|c| Pattern::new(c)).collect();
        Ok(Self { src, tgt })
    }

    /// The edit distance and the longer length of a pair in range.
    fn distance(&self, s: usize, t: usize) -> (usize, usize) {
        let (p, text) = (&self.src[s], &self.tgt[t]);
        (p.distance(text), p.len().max(text.len()))
    }

    /// The target nearest to source sentence `i` (smallest normalised distance, ties to the
    /// lower index) with that distance, found with the bounded distance: targets are visited
    /// by their length bound `|s - t| / max(s, t)`, which stops the search, and each distance
    /// is computed only as far as it can still beat the best so far. `None` when `i` is out of
    /// range.
    #[must_use]
    pub fn nearest(&self, i: usize) -> Option<(usize, f64)> {
        let p = self.src.get(i)?;
        let ls = p.len();
        // Fractions d / len compared exactly by cross-multiplication.
        let cmp = |(d1, l1): (usize, usize), (d2, l2): (usize, usize)| (d1 * l2).cmp(&(d2 * l1));
        let mut order: Vec<((usize, usize), usize)> = self
            .tgt
            .iter()
            .enumerate()
            .map(|(j, t)| ((ls.abs_diff(t.len()), ls.max(t.len())), j))
            .collect();
        order.sort_by(|a, b| cmp(a.0, b.0).then(a.1.cmp(&b.1)));
        let mut best: Option<((usize, usize), usize)> = None;
        for (bound, j) in order {
            let limit = match best {
                Some((b, _)) if cmp(bound, b) == Ordering::Greater => break,
                // Largest d with d / len ≤ best.
                Some(((bd, bl), _)) => bd * bound.1 / bl,
                None => usize::MAX,
            };
            let Some(d) = p.within(&self.tgt[j], limit) else {
                continue;
            };
            let cand = (d, bound.1);
            let better = match best {
                None => true,
                Some((b, bj)) => match cmp(cand, b) {
                    Ordering::Less => true,
                    Ordering::Equal => j < bj,
                    Ordering::Greater => false,
                },
            };
            if better {
                best = Some((cand, j));
            }
        }
        best.map(|((d, l), j)| (j, d as f64 / l as f64))
    }

    /// [`LevenshteinScorer::nearest`] of every source sentence, in parallel.
    #[must_use]
    pub fn nearest_all(&self) -> Vec<(usize, f64)> {
        (0..self.src.len())
            .into_par_iter()
            .filter_map(|i| self.nearest(i))
            .collect()
    }
}

impl PairScorer for LevenshteinScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        Ok(pairs
            .par_iter()
            .with_min_len(CHUNK)
            .map(|&(s, t)| {
                let (d, l) = self.distance(s, t);
                1.0 - d as f64 / l as f64
            })
            .collect())
    }
}

/// What [`LengthRatioScorer`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LengthUnit {
    /// Unicode scalar values (bicleaner's length ratio).
    #[default]
    Chars,
    /// Tokens of the default [`WordTokenizer`] (punctuation counts as a token).
    Tokens,
}

/// Scores pairs by `min(|s|, |t|) / max(|s|, |t|)`, in `(0, 1]`: the usual first filter of
/// bicleaner and of the siamese paper's candidate filter (a pair whose length ratio exceeds
/// 2 scores below 0.5).
#[derive(Debug, Clone)]
pub struct LengthRatioScorer {
    unit: LengthUnit,
    src: Vec<usize>,
    tgt: Vec<usize>,
}

impl LengthRatioScorer {
    /// Measure both lists of sentences.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first sentence of length 0.
    pub fn new<S: AsRef<str> + Sync>(unit: LengthUnit, src: &[S], tgt: &[S]) -> Result<Self> {
        let words = WordTokenizer::default();
        let len = |s: &S| match unit {
            LengthUnit::Chars => s.as_ref().chars().count(),
            LengthUnit::Tokens => words.tokenize(s.as_ref()).len(),
        };
        let src: Vec<usize> = src.par_iter().map(len).collect();
        let tgt: Vec<usize> = tgt.par_iter().map(len).collect();
        check_non_empty("source", src.iter().copied())?;
        check_non_empty("target", tgt.iter().copied())?;
        Ok(Self { unit, src, tgt })
    }

    /// What it counts.
    #[must_use]
    pub fn unit(&self) -> LengthUnit {
        self.unit
    }
}

impl PairScorer for LengthRatioScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        Ok(pairs
            .iter()
            .map(|&(s, t)| {
                let (a, b) = (self.src[s], self.tgt[t]);
                a.min(b) as f64 / a.max(b) as f64
            })
            .collect())
    }
}
