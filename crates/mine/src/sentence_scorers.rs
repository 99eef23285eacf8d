//! [`SentenceScorers`]: the scorers of a [`ScorerSpec`] that read sentences rather than
//! embeddings — the Earth Mover's Distance ([`EmdScorers`]) and the lexical baselines of
//! `bitext-lexical` — loaded once (word vectors, IDF, IBM-1 tables) and built per batch of
//! sentences.

use std::path::Path;
use std::sync::Arc;

use bitext_core::io::text::{EmptyLines, read_lines};
use bitext_core::io::vec::read_vec;
use bitext_lexical::{Ibm1, Ibm1Scorer, LengthRatioScorer, LengthUnit, LevenshteinScorer};
use bitext_similarity::PairScorer;
use bitext_tokenize::WordTokenizer;
use bitext_transport::EmdScorer;
use bitext_transport::sentence::{Idf, SentenceDistance};

use crate::error::{Error, Result};
use crate::scorer_spec::{EmdSpec, ScorerSpec};

impl ScorerSpec {
    /// The builder of the spec's scorers over batches of sentences. `emd` reads the word
    /// vectors and counts the IDF over the spec's reference files, or else over `reference`
    /// (source and target sentences, e.g. the columns of the input); `ibm1` loads its model.
    ///
    /// # Errors
    /// As [`ScorerSpec::check`]; a missing or malformed vector, reference or model file
    /// (naming the file and line or byte); [`Error::Invalid`] when IDF weighting has no
    /// reference, for a scorer of embeddings, and for a `model` spec (which `bitext-neural`
    /// builds).
    pub fn sentence_scorers<S: AsRef<str>>(
        &self,
        reference: Option<(&[S], &[S])>,
    ) -> Result<SentenceScorers> {
        self.check()?;
        Ok(match self {
            ScorerSpec::Emd(e) => SentenceScorers::Emd(emd_scorers(e, reference)?),
            ScorerSpec::Ibm1 { model } => SentenceScorers::Ibm1(Arc::new(Ibm1::load(model)?)),
            ScorerSpec::Levenshtein => SentenceScorers::Levenshtein,
            ScorerSpec::LengthRatio { unit } => SentenceScorers::LengthRatio(*unit),
            ScorerSpec::Model(m) => return Err(Error::Invalid(m.neural_only("scorer"))),
            _ => {
                return Err(Error::Invalid(format!(
                    "the {} scorer scores embeddings, not sentences: build it with \
                     ScorerSpec::with_embedding_scorer",
                    self.name()
                )));
            }
        })
    }
}

/// The EMD's word vectors and IDF.
fn emd_scorers<S: AsRef<str>>(e: &EmdSpec, reference: Option<(&[S], &[S])>) -> Result<EmdScorers> {
    let tokenizer = WordTokenizer::builder().lowercase(true).build();
    let src = Arc::new(read_vec(&e.src_vectors, None)?);
    let tgt = Arc::new(read_vec(&e.tgt_vectors, None)?);
    let config = e.distance.clone();
    let idf = if config.use_idf {
        let plain = SentenceDistance::new(src.clone(), tgt.clone(), None, config.clone())
            .map_err(Error::from)?;
        let count = |lines: &mut dyn Iterator<Item = &str>| {
            Idf::from_documents(lines.map(|l| plain.words(&tokenizer.tokenize(l))))
        };
        let read = |p: &Path| read_lines(p, EmptyLines::Keep);
        Some(match (&e.src_idf, &e.tgt_idf, reference) {
            (Some(s), Some(t), _) => (
                count(&mut read(s)?.iter().map(String::as_str)),
                count(&mut read(t)?.iter().map(String::as_str)),
            ),
            (_, _, Some((s, t))) => (
                count(&mut s.iter().map(AsRef::as_ref)),
                count(&mut t.iter().map(AsRef::as_ref)),
            ),
            _ => {
                return Err(Error::Invalid(
                    "the emd scorer weighs words by IDF: name src_idf and tgt_idf, pass \
                     reference sentences, or turn use_idf off"
                        .into(),
                ));
            }
        })
    } else {
        None
    };
    let distance = SentenceDistance::new(src, tgt, idf, config).map_err(Error::from)?;
    Ok(EmdScorers {
        distance,
        tokenizer,
    })
}

/// Builds the scorers of a [`ScorerSpec`] that reads sentences, over each batch of them.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SentenceScorers {
    /// The Earth Mover's Distance.
    Emd(EmdScorers),
    /// IBM Model 1, loaded.
    Ibm1(Arc<Ibm1>),
    /// Normalised Levenshtein similarity.
    Levenshtein,
    /// Length ratio.
    LengthRatio(LengthUnit),
}

impl SentenceScorers {
    /// The scorer of `src × tgt`.
    ///
    /// # Errors
    /// As the scorer's constructor (an empty sentence, a tokenizer error, …).
    pub fn build<S: AsRef<str> + Sync>(&self, src: &[S], tgt: &[S]) -> Result<Box<dyn PairScorer>> {
        Ok(match self {
            SentenceScorers::Emd(e) => Box::new(e.build(src, tgt)?),
            SentenceScorers::Ibm1(m) => Box::new(Ibm1Scorer::new(m.clone(), src, tgt)?),
            SentenceScorers::Levenshtein => Box::new(LevenshteinScorer::new(src, tgt)?),
            SentenceScorers::LengthRatio(unit) => {
                Box::new(LengthRatioScorer::new(*unit, src, tgt)?)
            }
        })
    }
}

/// Builds [`EmdScorer`]s over batches of sentences: the word vectors and IDF read once, the
/// sentences tokenized per batch (lowercased [`WordTokenizer`]).
#[derive(Debug, Clone)]
pub struct EmdScorers {
    distance: SentenceDistance,
    tokenizer: WordTokenizer,
}

impl EmdScorers {
    /// The sentence distance.
    #[must_use]
    pub fn distance(&self) -> &SentenceDistance {
        &self.distance
    }

    /// The scorer of `src × tgt` (score = minus the distance).
    ///
    /// # Errors
    /// As [`EmdScorer::new`] (an empty sentence, …).
    pub fn build<S: AsRef<str>>(&self, src: &[S], tgt: &[S]) -> Result<EmdScorer> {
        let tok = |s: &[S]| -> Vec<Vec<String>> {
            s.iter()
                .map(|x| self.tokenizer.tokenize(x.as_ref()))
                .collect()
        };
        EmdScorer::new(self.distance.clone(), &tok(src), &tok(tgt)).map_err(Error::from)
    }
}
