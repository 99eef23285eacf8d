//! End-to-end tests of `bitext extract`: a scorer of sentences over every pair or over kNN
//! candidates, threshold ρ, greedy one-to-one output.

use bitext_core::Embeddings;

mod common;
use common::{cli, fail, succeed, write, write_raw};

const SRC: &str = "s1\tthe quick brown fox\ns2\tlorem ipsum dolor\ns3\tcompletely different\n";
const TGT: &str = "t1\tlorem ipsum dolor sit\nt2\tthe quick brown fax\nt3\tzzz\n";

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
    let (out, err) = succeed(&mut cli![
        "extract",
        "--src",
        &s,
        "--tgt",
        &t,
        "--scorer",
        "levenshtein",
        "--rho",
        "0.7"
    ]);
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
    let (out, _) = succeed(&mut cli![
        "extract",
        "--src",
        &s,
        "--tgt",
        &t,
        "--scorer",
        "levenshtein",
        "--rho",
        "1.01"
    ]);
    assert!(out.is_empty());
    fail(
        &mut cli![
            "extract",
            "--src",
            &s,
            "--tgt",
            &t,
            "--scorer",
            "levenshtein",
            "--max-pairs",
            "8"
        ],
        "--max-pairs 8",
    );
    fail(
        &mut cli!["extract", "--src", &s, "--tgt", &t, "--scorer", "model"],
        "--model",
    );
}

#[test]
fn knn_candidates_come_from_the_embeddings() {
    let d = tempfile::tempdir().unwrap();
    let (s, t) = (write(d.path(), "s.txt", SRC), write(d.path(), "t.txt", TGT));
    // s1 ↔ t2 and s2 ↔ t1 are neighbours; s3 ↔ t3.
    let x = Embeddings::from_rows([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], 3).unwrap();
    let y = Embeddings::from_rows([[0.1, 1.0, 0.0], [1.0, 0.1, 0.0], [0.0, 0.1, 1.0]], 3).unwrap();
    let (xp, yp) = (
        write_raw(d.path(), "x.f32", &x),
        write_raw(d.path(), "y.f32", &y),
    );
    let (out, err) = succeed(&mut cli![
        "extract",
        "--src",
        &s,
        "--tgt",
        &t,
        "--scorer",
        "levenshtein",
        "--rho",
        "0.0",
        "--candidates",
        "knn",
        "-k",
        "1",
        "--src-embeddings",
        &xp,
        "--tgt-embeddings",
        &yp,
        "--dim",
        "3",
        "-q"
    ]);
    assert!(err.contains("from 3 candidates"), "{err}");
    let names: Vec<(String, String)> = parse(&out).into_iter().map(|(_, a, b)| (a, b)).collect();
    assert_eq!(names.len(), 3);
    assert!(names.contains(&("s3".into(), "t3".into())), "{names:?}");
    fail(
        &mut cli![
            "extract",
            "--src",
            &s,
            "--tgt",
            &t,
            "--scorer",
            "levenshtein",
            "--candidates",
            "knn"
        ],
        "needs --src-embeddings",
    );
    let short = write(d.path(), "short.txt", "s1\tonly one\n");
    fail(
        &mut cli![
            "extract",
            "--src",
            &short,
            "--tgt",
            &t,
            "--scorer",
            "levenshtein",
            "--candidates",
            "knn",
            "--src-embeddings",
            &xp,
            "--tgt-embeddings",
            &yp,
            "--dim",
            "3"
        ],
        "1 sentences but",
    );
}
