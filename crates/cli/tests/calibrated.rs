//! `--calibration FILE` and `--min-precision P` in `bitext score`, `filter` and `mine`: the
//! calibrated probability is written after the score, and pairs under the threshold of P are
//! left out.

use bitext_eval::calibration::{Calibration, FitOptions, LabelledScores};

mod common;
use common::{cli, fail, succeed, write};

/// A calibration on scores in [0, 1] where a pair is parallel when its score is above 0.5.
fn calibration(dir: &std::path::Path) -> (std::path::PathBuf, Calibration) {
    let sample: Vec<(f64, bool)> = (0..200).map(|i| (i as f64 / 199.0, i >= 100)).collect();
    let cal = Calibration::fit(
        &LabelledScores::new(sample).unwrap(),
        &FitOptions::default(),
    )
    .unwrap();
    let p = dir.join("cal.json");
    cal.save(&p).unwrap();
    (p, cal)
}

#[test]
fn score_and_filter_write_the_calibrated_probability() {
    let d = tempfile::tempdir().unwrap();
    let (cal_path, cal) = calibration(d.path());
    let input = write(d.path(), "in.tsv", "abcd\tabcd\nabcd\tabxy\nabcd\twxyz\n");
    let out = d.path().join("out.tsv");
    succeed(&mut cli![
        "score",
        "--scorer",
        "levenshtein",
        "--input",
        &input,
        "--output",
        &out,
        "--calibration",
        &cal_path
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 3);
    for r in &rows {
        let (s, p): (f64, f64) = (r[2].parse().unwrap(), r[3].parse().unwrap());
        assert_eq!(p, cal.probability(s));
    }
    let min = cal.min_score(0.9).unwrap();
    let kept = d.path().join("kept.tsv");
    succeed(&mut cli![
        "filter",
        "--scorer",
        "levenshtein",
        "--input",
        &input,
        "-o",
        &kept,
        "--calibration",
        &cal_path,
        "--min-precision",
        "0.9"
    ]);
    let kept = std::fs::read_to_string(&kept).unwrap();
    let want = rows
        .iter()
        .filter(|r| r[2].parse::<f64>().unwrap() >= min)
        .count();
    assert_eq!(kept.lines().count(), want);
    assert!(kept.lines().all(|l| l.split('\t').count() == 4));
    fail(
        &mut cli![
            "score",
            "--scorer",
            "levenshtein",
            "--input",
            &input,
            "--output",
            &out,
            "--min-precision",
            "0.9"
        ],
        "--calibration",
    );
    let bad = write(d.path(), "bad.json", "{}");
    fail(
        &mut cli![
            "score",
            "--scorer",
            "levenshtein",
            "--input",
            &input,
            "--output",
            &out,
            "--calibration",
            &bad
        ],
        "bad.json",
    );
}
