//! Precision, recall and F1 from counts; the F1-optimal decision threshold and precision/recall
//! curves over scored, labelled lists (Grégoire & Langlais 2018, §4.1; the BUCC protocol).

use crate::error::{Error, Result};

/// Precision, recall and F1 with the counts they come from.
///
/// Conventions: precision is 0 when nothing is predicted, recall is 0 when nothing is relevant,
/// and F1 is 0 when precision + recall is 0.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Prf {
    /// Predicted items that are correct.
    pub true_positives: usize,
    /// Items predicted (extracted).
    pub predicted: usize,
    /// Items that should have been found (gold).
    pub relevant: usize,
    /// `true_positives / predicted`.
    pub precision: f64,
    /// `true_positives / relevant`.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
}

impl Prf {
    /// Compute from counts.
    #[must_use]
    pub fn from_counts(true_positives: usize, predicted: usize, relevant: usize) -> Self {
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let precision = ratio(true_positives, predicted);
        let recall = ratio(true_positives, relevant);
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        Self {
            true_positives,
            predicted,
            relevant,
            precision,
            recall,
            f1,
        }
    }
}

impl std::fmt::Display for Prf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "P {:.4} R {:.4} F1 {:.4} ({} correct of {} predicted, {} gold)",
            self.precision,
            self.recall,
            self.f1,
            self.true_positives,
            self.predicted,
            self.relevant
        )
    }
}

/// One point of a precision/recall curve: keeping every item with `score >= threshold`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PrPoint {
    /// Items with a score at least this are kept.
    pub threshold: f64,
    /// The scores at that cut.
    pub prf: Prf,
}

/// A decision threshold and the scores it gives.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Threshold {
    /// Keep items with `score >= threshold`.
    pub threshold: f64,
    /// Precision, recall and F1 when doing so.
    pub prf: Prf,
}

fn check_scores(scored: &[(f64, bool)]) -> Result<()> {
    match scored.iter().position(|(s, _)| !s.is_finite()) {
        Some(index) => Err(Error::NonFiniteScore {
            index,
            score: scored[index].0,
        }),
        None => Ok(()),
    }
}

/// The precision/recall curve of a scored list of `(score, is_correct)` items against
/// `relevant` gold items (which may exceed the correct items in the list, e.g. when candidates
/// were pruned): one point per distinct score, from the highest score down. Items with equal
/// scores are kept or dropped together, since no threshold separates them.
///
/// # Errors
/// [`Error::NonFiniteScore`]; [`Error::Invalid`] when the list holds more correct items than
/// `relevant`.
pub fn pr_curve(scored: &[(f64, bool)], relevant: usize) -> Result<Vec<PrPoint>> {
    check_scores(scored)?;
    let mut items = scored.to_vec();
    items.sort_by(|a, b| b.0.total_cmp(&a.0));
    let correct = items.iter().filter(|x| x.1).count();
    if correct > relevant {
        return Err(Error::Invalid(format!(
            "{correct} items are marked correct but only {relevant} are relevant"
        )));
    }
    let mut out = Vec::new();
    let (mut tp, mut i) = (0, 0);
    while i < items.len() {
        let s = items[i].0;
        while i < items.len() && items[i].0 == s {
            tp += usize::from(items[i].1);
            i += 1;
        }
        out.push(PrPoint {
            threshold: s,
            prf: Prf::from_counts(tp, i, relevant),
        });
    }
    Ok(out)
}

/// Average precision of a scored list: the area under its precision-recall curve as a step
/// function, `Σ (R_i − R_{i−1}) · P_i` over [`pr_curve`]'s points (items of equal score enter
/// together); 0 when nothing is relevant.
///
/// ```
/// let scored = [(0.9, true), (0.8, false), (0.7, true), (0.1, false)];
/// let ap = bitext_eval::prf::average_precision(&scored, 2).unwrap();
/// assert!((ap - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
/// ```
///
/// # Errors
/// As [`pr_curve`].
pub fn average_precision(scored: &[(f64, bool)], relevant: usize) -> Result<f64> {
    let curve = pr_curve(scored, relevant)?;
    if relevant == 0 {
        return Ok(0.0);
    }
    let mut ap = 0.0;
    let mut recall = 0.0;
    for p in &curve {
        ap += (p.prf.recall - recall) * p.prf.precision;
        recall = p.prf.recall;
    }
    Ok(ap)
}

/// Precision, recall and F1 of the `k` best-scored items (ties at the cut broken by position:
/// the earlier item first), as "the best lines up to the parallel count" reads.
///
/// # Errors
/// [`Error::NonFiniteScore`]; [`Error::Invalid`] when `k` exceeds the list.
pub fn prf_top(scored: &[(f64, bool)], relevant: usize, k: usize) -> Result<Prf> {
    check_scores(scored)?;
    if k > scored.len() {
        return Err(Error::Invalid(format!(
            "cannot keep {k} of {} items",
            scored.len()
        )));
    }
    let mut order: Vec<usize> = (0..scored.len()).collect();
    order.sort_by(|&a, &b| scored[b].0.total_cmp(&scored[a].0).then(a.cmp(&b)));
    let tp = order[..k].iter().filter(|&&i| scored[i].1).count();
    Ok(Prf::from_counts(tp, k, relevant))
}

