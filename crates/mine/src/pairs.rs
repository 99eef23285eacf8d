//! Scored pairs and the operations every strategy ends with: sort by descending score, keep
//! those above a threshold, keep the top N, and greedy one-to-one selection (Grégoire &
//! Langlais 2018, §5.2).

use crate::error::{Error, Result};

/// A candidate translation pair: source row, target row and its score (higher is better).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScoredPair {
    /// The score.
    pub score: f64,
    /// Source row (0-based).
    pub src: usize,
    /// Target row (0-based).
    pub tgt: usize,
}

impl ScoredPair {
    /// A pair.
    #[must_use]
    pub fn new(score: f64, src: usize, tgt: usize) -> Self {
        Self { score, src, tgt }
    }
}

/// Check that every score is finite, naming the first pair that is not.
///
/// # Errors
/// [`Error::Invalid`].
pub fn check_scores(pairs: &[ScoredPair]) -> Result<()> {
    match pairs.iter().find(|p| !p.score.is_finite()) {
        Some(p) => Err(Error::Invalid(format!(
            "pair ({}, {}) has score {}, not a finite number",
            p.src, p.tgt, p.score
        ))),
        None => Ok(()),
    }
}

/// Sort by descending score; pairs of equal score keep their order (a stable sort, like
/// LASER's reference with `kind="stable"`).
///
/// # Errors
/// [`Error::Invalid`] for a non-finite score.
pub fn sort_descending(pairs: &mut [ScoredPair]) -> Result<()> {
    check_scores(pairs)?;
    pairs.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(())
}

/// How mined pairs are cut by score.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Threshold {
    /// Keep pairs with `score > value` (LASER's `--threshold`; its default is 0).
    Above {
        /// The value.
        value: f64,
    },
    /// Keep pairs with `score >= value` (a classifier's decision threshold ρ, Grégoire &
    /// Langlais eq. 9).
    AtLeast {
        /// The value.
        value: f64,
    },
}

impl Threshold {
    /// Whether a pair of score `s` is kept.
    #[must_use]
    pub fn keeps(self, s: f64) -> bool {
        match self {
            Threshold::Above { value } => s > value,
            Threshold::AtLeast { value } => s >= value,
        }
    }

    /// Check the value.
    ///
    /// # Errors
    /// [`Error::Invalid`] for NaN.
    pub fn check(self) -> Result<()> {
        let (Threshold::Above { value } | Threshold::AtLeast { value }) = self;
        if value.is_nan() {
            return Err(Error::Invalid("the threshold is NaN".into()));
        }
        Ok(())
    }
}

/// Keep the pairs that pass `threshold`, in order.
///
/// # Errors
/// [`Error::Invalid`] for a NaN threshold.
pub fn apply_threshold(pairs: &mut Vec<ScoredPair>, threshold: Threshold) -> Result<()> {
    threshold.check()?;
    pairs.retain(|p| threshold.keeps(p.score));
    Ok(())
}

/// Keep the `n` best pairs (by descending score, ties in input order), sorted.
///
/// # Errors
/// [`Error::Invalid`] for a non-finite score.
pub fn top_n(mut pairs: Vec<ScoredPair>, n: usize) -> Result<Vec<ScoredPair>> {
    sort_descending(&mut pairs)?;
    pairs.truncate(n);
    Ok(pairs)
}

