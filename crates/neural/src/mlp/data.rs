//! Training pairs for the MLP similarity and the ways of choosing its negatives (Kim et al.
//! 2019, §4 and §5.2): random pairings, or the worst-scored pairs (by cosine) of a portion of
//! a noisy corpus.

use bitext_core::{Embeddings, EmbeddingsView, Rng};

use crate::error::{Error, Result};

/// Labelled embedding pairs: row `i` of `src` with row `i` of `tgt`, parallel or not.
#[derive(Debug, Clone, PartialEq)]
pub struct PairSet {
    src: Embeddings,
    tgt: Embeddings,
    labels: Vec<bool>,
}

impl PairSet {
    /// Pairs from aligned matrices and labels.
    ///
    /// # Errors
    /// [`Error::Input`] when the sizes or dimensions differ, or a value is not finite.
    pub fn new(src: Embeddings, tgt: Embeddings, labels: Vec<bool>) -> Result<Self> {
        if src.len() != tgt.len() || src.len() != labels.len() || src.dim() != tgt.dim() {
            return Err(Error::Input(format!(
                "pair set of {}×{} source and {}×{} target embeddings with {} labels",
                src.len(),
                src.dim(),
                tgt.len(),
                tgt.dim(),
                labels.len()
            )));
        }
        src.check_finite()?;
        tgt.check_finite()?;
        Ok(Self { src, tgt, labels })
    }

    /// Positives `(pos_src[i], pos_tgt[i])` and negatives `(neg_src[i], neg_tgt[i])` stacked.
    ///
    /// # Errors
    /// As [`PairSet::new`].
    pub fn from_sets(
        pos_src: EmbeddingsView<'_>,
        pos_tgt: EmbeddingsView<'_>,
        neg_src: EmbeddingsView<'_>,
        neg_tgt: EmbeddingsView<'_>,
    ) -> Result<Self> {
        let mut src = pos_src.to_owned();
        src.extend_from_view(neg_src)?;
        let mut tgt = pos_tgt.to_owned();
        tgt.extend_from_view(neg_tgt)?;
        let mut labels = vec![true; pos_src.len()];
        labels.extend(std::iter::repeat_n(false, neg_src.len()));
        Self::new(src, tgt, labels)
    }

    /// Positives `(a[i], b[i])` for every row, and negatives `(a[i], b[j])` at the given index
    /// pairs (e.g. from [`random_negatives`]).
    ///
    /// # Errors
    /// As [`PairSet::new`]; [`Error::Input`] for an index out of range.
    pub fn with_negative_pairs(
        a: EmbeddingsView<'_>,
        b: EmbeddingsView<'_>,
        negatives: &[(usize, usize)],
    ) -> Result<Self> {
        let mut ns = Embeddings::with_capacity(a.dim(), negatives.len())?;
        let mut nt = Embeddings::with_capacity(b.dim(), negatives.len())?;
        for &(i, j) in negatives {
            let (Some(x), Some(y)) = (a.get(i), b.get(j)) else {
                return Err(Error::Input(format!(
                    "negative pair ({i}, {j}) is outside {} × {} embeddings",
                    a.len(),
                    b.len()
                )));
            };
            ns.push_row(x)?;
            nt.push_row(y)?;
        }
        Self::from_sets(a, b, ns.view(), nt.view())
    }

    /// Number of pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// No pairs.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Embedding dimension.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.src.dim()
    }

    /// Source side.
    #[must_use]
    pub fn src(&self) -> EmbeddingsView<'_> {
        self.src.view()
    }

    /// Target side.
    #[must_use]
    pub fn tgt(&self) -> EmbeddingsView<'_> {
        self.tgt.view()
    }

    /// Labels.
    #[must_use]
    pub fn labels(&self) -> &[bool] {
        &self.labels
    }

    /// Split off a random `fraction` of the pairs for validation: `(train, valid)`.
    ///
    /// # Errors
    /// [`Error::Config`] for a fraction outside `[0, 1)`.
    pub fn split(&self, fraction: f64, rng: &mut Rng) -> Result<(Self, Self)> {
        if !(0.0..1.0).contains(&fraction) {
            return Err(Error::Config(format!(
                "validation fraction must be in [0, 1), got {fraction}"
            )));
        }
        let mut idx: Vec<usize> = (0..self.len()).collect();
        rng.shuffle(&mut idx);
        let nv = (self.len() as f64 * fraction).round() as usize;
        let pick = |ids: &[usize]| -> Result<Self> {
            let mut s = Embeddings::with_capacity(self.dim(), ids.len())?;
            let mut t = Embeddings::with_capacity(self.dim(), ids.len())?;
            for &i in ids {
                s.push_row(self.src.row(i))?;
                t.push_row(self.tgt.row(i))?;
            }
            Self::new(s, t, ids.iter().map(|&i| self.labels[i]).collect())
        };
        let (v, t) = idx.split_at(nv);
        Ok((pick(t)?, pick(v)?))
    }
}

