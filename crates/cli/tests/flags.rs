//! The CLI's flag vocabulary: one spelling per concept, listed by `bitext --help`; the old
//! spellings still accepted for one release; fixed choices refused by name; `--skip-empty` for
//! training corpora with empty lines.

mod common;
use common::{bitext, cli, succeed};

#[test]
fn help_lists_the_vocabulary() {
    let (out, _) = succeed(&mut cli!["--help"]);
    for row in [
        "Flag vocabulary",
        "-o, --output",
        "--src-text, --tgt-text",
        "--threshold             (was --min-score, --rho)",
        "--loss-margin",
        "--pairs all|knn",
    ] {
        assert!(out.contains(row), "{row:?} not in:\n{out}");
    }
}

/// Runs `args` (which name a missing file): parsing succeeded when the error is not clap's.
fn parses(args: &[&str]) -> String {
    let out = bitext().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(
        !err.contains("Usage:") && !err.contains("unexpected argument"),
        "{args:?} did not parse: {err}"
    );
    err
}

#[test]
fn new_spellings_and_old_ones_both_parse() {
    let d = tempfile::tempdir().unwrap();
    let m = d.path().join("none.txt");
    let m = m.to_str().unwrap();
    let o = d.path().join("out.tsv");
    let o = o.to_str().unwrap();
    let pairs: [(Vec<&str>, Vec<&str>); 6] = [
        (
            vec![
                "filter",
                "--scorer",
                "cosine",
                "--input",
                m,
                "--threshold",
                "0.5",
            ],
            vec![
                "filter",
                "--scorer",
                "cosine",
                "--input",
                m,
                "--min-score",
                "0.5",
            ],
        ),
        (
            vec![
                "extract",
                "--scorer",
                "length-ratio",
                "--src-text",
                m,
                "--tgt-text",
                m,
            ],
            vec![
                "extract",
                "--scorer",
                "length-ratio",
                "--src",
                m,
                "--trg",
                m,
            ],
        ),
        (
            vec![
                "extract",
                "--src-text",
                m,
                "--tgt-text",
                m,
                "--threshold",
                "0.3",
            ],
            vec!["extract", "--src-text", m, "--tgt-text", m, "--rho", "0.3"],
        ),
        (
            vec![
                "extract",
                "--src-text",
                m,
                "--tgt-text",
                m,
                "--pairs",
                "all",
            ],
            vec![
                "extract",
                "--src-text",
                m,
                "--tgt-text",
                m,
                "--candidates",
                "all",
            ],
        ),
        (
            vec![
                "eval",
                "bucc",
                "--gold",
                m,
                "--mined",
                m,
                "--src-text",
                m,
                "--tgt-text",
                m,
            ],
            vec![
                "eval",
                "bucc",
                "--gold",
                m,
                "--mined",
                m,
                "--src-sentences",
                m,
                "--tgt-sentences",
                m,
            ],
        ),
        (
            vec![
                "train",
                "siamese",
                "--src-text",
                m,
                "--tgt-text",
                m,
                "--loss-margin",
                "0.3",
                "--init-vectors",
                m,
                "--init-tgt-vectors",
                m,
            ],
            vec![
                "train",
                "siamese",
                "--src",
                m,
                "--tgt",
                m,
                "--margin",
                "0.3",
                "--init-vectors",
                m,
                "--init-target-vectors",
                m,
            ],
        ),
    ];
    for (new, old) in pairs {
        for args in [new, old] {
            let mut args = args.clone();
            if args[0] != "eval" {
                args.extend(["-o", o]);
            }
            parses(&args);
        }
    }
    // `train MODEL [--encoder M] --src-text M --tgt-text M FLAG VALUE --output O` (the MLP
    // trains on an encoder's sentence vectors).
    for (model, flag, value) in [
        ("autoencoder", "--softmax-samples", "8"),
        ("autoencoder", "--candidates", "8"),
        ("mlp", "--negative-source", "repaired"),
        ("mlp", "--negatives", "repaired"),
    ] {
        let mut args = vec!["train", model];
        if model == "mlp" {
            args.extend(["--encoder", m]);
        }
        args.extend(["--src-text", m, "--tgt-text", m, flag, value, "--output", o]);
        parses(&args);
    }
    parses(&[
        "train",
        "siamese",
        "--src-text",
        m,
        "--tgt-text",
        m,
        "--out",
        o,
    ]);
}

