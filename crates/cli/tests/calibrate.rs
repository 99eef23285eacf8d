//! `bitext calibrate` end to end: labels from a 0/1 TSV, from mined pairs and a BUCC gold file,
//! and from the noisy-parallel protocol; the JSON it writes loads back; bad inputs name the
//! file and line; `--plot` writes SVG; and `bitext eval bucc --plot`.

mod common;

use std::path::Path;

use bitext_core::Rng;
use bitext_eval::calibration::{Calibration, Target};
use bitext_testkit::data::word_lines;
use common::{
    calibrate_scores, cli, eval_bucc, fail, gold_and_mined, read, succeed, with_file, write,
};

/// 400 scores uniform in [0, 1] labelled parallel with probability equal to the score, as
/// `id<TAB>score<TAB>label`.
fn labelled_tsv() -> String {
    let mut rng = Rng::seed(5);
    let mut out = String::new();
    for i in 0..400 {
        let s = rng.next_f64();
        let y = u8::from(rng.bernoulli(s));
        out.push_str(&format!("p{i}\t{s}\t{y}\n"));
    }
    out
}

#[test]
fn labelled_tsv_to_calibration_table_and_plot() {
    let (d, scores) = with_file("scores.tsv", labelled_tsv());
    let (out_json, svg) = (d.path().join("cal.json"), d.path().join("fig.svg"));
    let columns = ["--score-col", "2", "--label-col", "3"];
    let targets = ["--target-precision", "0.85", "--target-recall", "0.6"];
    let (out, _) = succeed(
        calibrate_scores(&scores, &out_json)
            .args(columns)
            .args(targets)
            .arg("--plot")
            .arg(&svg),
    );
    for want in [
        "400 labelled pairs",
        "precision >= 0.85",
        "recall >= 0.6",
        "best F1",
        "P 95% CI",
    ] {
        assert!(out.contains(want), "{want:?} not in {out}");
    }
    let cal = Calibration::load(&out_json).unwrap();
    assert_eq!(cal.samples().pairs, 400);
    let c = cal.threshold(Target::Precision(0.85)).unwrap();
    assert!(c.prf.precision >= 0.85 && c.precision_interval.contains(c.prf.precision));
    // P(parallel | s) = s: the threshold for 85% precision is near 0.7 ((1 + t) / 2 = 0.85).
    assert!((c.threshold - 0.7).abs() < 0.15, "{}", c.threshold);
    assert!(cal.min_score(0.85).unwrap() == c.threshold);
    let svg = read(&svg);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains("P(parallel | score)") && svg.contains("non-parallel"));
}

#[test]
fn bad_labelled_files_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("cal.json");
    let calibrate = |scores: &Path| calibrate_scores(scores, &out);
    let run = |content: &str, want: &str| {
        fail(&mut calibrate(&write(d.path(), "bad.tsv", content)), want);
    };
    run(
        "0.5\t1\nNaN\t0\n",
        "bad.tsv:2: score NaN is not a finite number",
    );
    run(
        "0.5\t1\n0.4\tyes\n",
        "bad.tsv:2: label \"yes\" is not 0 or 1",
    );
    run("0.5\t1\n0.4\n", "bad.tsv:2: 1 tab-separated fields");
    run("0.5\t1\n0.4\t1\n", "all 2 labelled pairs are parallel (1)");
    run("", "bad.tsv: file is empty");
    assert!(!out.exists(), "a failed run left an output");
    let ok = write(d.path(), "ok.tsv", "0.5\t1\n0.4\t0\n");
    fail(
        calibrate(&ok).args(["--target-precision", "1.5"]),
        "must be in (0, 1]",
    );
    fail(calibrate(&ok).args(["--label-col", "0"]), "1-based");
    fail(&mut cli!["calibrate", "--output", &out], "required");
}

#[test]
fn mined_pairs_with_bucc_gold() {
    let (d, gold, mined) = gold_and_mined(
        5,
        "1.3\td1\te1\n1.25\td2\te2\n1.2\td3\te9\n1.1\td4\te4\n1.05\td5\te7\n",
    );
    let out = d.path().join("cal.json");
    let calibrate = |mined: &Path| {
        cli![
            "calibrate",
            "--mined",
            mined,
            "--gold",
            &gold,
            "--output",
            &out
        ]
    };
    let (stdout, _) = succeed(&mut calibrate(&mined));
    assert!(
        stdout.contains("5 labelled pairs, 3 parallel (5 relevant)"),
        "{stdout}"
    );
    let cal = Calibration::load(&out).unwrap();
    // Keeping the top two (1.25 and up) gives precision 1 and recall 2/5.
    let c = cal.threshold_for_precision(1.0).unwrap();
    assert_eq!((c.prf.predicted, c.prf.recall), (2, 0.4));
    assert!((c.threshold - 1.225).abs() < 1e-12);
    let dup = write(d.path(), "dup.tsv", "1.3\td1\te1\n1.2\td1\te1\n");
    fail(&mut calibrate(&dup), "occurs twice");
}

#[test]
fn noisy_parallel_labels_from_unlabelled_pairs() {
    let words = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
    ];
    // The "translation" is the sentence with its last letter changed.
    let tsv: String = word_lines(&words, 80, 5, 5, 9)
        .iter()
        .map(|s| format!("{s}\t{}x\n", &s[..s.len() - 1]))
        .collect();
    let (d, pairs) = with_file("pairs.tsv", tsv);
    let out = d.path().join("cal.json");
    let noisy = || cli!["calibrate", "--noisy", &pairs, "--output", &out];
    let (stdout, _) = succeed(noisy().args(["--scorer-spec", "levenshtein", "--noise", "0.5"]));
    assert!(
        stdout.contains("40 labelled pairs, 20 parallel"),
        "{stdout}"
    );
    let cal = Calibration::load(&out).unwrap();
    // Near-identical pairs against unrelated ones: a threshold separates them.
    let best = cal.threshold(Target::BestF1).unwrap();
    assert!(best.prf.f1 > 0.9, "{:?}", best.prf);
    fail(&mut noisy(), "--scorer-spec");
}

#[test]
fn eval_bucc_plots_the_pr_curve() {
    let (d, gold, mined) = gold_and_mined(3, "0.9\td1\te1\n0.8\td2\te9\n0.7\td3\te3\n");
    let svg = d.path().join("pr.svg");
    succeed(eval_bucc(&gold, &mined).arg("--plot").arg(&svg));
    let svg = read(&svg);
    assert!(svg.starts_with("<svg") && svg.contains("data-name=\"mined.tsv\""));
    assert!(svg.contains("recall") && svg.contains("precision"));
}