/// Precision, recall and F1 when keeping the items with `score >= threshold`.
///
/// # Errors
/// [`Error::NonFiniteScore`] for an item's score or a NaN threshold.
pub fn prf_at(scored: &[(f64, bool)], relevant: usize, threshold: f64) -> Result<Prf> {
    check_scores(scored)?;
    if threshold.is_nan() {
        return Err(Error::Invalid("the threshold is NaN".into()));
    }
    let kept = scored.iter().filter(|x| x.0 >= threshold);
    let (n, tp) = kept.fold((0, 0), |(n, tp), x| (n + 1, tp + usize::from(x.1)));
    Ok(Prf::from_counts(tp, n, relevant))
}

/// The F1-optimal threshold over a scored list; `None` when no item is correct.
///
/// As in LASER's BUCC evaluation, the threshold returned lies half-way between the lowest kept
/// score and the next lower score, so that it separates the same items on similar data; at the
/// bottom of the list it is the lowest score itself. Among cuts with equal F1 the highest
/// threshold wins (fewer pairs, same quality).
///
/// # Errors
/// As [`pr_curve`].
pub fn best_f1_threshold(scored: &[(f64, bool)], relevant: usize) -> Result<Option<Threshold>> {
    let curve = pr_curve(scored, relevant)?;
    let mut best: Option<(usize, f64)> = None;
    for (i, p) in curve.iter().enumerate() {
        if p.prf.true_positives > 0 && best.is_none_or(|(_, f)| p.prf.f1 > f) {
            best = Some((i, p.prf.f1));
        }
    }
    Ok(best.map(|(i, _)| {
        let threshold = match curve.get(i + 1) {
            Some(next) => (curve[i].threshold + next.threshold) / 2.0,
            None => curve[i].threshold,
        };
        Threshold {
            threshold,
            prf: curve[i].prf,
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_by_hand() {
        // 3 of 4 mined pairs correct, 5 gold pairs: P 0.75, R 0.6, F1 = 2·0.45/1.35 = 2/3.
        let p = Prf::from_counts(3, 4, 5);
        assert_eq!((p.precision, p.recall), (0.75, 0.6));
        assert!((p.f1 - 2.0 / 3.0).abs() < 1e-12);
        let z = Prf::from_counts(0, 0, 5);
        assert_eq!((z.precision, z.recall, z.f1), (0.0, 0.0, 0.0));
    }

    #[test]
    fn best_threshold_on_constructed_list() {
        // Scores (label): 0.9 (T) 0.8 (T) 0.7 (F) 0.6 (T) 0.5 (F) 0.4 (F); 4 relevant.
        // Cuts: k=1 P1 R.25 F.4; k=2 P1 R.5 F.667; k=3 P.667 R.5 F.571; k=4 P.75 R.75 F.75;
        // k=5 P.6 R.75 F.667; k=6 P.5 R.75 F.6. Best: k=4, threshold (0.6+0.5)/2 = 0.55.
        let s = [
            (0.5, false),
            (0.9, true),
            (0.7, false),
            (0.8, true),
            (0.6, true),
            (0.4, false),
        ];
        let t = best_f1_threshold(&s, 4).unwrap().unwrap();
        assert!((t.threshold - 0.55).abs() < 1e-12);
        assert_eq!((t.prf.true_positives, t.prf.predicted), (3, 4));
        assert!((t.prf.f1 - 0.75).abs() < 1e-12);
        assert_eq!(prf_at(&s, 4, t.threshold).unwrap(), t.prf);
        let curve = pr_curve(&s, 4).unwrap();
        assert_eq!(curve.len(), 6);
        assert_eq!(curve[1].prf.predicted, 2);
    }

    #[test]
    fn ties_are_kept_together_and_bottom_cut_uses_lowest_score() {
        let s = [(0.5, true), (0.5, false), (0.2, true)];
        let curve = pr_curve(&s, 2).unwrap();
        assert_eq!(
            curve.iter().map(|p| p.prf.predicted).collect::<Vec<_>>(),
            vec![2, 3]
        );
        let t = best_f1_threshold(&s, 2).unwrap().unwrap();
        assert_eq!((t.threshold, t.prf.recall), (0.2, 1.0));
        assert!(best_f1_threshold(&[(0.3, false)], 1).unwrap().is_none());
    }

    #[test]
    fn bad_inputs() {
        assert!(matches!(
            pr_curve(&[(f64::NAN, true)], 1),
            Err(Error::NonFiniteScore { index: 0, .. })
        ));
        assert!(pr_curve(&[(1.0, true), (0.5, true)], 1).is_err());
        assert!(prf_at(&[(1.0, true)], 1, f64::NAN).is_err());
    }

    proptest! {
        /// The threshold search agrees with an exhaustive search over every distinct cut.
        #[test]
        fn best_threshold_is_optimal(items in proptest::collection::vec((0u8..20, any::<bool>()), 1..40), extra in 0usize..5) {
            let s: Vec<(f64, bool)> = items.iter().map(|&(k, l)| (f64::from(k) / 10.0, l)).collect();
            let relevant = s.iter().filter(|x| x.1).count() + extra;
            let best = best_f1_threshold(&s, relevant).unwrap();
            let mut brute = 0.0f64;
            for &(t, _) in &s {
                brute = brute.max(prf_at(&s, relevant, t).unwrap().f1);
            }
            match best {
                None => prop_assert_eq!(brute, 0.0),
                Some(t) => {
                    prop_assert!((t.prf.f1 - brute).abs() < 1e-12);
                    prop_assert_eq!(prf_at(&s, relevant, t.threshold).unwrap(), t.prf);
                }
            }
        }
    }
}
