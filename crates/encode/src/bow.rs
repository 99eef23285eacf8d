//! The bag-of-words encoder: a sentence is the (optionally TF-IDF weighted) mean of the
//! bilingual word embeddings of its words — the classic no-training baseline of bilingual
//! sentence embeddings.
//!
//! # Out-of-vocabulary policy
//!
//! 1. Sentences are split by [`WordTokenizer`] (HTML entities unescaped, punctuation split off,
//!    lowercased by default because `.vec` vocabularies such as MUSE's are lowercase), or, with
//!    [`BowEncoderBuilder::segment`], by any [`Segment`]: the pieces of a sentencepiece model
//!    looked up in a `.vec` file of piece vectors (a subword bag of words, which covers nearly
//!    every token where word vocabularies miss rare and inflected words).
//! 2. Each token is looked up in the vocabulary of its side (one `.vec` file per language).
//!    A token that is not there is out of vocabulary: it contributes nothing to the mean and
//!    is counted in [`Coverage`]. There is no fallback vector and no subword guess.
//! 3. The sentence vector is `Σ wₜ v(t) / Σ wₜ` over its known tokens (occurrences counted, so
//!    a repeated word weighs more), with `wₜ = 1` ([`Weighting::Mean`]) or `wₜ = idf(t)`
//!    ([`Weighting::TfIdf`], see [`crate::Idf`]); then L2-normalised unless
//!    [`BowEncoderBuilder::normalize`] turns that off.
//! 4. A sentence with no known token has no embedding. By default
//!    ([`NoKnownWord::Error`]) encoding fails with [`Error::NoKnownWord`], naming the side, the
//!    sentence's position and its text; with [`NoKnownWord::Zero`] it gets a zero row instead
//!    and [`BowEncoder::encode_with_coverage`] lists it, so the caller always sees which
//!    sentences had none.

use std::sync::Arc;

use bitext_core::io::vec::{WordVectors, read_vec};
use bitext_core::{Embeddings, normalize_row};
use bitext_tokenize::{Segment, WordConfig, WordTokenizer};

pub use crate::encoder::NoKnownWord;
use crate::encoder::{SentenceEncoder, Side};
use crate::error::{Error, Result};
use crate::idf::Idf;

/// How the word vectors of a sentence are weighted.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Weighting {
    /// Every known token weighs 1 (the plain mean).
    #[default]
    Mean,
    /// Every known token weighs its IDF, so a word's weight is `tf × idf`.
    TfIdf,
}

/// How much of a batch of sentences the vocabulary covered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Tokens seen.
    pub tokens: usize,
    /// Tokens found in the vocabulary.
    pub known: usize,
    /// Positions (in the encoded batch) of sentences with no known token.
    pub no_known_word: Vec<usize>,
}

/// One side's vocabulary and token weights.
#[derive(Debug, Clone)]
struct SideVectors {
    vectors: Arc<WordVectors>,
    /// IDF of each vocabulary row (TF-IDF weighting only).
    idf: Option<Vec<f32>>,
}

/// The bag-of-words encoder (see the module docs for the out-of-vocabulary policy).
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_core::io::vec::WordVectors;
/// use bitext_encode::{BowEncoder, SentenceEncoder, Side};
/// # fn main() -> bitext_encode::Result<()> {
/// let wv = |words: &[&str], rows: &[[f32; 2]]| {
///     WordVectors::new(
///         words.iter().map(|w| w.to_string()).collect(),
///         Embeddings::from_rows(rows.iter(), 2).unwrap(),
///     )
///     .unwrap()
/// };
/// let de = wv(&["hund", "katze"], &[[1.0, 0.0], [0.0, 1.0]]);
/// let en = wv(&["dog", "cat"], &[[1.0, 0.0], [0.0, 1.0]]);
/// let enc = BowEncoder::builder(de, en).build()?;
/// let e = enc.encode(Side::Source, &["Hund , Katze !"])?;
/// let h = 0.5f32.sqrt();
/// assert!((e.row(0)[0] - h).abs() < 1e-6 && (e.row(0)[1] - h).abs() < 1e-6);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct BowEncoder {
    src: SideVectors,
    trg: SideVectors,
    segment: Segment,
    weighting: Weighting,
    no_known_word: NoKnownWord,
    normalize: bool,
}

