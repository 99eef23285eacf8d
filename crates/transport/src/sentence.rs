//! The bilingual sentence distance of Zhang et al. (2016), "Bilingual Sentence Distance": each
//! sentence is a bag of words weighted by TF-IDF (IDF from a reference corpus) and normalised
//! to sum 1, words sit at their bilingual embeddings, and the Earth Mover's Distance between
//! the two bags at Euclidean cost is the distance (lower = more parallel).
//!
//! # Tokens and unknown words
//!
//! Sentences come in as tokens (e.g. from `bitext_tokenize::WordTokenizer`). Each token is
//! lowercased (Unicode) when [`SentenceConfig::lowercase`] is on (the default, as the word
//! vectors of the shared data are lowercase), and tokens without a letter or digit
//! (punctuation, symbols) are left out when [`SentenceConfig::skip_punctuation`] is on (the
//! default). The remaining tokens are the sentence's words `l`; a word's term frequency counts
//! its repetitions.
//!
//! Words without an embedding follow the [`OovPolicy`]:
//! - [`OovPolicy::Drop`] (default): unknown words are removed before weighting, so the
//!   distance compares what the embeddings know about.
//! - [`OovPolicy::MatchIdentical`]: an unknown word stays in the bag with its TF-IDF weight.
//!   It costs nothing to move to the same string on the other side (names and numbers copied
//!   into a translation) and [`SentenceConfig::oov_cost`] to any other word.
//!
//! On the newstest en-de filtering task (`cargo xtask eval filter`, 22% of German and 15% of
//! English words outside the 10,000-word vocabularies) dropping is clearly better (77% vs 68%
//! at noise 0.2): rare unknown words get large IDF weights and a constant cost, which buries
//! the signal of the known words.
//!
//! A sentence without any token is an error ([`Error::Invalid`]). A sentence whose tokens are
//! all punctuation (or, with [`OovPolicy::Drop`], all unknown) has no words to move: its
//! distance to anything is [`SentenceConfig::oov_cost`], as far as unknown words are.

use std::sync::Arc;

use bitext_core::io::vec::WordVectors;

use crate::error::{Error, Result};
use crate::problem::{CostMatrix, Problem};
use crate::solver::{SolverSpec, TransportSolver};

/// Inverse document frequencies of one language, counted on a reference corpus (the IDF of
/// `bitext-encode`): build the tables with [`Idf::from_documents`] over the sentences' words as
/// [`SentenceDistance::words`] gives them.
pub use bitext_encode::Idf;

/// What happens to words without an embedding.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OovPolicy {
    /// Remove them before weighting.
    #[default]
    Drop,
    /// Keep them: free to match the identical string, [`SentenceConfig::oov_cost`] otherwise.
    MatchIdentical,
}

/// Options of the sentence distance; [`SentenceConfig::check`] validates them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SentenceConfig {
    /// Weight words by TF-IDF (with the IDF given to [`SentenceDistance::new`]); off: by term
    /// frequency alone (the paper's "w/o IDF").
    pub use_idf: bool,
    /// Unknown words.
    pub oov: OovPolicy,
    /// Cost of moving mass between an unknown word and a different word, in the units of the
    /// embedding distances (unit vectors are at most 2 apart).
    pub oov_cost: f64,
    /// Lowercase tokens before looking them up.
    pub lowercase: bool,
    /// Leave out tokens without a letter or digit.
    pub skip_punctuation: bool,
    /// The transport solver (default: the exact network simplex).
    pub solver: SolverSpec,
}

impl Default for SentenceConfig {
    fn default() -> Self {
        Self {
            use_idf: true,
            oov: OovPolicy::default(),
            oov_cost: 1.0,
            lowercase: true,
            skip_punctuation: true,
            solver: SolverSpec::default(),
        }
    }
}

impl SentenceConfig {
    /// Check the options.
    ///
    /// # Errors
    /// [`Error::Param`] for an OOV cost that is negative or not finite, or invalid solver
    /// parameters.
    pub fn check(&self) -> Result<()> {
        if !(self.oov_cost.is_finite() && self.oov_cost >= 0.0) {
            return Err(Error::Param(format!(
                "oov_cost must be finite and non-negative, got {}",
                self.oov_cost
            )));
        }
        self.solver.build()?;
        Ok(())
    }
}

/// One word of a bag: its embedding row, or the unknown word itself.
#[derive(Debug, Clone, PartialEq)]
enum Word {
    Known(usize),
    Unknown(String),
}

/// A sentence as a normalised bag of words.
#[derive(Debug, Clone, PartialEq)]
pub struct Bag {
    words: Vec<Word>,
    weights: Vec<f64>,
    /// `Σ w_i x_i` when every word has a vector (for the word centroid distance).
    centroid: Option<Vec<f64>>,
}

impl Bag {
    /// Number of distinct words.
    #[must_use]
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the bag holds no word (the sentence had only punctuation or unknown words).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The weights, summing to 1.
    #[must_use]
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }
}

