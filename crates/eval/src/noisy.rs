//! The noisy-parallel protocol of Grégoire & Langlais (2018, §5.1): take `N` held-out parallel
//! pairs, replace a ratio `r` of the target sentences by unrelated sentences (from other
//! held-out pairs), score the whole Cartesian product `N × N` with a pair scorer, and report
//! precision, recall and F1 at the F1-optimal decision threshold `ρ`, with the
//! precision/recall curve. At `r = 0.9`, 100 of 1,000 pairs stay parallel: 0.01% of the
//! product.
//!
//! ```
//! use bitext_core::Rng;
//! use bitext_eval::noisy::{NoisyParallel, NoisyTarget};
//! # fn main() -> bitext_eval::Result<()> {
//! // 10 pairs, 40% of the targets replaced by sentences 0..20 of a pool of 20.
//! let test = NoisyParallel::build(10, 20, 0.4, &mut Rng::seed(1))?;
//! assert_eq!(test.gold().len(), 6);
//! let noise = test.targets().iter().filter(|t| matches!(t, NoisyTarget::Noise(_))).count();
//! assert_eq!(noise, 4);
//! # Ok(())
//! # }
//! ```

use bitext_core::Rng;
use bitext_similarity::PairScorer;

use crate::bucc::GoldSet;
use crate::error::{Error, Result};
use crate::prf::{PrPoint, Threshold, best_f1_threshold, pr_curve};

/// Where target sentence `j` of the test comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoisyTarget {
    /// The target of pair `k` (`k = j`): the pair `(j, j)` is parallel.
    Parallel(usize),
    /// Sentence `k` of the pool of unrelated sentences.
    Noise(usize),
}

/// A test set of the protocol: `N` source sentences (pairs `0..N`) and `N` target sentences,
/// a ratio of them replaced by noise.
#[derive(Debug, Clone)]
pub struct NoisyParallel {
    targets: Vec<NoisyTarget>,
    gold: GoldSet<usize>,
}

/// The protocol's result.
#[derive(Debug, Clone)]
pub struct NoisyResult {
    /// Precision, recall and F1 at the F1-optimal threshold (`None` when no pair was gold).
    pub best: Option<Threshold>,
    /// Precision/recall curve, one point per distinct score, highest first.
    pub curve: Vec<PrPoint>,
    /// Pairs scored (`N²`).
    pub scored: usize,
}

impl NoisyParallel {
    /// Draw a test over `n` pairs: `round(noise × n)` target positions chosen at random get
    /// distinct sentences of a pool of `pool` unrelated sentences.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a ratio outside `[0, 1]` or a pool smaller than the replaced
    /// targets.
    pub fn build(n: usize, pool: usize, noise: f64, rng: &mut Rng) -> Result<Self> {
        if !(0.0..=1.0).contains(&noise) {
            return Err(Error::Invalid(format!(
                "noise ratio must be in [0, 1], got {noise}"
            )));
        }
        let k = (noise * n as f64).round() as usize;
        if k > pool {
            return Err(Error::Invalid(format!(
                "{k} targets to replace but only {pool} unrelated sentences"
            )));
        }
        let mut targets: Vec<NoisyTarget> = (0..n).map(NoisyTarget::Parallel).collect();
        let positions = rng.sample_indices(n, k);
        let fillers = rng.sample_indices(pool, k);
        for (&p, &f) in positions.iter().zip(&fillers) {
            targets[p] = NoisyTarget::Noise(f);
        }
        let gold = GoldSet::new(
            targets
                .iter()
                .enumerate()
                .filter(|(_, t)| matches!(t, NoisyTarget::Parallel(_)))
                .map(|(j, _)| (j, j)),
        )?;
        Ok(Self { targets, gold })
    }

    /// Number of pairs `N`.
    #[must_use]
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// No pairs.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }

    /// Where each target sentence comes from: build the scorer's target list from it.
    #[must_use]
    pub fn targets(&self) -> &[NoisyTarget] {
        &self.targets
    }

