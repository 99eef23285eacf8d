//! Unit tests of the calibration: the isotonic fit by hand, the thresholds, the file checks.

use super::*;
use proptest::prelude::*;

fn sample() -> LabelledScores {
    // Ascending: 0.1 F, 0.2 F, 0.3 T, 0.4 F, 0.5 T, 0.6 T, 0.7 F, 0.8 T, 0.9 T, 0.9 T.
    let v = [
        (0.1, false),
        (0.2, false),
        (0.3, true),
        (0.4, false),
        (0.5, true),
        (0.6, true),
        (0.7, false),
        (0.8, true),
        (0.9, true),
        (0.9, true),
    ];
    LabelledScores::new(v.to_vec()).unwrap()
}

#[test]
fn isotonic_fit_by_hand() {
    let cal = Calibration::fit(&sample(), &FitOptions::default()).unwrap();
    // PAV: [0.1, 0.2] 0/2; [0.3, 0.4] 1/2; [0.5, 0.7] 2/3; [0.8, 0.9] 3/3.
    let b: Vec<(f64, f64, usize, usize)> = cal
        .blocks()
        .iter()
        .map(|b| (b.lo, b.hi, b.count, b.positives))
        .collect();
    assert_eq!(
        b,
        vec![
            (0.1, 0.2, 2, 0),
            (0.3, 0.4, 2, 1),
            (0.5, 0.7, 3, 2),
            (0.8, 0.9, 3, 3)
        ]
    );
    assert_eq!(cal.probability(0.0), 0.0);
    assert_eq!(cal.probability(0.35), 0.5);
    // Between 0.2 (0) and 0.3 (0.5): linear.
    assert!((cal.probability(0.25) - 0.25).abs() < 1e-12);
    assert_eq!(cal.probability(5.0), 1.0);
    assert!(cal.probability(f64::NAN).is_nan());
    let s = cal.samples();
    assert_eq!((s.pairs, s.positives, s.relevant), (10, 6, 6));
}

#[test]
fn thresholds_for_precision_recall_and_f1() {
    let cal = Calibration::fit(&sample(), &FitOptions::default()).unwrap();
    // Keeping the top block: 3/3; with [0.5, 0.7]: 5/6; with [0.3, 0.4]: 6/8; all: 6/10.
    let c = cal.threshold_for_precision(0.9).unwrap();
    assert_eq!((c.prf.true_positives, c.prf.predicted), (3, 3));
    assert!((c.threshold - 0.75).abs() < 1e-12);
    let c = cal.threshold_for_precision(0.8).unwrap();
    assert_eq!((c.prf.true_positives, c.prf.predicted), (5, 6));
    assert!((c.threshold - 0.45).abs() < 1e-12);
    assert!(c.precision_interval.contains(5.0 / 6.0));
    assert_eq!(c.precision_interval, wilson(5, 6, normal_quantile(0.975)));
    assert_eq!(cal.threshold_for_precision(0.6).unwrap().threshold, 0.1);
    assert!(cal.threshold_for_precision(f64::NAN).is_none());
    assert_eq!(cal.min_score(0.8).unwrap(), c.threshold);
    assert!(cal.min_score(1.5).is_err());
    // Recall 0.5 = 3 of 6: the highest threshold keeping 3 positives is between 0.8 and 0.7.
    let r = cal.threshold(Target::Recall(0.5)).unwrap();
    assert!((r.threshold - 0.75).abs() < 1e-12 && r.prf.recall == 0.5);
    // The F1-optimal row is prf's: agree with best_f1_threshold.
    let best = best_f1_threshold(&sample().scored, 6).unwrap().unwrap();
    let f = cal.threshold(Target::BestF1).unwrap();
    assert_eq!((f.threshold, f.prf), (best.threshold, best.prf));
    assert_eq!(cal.thresholds().last().unwrap().target, Target::BestF1);
    assert!(cal.table().contains("precision >= 0.8"));
}

#[test]
fn one_class_and_bad_options_are_errors() {
    let all = LabelledScores::new(vec![(0.1, true), (0.2, true)]).unwrap();
    let e = Calibration::fit(&all, &FitOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("all 2 labelled pairs are parallel"),
        "{e}"
    );
    let none = LabelledScores::new(vec![(0.1, false)]).unwrap();
    assert!(Calibration::fit(&none, &FitOptions::default()).is_err());
    let empty = LabelledScores::new(Vec::new()).unwrap();
    assert!(Calibration::fit(&empty, &FitOptions::default()).is_err());
    assert!(LabelledScores::new(vec![(f64::INFINITY, true)]).is_err());
    assert!(LabelledScores::with_relevant(vec![(0.1, true)], 0).is_err());
    for o in [
        FitOptions {
            confidence: 1.0,
            ..FitOptions::default()
        },
        FitOptions {
            targets: vec![Target::Precision(0.0)],
            ..FitOptions::default()
        },
        FitOptions {
            targets: vec![Target::Recall(f64::NAN)],
            ..FitOptions::default()
        },
    ] {
        assert!(Calibration::fit(&sample(), &o).is_err(), "{o:?}");
    }
}

