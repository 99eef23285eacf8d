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

/// The nearest targets of a source sentence (see [`EmdScorer::nearest`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Nearest {
    /// `(target, distance)`, nearest first.
    pub neighbours: Vec<(usize, f64)>,
    /// Targets whose relaxed EMD was computed (the centroid bound did not prune them).
    pub relaxed: usize,
    /// Targets whose exact distance was computed.
    pub exact: usize,
}

impl EmdScorer {
    /// The `k` targets nearest to source sentence `i`, found with few exact solves by
    /// prefetch and prune (Kusner et al. 2015): targets are visited by increasing word
    /// centroid distance, the visit stops when that bound reaches the current `k`-th best
    /// distance, and a target whose relaxed EMD reaches it is skipped without solving.
    /// The result equals that of computing every distance.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an index out of range or `k = 0`; the solver's errors.
    pub fn nearest(&self, i: usize, k: usize) -> Result<Nearest> {
        if i >= self.src.len() || k == 0 {
            return Err(Error::Invalid(format!(
                "nearest({i}, {k}): need a source index below {} and k ≥ 1",
                self.src.len()
            )));
        }
        let src = &self.src[i];
        let mut order: Vec<(f64, usize)> = self
            .tgt
            .iter()
            .enumerate()
            .map(|(j, t)| (self.distance.centroid_bound(src, t), j))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut solver = self.distance.solver();
        let mut best: Vec<(usize, f64)> = Vec::with_capacity(k + 1);
        let (mut relaxed, mut exact) = (0, 0);
        for (bound, j) in order {
            let kth = if best.len() == k {
                best[k - 1].1
            } else {
                f64::INFINITY
            };
            // The bounds hold exactly; the slack covers their rounding.
            let limit = kth + 1e-12 * kth.abs();
            if bound > limit {
                break;
            }
            relaxed += 1;
            let Some(d) =
                self.distance
                    .distance_below(src, &self.tgt[j], limit, solver.as_mut())?
            else {
                continue;
            };
            exact += 1;
            let pos = best.partition_point(|&(t, e)| e < d || (e == d && t < j));
            best.insert(pos, (j, d));
            best.truncate(k);
        }
        Ok(Nearest {
            neighbours: best,
            relaxed,
            exact,
        })
    }
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
