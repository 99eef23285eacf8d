//! [`BruteForce`], the reference k-nearest-neighbour index: every score computed in `f64` as the
//! documented formula, a full sort, ties to the lower id. Slow (`O(n)` per query, one thread)
//! and obviously correct: the oracle of the [`KnnIndex`] suite and of any test that needs exact
//! neighbours.

use std::cmp::Ordering;
use std::path::Path;

use bitext_core::{Embeddings, EmbeddingsView, Location};
use bitext_knn::{Error, KnnIndex, Metric, Neighbors, Result};

/// The exact score of `x` for query `q` in `f64`: the inner product, or the squared Euclidean
/// distance.
///
/// # Panics
/// When the lengths differ.
#[must_use]
pub fn score(metric: Metric, q: &[f32], x: &[f32]) -> f64 {
    assert_eq!(q.len(), x.len(), "vectors of different dimensions");
    let pairs = q.iter().zip(x).map(|(a, b)| (f64::from(*a), f64::from(*b)));
    match metric {
        Metric::InnerProduct => pairs.map(|(a, b)| a * b).sum(),
        Metric::L2 => pairs.map(|(a, b)| (a - b) * (a - b)).sum(),
    }
}

/// Whether score `a` ranks before score `b` under `metric` (larger inner product, smaller
/// distance), [`Ordering::Equal`] for ties. `−0` and `+0` tie, as in any search comparing with
/// `>`.
#[must_use]
pub fn rank(metric: Metric, a: f64, b: f64) -> Ordering {
    let o = a.partial_cmp(&b).unwrap_or(Ordering::Equal);
    match metric {
        Metric::InnerProduct => o.reverse(),
        Metric::L2 => o,
    }
}

/// Brute-force exact index (see the module docs). It checks its input like the real backends
/// (dimension, `k`, finite values, norms that fit in `f32`) and cannot be saved.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_knn::{KnnIndex, Metric};
/// use bitext_testkit::BruteForce;
/// let db = Embeddings::from_rows([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], 2).unwrap();
/// let q = Embeddings::from_rows([[2.0, 1.0]], 2).unwrap();
/// let nn = BruteForce::over(db.view(), Metric::InnerProduct).unwrap().search(q.view(), 3).unwrap();
/// assert_eq!(nn.ids(0), &[0, 2, 1]); // rows 0 and 2 tie: the lower id first
/// assert_eq!(nn.scores(0), &[2.0, 2.0, 1.0]);
/// ```
#[derive(Debug, Clone)]
pub struct BruteForce {
    data: Embeddings,
    metric: Metric,
}

impl BruteForce {
    /// An empty index of dimension `dim`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `dim` is 0.
    pub fn new(dim: usize, metric: Metric) -> Result<Self> {
        if dim == 0 {
            return Err(Error::Invalid("dimension 0".into()));
        }
        Ok(Self {
            data: Embeddings::with_capacity(dim, 0)?,
            metric,
        })
    }

    /// An index holding (a copy of) `vectors`.
    ///
    /// # Errors
    /// As [`BruteForce::new`] and [`KnnIndex::add`].
    pub fn over(vectors: EmbeddingsView<'_>, metric: Metric) -> Result<Self> {
        let mut b = Self::new(vectors.dim(), metric)?;
        b.add(vectors)?;
        Ok(b)
    }

    /// The vectors held, row `i` being id `i`.
    #[must_use]
    pub fn vectors(&self) -> &Embeddings {
        &self.data
    }

    /// Every stored vector's id and exact score for query `q`, best first, ties to the lower
    /// id.
    ///
    /// # Panics
    /// When `q` has the wrong dimension.
    #[must_use]
    pub fn ranked(&self, q: &[f32]) -> Vec<(usize, f64)> {
        let mut all: Vec<(usize, f64)> = self
            .data
            .rows()
            .enumerate()
            .map(|(j, x)| (j, score(self.metric, q, x)))
            .collect();
        all.sort_by(|a, b| rank(self.metric, a.1, b.1).then(a.0.cmp(&b.0)));
        all
    }
}

