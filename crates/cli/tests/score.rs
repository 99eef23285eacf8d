//! End-to-end tests of `bitext score` on small files built here.

use std::path::{Path, PathBuf};

mod common;
use common::{bitext, run, write};

/// German and English word vectors in one space: translations are close.
fn vectors(dir: &Path) -> (PathBuf, PathBuf) {
    (
        write(
            dir,
            "de.vec",
            "4 2\nhund 1 0\nkatze 0 1\nhaus 0.7 0.7\nbaum -1 0\n",
        ),
        write(
            dir,
            "en.vec",
            "4 2\ndog 0.95 0.05\ncat 0.05 0.95\nhouse 0.7 0.72\ntree -0.98 0.02\n",
        ),
    )
}

fn score(dir: &Path, input: &Path, output: &Path, extra: &[&str]) -> (bool, String, String) {
    let (de, en) = vectors(dir);
    run(bitext()
        .args([
            "score",
            "--scorer",
            "emd",
            "--src-col",
            "1",
            "--tgt-col",
            "2",
        ])
        .arg("--src-vec")
        .arg(&de)
        .arg("--tgt-vec")
        .arg(&en)
        .arg("--input")
        .arg(input)
        .arg("--output")
        .arg(output)
        .args(extra))
}

#[test]
fn score_appends_a_column_and_ranks_translations_first() {
    let d = tempfile::tempdir().unwrap();
    let input = write(
        d.path(),
        "in.tsv",
        "u1\tDer Hund und die Katze .\tThe dog and the cat .\n\
         u2\tDas Haus !\tThe tree .\n\
         u3\tEin Baum\ta tree\n",
    );
    let output = d.path().join("out.tsv");
    let (ok, _, err) = score(d.path(), &input, &output, &["--batch", "2"]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let scores: Vec<f64> = lines
        .iter()
        .map(|l| l.rsplit('\t').next().unwrap().parse().unwrap())
        .collect();
    assert!(lines[0].starts_with("u1\tDer Hund und die Katze .\tThe dog and the cat .\t"));
    assert!(scores.iter().all(|s| *s <= 0.0));
    assert!(scores[0] > scores[1] && scores[2] > scores[1], "{scores:?}");
    for extra in [&["--no-idf"][..], &["--oov", "match", "--oov-cost", "0.5"]] {
        let (ok, _, err) = score(d.path(), &input, &output, extra);
        assert!(ok, "{extra:?}: {err}");
    }
}

#[test]
fn score_errors_name_the_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let output = d.path().join("out.tsv");
    let empty = write(d.path(), "empty.tsv", "u1\tHund\tdog\nu2\t \tcat\n");
    let (ok, _, err) = score(d.path(), &empty, &output, &[]);
    assert!(!ok);
    assert!(err.contains("empty.tsv:2: empty source field"), "{err}");
    assert!(!output.exists(), "no partial output");
    let short = write(d.path(), "short.tsv", "u1\tHund\n");
    let (ok, _, err) = score(d.path(), &short, &output, &[]);
    assert!(!ok);
    assert!(err.contains("short.tsv:1:"), "{err}");
    let (ok, _, err) = run(bitext()
        .args(["score", "--scorer", "emd", "--input"])
        .arg(&empty)
        .arg("--output")
        .arg(&output));
    assert!(!ok);
    assert!(err.contains("--src-vec"), "{err}");
    let good = write(d.path(), "good.tsv", "u1\tHund\tdog\n");
    let (ok, _, err) = score(d.path(), &good, &output, &["--oov-cost", "-1"]);
    assert!(!ok);
    assert!(err.contains("oov_cost"), "{err}");
}