/// Builds a [`BowEncoder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct BowEncoderBuilder {
    src: Arc<WordVectors>,
    trg: Arc<WordVectors>,
    lowercase: bool,
    segment: Option<Segment>,
    idf: Option<(Idf, Idf)>,
    idf_corpora: Option<(Vec<String>, Vec<String>)>,
    no_known_word: NoKnownWord,
    normalize: bool,
}

impl BowEncoderBuilder {
    /// Lowercase tokens before lookup (default: on; words only, a [`Self::segment`] keeps
    /// its own normalisation).
    pub fn lowercase(mut self, on: bool) -> Self {
        self.lowercase = on;
        self
    }

    /// Cut sentences with `segment` instead of the word tokenizer, e.g. the pieces of a
    /// sentencepiece model over a `.vec` file keyed by those pieces.
    pub fn segment(mut self, segment: Segment) -> Self {
        self.segment = Some(segment);
        self
    }

    /// Weight tokens by IDF counted over reference sentences of each side (one document per
    /// sentence; see [`crate::Idf`]).
    pub fn tfidf<S: AsRef<str>>(mut self, src_reference: &[S], trg_reference: &[S]) -> Self {
        let own = |v: &[S]| v.iter().map(|s| s.as_ref().to_owned()).collect();
        self.idf_corpora = Some((own(src_reference), own(trg_reference)));
        self.idf = None;
        self
    }

    /// Weight tokens by precomputed document frequencies.
    pub fn tfidf_from(mut self, src: Idf, trg: Idf) -> Self {
        self.idf = Some((src, trg));
        self.idf_corpora = None;
        self
    }

    /// What a sentence without a known word becomes (default: an error).
    pub fn no_known_word(mut self, policy: NoKnownWord) -> Self {
        self.no_known_word = policy;
        self
    }

    /// L2-normalise sentence vectors (default: on).
    pub fn normalize(mut self, on: bool) -> Self {
        self.normalize = on;
        self
    }

    /// Build the encoder.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the two vocabularies differ in dimension or an IDF reference
    /// corpus is empty.
    pub fn build(self) -> Result<BowEncoder> {
        if self.src.dim() != self.trg.dim() {
            return Err(Error::Invalid(format!(
                "the source word vectors have dimension {} but the target ones {}",
                self.src.dim(),
                self.trg.dim()
            )));
        }
        let segment = self.segment.unwrap_or_else(|| {
            Segment::Words(WordTokenizer::new(WordConfig {
                lowercase: self.lowercase,
                ..WordConfig::default()
            }))
        });
        let idf = match (self.idf, self.idf_corpora) {
            (Some(i), _) => Some(i),
            (None, Some((s, t))) => Some((
                Idf::from_segmented(&segment, &s)?,
                Idf::from_segmented(&segment, &t)?,
            )),
            (None, None) => None,
        };
        let weighting = if idf.is_some() {
            Weighting::TfIdf
        } else {
            Weighting::Mean
        };
        let (si, ti) = match idf {
            Some((s, t)) => (Some(s), Some(t)),
            None => (None, None),
        };
        let side = |vectors: Arc<WordVectors>, idf: Option<Idf>| SideVectors {
            idf: idf.map(|i| vectors.words().iter().map(|w| i.weight(w) as f32).collect()),
            vectors,
        };
        Ok(BowEncoder {
            src: side(self.src, si),
            trg: side(self.trg, ti),
            segment,
            weighting,
            no_known_word: self.no_known_word,
            normalize: self.normalize,
        })
    }
}