/// Check `v` as the backends do: dimension, finite values, squared norms that fit in `f32`.
fn check(dim: usize, v: EmbeddingsView<'_>, what: &'static str) -> Result<()> {
    if v.dim() != dim {
        return Err(Error::Dimension {
            index: dim,
            got: v.dim(),
        });
    }
    for (row, values) in v.rows().enumerate() {
        let bad = |col, reason| Error::Input {
            what,
            source: bitext_core::Error::Value {
                at: Location::Row { row, col },
                reason,
            },
        };
        if let Some(col) = values.iter().position(|x| !x.is_finite()) {
            return Err(bad(
                Some(col),
                format!("{} is not a finite number", values[col]),
            ));
        }
        let sq: f64 = values.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
        if sq > f64::from(f32::MAX) {
            return Err(bad(None, format!("squared norm {sq:.3e} overflows f32")));
        }
    }
    Ok(())
}

impl KnnIndex for BruteForce {
    fn dim(&self) -> usize {
        self.data.dim()
    }

    fn len(&self) -> usize {
        self.data.len()
    }

    fn metric(&self) -> Metric {
        self.metric
    }

    fn add(&mut self, vectors: EmbeddingsView<'_>) -> Result<()> {
        check(self.dim(), vectors, "vectors")?;
        self.data.extend_from_view(vectors)?;
        Ok(())
    }

    fn search_with_progress(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Neighbors> {
        if queries.dim() != self.dim() {
            return Err(Error::Dimension {
                index: self.dim(),
                got: queries.dim(),
            });
        }
        if k == 0 {
            return Err(Error::Invalid("k must be at least 1".into()));
        }
        if k > self.len() {
            return Err(Error::KTooLarge { k, len: self.len() });
        }
        if queries.is_empty() {
            return Err(Error::Invalid("no query vectors to search for".into()));
        }
        check(self.dim(), queries, "query vectors")?;
        let (mut ids, mut scores) = (Vec::new(), Vec::new());
        for q in queries.rows() {
            for (j, s) in self.ranked(q).into_iter().take(k) {
                ids.push(j);
                scores.push(s as f32);
            }
        }
        progress(queries.len());
        Neighbors::new(k, ids, scores)
    }

    // Written out (it is provided) so that the reference does not depend on the default.
    fn search(&self, queries: EmbeddingsView<'_>, k: usize) -> Result<Neighbors> {
        self.search_with_progress(queries, k, &mut |_| {})
    }

    fn save(&self, path: &Path) -> Result<()> {
        Err(Error::Unsupported(format!(
            "the brute-force reference index cannot be saved ({})",
            path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_the_formulas_and_ties_go_to_the_lower_id() {
        let db =
            Embeddings::from_rows([[0.0, 0.0], [3.0, 4.0], [1.0, 1.0], [3.0, 4.0]], 2).unwrap();
        let q = Embeddings::from_rows([[3.0, 4.0]], 2).unwrap();
        let l2 = BruteForce::over(db.view(), Metric::L2).unwrap();
        let nn = l2.search(q.view(), 4).unwrap();
        assert_eq!(nn.ids(0), &[1, 3, 2, 0]);
        assert_eq!(nn.scores(0), &[0.0, 0.0, 13.0, 25.0]);
        let ip = BruteForce::over(db.view(), Metric::InnerProduct).unwrap();
        let nn = ip.search(q.view(), 2).unwrap();
        assert_eq!((nn.ids(0), nn.scores(0)), (&[1, 3][..], &[25.0, 25.0][..]));
        assert_eq!(rank(Metric::InnerProduct, -0.0, 0.0), Ordering::Equal);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(BruteForce::new(0, Metric::L2).is_err());
        let mut b = BruteForce::new(2, Metric::L2).unwrap();
        let q = Embeddings::from_rows([[1.0, f32::NAN]], 2).unwrap();
        let e = b.add(q.view()).unwrap_err().to_string();
        assert!(e.contains("row 0, column 1"), "{e}");
        assert!(matches!(
            b.search(Embeddings::zeros(1, 2).unwrap().view(), 1),
            Err(Error::KTooLarge { k: 1, len: 0 })
        ));
        let dir = tempfile::tempdir().unwrap();
        assert!(b.save(&dir.path().join("x")).is_err());
    }
}