/// `count` random pairings `(i, j)`, `i ≠ j`, of an aligned corpus of `n` pairs: the
/// random-sampling negatives (needs `n ≥ 2`).
#[must_use]
pub fn random_negatives(n: usize, count: usize, rng: &mut Rng) -> Vec<(usize, usize)> {
    if n < 2 {
        return Vec::new();
    }
    (0..count)
        .map(|_| {
            let i = rng.below(n);
            let r = rng.below(n - 1);
            (i, if r >= i { r + 1 } else { r })
        })
        .collect()
}

/// Cosine similarity of row `i` of `a` with row `i` of `b`, for every row (0 for a zero row).
///
/// # Errors
/// [`Error::Input`] when the shapes differ.
pub fn cosine_rows(a: EmbeddingsView<'_>, b: EmbeddingsView<'_>) -> Result<Vec<f64>> {
    if a.len() != b.len() || a.dim() != b.dim() {
        return Err(Error::Input(format!(
            "cannot compare {}×{} and {}×{} embeddings row by row",
            a.len(),
            a.dim(),
            b.len(),
            b.dim()
        )));
    }
    Ok(a.rows()
        .zip(b.rows())
        .map(|(x, y)| {
            let (mut d, mut nx, mut ny) = (0f64, 0f64, 0f64);
            for (&p, &q) in x.iter().zip(y) {
                d += f64::from(p) * f64::from(q);
                nx += f64::from(p) * f64::from(p);
                ny += f64::from(q) * f64::from(q);
            }
            if nx == 0.0 || ny == 0.0 {
                0.0
            } else {
                d / (nx.sqrt() * ny.sqrt())
            }
        })
        .collect())
}

/// Kim et al.'s "x%-worst" negatives: sort the corpus by `scores` (higher = better), keep the
/// top `portion` of it, and return the indices of the `count` worst-scored lines of that
/// portion (fewer when the portion is smaller). `portion = 1` gives the worst lines of the
/// whole corpus; `0.2` gives lines just below the best fifth: nearly parallel pairs.
///
/// # Errors
/// [`Error::Config`] for a portion outside `(0, 1]`; [`Error::Input`] for a non-finite score.
pub fn worst_of_portion(scores: &[f64], portion: f64, count: usize) -> Result<Vec<usize>> {
    if !(portion > 0.0 && portion <= 1.0) {
        return Err(Error::Config(format!(
            "portion must be in (0, 1], got {portion}"
        )));
    }
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(Error::Input(format!("score {i} is {}", scores[i])));
    }
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    // Best first; ties by index so the choice is reproducible.
    idx.sort_by(|&x, &y| scores[y].total_cmp(&scores[x]).then(x.cmp(&y)));
    let end = ((scores.len() as f64 * portion).round() as usize).min(scores.len());
    let start = end.saturating_sub(count);
    Ok(idx[start..end].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_of_portion_by_hand() {
        // Ranking by score: 4 (0.9), 0 (0.8), 2 (0.5), 1 (0.3), 5 (0.2), 3 (0.1).
        let s = [0.8, 0.3, 0.5, 0.1, 0.9, 0.2];
        assert_eq!(worst_of_portion(&s, 1.0, 2).unwrap(), vec![5, 3]);
        // Top half = 4, 0, 2: its 2 worst are 0, 2.
        assert_eq!(worst_of_portion(&s, 0.5, 2).unwrap(), vec![0, 2]);
        assert_eq!(worst_of_portion(&s, 0.5, 10).unwrap(), vec![4, 0, 2]);
        assert!(worst_of_portion(&s, 0.0, 1).is_err());
        assert!(worst_of_portion(&[f64::NAN], 1.0, 1).is_err());
    }

    #[test]
    fn random_negatives_are_off_diagonal_and_seeded() {
        let a = random_negatives(5, 100, &mut Rng::seed(3));
        assert!(a.iter().all(|&(i, j)| i != j && i < 5 && j < 5));
        assert_eq!(a, random_negatives(5, 100, &mut Rng::seed(3)));
        assert!(random_negatives(1, 3, &mut Rng::seed(3)).is_empty());
    }

    #[test]
    fn cosine_and_pair_sets() {
        let a = Embeddings::from_rows([[1.0, 0.0], [1.0, 1.0]], 2).unwrap();
        let b = Embeddings::from_rows([[2.0, 0.0], [0.0, 0.0]], 2).unwrap();
        assert_eq!(cosine_rows(a.view(), b.view()).unwrap(), vec![1.0, 0.0]);
        let p = PairSet::with_negative_pairs(a.view(), b.view(), &[(0, 1)]).unwrap();
        assert_eq!(p.labels(), &[true, true, false]);
        assert_eq!(p.tgt().row(2), &[0.0, 0.0]);
        assert!(PairSet::with_negative_pairs(a.view(), b.view(), &[(0, 2)]).is_err());
        let (t, v) = p.split(0.34, &mut Rng::seed(1)).unwrap();
        assert_eq!((t.len(), v.len()), (2, 1));
    }
}
