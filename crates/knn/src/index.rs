//! The [`KnnIndex`] trait and the [`Neighbors`] it returns.

use std::path::Path;

use bitext_core::EmbeddingsView;

use crate::error::{Error, Result};

/// How neighbours are ranked.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Largest inner product first (cosine similarity on L2-normalised vectors).
    #[default]
    InnerProduct,
    /// Smallest squared Euclidean distance first (faiss's `METRIC_L2` convention).
    L2,
}

/// A score type of neighbour or candidate lists: `f32` (kNN similarities and distances) or
/// `f64` (margins and other scores computed from them).
pub trait Score: Copy + PartialOrd + std::fmt::Display + std::fmt::Debug {
    /// Whether the score is a finite number.
    fn is_finite_score(self) -> bool;
}

impl Score for f32 {
    fn is_finite_score(self) -> bool {
        self.is_finite()
    }
}

impl Score for f64 {
    fn is_finite_score(self) -> bool {
        self.is_finite()
    }
}

/// The `k` nearest neighbours (or scored candidates) of each of a batch of queries: ids (row
/// indices in the order the vectors were added) and scores, best first — inner products,
/// descending, or squared L2 distances, ascending, for kNN results (`f32`); any score with
/// larger = better for candidates scored otherwise (`f64`, e.g. bitext-mine's
/// `ScoredCandidates`).
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbors<S = f32> {
    k: usize,
    ids: Vec<usize>,
    scores: Vec<S>,
}

impl<S: Score> Neighbors<S> {
    /// Wrap row-major `ids` and `scores` of `k` neighbours per query.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `k` is 0, the lengths disagree or a score is not finite (naming
    /// the query and the rank).
    pub fn new(k: usize, ids: Vec<usize>, scores: Vec<S>) -> Result<Self> {
        if k == 0 || ids.len() != scores.len() || !ids.len().is_multiple_of(k) {
            return Err(Error::Invalid(format!(
                "neighbour lists: k = {k}, {} ids, {} scores",
                ids.len(),
                scores.len()
            )));
        }
        if let Some(p) = scores.iter().position(|s| !s.is_finite_score()) {
            return Err(Error::Invalid(format!(
                "candidate {} of sentence {} has score {}, not a finite number",
                p % k,
                p / k,
                scores[p]
            )));
        }
        Ok(Self { k, ids, scores })
    }

    /// Neighbours per query.
    #[must_use]
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of queries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len() / self.k
    }

    /// Whether there are no queries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Ids of query `q`'s neighbours, best first.
    ///
    /// # Panics
    /// When `q >= len()`.
    #[must_use]
    pub fn ids(&self, q: usize) -> &[usize] {
        &self.ids[q * self.k..(q + 1) * self.k]
    }

    /// Scores of query `q`'s neighbours, best first.
    ///
    /// # Panics
    /// When `q >= len()`.
    #[must_use]
    pub fn scores(&self, q: usize) -> &[S] {
        &self.scores[q * self.k..(q + 1) * self.k]
    }

    /// All ids, row-major (`len() × k()`).
    #[must_use]
    pub fn all_ids(&self) -> &[usize] {
        &self.ids
    }

    /// All scores, row-major (`len() × k()`).
    #[must_use]
    pub fn all_scores(&self) -> &[S] {
        &self.scores
    }

    /// Each query's candidate with the largest score and that score (the first such, when
    /// several tie) — for lists whose scores were recomputed (e.g. margins) and so need not
    /// be sorted any more.
    #[must_use]
    pub fn best(&self) -> Vec<(usize, S)> {
        (0..self.len())
            .map(|q| {
                let (ids, scores) = (self.ids(q), self.scores(q));
                let mut b = 0;
                for c in 1..self.k {
                    if scores[c] > scores[b] {
                        b = c;
                    }
                }
                (ids[b], scores[b])
            })
            .collect()
    }

    /// Append the queries of `other` (same `k`), e.g. results of consecutive query blocks.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the `k` differ.
    pub fn append(&mut self, other: Neighbors<S>) -> Result<()> {
        if other.k != self.k {
            return Err(Error::Invalid(format!(
                "cannot append k = {} to k = {}",
                other.k, self.k
            )));
        }
        self.ids.extend(other.ids);
        self.scores.extend(other.scores);
        Ok(())
    }
}