#[test]
fn fixed_choices_are_refused_by_name() {
    for (args, values) in [
        (&["train", "siamese", "--cell", "rnn"][..], "gru, lstm"),
        (
            &["train", "aligner", "--preset", "huge"][..],
            "paper, medium, small",
        ),
        (
            &["train", "siamese", "--optimizer", "adagrad"][..],
            "adam, sgd",
        ),
        (
            &["score", "--backend", "tpu"][..],
            "flex, ndarray, wgpu, cuda",
        ),
    ] {
        let out = bitext().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(values),
            "{args:?}: {err}"
        );
    }
}

#[cfg(feature = "neural")]
#[test]
fn training_skips_empty_pairs_when_asked_and_says_which() {
    let d = tempfile::tempdir().unwrap();
    let (mut src, mut tgt) = (String::new(), String::new());
    for k in 0..24 {
        let (a, b) = match k {
            3 => (String::new(), "b1 b2".to_string()),
            7 => ("a1 a2".to_string(), "  ".to_string()),
            _ => (
                format!("a{} a{}", k % 5, k % 7),
                format!("b{} b{}", k % 7, k % 5),
            ),
        };
        src.push_str(&format!("{a}\n"));
        tgt.push_str(&format!("{b}\n"));
    }
    let write = |name: &str, text: &str| {
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let (s, t) = (write("src.txt", &src), write("tgt.txt", &tgt));
    let train = |extra: &[&str], out: &std::path::Path| {
        bitext()
            .args(["train", "siamese", "--src-text"])
            .arg(&s)
            .arg("--tgt-text")
            .arg(&t)
            .args([
                "--epochs",
                "1",
                "--min-count",
                "1",
                "--valid-fraction",
                "0.2",
                "-q",
            ])
            .args(extra)
            .arg("-o")
            .arg(out)
            .output()
            .unwrap()
    };
    let out = train(&[], &d.path().join("m1"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("src.txt:4"), "{err}");
    let out = train(&["--skip-empty"], &d.path().join("m2"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("skipped 2 pairs with an empty side (lines 4, 8); 22 kept"),
        "{err}"
    );
    // A run with the linear decay over batches of 4 at rate 0.01 (and `extra`): its record.
    let decayed = |extra: &[&str], out: &std::path::Path| -> serde_json::Value {
        let base = [
            "--skip-empty",
            "--linear-decay",
            "--batch",
            "4",
            "--lr",
            "0.01",
        ];
        let run = train(&[&base[..], extra].concat(), out);
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{err}");
        serde_json::from_str(&std::fs::read_to_string(out.join("training.json")).unwrap()).unwrap()
    };
    // --linear-decay: the rate falls over the epoch's batches (the last of 5 runs with 4 of 5
    // of the budget spent); it excludes --plateau.
    let doc = decayed(&[], &d.path().join("m3"));
    assert_eq!(doc["config"]["schedule"]["type"], "linear", "{doc}");
    let h = &doc["state"]["history"][0];
    let lr = h["lr"].as_f64().unwrap();
    assert!(h["steps"].as_u64().unwrap() >= 3, "{doc}");
    assert!(lr > 0.0 && lr < 0.01 * 0.5, "{doc}");
    let out = train(&["--linear-decay", "--plateau"], &d.path().join("m4"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("cannot be used with"),
        "{err}"
    );
    // --max-steps: the run stops after 2 of the epoch's batches, and the linear decay runs
    // over those 2 updates (the second made with half of them spent), not the epoch.
    let doc = decayed(&["--max-steps", "2"], &d.path().join("m5"));
    assert_eq!(doc["config"]["max_steps"], 2, "{doc}");
    let h = &doc["state"]["history"][0];
    assert_eq!(
        (h["steps"].clone(), h["truncated"].clone()),
        (2.into(), true.into()),
        "{doc}"
    );
    assert!((h["lr"].as_f64().unwrap() - 0.005).abs() < 1e-9, "{doc}");
    let out = train(&["--skip-empty", "--max-steps", "0"], &d.path().join("m6"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("max_steps"), "{err}");
}
