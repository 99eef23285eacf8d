//! [`Features`]: the built features of a list of [`FeatureSpec`]s, computed per batch of pairs
//! into a [`Matrix`] (one column per feature column, a missing value as `NaN` beside its
//! `_missing` flag).
//!
//! Each feature is the workspace's own scorer: the length ratio and Levenshtein of
//! `bitext-lexical` through [`ScorerSpec::sentence_scorers`], IBM Model 1's two directions
//! ([`Ibm1Scorer::directions`]), the rule flags ([`Rules::failures`]), the numbers of
//! `bitext-clean`, a language identifier, and an encoder's cosine
//! ([`Cosines`], a zero row missing). What this crate cannot build (neural models, ONNX graphs)
//! comes from the caller's [`Backends`] (`bitext::build::classifier_backends`).

use std::path::Path;
use std::sync::Arc;

use bitext_clean::{Rule, Rules, numbers};
use bitext_encode::{EncoderSpec, NoKnownWord, SentenceEncoder, Side};
use bitext_lexical::{Ibm1, Ibm1Scorer};
use bitext_lid::{FastText, LanguageIdentifier};
use bitext_mine::ScorerSpec;
use bitext_similarity::{Cosines, PairScorer};

use crate::error::{Error, Result};
use crate::feature::{FeatureSpec, rule_columns};

/// The scorer of a batch of (source, target) sentences, as `bitext::build::batch_scorers`
/// builds it.
pub type BatchScorers =
    Box<dyn Fn(&[&str], &[&str]) -> std::result::Result<Box<dyn PairScorer>, String> + Send + Sync>;

/// What builds the features this crate cannot: neural scorers and encoders of every kind
/// (`bitext::build` implements it).
pub trait Backends: Send + Sync {
    /// The scorer of batches for a spec of sentences.
    ///
    /// # Errors
    /// The spec does not build (a missing model, a feature this build lacks), in words.
    fn scorers(&self, spec: &ScorerSpec) -> std::result::Result<BatchScorers, String>;

    /// The encoder of a spec.
    ///
    /// # Errors
    /// As [`Backends::scorers`].
    fn encoder(&self, spec: &EncoderSpec) -> std::result::Result<Box<dyn SentenceEncoder>, String>;
}

/// Backends that build only what needs no neural model or ONNX graph (`bow:` encoders and the
/// scorers of `bitext-mine`): for tests and for builds without the heavy features.
#[derive(Debug, Clone, Copy, Default)]
pub struct LightBackends;

impl Backends for LightBackends {
    fn scorers(&self, spec: &ScorerSpec) -> std::result::Result<BatchScorers, String> {
        let built = spec
            .sentence_scorers(None::<(&[&str], &[&str])>)
            .map_err(|e| e.to_string())?;
        Ok(Box::new(move |s, t| {
            built.build(s, t).map_err(|e| e.to_string())
        }))
    }

    fn encoder(&self, spec: &EncoderSpec) -> std::result::Result<Box<dyn SentenceEncoder>, String> {
        Ok(Box::new(
            spec.build_bow(None::<&[&str]>).map_err(|e| e.to_string())?,
        ))
    }
}

/// Feature values of a batch, column by column (`columns[c][i]`: column `c` of pair `i`;
/// `NaN` where a value is missing).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Matrix {
    /// The columns' names.
    pub names: Vec<String>,
    /// The columns.
    pub columns: Vec<Vec<f64>>,
}

impl Matrix {
    /// The number of rows (pairs).
    #[must_use]
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// Row `i` as a vector.
    #[must_use]
    pub fn row(&self, i: usize) -> Vec<f64> {
        self.columns.iter().map(|c| c[i]).collect()
    }

    /// Append the rows of `other` (same columns).
    ///
    /// # Errors
    /// [`Error::Invalid`] when the columns differ.
    pub fn extend(&mut self, other: Matrix) -> Result<()> {
        if self.columns.is_empty() {
            *self = other;
            return Ok(());
        }
        if self.names != other.names {
            return Err(Error::Invalid(
                "feature matrices of different columns".into(),
            ));
        }
        for (a, b) in self.columns.iter_mut().zip(other.columns) {
            a.extend(b);
        }
        Ok(())
    }
}