/// A k-nearest-neighbour index over vectors of one dimension.
///
/// Backends write the required methods (`dim`, `len`, `metric`, `add`,
/// `search_with_progress`, `save`); callers check nothing themselves: `add` and the searches
/// return [`Error::Dimension`] for vectors of the wrong dimension and `search` returns
/// [`Error::KTooLarge`] when `k > len()`.
pub trait KnnIndex: Send + Sync {
    /// Vector dimension.
    fn dim(&self) -> usize;

    /// Number of vectors added.
    fn len(&self) -> usize;

    /// Whether no vector has been added.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How neighbours are ranked.
    fn metric(&self) -> Metric;

    /// Whether the index must be trained before vectors are added (quantisers, IVF).
    fn needs_training(&self) -> bool {
        false
    }

    /// Train on a representative sample (a no-op for indexes that need none).
    ///
    /// # Errors
    /// Backend failures; a sample of the wrong dimension.
    fn train(&mut self, sample: EmbeddingsView<'_>) -> Result<()> {
        let _ = sample;
        Ok(())
    }

    /// Add vectors; their ids continue from `len()`.
    ///
    /// # Errors
    /// [`Error::Dimension`]; non-finite values; backend failures.
    fn add(&mut self, vectors: EmbeddingsView<'_>) -> Result<()>;

    /// The `k` nearest neighbours of each query, calling `progress` with the number of queries
    /// done as the search advances (for progress bars on long searches; a backend that cannot
    /// tell calls it once at the end).
    ///
    /// # Errors
    /// [`Error::Dimension`]; [`Error::KTooLarge`]; non-finite query values; backend failures.
    fn search_with_progress(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Neighbors>;

    /// The `k` nearest neighbours of each query ([`KnnIndex::search_with_progress`] without a
    /// progress report).
    ///
    /// # Errors
    /// As [`KnnIndex::search_with_progress`].
    fn search(&self, queries: EmbeddingsView<'_>, k: usize) -> Result<Neighbors> {
        self.search_with_progress(queries, k, &mut |_| {})
    }

    /// Save the index to `path` (atomically).
    ///
    /// # Errors
    /// I/O and backend failures, naming the path.
    fn save(&self, path: &Path) -> Result<()>;
}

impl<T: KnnIndex + ?Sized> KnnIndex for Box<T> {
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn len(&self) -> usize {
        (**self).len()
    }
    fn metric(&self) -> Metric {
        (**self).metric()
    }
    fn needs_training(&self) -> bool {
        (**self).needs_training()
    }
    fn train(&mut self, sample: EmbeddingsView<'_>) -> Result<()> {
        (**self).train(sample)
    }
    fn add(&mut self, vectors: EmbeddingsView<'_>) -> Result<()> {
        (**self).add(vectors)
    }
    fn search(&self, queries: EmbeddingsView<'_>, k: usize) -> Result<Neighbors> {
        (**self).search(queries, k)
    }
    fn search_with_progress(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Neighbors> {
        (**self).search_with_progress(queries, k, progress)
    }
    fn save(&self, path: &Path) -> Result<()> {
        (**self).save(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbors_rows_and_append() {
        let mut n = Neighbors::new(2, vec![3, 1, 0, 2], vec![0.9, 0.5, 0.8, 0.1]).unwrap();
        assert_eq!(
            (n.len(), n.ids(1), n.scores(0)),
            (2, &[0usize, 2][..], &[0.9f32, 0.5][..])
        );
        n.append(Neighbors::new(2, vec![1, 0], vec![0.3, 0.2]).unwrap())
            .unwrap();
        assert_eq!(n.len(), 3);
        assert!(
            n.append(Neighbors::new(1, vec![1], vec![0.3]).unwrap())
                .is_err()
        );
        assert!(Neighbors::new(2, vec![1], vec![0.3]).is_err());
        assert!(Neighbors::<f32>::new(0, vec![], vec![]).is_err());
        let e = Neighbors::new(2, vec![1, 0], vec![0.5, f64::NAN]).unwrap_err();
        assert!(
            e.to_string()
                .contains("candidate 1 of sentence 0 has score NaN"),
            "{e}"
        );
        let c = Neighbors::new(
            3,
            vec![4, 5, 6, 7, 8, 9],
            vec![0.1, 0.9, 0.9, 2.0, 1.0, 3.0],
        );
        assert_eq!(c.unwrap().best(), vec![(5, 0.9), (9, 3.0)]);
    }
}
