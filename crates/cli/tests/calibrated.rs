//! `--calibration FILE` and `--min-precision P` in `bitext score`, `filter` and `mine`: the
//! calibrated probability is written after the score (`score`, `filter`) or as the last column
//! (`mine`, whose first three stay `score<TAB>src<TAB>tgt`), and pairs under the threshold of P
//! are left out.

use std::path::Path;

use bitext_eval::calibration::Calibration;

mod common;
use common::{calibrate_scores, calibration, eval_bucc, fail, mine_embeddings, read, rows, scored};
use common::{succeed, with_input, write};

#[test]
fn score_and_filter_write_the_calibrated_probability() {
    let (d, input) = with_input("abcd\tabcd\nabcd\tabxy\nabcd\twxyz\n");
    let (cal_path, cal) = calibration(d.path());
    let out = d.path().join("out.tsv");
    let score = || scored("score", "levenshtein", &input, &out);
    let calibrated = |command: &str, out: &Path| {
        let mut c = scored(command, "levenshtein", &input, out);
        c.arg("--calibration").arg(&cal_path);
        c
    };
    succeed(&mut calibrated("score", &out));
    let rows = rows(&out);
    assert_eq!(rows.len(), 3);
    for r in &rows {
        let (s, p): (f64, f64) = (r[2].parse().unwrap(), r[3].parse().unwrap());
        assert_eq!(p, cal.probability(s));
    }
    let min = cal.min_score(0.9).unwrap();
    let kept = d.path().join("kept.tsv");
    succeed(calibrated("filter", &kept).args(["--min-precision", "0.9"]));
    let kept = read(&kept);
    let want = rows
        .iter()
        .filter(|r| r[2].parse::<f64>().unwrap() >= min)
        .count();
    assert_eq!(kept.lines().count(), want);
    assert!(kept.lines().all(|l| l.split('\t').count() == 4));
    fail(score().args(["--min-precision", "0.9"]), "--calibration");
    let bad = write(d.path(), "bad.json", "{}");
    fail(score().arg("--calibration").arg(&bad), "bad.json");
}

/// `bitext mine` of 40 sources against 40 targets in 32 dimensions: target `j < 20` is source
/// `j` plus noise that grows with `j` (so that parallel pairs score over the whole range), the
/// rest are random; forward retrieval, one pair per source.
fn mine_cmd(dir: &Path) -> std::process::Command {
    use bitext_core::{Embeddings, Rng};
    let mut rng = Rng::seed(11);
    let mut row = || (0..32).map(|_| rng.normal() as f32).collect::<Vec<_>>();
    let x: Vec<Vec<f32>> = (0..40).map(|_| row()).collect();
    let y: Vec<Vec<f32>> = (0..40)
        .map(|j| {
            let noise = row();
            if j < 20 {
                let s = 0.1 + 0.09 * j as f32;
                x[j].iter().zip(&noise).map(|(a, n)| a + s * n).collect()
            } else {
                noise
            }
        })
        .collect();
    let xp = common::write_raw(dir, "x.f32", &Embeddings::from_rows(x, 32).unwrap());
    let yp = common::write_raw(dir, "y.f32", &Embeddings::from_rows(y, 32).unwrap());
    let mut c = mine_embeddings(32, &xp, &yp);
    c.args(["--retrieval", "fwd", "-k", "4"]);
    c
}

/// `mine --calibration` and `--min-precision` against `bitext calibrate`'s own table, fitted on
/// the same mined pairs labelled by the planted truth: every pair gets the probability the
/// calibration gives its score, and `--min-precision 0.9` keeps exactly the pairs at or above
/// the table's threshold for precision 0.9, as many as the table says it keeps.
#[test]
fn mine_writes_the_probability_and_keeps_what_calibrates_table_says() {
    let d = tempfile::tempdir().unwrap();
    let (plain, _) = succeed(&mut mine_cmd(d.path()));
    let pairs: Vec<(f64, usize, usize)> = plain
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(pairs.len(), 40);
    let labelled: String = pairs
        .iter()
        .map(|(s, i, j)| format!("{s}\t{}\n", u8::from(i == j && *i < 20)))
        .collect();
    let positives = labelled.lines().filter(|l| l.ends_with("\t1")).count();
    assert!(
        (10..20).contains(&positives),
        "{positives} parallel pairs found"
    );
    let labelled = write(d.path(), "labelled.tsv", labelled);
    let cal_path = d.path().join("cal.json");
    succeed(calibrate_scores(&labelled, &cal_path).args(["--target-precision", "0.9"]));
    let json: serde_json::Value = serde_json::from_str(&read(&cal_path)).unwrap();
    let row = json["thresholds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["target"]["kind"] == "precision" && r["target"]["value"] == 0.9)
        .expect("the table's row for precision 0.9");
    let threshold = row["threshold"].as_f64().unwrap();
    let predicted = row["prf"]["predicted"].as_u64().unwrap() as usize;
    assert!(0 < predicted && predicted < 40, "{row}");
    let cal = Calibration::load(&cal_path).unwrap();

    let parse = |out: &str| -> Vec<(f64, f64, usize, usize)> {
        out.lines()
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                assert_eq!(f.len(), 4, "{l}");
                let n = |i: usize| f[i].parse::<f64>().unwrap();
                // The probability comes last, so that `eval bucc` still reads the file.
                (n(0), n(3), f[1].parse().unwrap(), f[2].parse().unwrap())
            })
            .collect()
    };
    let calibrated = || {
        let mut c = mine_cmd(d.path());
        c.arg("--calibration").arg(&cal_path);
        c
    };
    let (all, _) = succeed(&mut calibrated());
    let all = parse(&all);
    assert_eq!(all.len(), 40);
    for ((s, p, i, j), (s0, i0, j0)) in all.iter().zip(&pairs) {
        assert_eq!((s, i, j), (s0, i0, j0));
        assert_eq!(*p, cal.probability(*s), "pair {i} {j}");
    }
    let (kept, _) = succeed(calibrated().args(["--min-precision", "0.9"]));
    let kept: Vec<(usize, usize)> = parse(&kept).iter().map(|r| (r.2, r.3)).collect();
    let want: Vec<(usize, usize)> = pairs
        .iter()
        .filter(|(s, _, _)| *s >= threshold)
        .map(|&(_, i, j)| (i, j))
        .collect();
    assert_eq!(kept, want);
    assert_eq!(kept.len(), predicted);
    assert_eq!(cal.min_score(0.9).unwrap(), threshold);

    // The probability being the last column, `eval bucc` reads the calibrated output as it
    // reads the plain one.
    let gold: String = (0..20).map(|i| format!("{i}\t{i}\n")).collect();
    let gold = write(d.path(), "gold.txt", gold);
    let plain_path = write(d.path(), "plain.tsv", &plain);
    let with_p = d.path().join("with-p.tsv");
    succeed(calibrated().arg("-o").arg(&with_p));
    let eval = |mined: &Path| succeed(eval_bucc(&gold, mined).args(["--threshold", "0"])).0;
    assert_eq!(eval(&with_p), eval(&plain_path));
}