/// One built feature.
enum Part {
    Scorer(BatchScorers),
    Encoder(Box<dyn SentenceEncoder>),
    Ibm1(Arc<Ibm1>),
    Lid(Arc<FastText>, String, String),
    Rules(Rules, Vec<Rule>),
    Numbers,
    Punctuation,
}

/// The built features of a classifier, in the order of its specs.
pub struct Features {
    specs: Vec<FeatureSpec>,
    parts: Vec<Part>,
    names: Vec<String>,
}

impl std::fmt::Debug for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Features")
            .field("specs", &self.specs)
            .field("names", &self.names)
            .finish()
    }
}

impl Features {
    /// Build `specs`, their relative paths read from `base` (a classifier's directory).
    ///
    /// # Errors
    /// [`Error::Feature`] naming the feature whose model, table or spec does not load.
    pub fn build(specs: &[FeatureSpec], base: &Path, backends: &dyn Backends) -> Result<Self> {
        if specs.is_empty() {
            return Err(Error::Invalid(
                "a classifier needs at least one feature".into(),
            ));
        }
        let mut parts = Vec::with_capacity(specs.len());
        let mut names = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for spec in specs {
            spec.check()?;
            let fail = |reason: String| Error::Feature {
                feature: spec.to_string(),
                reason,
            };
            // Two features of one name (two encoders) are told apart: `cosine`, `cosine_2`.
            let first = spec.columns(1).into_iter().next().unwrap_or_default();
            seen.push(first.clone());
            let index = seen.iter().filter(|k| **k == first).count();
            names.extend(spec.columns(index));
            let part = match spec.resolved(base) {
                FeatureSpec::Scorer { scorer } => {
                    Part::Scorer(backends.scorers(&scorer).map_err(fail)?)
                }
                FeatureSpec::Encoder { encoder } => Part::Encoder(
                    backends
                        .encoder(&encoder.with_no_known_word(NoKnownWord::Zero))
                        .map_err(fail)?,
                ),
                FeatureSpec::Ibm1 { model } => Part::Ibm1(Arc::new(
                    Ibm1::load(&model).map_err(|e| fail(e.to_string()))?,
                )),
                FeatureSpec::Lid {
                    model,
                    src_lang,
                    tgt_lang,
                } => {
                    let lid = FastText::open(&model).map_err(|e| fail(e.to_string()))?;
                    for lang in [&src_lang, &tgt_lang] {
                        if !lid.languages().iter().any(|l| l == lang) {
                            return Err(fail(format!(
                                "{} does not know the language {lang:?}",
                                model.display()
                            )));
                        }
                    }
                    Part::Lid(Arc::new(lid), src_lang, tgt_lang)
                }
                FeatureSpec::Rules { rules } => {
                    let on = rule_columns(&rules);
                    Part::Rules(rules, on)
                }
                FeatureSpec::Numbers => Part::Numbers,
                FeatureSpec::Punctuation => Part::Punctuation,
            };
            parts.push(part);
        }
        Ok(Self {
            specs: specs.to_vec(),
            parts,
            names,
        })
    }

    /// The specs, as given.
    #[must_use]
    pub fn specs(&self) -> &[FeatureSpec] {
        &self.specs
    }

