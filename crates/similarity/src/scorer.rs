//! The [`PairScorer`] trait: the one interface through which every way of scoring a candidate
//! pair — cosine, margin, an MLP, a classifier, an EMD distance — plugs into the miner.

use std::sync::Arc;

use crate::error::{Error, Result};

/// Scores `(source, target)` pairs of items it was built on (rows of two embedding matrices,
/// or two lists of sentences). Higher means more likely a translation: distances are negated,
/// classifiers return probabilities.
///
/// Implementors write [`PairScorer::sizes`] and [`PairScorer::score_batch`]; pairs are
/// checked against `sizes` by the provided [`PairScorer::score`].
pub trait PairScorer: Send + Sync {
    /// Number of source and target items the scorer can score.
    fn sizes(&self) -> (usize, usize);

    /// Score a batch of pairs whose indices are in range: `out[i]` scores `pairs[i]`.
    ///
    /// # Errors
    /// When the scorer fails; the error says why.
    fn score_batch(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>>;

    /// Score pairs, checking every index first.
    ///
    /// # Errors
    /// [`Error::PairOutOfRange`] for the first bad pair; as [`PairScorer::score_batch`]; a
    /// non-finite score.
    fn score(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
        let (n_src, n_tgt) = self.sizes();
        if let Some(index) = pairs.iter().position(|&(s, t)| s >= n_src || t >= n_tgt) {
            let (src, tgt) = pairs[index];
            return Err(Error::PairOutOfRange {
                index,
                src,
                tgt,
                n_src,
                n_tgt,
            });
        }
        let scores = self.score_batch(pairs)?;
        if scores.len() != pairs.len() {
            return Err(Error::Invalid(format!(
                "scorer returned {} scores for {} pairs",
                scores.len(),
                pairs.len()
            )));
        }
        if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
            return Err(Error::Invalid(format!(
                "score {} of pair {:?} is not finite",
                scores[i], pairs[i]
            )));
        }
        Ok(scores)
    }
}

macro_rules! forward_scorer {
    ($($ty:ty),*) => {$(
        impl<T: PairScorer + ?Sized> PairScorer for $ty {
            fn sizes(&self) -> (usize, usize) {
                (**self).sizes()
            }
            fn score_batch(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
                (**self).score_batch(pairs)
            }
        }
    )*};
}
forward_scorer!(&T, Box<T>, Arc<T>);

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores a pair by minus the distance between its indices.
    struct Diagonal(usize);

    impl PairScorer for Diagonal {
        fn sizes(&self) -> (usize, usize) {
            (self.0, self.0)
        }
        fn score_batch(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
            Ok(pairs
                .iter()
                .map(|&(s, t)| -(s.abs_diff(t) as f64))
                .collect())
        }
    }

    #[test]
    fn checks_ranges_and_forwards() {
        let s: Arc<dyn PairScorer> = Arc::new(Diagonal(3));
        assert_eq!(s.score(&[(0, 0), (0, 2)]).unwrap(), vec![0.0, -2.0]);
        let e = s.score(&[(0, 0), (3, 1)]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::PairOutOfRange {
                    index: 1,
                    src: 3,
                    ..
                }
            ),
            "{e}"
        );
    }

    struct Nan;

    impl PairScorer for Nan {
        fn sizes(&self) -> (usize, usize) {
            (1, 1)
        }
        fn score_batch(&self, _: &[(usize, usize)]) -> Result<Vec<f64>> {
            Ok(vec![f64::NAN])
        }
    }

    #[test]
    fn non_finite_scores_are_errors() {
        assert!(Nan.score(&[(0, 0)]).is_err());
    }
}
