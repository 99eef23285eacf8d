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

/// Whether `(score, id)` ranks before `(score2, id2)` in the exact inner-product search's
/// lists: larger score, then lower id, with −0 == +0 (the order every merge and re-rank of
/// those lists keeps).
pub(crate) fn ranks_before((s, id): (f32, usize), (s2, id2): (f32, usize)) -> bool {
    s > s2 || (s == s2 && id < id2)
}

impl Neighbors {
    /// The `k` best of inner-product lists (larger is better) of the same queries over
    /// disjoint sets of ids — e.g. one query batch searched in each shard of a database — with
    /// each part's ids shifted by its offset. Ordered as the exact search orders its lists
    /// (larger score first, ties to the lower id, −0 == +0), so merging the shards' exact lists
    /// gives the exact lists of the whole database.
    ///
    /// # Errors
    /// [`Error::Invalid`] for no part, parts of different query counts, `k` of 0, or a query
    /// with fewer than `k` candidates in all.
    pub fn merge(parts: &[(&Neighbors, usize)], k: usize) -> Result<Neighbors> {
        let n = parts
            .first()
            .map(|(p, _)| p.len())
            .ok_or_else(|| Error::Invalid("no neighbour lists to merge".into()))?;
        if let Some((p, _)) = parts.iter().find(|(p, _)| p.len() != n) {
            return Err(Error::Invalid(format!(
                "merging lists of {n} and of {} queries",
                p.len()
            )));
        }
        let (mut ids, mut scores) = (Vec::with_capacity(n * k), Vec::with_capacity(n * k));
        let mut cands: Vec<(f32, usize)> = Vec::new();
        for q in 0..n {
            cands.clear();
            for &(p, off) in parts {
                let hits = p.scores(q).iter().zip(p.ids(q));
                cands.extend(hits.map(|(&s, &id)| (s, id + off)));
            }
            if cands.len() < k {
                return Err(Error::Invalid(format!(
                    "query {q} has {} candidates in all, fewer than k = {k}",
                    cands.len()
                )));
            }
            cands.sort_by(|&a, &b| {
                if ranks_before(a, b) {
                    std::cmp::Ordering::Less
                } else if ranks_before(b, a) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            });
            for &(s, id) in &cands[..k] {
                scores.push(s);
                ids.push(id);
            }
        }
        Neighbors::new(k, ids, scores)
    }
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
    fn merged_lists_are_the_best_k_with_ties_to_the_lower_id() {
        let a = Neighbors::new(2, vec![0, 1, 1, 0], vec![0.9, 0.5, 0.7, -0.0]).unwrap();
        let b = Neighbors::new(1, vec![0, 0], vec![0.5, 0.0]).unwrap();
        let m = Neighbors::merge(&[(&b, 10), (&a, 0)], 2).unwrap();
        assert_eq!(m.ids(0), &[0, 1]);
        assert_eq!(m.ids(1), &[1, 0], "0.0 and -0.0 tie: the lower id first");
        assert_eq!(m.scores(0), &[0.9, 0.5]);
        let m = Neighbors::merge(&[(&a, 0), (&b, 10)], 3).unwrap();
        assert_eq!(m.ids(0), &[0, 1, 10]);
        assert!(Neighbors::merge(&[(&a, 0)], 3).is_err());
        assert!(Neighbors::merge(&[], 1).is_err());
    }

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
