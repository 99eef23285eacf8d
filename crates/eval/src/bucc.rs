//! The BUCC mining evaluation: precision, recall and F1 of mined pairs against gold pairs, the
//! F1-optimal threshold over a scored candidate list, and choosing the threshold on one split to
//! apply it to another (as LASER's `tasks/bucc` does: optimise on the training split, report on
//! the test split).
//!
//! Pairs are generic: sentence ids (`String`) read from files, or row indices (`usize`) from
//! the miner.

use std::collections::HashMap;
use std::collections::HashSet;
use std::fmt::Debug;
use std::hash::Hash;

use bitext_core::io::bucc::BuccGold;

use crate::error::{Error, Result};
use crate::prf::{Prf, Threshold, best_f1_threshold, prf_at};

/// Gold pairs, each once.
#[derive(Debug, Clone)]
pub struct GoldSet<T> {
    set: HashSet<(T, T)>,
}

/// Check that no pair occurs twice, naming the two positions.
fn check_unique<'a, T: Eq + Hash + Debug + 'a>(
    what: &'static str,
    pairs: impl Iterator<Item = (&'a T, &'a T)>,
) -> Result<()> {
    let mut seen: HashMap<(&T, &T), usize> = HashMap::new();
    for (i, p) in pairs.enumerate() {
        if let Some(first) = seen.insert(p, i) {
            return Err(Error::DuplicatePair {
                what,
                pair: format!("({:?}, {:?})", p.0, p.1),
                first,
                second: i,
            });
        }
    }
    Ok(())
}

impl<T: Eq + Hash + Clone + Debug> GoldSet<T> {
    /// Build from pairs.
    ///
    /// # Errors
    /// [`Error::DuplicatePair`] when a pair occurs twice.
    pub fn new(pairs: impl IntoIterator<Item = (T, T)>) -> Result<Self> {
        let pairs: Vec<(T, T)> = pairs.into_iter().collect();
        check_unique("gold pairs", pairs.iter().map(|(a, b)| (a, b)))?;
        Ok(Self {
            set: pairs.into_iter().collect(),
        })
    }

    /// Number of gold pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.set.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Whether `(src, tgt)` is a gold pair.
    #[must_use]
    pub fn contains(&self, src: &T, tgt: &T) -> bool {
        // HashSet<(T, T)> cannot be queried with (&T, &T); clone the (small) ids.
        self.set.contains(&(src.clone(), tgt.clone()))
    }

    /// Precision, recall and F1 of a list of mined pairs.
    ///
    /// # Errors
    /// [`Error::DuplicatePair`] when a mined pair occurs twice.
    pub fn evaluate(&self, mined: &[(T, T)]) -> Result<Prf> {
        check_unique("mined pairs", mined.iter().map(|(a, b)| (a, b)))?;
        let tp = mined.iter().filter(|(a, b)| self.contains(a, b)).count();
        Ok(Prf::from_counts(tp, mined.len(), self.len()))
    }

    /// Label scored candidates `(score, src, tgt)` as correct or not.
    ///
    /// # Errors
    /// [`Error::DuplicatePair`]; [`Error::NonFiniteScore`].
    pub fn label(&self, candidates: &[(f64, T, T)]) -> Result<Vec<(f64, bool)>> {
        check_unique("candidates", candidates.iter().map(|(_, a, b)| (a, b)))?;
        candidates
            .iter()
            .enumerate()
            .map(|(index, (s, a, b))| {
                if s.is_finite() {
                    Ok((*s, self.contains(a, b)))
                } else {
                    Err(Error::NonFiniteScore { index, score: *s })
                }
            })
            .collect()
    }

    /// The F1-optimal threshold over scored candidates (see [`best_f1_threshold`]); `None` when
    /// no candidate is a gold pair.
    ///
    /// # Errors
    /// As [`GoldSet::label`].
    pub fn best_threshold(&self, candidates: &[(f64, T, T)]) -> Result<Option<Threshold>> {
        best_f1_threshold(&self.label(candidates)?, self.len())
    }