/// Greedy one-to-one selection (Grégoire & Langlais 2018, §5.2; the last step of LASER's `max`
/// retrieval): sort by descending score (a stable sort: ties keep their input order) and keep
/// a pair only when neither its source nor its target has been kept before. The result is
/// sorted by descending score and uses every source and every target at most once.
///
/// ```
/// use bitext_mine::{ScoredPair, greedy_one_to_one};
/// # fn main() -> bitext_mine::Result<()> {
/// let p = |s, i, j| ScoredPair::new(s, i, j);
/// let kept = greedy_one_to_one(vec![p(0.5, 0, 1), p(0.9, 0, 0), p(0.8, 1, 0), p(0.7, 1, 1)])?;
/// assert_eq!(kept, vec![p(0.9, 0, 0), p(0.7, 1, 1)]);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// [`Error::Invalid`] for a non-finite score.
pub fn greedy_one_to_one(mut pairs: Vec<ScoredPair>) -> Result<Vec<ScoredPair>> {
    sort_descending(&mut pairs)?;
    let n_src = pairs.iter().map(|p| p.src + 1).max().unwrap_or(0);
    let n_tgt = pairs.iter().map(|p| p.tgt + 1).max().unwrap_or(0);
    let (mut used_src, mut used_tgt) = (vec![false; n_src], vec![false; n_tgt]);
    pairs.retain(|p| {
        if used_src[p.src] || used_tgt[p.tgt] {
            return false;
        }
        used_src[p.src] = true;
        used_tgt[p.tgt] = true;
        true
    });
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn arb_pairs() -> impl Strategy<Value = Vec<ScoredPair>> {
        proptest::collection::vec((0u8..20, 0usize..8, 0usize..8), 0..40).prop_map(|v| {
            v.into_iter()
                .map(|(s, i, j)| ScoredPair::new(f64::from(s) / 4.0, i, j))
                .collect()
        })
    }

    proptest! {
        #[test]
        fn greedy_is_one_to_one_maximal_and_sorted(pairs in arb_pairs()) {
            let kept = greedy_one_to_one(pairs.clone()).unwrap();
            let src: HashSet<_> = kept.iter().map(|p| p.src).collect();
            let tgt: HashSet<_> = kept.iter().map(|p| p.tgt).collect();
            prop_assert_eq!(src.len(), kept.len());
            prop_assert_eq!(tgt.len(), kept.len());
            prop_assert!(kept.windows(2).all(|w| w[0].score >= w[1].score));
            // Every kept pair was in the input.
            prop_assert!(kept.iter().all(|k| pairs.contains(k)));
            // Maximal: every dropped pair conflicts with a kept pair of at least its score.
            for p in &pairs {
                if !kept.contains(p) {
                    prop_assert!(kept.iter().any(|k| (k.src == p.src || k.tgt == p.tgt)
                        && k.score >= p.score));
                }
            }
        }

        #[test]
        fn top_n_keeps_the_best(pairs in arb_pairs(), n in 0usize..50) {
            let top = top_n(pairs.clone(), n).unwrap();
            prop_assert_eq!(top.len(), n.min(pairs.len()));
            if let Some(last) = top.last() {
                let better = pairs.iter().filter(|p| p.score > last.score).count();
                prop_assert!(better <= top.len());
            }
        }
    }

    #[test]
    fn greedy_breaks_ties_by_input_order() {
        let p = |s, i, j| ScoredPair::new(s, i, j);
        let kept = greedy_one_to_one(vec![p(1.0, 0, 1), p(1.0, 0, 0), p(1.0, 1, 0)]).unwrap();
        assert_eq!(kept, vec![p(1.0, 0, 1), p(1.0, 1, 0)]);
        assert!(greedy_one_to_one(vec![p(f64::NAN, 0, 0)]).is_err());
    }

    #[test]
    fn thresholds() {
        let p = |s| ScoredPair::new(s, 0, 0);
        let mut v = vec![p(0.5), p(1.0), p(0.2)];
        apply_threshold(&mut v, Threshold::Above { value: 0.5 }).unwrap();
        assert_eq!(v, vec![p(1.0)]);
        let mut v = vec![p(0.5), p(1.0), p(0.2)];
        apply_threshold(&mut v, Threshold::AtLeast { value: 0.5 }).unwrap();
        assert_eq!(v, vec![p(0.5), p(1.0)]);
        assert!(apply_threshold(&mut v, Threshold::Above { value: f64::NAN }).is_err());
    }
}