    /// The columns' names.
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The features of each pair `(src[i], tgt[i])`.
    ///
    /// # Errors
    /// Sides of different lengths; [`Error::Feature`] when a scorer or encoder fails on the
    /// batch.
    pub fn compute(&self, src: &[&str], tgt: &[&str]) -> Result<Matrix> {
        if src.len() != tgt.len() {
            return Err(Error::Invalid(format!(
                "{} source and {} target sentences",
                src.len(),
                tgt.len()
            )));
        }
        let mut columns = Vec::with_capacity(self.names.len());
        for (spec, part) in self.specs.iter().zip(&self.parts) {
            let fail = |reason: String| Error::Feature {
                feature: spec.to_string(),
                reason,
            };
            match part {
                Part::Scorer(build) => {
                    let [score, missing] = with_text(src, tgt, |s, t| {
                        let scorer = build(s, t)?;
                        let pairs: Vec<(usize, usize)> = (0..s.len()).map(|i| (i, i)).collect();
                        scorer.score(&pairs).map_err(|e| e.to_string())
                    })
                    .map_err(fail)?;
                    columns.extend([score, missing]);
                }
                Part::Encoder(encoder) => {
                    columns.extend(cosines(encoder.as_ref(), src, tgt).map_err(fail)?)
                }
                Part::Ibm1(model) => columns.extend(ibm1(model, src, tgt).map_err(fail)?),
                Part::Lid(lid, sl, tl) => {
                    let p = |texts: &[&str], lang: &str| -> Vec<f64> {
                        texts
                            .iter()
                            .map(|t| f64::from(lid.probability(t, lang)))
                            .collect()
                    };
                    columns.extend([p(src, sl), p(tgt, tl)]);
                }
                Part::Rules(rules, on) => {
                    let first = columns.len();
                    columns.extend(on.iter().map(|_| Vec::with_capacity(src.len())));
                    for (s, t) in src.iter().zip(tgt) {
                        for (c, failed) in rules.failures(on, s, t, None).into_iter().enumerate() {
                            columns[first + c].push(f64::from(u8::from(failed)));
                        }
                    }
                }
                Part::Numbers => columns.push(
                    src.iter()
                        .zip(tgt)
                        .map(|(s, t)| number_agreement(s, t))
                        .collect(),
                ),
                Part::Punctuation => columns.push(
                    src.iter()
                        .zip(tgt)
                        .map(|(s, t)| punctuation_agreement(s, t))
                        .collect(),
                ),
            }
        }
        Ok(Matrix {
            names: self.names.clone(),
            columns,
        })
    }
}

/// `score` over the pairs whose two sides hold text; the others missing (`NaN`, flag 1).
fn with_text(
    src: &[&str],
    tgt: &[&str],
    score: impl FnOnce(&[&str], &[&str]) -> std::result::Result<Vec<f64>, String>,
) -> std::result::Result<[Vec<f64>; 2], String> {
    let keep: Vec<usize> = (0..src.len())
        .filter(|&i| !src[i].trim().is_empty() && !tgt[i].trim().is_empty())
        .collect();
    let mut values = vec![f64::NAN; src.len()];
    let mut missing = vec![1.0; src.len()];
    if !keep.is_empty() {
        let s: Vec<&str> = keep.iter().map(|&i| src[i]).collect();
        let t: Vec<&str> = keep.iter().map(|&i| tgt[i]).collect();
        for (&i, v) in keep.iter().zip(score(&s, &t)?) {
            values[i] = v;
            missing[i] = 0.0;
        }
    }
    Ok([values, missing])
}

/// The cosine of each pair's vectors ([`Cosines`]), missing where a side is a zero row.
fn cosines(
    encoder: &dyn SentenceEncoder,
    src: &[&str],
    tgt: &[&str],
) -> std::result::Result<[Vec<f64>; 2], String> {
    let s = encoder
        .encode(Side::Source, src)
        .map_err(|e| e.to_string())?;
    let t = encoder
        .encode(Side::Target, tgt)
        .map_err(|e| e.to_string())?;
    let zero = |m: &bitext_core::Embeddings, i: usize| m.row(i).iter().all(|&x| x == 0.0);
    let missing: Vec<f64> = (0..src.len())
        .map(|i| f64::from(u8::from(zero(&s, i) || zero(&t, i))))
        .collect();
    let pairs: Vec<(usize, usize)> = (0..src.len()).map(|i| (i, i)).collect();
    let scores = Cosines::new(s, t)
        .and_then(|c| c.score(&pairs))
        .map_err(|e| e.to_string())?;
    let values = scores
        .into_iter()
        .zip(&missing)
        .map(|(v, &m)| if m > 0.0 { f64::NAN } else { v })
        .collect();
    Ok([values, missing])
}

