//! End-to-end tests of `bitext extract`: a scorer of sentences over every pair or over kNN
//! candidates, threshold ρ, greedy one-to-one output.

use std::path::Path;
use std::process::Command;

use bitext_core::Embeddings;

mod common;
use common::{cli, fail, succeed, write, write_pair};

const SRC: &str = "s1\tthe quick brown fox\ns2\tlorem ipsum dolor\ns3\tcompletely different\n";
const TGT: &str = "t1\tlorem ipsum dolor sit\nt2\tthe quick brown fax\nt3\tzzz\n";

/// `bitext extract` of the sentences in `src` and `tgt` with `scorer`.
fn extract(src: &Path, tgt: &Path, scorer: &str) -> Command {
    cli!["extract", "--src", src, "--tgt", tgt, "--scorer", scorer]
}

fn parse(out: &str) -> Vec<(f64, String, String)> {
    out.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].parse().unwrap(), f[1].into(), f[2].into())
        })
        .collect()
}

#[test]
fn extracts_one_to_one_pairs_above_rho_from_all_pairs() {
    let d = tempfile::tempdir().unwrap();
    let (s, t) = (write(d.path(), "s.txt", SRC), write(d.path(), "t.txt", TGT));
    let (out, err) = succeed(extract(&s, &t, "levenshtein").args(["--rho", "0.7"]));
    assert!(
        err.contains("extracted 2 one-to-one pairs") && err.contains("from 9 candidates"),
        "{err}"
    );
    let pairs = parse(&out);
    let names: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(_, a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(names, [("s1", "t2"), ("s2", "t1")]);
    assert!(pairs[0].0 >= pairs[1].0 && pairs[1].0 >= 0.7);
    // ρ above every score: nothing.
    let (out, _) = succeed(extract(&s, &t, "levenshtein").args(["--rho", "1.01"]));
    assert!(out.is_empty());
    fail(
        extract(&s, &t, "levenshtein").args(["--max-pairs", "8"]),
        "--max-pairs 8",
    );
    fail(&mut extract(&s, &t, "model"), "--model");
}

#[test]
fn knn_candidates_come_from_the_embeddings() {
    let d = tempfile::tempdir().unwrap();
    let (s, t) = (write(d.path(), "s.txt", SRC), write(d.path(), "t.txt", TGT));
    // s1 ↔ t2 and s2 ↔ t1 are neighbours; s3 ↔ t3.
    let x = Embeddings::from_rows([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 3).unwrap();
    let y = Embeddings::from_rows([[0.1, 1.0, 0.0], [1.0, 0.1, 0.0], [0.0, 0.1, 1.0]], 3).unwrap();
    let (xp, yp) = write_pair(d.path(), &x, &y);
    let knn = |src: &Path| {
        let mut c = extract(src, &t, "levenshtein");
        c.args(["--candidates", "knn", "--dim", "3", "--src-embeddings"])
            .arg(&xp)
            .arg("--tgt-embeddings")
            .arg(&yp);
        c
    };
    let (out, err) = succeed(knn(&s).args(["--rho", "0.0", "-k", "1", "-q"]));
    assert!(err.contains("from 3 candidates"), "{err}");
    let names: Vec<(String, String)> = parse(&out).into_iter().map(|(_, a, b)| (a, b)).collect();
    assert_eq!(names.len(), 3);
    assert!(names.contains(&("s3".into(), "t3".into())), "{names:?}");
    fail(
        extract(&s, &t, "levenshtein").args(["--candidates", "knn"]),
        "needs --src-embeddings",
    );
    let short = write(d.path(), "short.txt", "s1\tonly one\n");
    fail(&mut knn(&short), "1 sentences but");
}