/// Which language a sentence is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// The source language.
    Source,
    /// The target language.
    Target,
}

/// The sentence distance over two languages' word vectors (in one bilingual space).
///
/// ```
/// use std::sync::Arc;
/// use bitext_core::{Embeddings, io::vec::WordVectors};
/// use bitext_transport::sentence::{SentenceConfig, SentenceDistance};
/// # fn main() -> bitext_transport::Result<()> {
/// let de = WordVectors::new(vec!["hund".into(), "katze".into()],
///     Embeddings::from_rows([[1.0, 0.0], [0.0, 1.0]], 2)?)?;
/// let en = WordVectors::new(vec!["dog".into(), "cat".into()],
///     Embeddings::from_rows([[0.9, 0.1], [0.1, 0.9]], 2)?)?;
/// let d = SentenceDistance::new(Arc::new(de), Arc::new(en), None, SentenceConfig::default())?;
/// let mut solver = d.solver();
/// let near = d.distance_tokens(&["Hund", "!"], &["dog"], solver.as_mut())?;
/// let far = d.distance_tokens(&["Hund"], &["cat"], solver.as_mut())?;
/// assert!(near < far);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SentenceDistance {
    src: Arc<WordVectors>,
    tgt: Arc<WordVectors>,
    idf: Option<(Idf, Idf)>,
    config: SentenceConfig,
}

impl SentenceDistance {
    /// Build over source and target word vectors (same dimension) with IDF tables for both
    /// languages (needed when [`SentenceConfig::use_idf`] is on; `None` with IDF on weighs
    /// every word as if no reference corpus had seen it, i.e. by term frequency).
    ///
    /// # Errors
    /// [`Error::Shape`] for different dimensions; invalid options.
    pub fn new(
        src: Arc<WordVectors>,
        tgt: Arc<WordVectors>,
        idf: Option<(Idf, Idf)>,
        config: SentenceConfig,
    ) -> Result<Self> {
        config.check()?;
        if src.dim() != tgt.dim() {
            return Err(Error::Shape(format!(
                "source word vectors have dimension {}, target word vectors {}",
                src.dim(),
                tgt.dim()
            )));
        }
        Ok(Self {
            src,
            tgt,
            idf,
            config,
        })
    }

    /// The options.
    #[must_use]
    pub fn config(&self) -> &SentenceConfig {
        &self.config
    }

    /// A fresh solver for [`SentenceDistance::distance`] (one per thread).
    #[must_use]
    pub fn solver(&self) -> Box<dyn TransportSolver> {
        self.config
            .solver
            .build()
            .expect("solver parameters were checked in SentenceDistance::new")
    }

    /// The words of a tokenized sentence as this distance sees them: lowercased and without
    /// punctuation, per the options. Use it to build [`Idf`] tables.
    pub fn words<'a, T: AsRef<str> + 'a>(
        &self,
        tokens: impl IntoIterator<Item = &'a T>,
    ) -> Vec<String> {
        tokens
            .into_iter()
            .map(AsRef::as_ref)
            .filter(|t| !self.config.skip_punctuation || t.chars().any(char::is_alphanumeric))
            .map(|t| {
                if self.config.lowercase {
                    t.to_lowercase()
                } else {
                    t.to_string()
                }
            })
            .collect()
    }

    /// The weighted bag of a tokenized sentence in `lang`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there is no token.
    pub fn bag<T: AsRef<str>>(&self, lang: Lang, tokens: &[T]) -> Result<Bag> {
        if tokens.is_empty() {
            return Err(Error::Invalid("empty sentence: no token".into()));
        }
        let (vectors, idf) = match lang {
            Lang::Source => (&self.src, self.idf.as_ref().map(|i| &i.0)),
            Lang::Target => (&self.tgt, self.idf.as_ref().map(|i| &i.1)),
        };
        let mut tf: Vec<(String, f64)> = Vec::new();
        let mut words = self.words(tokens);
        words.sort_unstable();
        for w in words {
            match tf.last_mut() {
                Some((last, n)) if *last == w => *n += 1.0,
                _ => tf.push((w, 1.0)),
            }
        }
        let mut bag = Bag {
            words: Vec::with_capacity(tf.len()),
            weights: Vec::with_capacity(tf.len()),
            centroid: None,
        };
        for (w, n) in tf {
            let word = match vectors.index_of(&w) {
                Some(row) => Word::Known(row),
                None if self.config.oov == OovPolicy::Drop => continue,
                None => Word::Unknown(w.clone()),
            };
            let idf = match (self.config.use_idf, idf) {
                (true, Some(idf)) => idf.weight(&w),
                _ => 1.0,
            };
            bag.words.push(word);
            bag.weights.push(n * idf);
        }
        let total: f64 = bag.weights.iter().sum();
        bag.weights.iter_mut().for_each(|w| *w /= total);
        if !bag.is_empty() && bag.words.iter().all(|w| matches!(w, Word::Known(_))) {
            let mut c = vec![0.0; vectors.dim()];
            for (word, &wt) in bag.words.iter().zip(&bag.weights) {
                if let Word::Known(row) = word {
                    for (ci, &x) in c.iter_mut().zip(vectors.vectors().row(*row)) {
                        *ci += wt * f64::from(x);
                    }
                }
            }
            bag.centroid = Some(c);
        }
        Ok(bag)
    }

