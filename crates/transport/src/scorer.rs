//! [`EmdScorer`]: the sentence distance as a `bitext_similarity::PairScorer` (score = minus
//! the distance), built over two tokenized corpora and scoring index pairs in parallel.

use bitext_similarity::{Error as SimError, PairScorer};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::sentence::{Bag, Lang, SentenceDistance};

/// Pairs per parallel task (each task builds one solver and reuses it).
const CHUNK: usize = 64;

/// Scores sentence pairs by their negated Earth Mover's Distance (higher = more parallel).
///
/// Bags of words are computed once per sentence when the scorer is built; pairs are scored
/// in parallel over rayon's pool, each task reusing one solver's buffers.
///
/// ```
/// use std::sync::Arc;
/// use bitext_core::{Embeddings, io::vec::WordVectors};
/// use bitext_similarity::PairScorer;
/// use bitext_transport::{EmdScorer, sentence::{SentenceConfig, SentenceDistance}};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let de = WordVectors::new(vec!["hund".into(), "katze".into()],
///     Embeddings::from_rows([[1.0, 0.0], [0.0, 1.0]], 2)?)?;
/// let en = WordVectors::new(vec!["dog".into(), "cat".into()],
///     Embeddings::from_rows([[0.9, 0.1], [0.1, 0.9]], 2)?)?;
/// let d = SentenceDistance::new(Arc::new(de), Arc::new(en), None, SentenceConfig::default())?;
/// let s = EmdScorer::new(d, &[vec!["Hund"], vec!["Katze"]], &[vec!["dog"], vec!["cat"]])?;
/// let scores = s.score(&[(0, 0), (0, 1)])?;
/// assert!(scores[0] > scores[1]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct EmdScorer {
    distance: SentenceDistance,
    src: Vec<Bag>,
    tgt: Vec<Bag>,
}

impl EmdScorer {
    /// Build over tokenized source and target sentences.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the first empty sentence.
    pub fn new<S, T>(distance: SentenceDistance, src: &[Vec<S>], tgt: &[Vec<T>]) -> Result<Self>
    where
        S: AsRef<str> + Sync,
        T: AsRef<str> + Sync,
    {
        let src = bags(&distance, Lang::Source, src)?;
        let tgt = bags(&distance, Lang::Target, tgt)?;
        Ok(Self { distance, src, tgt })
    }

    /// The distance it scores with.
    #[must_use]
    pub fn distance(&self) -> &SentenceDistance {
        &self.distance
    }

    /// Distances (not negated) of index pairs, in parallel.
    ///
    /// # Errors
    /// An index out of range ([`Error::Invalid`]); the solver's errors.
    pub fn distances(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
        if let Some(&(s, t)) = pairs
            .iter()
            .find(|&&(s, t)| s >= self.src.len() || t >= self.tgt.len())
        {
            return Err(Error::Invalid(format!(
                "pair ({s}, {t}) is out of range: {} source and {} target sentences",
                self.src.len(),
                self.tgt.len()
            )));
        }
        let chunks: Vec<Vec<f64>> = pairs
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut solver = self.distance.solver();
                chunk
                    .iter()
                    .map(|&(s, t)| {
                        self.distance
                            .distance(&self.src[s], &self.tgt[t], solver.as_mut())
                    })
                    .collect::<Result<Vec<f64>>>()
            })
            .collect::<Result<_>>()?;
        Ok(chunks.concat())
    }
}

/// The bags of a list of sentences; an error names the first empty one.
fn bags<T: AsRef<str>>(d: &SentenceDistance, lang: Lang, sentences: &[Vec<T>]) -> Result<Vec<Bag>> {
    let side = match lang {
        Lang::Source => "source",
        Lang::Target => "target",
    };
    sentences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            d.bag(lang, s)
                .map_err(|e| Error::Invalid(format!("{side} sentence {i}: {e}")))
        })
        .collect()
}

impl PairScorer for EmdScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        let d = self
            .distances(pairs)
            .map_err(|e| SimError::Backend(Box::new(e)))?;
        Ok(d.into_iter().map(|x| -x).collect())
    }
}