    /// Precision, recall and F1 of the candidates with `score >= threshold`.
    ///
    /// # Errors
    /// As [`GoldSet::label`]; a NaN threshold.
    pub fn at_threshold(&self, candidates: &[(f64, T, T)], threshold: f64) -> Result<Prf> {
        prf_at(&self.label(candidates)?, self.len(), threshold)
    }
}

impl GoldSet<String> {
    /// The gold pairs of a BUCC gold file.
    ///
    /// # Errors
    /// Never in practice (the file reader already rejects duplicates).
    pub fn from_bucc(gold: &BuccGold) -> Result<Self> {
        Self::new(gold.pairs().iter().cloned())
    }
}

/// A threshold chosen on one split and applied to another.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThresholdTransfer {
    /// The threshold, F1-optimal on the tuning split.
    pub threshold: f64,
    /// Scores on the tuning split.
    pub tune: Prf,
    /// Scores on the evaluation split with the same threshold.
    pub test: Prf,
}

/// Choose the F1-optimal threshold on `(tune_candidates, tune_gold)` and apply it to
/// `(test_candidates, test_gold)`. `None` when no tuning candidate is correct.
///
/// # Errors
/// As [`GoldSet::label`] on either split.
pub fn transfer_threshold<T: Eq + Hash + Clone + Debug>(
    tune_gold: &GoldSet<T>,
    tune_candidates: &[(f64, T, T)],
    test_gold: &GoldSet<T>,
    test_candidates: &[(f64, T, T)],
) -> Result<Option<ThresholdTransfer>> {
    let Some(t) = tune_gold.best_threshold(tune_candidates)? else {
        return Ok(None);
    };
    let test = test_gold.at_threshold(test_candidates, t.threshold)?;
    Ok(Some(ThresholdTransfer {
        threshold: t.threshold,
        tune: t.prf,
        test,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gold() -> GoldSet<&'static str> {
        GoldSet::new([
            ("d1", "e1"),
            ("d2", "e2"),
            ("d3", "e3"),
            ("d4", "e4"),
            ("d5", "e5"),
        ])
        .unwrap()
    }

    #[test]
    fn three_of_four_mined_against_five_gold() {
        let mined = [("d1", "e1"), ("d2", "e2"), ("d3", "e9"), ("d4", "e4")];
        let p = gold().evaluate(&mined).unwrap();
        assert_eq!((p.precision, p.recall), (0.75, 0.6));
        assert!((p.f1 - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn duplicates_are_errors() {
        assert!(matches!(
            GoldSet::new([("a", "b"), ("a", "b")]),
            Err(Error::DuplicatePair {
                first: 0,
                second: 1,
                ..
            })
        ));
        assert!(gold().evaluate(&[("d1", "e1"), ("d1", "e1")]).is_err());
        assert!(
            gold()
                .label(&[(1.0, "d1", "e1"), (0.5, "d1", "e1")])
                .is_err()
        );
        assert!(gold().label(&[(f64::INFINITY, "d1", "e1")]).is_err());
    }

    #[test]
    fn threshold_chosen_on_one_split_applied_to_another() {
        let g = gold();
        // Tuning: correct pairs score above 0.6, wrong ones below: best cut between 0.7 and 0.4.
        let tune = [
            (0.9, "d1", "e1"),
            (0.8, "d2", "e2"),
            (0.7, "d3", "e3"),
            (0.4, "d1", "e2"),
            (0.3, "d2", "e3"),
        ];
        let t = g.best_threshold(&tune).unwrap().unwrap();
        assert!((t.threshold - 0.55).abs() < 1e-12);
        // Test split: 0.6 (correct) and 0.56 (wrong) are kept, 0.5 (correct) is not.
        let test_gold = GoldSet::new([("x1", "y1"), ("x2", "y2")]).unwrap();
        let test = [(0.6, "x1", "y1"), (0.56, "x1", "y2"), (0.5, "x2", "y2")];
        let tr = transfer_threshold(&g, &tune, &test_gold, &test)
            .unwrap()
            .unwrap();
        assert_eq!(
            (tr.test.true_positives, tr.test.predicted, tr.test.relevant),
            (1, 2, 2)
        );
        assert_eq!(tr.tune, t.prf);
    }
}
