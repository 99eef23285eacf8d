//! End-to-end tests of `bitext emd` on small files built here.

mod common;
use common::{cli, fail, read, succeed, write};

/// Two 2×2 cases with hand-computed optima, one 2×3.
const CASES: &str = r#"{"id": 0, "kind": "euclid", "n": 2, "m": 2, "a": [0.5, 0.5], "b": [0.5, 0.5], "cost": [0.0, 1.0, 1.0, 0.0], "optimum": 0.0}
{"id": 1, "kind": "euclid", "n": 2, "m": 2, "a": [0.75, 0.25], "b": [0.5, 0.5], "cost": [0.0, 1.0, 1.0, 0.0], "optimum": 0.25}

{"id": 2, "kind": "int_cost", "n": 2, "m": 3, "a": [0.5, 0.5], "b": [0.2, 0.3, 0.5], "cost": [1, 2, 3, 3, 2, 1], "optimum": 1.3}
"#;

#[test]
fn emd_check_reports_sizes_and_fails_on_a_wrong_optimum() {
    let d = tempfile::tempdir().unwrap();
    let cases = write(d.path(), "cases.jsonl", CASES);
    let (out, _) = succeed(&mut cli![
        "emd",
        "check",
        "--min-time",
        "0.01",
        "--cases",
        &cases
    ]);
    assert!(out.contains("2×2"), "{out}");
    assert!(out.contains("int_cost, mixed sizes"), "{out}");
    assert!(out.contains("3 cases, largest relative deviation"), "{out}");

    let wrong = write(
        d.path(),
        "wrong.jsonl",
        CASES.replace("\"optimum\": 0.25", "\"optimum\": 0.26"),
    );
    let err = fail(
        &mut cli!["emd", "check", "--min-time", "0", "--cases", &wrong],
        "wrong.jsonl:2: cost 0.25",
    );
    assert!(err.contains("1 of 3 cases deviate"), "{err}");

    let bad = write(d.path(), "bad.jsonl", "{\"n\": 1}\n");
    fail(
        &mut cli!["emd", "check", "--cases", &bad],
        "bad.jsonl:1: not a case",
    );
    let neg = write(
        d.path(),
        "neg.jsonl",
        r#"{"n": 1, "m": 1, "a": [-1], "b": [1], "cost": [0], "optimum": 0}"#,
    );
    let err = fail(&mut cli!["emd", "check", "--cases", &neg], "neg.jsonl:1");
    assert!(err.contains("source weight 0 is -1"), "{err}");
}

#[test]
fn emd_translate_writes_proposals_and_evaluates() {
    let d = tempfile::tempdir().unwrap();
    // Zhang et al., Figure 1: nearest neighbour maps both words to "music".
    let sv = write(d.path(), "s.vec", "2 2\nyinyue 0 0\nwudao 1 0\n");
    let sf = write(d.path(), "s.freq", "yinyue\t10\nwudao\t10\n");
    let tv = write(d.path(), "t.vec", "2 2\nmusic 0.45 0.1\ndance 1.5 1\n");
    let tf = write(d.path(), "t.freq", "music\t10\ndance\t11\n");
    let lex = write(d.path(), "lex.tsv", "yinyue\tmusic\nwudao\tdance\n");
    let out = d.path().join("out.tsv");
    let translate = |src_freq: &std::path::Path| {
        cli![
            "emd",
            "translate",
            "--src-vec",
            &sv,
            "--src-freq",
            src_freq,
            "--tgt-vec",
            &tv,
            "--tgt-freq",
            &tf,
            "--out",
            &out
        ]
    };
    for (method, want, acc) in [
        (
            "emd",
            "yinyue\tmusic\t10\nwudao\tdance\t10\n",
            "accuracy 1.0000",
        ),
        ("nn", "yinyue\tmusic\t", "accuracy 0.5000"),
    ] {
        let (stdout, _) = succeed(
            translate(&sf)
                .args(["--method", method])
                .arg("--lexicon")
                .arg(&lex),
        );
        let written = read(&out);
        assert!(written.starts_with(want), "{method}: {written}");
        assert!(stdout.contains(acc), "{method}: {stdout}");
    }
    let err = fail(&mut translate(&tf), "no frequency");
    assert!(err.contains("\"yinyue\""), "{err}");
}
