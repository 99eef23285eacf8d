//! A brute-force [`KnnIndex`] for this crate's unit tests: scores every stored vector
//! in `f64`, sorts, and returns the best `k` (ties broken by the smaller id). Slow (`O(n)` per
//! query, one thread) and obviously correct; real work uses `bitext-knn`'s backends.

use std::path::Path;

use bitext_core::{Embeddings, EmbeddingsView};
use bitext_knn::{Error, KnnIndex, Metric, Neighbors, Result};

/// Brute-force exact index (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct BruteForce {
    data: Embeddings,
    metric: Metric,
}

impl BruteForce {
    /// An empty index of dimension `dim` (at least 1).
    ///
    /// # Panics
    /// When `dim` is 0.
    #[must_use]
    pub(crate) fn new(dim: usize, metric: Metric) -> Self {
        Self {
            data: Embeddings::with_capacity(dim, 0).expect("dim > 0"),
            metric,
        }
    }

    /// An inner-product index holding `v`.
    ///
    /// # Panics
    /// When `v` holds a non-finite value.
    #[must_use]
    pub(crate) fn over(v: EmbeddingsView<'_>) -> Self {
        let mut b = Self::new(v.dim(), Metric::InnerProduct);
        b.add(v).expect("same dimension");
        b
    }
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
        if vectors.dim() != self.dim() {
            return Err(Error::Dimension {
                index: self.dim(),
                got: vectors.dim(),
            });
        }
        vectors.check_finite()?;
        self.data.extend_from_view(vectors)?;
        Ok(())
    }
    fn search_with_progress(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        _progress: &mut dyn FnMut(usize),
    ) -> Result<Neighbors> {
        if queries.dim() != self.dim() {
            return Err(Error::Dimension {
                index: self.dim(),
                got: queries.dim(),
            });
        }
        if k > self.len() {
            return Err(Error::KTooLarge { k, len: self.len() });
        }
        queries.check_finite()?;
        let (mut ids, mut scores) = (Vec::new(), Vec::new());
        for q in queries.rows() {
            let mut s: Vec<(f64, usize)> = self
                .data
                .rows()
                .enumerate()
                .map(|(j, r)| {
                    let v = match self.metric {
                        Metric::InnerProduct => q
                            .iter()
                            .zip(r)
                            .map(|(a, b)| f64::from(*a) * f64::from(*b))
                            .sum(),
                        Metric::L2 => q
                            .iter()
                            .zip(r)
                            .map(|(a, b)| (f64::from(*a) - f64::from(*b)).powi(2))
                            .sum::<f64>(),
                    };
                    (v, j)
                })
                .collect();
            // Values are finite (checked); `partial_cmp` makes −0 and +0 equal, so that they
            // tie and the smaller id wins, as in any search that compares with `>`.
            let order = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
            match self.metric {
                Metric::InnerProduct => s.sort_by(|a, b| order(b.0, a.0).then(a.1.cmp(&b.1))),
                Metric::L2 => s.sort_by(|a, b| order(a.0, b.0).then(a.1.cmp(&b.1))),
            }
            for &(v, j) in &s[..k] {
                ids.push(j);
                scores.push(v as f32);
            }
        }
        if queries.is_empty() {
            return Neighbors::new(k.max(1), vec![], vec![]);
        }
        Neighbors::new(k, ids, scores)
    }
    fn save(&self, path: &Path) -> Result<()> {
        Err(Error::Invalid(format!(
            "the test index cannot be saved ({})",
            path.display()
        )))
    }
}