/// IBM Model 1's two directions, missing where a side has no token.
fn ibm1(
    model: &Arc<Ibm1>,
    src: &[&str],
    tgt: &[&str],
) -> std::result::Result<[Vec<f64>; 3], String> {
    let tokens = |t: &str| model.tokens(t).map_err(|e| e.to_string());
    let mut keep = Vec::new();
    let (mut s_tok, mut t_tok) = (Vec::new(), Vec::new());
    for i in 0..src.len() {
        let (s, t) = (tokens(src[i])?, tokens(tgt[i])?);
        if !s.is_empty() && !t.is_empty() {
            keep.push(i);
            s_tok.push(s);
            t_tok.push(t);
        }
    }
    let mut fwd = vec![f64::NAN; src.len()];
    let mut bwd = vec![f64::NAN; src.len()];
    let mut missing = vec![1.0; src.len()];
    if !keep.is_empty() {
        let scorer = Ibm1Scorer::from_tokens(Arc::clone(model), &s_tok, &t_tok)
            .map_err(|e| e.to_string())?;
        let pairs: Vec<(usize, usize)> = (0..keep.len()).map(|k| (k, k)).collect();
        let (f, b) = scorer.directions(&pairs);
        for (k, &i) in keep.iter().enumerate() {
            fwd[i] = f[k];
            bwd[i] = b[k];
            missing[i] = 0.0;
        }
    }
    Ok([fwd, bwd, missing])
}

/// Numbers both sides share over the numbers either holds (1 when neither holds one).
#[must_use]
pub fn number_agreement(src: &str, tgt: &str) -> f64 {
    overlap(&numbers(src), &numbers(tgt), true)
}

/// Punctuation marks both sides hold over the larger side's count (1 when neither holds one);
/// marks are compared as they are, but the quotes of every language count as one mark.
#[must_use]
pub fn punctuation_agreement(src: &str, tgt: &str) -> f64 {
    let marks = |t: &str| -> Vec<String> {
        let mut v: Vec<String> = t
            .chars()
            .filter(|c| c.is_ascii_punctuation() || (!c.is_alphanumeric() && !c.is_whitespace()))
            .map(|c| match c {
                '"' | '\'' | '«' | '»' | '„' | '“' | '”' | '‘' | '’' | '‚' | '‹' | '›' => {
                    "\"".into()
                }
                c => c.to_string(),
            })
            .collect();
        v.sort();
        v
    };
    overlap(&marks(src), &marks(tgt), false)
}

/// The overlap of two sorted multisets: common items over the union (`jaccard`) or over the
/// larger one; 1 when both are empty.
fn overlap(a: &[String], b: &[String], jaccard: bool) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let whole = if jaccard {
        a.len() + b.len() - common
    } else {
        a.len().max(b.len())
    };
    common as f64 / whole as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_agree_across_formats() {
        assert_eq!(number_agreement("1.000,5 km", "1,000.5 km"), 1.0);
        assert_eq!(number_agreement("kein", "none"), 1.0);
        assert_eq!(number_agreement("3 und 4", "3 and 5"), 1.0 / 3.0);
        assert_eq!(number_agreement("3", "none"), 0.0);
    }

    #[test]
    fn punctuation_counts_common_marks() {
        assert_eq!(punctuation_agreement("Ja, gut.", "Yes, good."), 1.0);
        assert_eq!(punctuation_agreement("„Ja“", "\"Yes\""), 1.0);
        assert_eq!(punctuation_agreement("Ja, gut!", "Yes good."), 0.0);
        assert_eq!(punctuation_agreement("a", "b"), 1.0);
        assert_eq!(punctuation_agreement("a, b, c.", "a, b."), 2.0 / 3.0);
    }
}