    /// The parallel pairs `(j, j)` that survived the noise.
    #[must_use]
    pub fn gold(&self) -> &GoldSet<usize> {
        &self.gold
    }

    /// Pick the test's target sentences: `parallel[k]` for [`NoisyTarget::Parallel`],
    /// `pool[k]` for [`NoisyTarget::Noise`].
    ///
    /// # Errors
    /// [`Error::Invalid`] when a list is shorter than the test needs.
    pub fn target_items<'a, T>(&self, parallel: &'a [T], pool: &'a [T]) -> Result<Vec<&'a T>> {
        self.targets
            .iter()
            .map(|t| match *t {
                NoisyTarget::Parallel(k) => parallel.get(k),
                NoisyTarget::Noise(k) => pool.get(k),
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| Error::Invalid("too few sentences for the noisy test".into()))
    }

    /// Score the Cartesian product with `scorer` (built over the `N` sources and the test's
    /// `N` targets; higher = more parallel) and evaluate it.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the scorer's sizes are not `N × N`; the scorer's errors.
    pub fn evaluate(&self, scorer: &dyn PairScorer) -> Result<NoisyResult> {
        let n = self.len();
        if scorer.sizes() != (n, n) {
            return Err(Error::Invalid(format!(
                "the scorer holds {:?} sentences, the test {n} × {n}",
                scorer.sizes()
            )));
        }
        let mut scored = Vec::with_capacity(n * n);
        for i in 0..n {
            let pairs: Vec<(usize, usize)> = (0..n).map(|j| (i, j)).collect();
            let s = scorer.score(&pairs)?;
            scored.extend(
                s.into_iter()
                    .zip(&pairs)
                    .map(|(s, p)| (s, self.gold.contains(&p.0, &p.1))),
            );
        }
        Ok(NoisyResult {
            best: best_f1_threshold(&scored, self.gold.len())?,
            curve: pr_curve(&scored, self.gold.len())?,
            scored: scored.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores (i, j) by a fixed table: exact when `tgt[j]` came from pair `i`.
    struct Oracle(Vec<NoisyTarget>);

    impl PairScorer for Oracle {
        fn sizes(&self) -> (usize, usize) {
            (self.0.len(), self.0.len())
        }
        fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
            Ok(pairs
                .iter()
                .map(|&(i, j)| match self.0[j] {
                    NoisyTarget::Parallel(k) if k == i => 0.9,
                    // One noise target looks parallel to source 0.
                    NoisyTarget::Noise(_) if i == 0 && j == 0 => 0.95,
                    _ => 0.1,
                })
                .collect())
        }
    }

    #[test]
    fn builds_and_evaluates_by_hand() {
        let t = NoisyParallel::build(5, 3, 0.4, &mut Rng::seed(2)).unwrap();
        assert_eq!((t.len(), t.gold().len()), (5, 3));
        let mut seen_noise: Vec<usize> = t
            .targets()
            .iter()
            .filter_map(|x| match x {
                NoisyTarget::Noise(k) => Some(*k),
                NoisyTarget::Parallel(_) => None,
            })
            .collect();
        seen_noise.sort_unstable();
        seen_noise.dedup();
        assert_eq!(seen_noise.len(), 2);
        let r = t.evaluate(&Oracle(t.targets().to_vec())).unwrap();
        assert_eq!(r.scored, 25);
        let best = r.best.unwrap();
        // The three gold pairs score 0.9, everything else 0.1 (except maybe one 0.95 false
        // positive when target 0 is noise): the best cut keeps the golds, F1 ≥ 6/7.
        assert_eq!(best.prf.true_positives, 3);
        assert!(best.prf.f1 >= 6.0 / 7.0 - 1e-12, "{:?}", best.prf);
        assert!(NoisyParallel::build(5, 1, 0.4, &mut Rng::seed(2)).is_err());
        assert!(NoisyParallel::build(5, 9, 1.5, &mut Rng::seed(2)).is_err());
        let words = ["a", "b", "c", "d", "e"];
        let pool = ["x", "y", "z"];
        assert_eq!(t.target_items(&words, &pool).unwrap().len(), 5);
    }
}
