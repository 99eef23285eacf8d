//! Extraction with a classifier (Grégoire & Langlais 2018, §4.3 eq. 9 and §5.2): score
//! candidate pairs with any [`PairScorer`], keep those with `score >= ρ`, then make the result
//! one-to-one greedily, best score first.

use bitext_similarity::PairScorer;

use crate::error::{Error, Result};
use crate::pairs::{ScoredPair, greedy_one_to_one};

/// Candidates scored per call of the scorer.
const BATCH: usize = 4096;

/// Every pair of the Cartesian product `0..n_src × 0..n_tgt`, source-major (the candidates of
/// two aligned documents, as Grégoire & Langlais extract from Wikipedia article pairs).
pub fn all_pairs(n_src: usize, n_tgt: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n_src).flat_map(move |i| (0..n_tgt).map(move |j| (i, j)))
}

/// Score `candidates` in batches, keep those with `score >= rho`, and select one-to-one pairs
/// greedily by descending score (ties in candidate order). Memory holds only the kept pairs.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_mine::{all_pairs, extract};
/// use bitext_similarity::{EmbeddingScorer, Measure};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let x = Embeddings::from_rows([[1.0, 0.1], [0.1, 1.0]], 2)?;
/// let y = Embeddings::from_rows([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], 2)?;
/// let scorer = EmbeddingScorer::new(x.view(), y.view(), Measure::Cosine)?;
/// let pairs = extract(&scorer, all_pairs(2, 3), 0.9)?;
/// assert_eq!(pairs.iter().map(|p| (p.src, p.tgt)).collect::<Vec<_>>(), [(0, 1), (1, 0)]);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// [`Error::Invalid`] for a NaN `rho`; the scorer's errors (an index out of range, a
/// non-finite score).
pub fn extract(
    scorer: &dyn PairScorer,
    candidates: impl IntoIterator<Item = (usize, usize)>,
    rho: f64,
) -> Result<Vec<ScoredPair>> {
    if rho.is_nan() {
        return Err(Error::Invalid("the decision threshold ρ is NaN".into()));
    }
    let mut kept = Vec::new();
    let mut batch = Vec::with_capacity(BATCH);
    let mut flush = |batch: &mut Vec<(usize, usize)>| -> Result<()> {
        let scores = scorer.score(batch)?;
        kept.extend(
            batch
                .iter()
                .zip(scores)
                .filter(|(_, s)| *s >= rho)
                .map(|(&(i, j), s)| ScoredPair::new(s, i, j)),
        );
        batch.clear();
        Ok(())
    };
    for c in candidates {
        batch.push(c);
        if batch.len() == BATCH {
            flush(&mut batch)?;
        }
    }
    if !batch.is_empty() {
        flush(&mut batch)?;
    }
    greedy_one_to_one(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitext_similarity::Result as SimResult;

    /// Scores (i, j) by a table.
    struct Table(Vec<Vec<f64>>);

    impl PairScorer for Table {
        fn sizes(&self) -> (usize, usize) {
            (self.0.len(), self.0[0].len())
        }
        fn score_batch(&self, pairs: &[(usize, usize)]) -> SimResult<Vec<f64>> {
            Ok(pairs.iter().map(|&(i, j)| self.0[i][j]).collect())
        }
    }

    #[test]
    fn hand_worked_extraction() {
        // Probabilities of a classifier; ρ = 0.5.
        let t = Table(vec![
            vec![0.95, 0.97, 0.1],
            vec![0.99, 0.2, 0.3],
            vec![0.4, 0.6, 0.45],
        ]);
        let got = extract(&t, all_pairs(3, 3), 0.5).unwrap();
        // Sorted kept: (1,0) .99, (0,1) .97, (0,0) .95, (2,1) .6 → (1,0), (0,1); (0,0) and (2,1)
        // conflict.
        let p = ScoredPair::new;
        assert_eq!(got, vec![p(0.99, 1, 0), p(0.97, 0, 1)]);
        assert_eq!(extract(&t, all_pairs(3, 3), 0.995).unwrap(), vec![]);
        // ρ is inclusive.
        assert_eq!(extract(&t, [(2, 1)], 0.6).unwrap().len(), 1);
        assert!(extract(&t, [(3, 0)], 0.5).is_err());
        assert!(extract(&t, [(0, 0)], f64::NAN).is_err());
        assert_eq!(
            all_pairs(2, 2).collect::<Vec<_>>(),
            [(0, 0), (0, 1), (1, 0), (1, 1)]
        );
    }

    #[test]
    fn large_candidate_sets_are_batched() {
        let n = 100;
        let t = Table(
            (0..n)
                .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
                .collect(),
        );
        let got = extract(&t, all_pairs(n, n), 0.5).unwrap();
        assert_eq!(got.len(), n);
        assert!(got.iter().all(|p| p.src == p.tgt));
    }
}