impl BowEncoder {
    /// Start from the word vectors of the source and target languages (owned, or shared with
    /// other encoders through an [`Arc`]).
    pub fn builder(
        src: impl Into<Arc<WordVectors>>,
        trg: impl Into<Arc<WordVectors>>,
    ) -> BowEncoderBuilder {
        BowEncoderBuilder {
            src: src.into(),
            trg: trg.into(),
            lowercase: true,
            segment: None,
            idf: None,
            idf_corpora: None,
            no_known_word: NoKnownWord::Error,
            normalize: true,
        }
    }

    /// Start from one vocabulary for both sides: a joint multilingual `.vec` file, or the one
    /// language being encoded.
    pub fn builder_shared(vectors: impl Into<Arc<WordVectors>>) -> BowEncoderBuilder {
        let v = vectors.into();
        Self::builder(Arc::clone(&v), v)
    }

    /// Start from two `.vec` files (optionally only their first `limit` words each).
    ///
    /// # Errors
    /// As [`read_vec`], naming the file and line.
    pub fn from_vec_files(
        src: impl AsRef<std::path::Path>,
        trg: impl AsRef<std::path::Path>,
        limit: Option<usize>,
    ) -> Result<BowEncoderBuilder> {
        Ok(Self::builder(read_vec(src, limit)?, read_vec(trg, limit)?))
    }

    /// The weighting in use.
    #[must_use]
    pub fn weighting(&self) -> Weighting {
        self.weighting
    }

    /// The word vectors of a side.
    #[must_use]
    pub fn vectors(&self, side: Side) -> &Arc<WordVectors> {
        &self.side(side).vectors
    }

    fn side(&self, side: Side) -> &SideVectors {
        match side {
            Side::Source => &self.src,
            Side::Target => &self.trg,
        }
    }

    /// Encode `sentences`, reporting how much the vocabulary covered. Sentences without a
    /// known word follow the [`NoKnownWord`] policy: an error naming the first, or zero rows
    /// listed in [`Coverage::no_known_word`].
    ///
    /// # Errors
    /// [`Error::NoKnownWord`] under [`NoKnownWord::Error`].
    pub fn encode_with_coverage<S: AsRef<str>>(
        &self,
        side: Side,
        sentences: &[S],
    ) -> Result<(Embeddings, Coverage)> {
        let sv = self.side(side);
        let dim = sv.vectors.dim();
        let mut out = Embeddings::zeros(sentences.len(), dim)?;
        let mut cov = Coverage::default();
        let mut acc = vec![0f64; dim];
        for (i, s) in sentences.iter().enumerate() {
            acc.iter_mut().for_each(|a| *a = 0.0);
            let mut weight = 0f64;
            let mut known = 0usize;
            self.segment.for_each_token(s.as_ref(), |t| {
                cov.tokens += 1;
                if let Some(r) = sv.vectors.index_of(t) {
                    known += 1;
                    let w = sv.idf.as_ref().map_or(1.0, |idf| f64::from(idf[r]));
                    weight += w;
                    for (a, &v) in acc.iter_mut().zip(sv.vectors.vectors().row(r)) {
                        *a += w * f64::from(v);
                    }
                }
            })?;
            cov.known += known;
            if known == 0 {
                if self.no_known_word == NoKnownWord::Error {
                    return Err(Error::NoKnownWord {
                        side,
                        index: i,
                        sentence: s.as_ref().to_owned(),
                    });
                }
                cov.no_known_word.push(i);
                continue;
            }
            let row = out.row_mut(i);
            for (o, a) in row.iter_mut().zip(&acc) {
                *o = (a / weight) as f32;
            }
            if self.normalize {
                normalize_row(row);
            }
        }
        Ok((out, cov))
    }
}

impl SentenceEncoder for BowEncoder {
    fn dim(&self) -> usize {
        self.src.vectors.dim()
    }

    fn encode_batch(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        Ok(self.encode_with_coverage(side, sentences)?.0)
    }

    fn batch_size(&self) -> usize {
        4096
    }
}

#[cfg(test)]
#[path = "bow_tests.rs"]
mod tests;
