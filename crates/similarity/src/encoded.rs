//! [`Cosines`]: the cosine of an encoder's two vectors of each pair, as every command that
//! encodes a pair's sides and scores them does (`score --encoder`, `filter --encoder --scorer
//! cosine`, `clean --encoder`, in one process or sharded). A zero row (a sentence with nothing
//! to encode, under the encoder spec's `"no_known_word": "zero"`) has no direction: its pairs
//! score [`UNENCODABLE`], the lowest cosine, so that they rank last and fail any threshold,
//! never NaN. [`crate::EmbeddingScorer`] refuses zero rows instead, for embedding files whose
//! zero rows nothing explains.

use bitext_core::Embeddings;

use crate::error::{Error, Result};
use crate::measure::{Measure, squared_norm};
use crate::scorer::PairScorer;

/// The score of a pair with a zero row: −1, the lowest cosine.
pub const UNENCODABLE: f64 = -1.0;

/// The cosines of rows of two matrices an encoder made, each pair `(i, j)` scored by
/// `cos(src[i], tgt[j])`, [`UNENCODABLE`] where either row is all zeros.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_similarity::{Cosines, PairScorer, UNENCODABLE};
/// let src = Embeddings::from_rows([[3.0, 4.0], [0.0, 0.0]], 2).unwrap();
/// let tgt = Embeddings::from_rows([[3.0, 4.0]], 2).unwrap();
/// let s = Cosines::new(src, tgt).unwrap();
/// assert_eq!(s.score(&[(0, 0), (1, 0)]).unwrap(), [1.0, UNENCODABLE]);
/// ```
#[derive(Debug)]
pub struct Cosines {
    src: Embeddings,
    tgt: Embeddings,
    /// Whether each row is all zeros, source then target.
    zero: (Vec<bool>, Vec<bool>),
}

impl Cosines {
    /// The cosines of `src`'s rows with `tgt`'s.
    ///
    /// # Errors
    /// Matrices of different dimensions, a value that is not finite.
    pub fn new(src: Embeddings, tgt: Embeddings) -> Result<Self> {
        if src.dim() != tgt.dim() {
            let (a, b) = (src.dim(), tgt.dim());
            return Err(Error::Invalid(format!(
                "{a}-dimensional source but {b}-dimensional target vectors"
            )));
        }
        for (side, m) in [("source", &src), ("target", &tgt)] {
            m.check_finite()
                .map_err(|e| Error::Invalid(format!("{side} vectors: {e}")))?;
        }
        let zeros = |m: &Embeddings| {
            (0..m.len())
                .map(|i| squared_norm(m.row(i)) == 0.0)
                .collect()
        };
        let zero = (zeros(&src), zeros(&tgt));
        Ok(Self { src, tgt, zero })
    }
}

impl PairScorer for Cosines {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
        let (n, m) = self.sizes();
        pairs
            .iter()
            .map(|&(i, j)| {
                if i >= n || j >= m {
                    return Err(Error::Invalid(format!(
                        "pair ({i}, {j}) outside {n} × {m} rows"
                    )));
                }
                Ok(if self.zero.0[i] || self.zero.1[j] {
                    UNENCODABLE
                } else {
                    f64::from(Measure::Cosine.apply(self.src.row(i), self.tgt.row(j)))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_row_scores_lowest_and_other_rows_their_cosine() {
        let src = Embeddings::from_rows([[3.0, 4.0], [0.0, 0.0]], 2).unwrap();
        let tgt = Embeddings::from_rows([[3.0, 4.0], [-4.0, 3.0], [0.0, 0.0]], 2).unwrap();
        let s = Cosines::new(src, tgt).unwrap();
        let got = s.score(&[(0, 0), (0, 1), (1, 0), (0, 2), (1, 2)]).unwrap();
        assert_eq!(got, [1.0, 0.0, -1.0, -1.0, -1.0]);
        let flipped = Embeddings::from_rows([[-3.0, -4.0]], 2).unwrap();
        let one = Embeddings::from_rows([[3.0, 4.0]], 2).unwrap();
        let opposite = Cosines::new(flipped, one).unwrap();
        assert_eq!(opposite.score(&[(0, 0)]).unwrap(), [-1.0]);
        assert!(opposite.score(&[(1, 0)]).is_err());
    }

    #[test]
    fn other_dimensions_and_non_finite_values_are_errors() {
        let two = Embeddings::from_rows([[1.0, 0.0]], 2).unwrap();
        let three = Embeddings::from_rows([[1.0, 0.0, 0.0]], 3).unwrap();
        assert!(Cosines::new(two.clone(), three).is_err());
        let nan = Embeddings::from_rows([[f32::NAN, 0.0]], 2).unwrap();
        let e = Cosines::new(two, nan).unwrap_err().to_string();
        assert!(e.contains("target vectors"), "{e}");
    }
}
