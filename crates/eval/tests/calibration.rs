//! Calibration on synthetic scores with a known precision: scores `s` uniform in `[0, 1]`,
//! labels drawn with `P(parallel | s) = s`. Then the calibrated probability of a score `s` is
//! `s`, the precision of `{score >= t}` is `(1 + t) / 2` and its recall `1 − t²`; over many
//! seeded replicates the Wilson intervals of the thresholds must hold these true values about
//! as often as their confidence says.

use bitext_core::Rng;
use bitext_eval::calibration::{
    Calibration, FitOptions, LabelledScores, Target, normal_quantile, wilson,
};
use bitext_eval::prf::prf_at;

fn draw(n: usize, rng: &mut Rng) -> LabelledScores {
    let scored = (0..n)
        .map(|_| {
            let s = rng.next_f64();
            (s, rng.bernoulli(s))
        })
        .collect();
    LabelledScores::new(scored).unwrap()
}

const REPLICATES: u64 = 200;
const N: usize = 1000;

#[test]
fn calibrated_probability_follows_the_true_one() {
    let mut rng = Rng::seed(17);
    let cal = Calibration::fit(&draw(5000, &mut rng), &FitOptions::default()).unwrap();
    let grid: Vec<f64> = (1..100).map(|k| f64::from(k) / 100.0).collect();
    let err = grid
        .iter()
        .map(|&s| (cal.probability(s) - s).abs())
        .sum::<f64>()
        / 99.0;
    assert!(err < 0.04, "mean absolute calibration error {err}");
    for w in grid.windows(2) {
        assert!(cal.probability(w[0]) <= cal.probability(w[1]));
    }
}

#[test]
fn intervals_cover_the_true_precision_and_recall() {
    let z = normal_quantile(0.975);
    let (mut fixed, mut chosen, mut recall) = (0, 0, 0);
    let mut miss = 0.0f64;
    for seed in 0..REPLICATES {
        let sample = draw(N, &mut Rng::seed(1000 + seed));
        // A fixed threshold, no selection: the plain Wilson interval at 95%.
        let t = 0.6;
        let p = prf_at(&sample.scored, sample.relevant, t).unwrap();
        fixed += usize::from(wilson(p.true_positives, p.predicted, z).contains((1.0 + t) / 2.0));
        // The threshold chosen for 80% precision and the one for 90% recall.
        let cal = Calibration::fit(&sample, &FitOptions::default()).unwrap();
        let c = cal.threshold(Target::Precision(0.8)).unwrap();
        let truth = (1.0 + c.threshold) / 2.0;
        chosen += usize::from(c.precision_interval.contains(truth));
        miss += (truth - 0.8).abs();
        let r = cal.threshold(Target::Recall(0.9)).unwrap();
        recall += usize::from(r.recall_interval.contains(1.0 - r.threshold * r.threshold));
    }
    let share = |k: usize| k as f64 / REPLICATES as f64;
    eprintln!(
        "coverage of 95% intervals: fixed {}, chosen {}, recall {}",
        share(fixed),
        share(chosen),
        share(recall)
    );
    assert!(share(fixed) >= 0.9, "fixed threshold: {}", share(fixed));
    assert!(share(chosen) >= 0.85, "chosen threshold: {}", share(chosen));
    assert!(share(recall) >= 0.85, "recall: {}", share(recall));
    // The precision reached is close to the precision asked for.
    let miss = miss / REPLICATES as f64;
    assert!(miss < 0.035, "mean |true precision − 0.8| = {miss}");
}