#[test]
fn json_round_trip_and_file_checks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cal.json");
    let cal = Calibration::fit(&sample(), &FitOptions::default()).unwrap();
    cal.save(&path).unwrap();
    assert_eq!(Calibration::load(&path).unwrap(), cal);
    let json = std::fs::read_to_string(&path).unwrap();
    let check = |text: &str, want: &str| {
        std::fs::write(&path, text).unwrap();
        let e = Calibration::load(&path).unwrap_err().to_string();
        assert!(e.contains("cal.json") && e.contains(want), "{e}");
    };
    check("{", "not valid JSON");
    check("{\"format\": \"other\"}", "not a calibration file");
    check(
        &json.replace("\"version\": 1", "\"version\": 9"),
        "version 9: this bitext reads version 1",
    );
    // Each file is `json` with the first `from` replaced by `to`.
    for (from, to, want) in [
        // Probabilities that fall: the third block's counts swapped with the second's.
        ("\"positives\": 2", "\"positives\": 0", "probability"),
        ("\"lo\": 0.3", "\"lo\": 0.15", "inside the block before"),
        ("\"count\": 3", "\"count\": 4", "probability"),
        ("\"pairs\": 10", "\"pairs\": 11", "the blocks hold"),
        ("\"confidence\": 0.95", "\"confidence\": 2.0", "confidence"),
    ] {
        check(&json.replacen(from, to, 1), want);
    }
    let missing = json.replacen("\"lo\": 0.1,", "", 1);
    check(&missing, "invalid calibration: missing field `lo`");
    // A byte-order mark is dropped.
    std::fs::write(&path, format!("\u{feff}{json}")).unwrap();
    assert_eq!(Calibration::load(&path).unwrap(), cal);
    assert!(Calibration::load(dir.path().join("none.json")).is_err());
}

proptest! {
    /// The fit is monotone, every block's value is its mean label, the blocks cover the sample,
    /// and the cumulative precision of the threshold table never rises as the threshold falls.
    #[test]
    fn fit_is_monotone_and_exact_on_blocks(items in proptest::collection::vec((0u8..30, any::<bool>()), 2..60)) {
        let mut s: Vec<(f64, bool)> = items.iter().map(|&(k, l)| (f64::from(k) / 10.0, l)).collect();
        s[0].1 = true;
        s[1].1 = false;
        let cal = Calibration::fit(&LabelledScores::new(s.clone()).unwrap(), &FitOptions::default()).unwrap();
        let mut prev = f64::NEG_INFINITY;
        for x in 0..=320 {
            let p = cal.probability(f64::from(x) / 100.0 - 0.1);
            prop_assert!(p >= prev && (0.0..=1.0).contains(&p));
            prev = p;
        }
        let b = cal.blocks();
        prop_assert_eq!(b.iter().map(|b| b.count).sum::<usize>(), s.len());
        for w in b.windows(2) {
            prop_assert!(w[0].hi < w[1].lo && w[0].probability < w[1].probability);
        }
        for blk in b {
            let inside: Vec<&(f64, bool)> = s.iter().filter(|x| x.0 >= blk.lo && x.0 <= blk.hi).collect();
            prop_assert_eq!(inside.len(), blk.count);
            prop_assert_eq!(inside.iter().filter(|x| x.1).count(), blk.positives);
        }
        let mut last = 1.0f64;
        for p in [0.99, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3] {
            if let Some(c) = cal.threshold_for_precision(p) {
                prop_assert!(c.prf.precision >= p);
                prop_assert!(c.prf.precision <= last);
                prop_assert_eq!(crate::prf::prf_at(&s, c.prf.relevant, c.threshold).unwrap(), c.prf);
                last = c.prf.precision;
            }
        }
    }
}

#[test]
fn figure_holds_both_charts() {
    let cal = Calibration::fit(&sample(), &FitOptions::default()).unwrap();
    let svg = cal.figure(&sample(), "toy");
    assert!(svg.starts_with("<svg") && svg.contains("toy: calibration"));
    assert!(svg.contains("parallel (6)") && svg.contains("non-parallel (4)"));
    assert_eq!(svg.matches(r#"class="series""#).count(), 5);
    let cuts = cal.block_cuts();
    assert_eq!(cuts.len(), 4);
    assert_eq!(cuts[0], (0.75, 1.0, 0.5));
    assert_eq!(cal.curve().len(), 8);
}