    /// A lower bound on [`SentenceDistance::distance`] in `O(d)`: the word centroid distance
    /// `‖Σ_i s_i x_i − Σ_j t_j y_j‖` when every word of both bags has a vector (Kusner et al.
    /// 2015), else 0.
    #[must_use]
    pub fn centroid_bound(&self, src: &Bag, tgt: &Bag) -> f64 {
        match (&src.centroid, &tgt.centroid) {
            (Some(a), Some(b)) => a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y) * (x - y))
                .sum::<f64>()
                .sqrt(),
            _ if src.is_empty() || tgt.is_empty() => self.config.oov_cost,
            _ => 0.0,
        }
    }

    /// The distance if it can be below `threshold`: the relaxed EMD (every word's mass moves
    /// to its cheapest counterpart, a lower bound in `O(k·l)` once the costs are known) is
    /// checked first, and `None` returned without solving when it reaches `threshold` (an
    /// infinite `threshold` skips the bound: that is [`SentenceDistance::distance`]).
    ///
    /// # Errors
    /// The solver's errors.
    pub fn distance_below(
        &self,
        src: &Bag,
        tgt: &Bag,
        threshold: f64,
        solver: &mut dyn TransportSolver,
    ) -> Result<Option<f64>> {
        if src.is_empty() || tgt.is_empty() {
            return Ok((self.config.oov_cost < threshold).then_some(self.config.oov_cost));
        }
        let cost = self.costs(src, tgt);
        let p = Problem::new(
            &src.weights,
            &tgt.weights,
            CostMatrix::new(&cost, src.len(), tgt.len())?,
        )?;
        if threshold < f64::INFINITY && crate::bounds::relaxed_cost(&p) >= threshold {
            return Ok(None);
        }
        Ok(Some(solver.solve_cost(&p)?))
    }

    /// The distance between two bags (source, target).
    ///
    /// # Errors
    /// The solver's errors.
    pub fn distance(&self, src: &Bag, tgt: &Bag, solver: &mut dyn TransportSolver) -> Result<f64> {
        let d = self.distance_below(src, tgt, f64::INFINITY, solver)?;
        Ok(d.expect("every distance is below +∞ (the OOV cost is finite, no bound is checked)"))
    }

    /// The distance between two tokenized sentences.
    ///
    /// # Errors
    /// As [`SentenceDistance::bag`] and [`SentenceDistance::distance`].
    pub fn distance_tokens<S: AsRef<str>, T: AsRef<str>>(
        &self,
        src: &[S],
        tgt: &[T],
        solver: &mut dyn TransportSolver,
    ) -> Result<f64> {
        let s = self.bag(Lang::Source, src)?;
        let t = self.bag(Lang::Target, tgt)?;
        self.distance(&s, &t, solver)
    }

    /// Euclidean costs between the bags' words; unknown words cost [`SentenceConfig::oov_cost`]
    /// except to the identical string.
    fn costs(&self, src: &Bag, tgt: &Bag) -> Vec<f64> {
        let (sv, tv) = (self.src.vectors(), self.tgt.vectors());
        let mut cost = Vec::with_capacity(src.len() * tgt.len());
        for s in &src.words {
            for t in &tgt.words {
                cost.push(match (s, t) {
                    (Word::Known(i), Word::Known(j)) => euclidean(sv.row(*i), tv.row(*j)),
                    _ if self.surface(s, Lang::Source) == self.surface(t, Lang::Target) => 0.0,
                    _ => self.config.oov_cost,
                });
            }
        }
        cost
    }

    /// The string of a word.
    fn surface<'a>(&'a self, w: &'a Word, lang: Lang) -> &'a str {
        match w {
            Word::Unknown(s) => s,
            Word::Known(row) => match lang {
                Lang::Source => &self.src.words()[*row],
                Lang::Target => &self.tgt.words()[*row],
            },
        }
    }
}

/// `‖x − y‖` accumulated in `f64`, eight lanes at a time (vectorised).
fn euclidean(x: &[f32], y: &[f32]) -> f64 {
    const L: usize = 8;
    let mut acc = [0.0f64; L];
    let (xc, yc) = (x.chunks_exact(L), y.chunks_exact(L));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (a, b) in xc.zip(yc) {
        for l in 0..L {
            let d = f64::from(a[l]) - f64::from(b[l]);
            acc[l] += d * d;
        }
    }
    let mut sum: f64 = acc.iter().sum();
    for (a, b) in xr.iter().zip(yr) {
        let d = f64::from(*a) - f64::from(*b);
        sum += d * d;
    }
    sum.sqrt()
}
