//! End-to-end: `bitext train aligner` (resumable), its vectors through `bitext embed --model`,
//! its sentence scores and per-word labels through `bitext score --model [--words]`, and
//! `bitext fix`, on small files built here; in a build without the cargo feature `neural`,
//! the error those commands give instead.

#[cfg(feature = "neural")]
use std::path::Path;
use std::path::PathBuf;

mod common;
#[cfg(feature = "neural")]
use common::{COLS, embed_model, fail, read, rows, score_model, scored, succeed, toy_pair, write};
use common::{assert_help, cli, toy_corpus};

/// Toy pairs of 3 to 8 words: `a3 a1 a7` ↔ `b7 b1 b3`.
#[cfg(feature = "neural")]
fn sentence(k: usize) -> (String, String) {
    toy_pair(k, 3, 6)
}

/// `n` pairs of [`sentence`]s as `src.txt`, `tgt.txt` and `pairs.tsv` (`id<TAB>src<TAB>tgt`)
/// in a fresh temporary folder.
fn corpus_dir(n: usize) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    toy_corpus(n, 3, 6)
}

/// `bitext train aligner` on `src`/`tgt` into `out`, small and quick.
#[cfg(feature = "neural")]
fn train(src: &Path, tgt: &Path, out: &Path, extra: &[&str]) -> std::process::Command {
    let mut c = cli![
        "train",
        "aligner",
        "--src",
        src,
        "--tgt",
        tgt,
        "-o",
        out,
        "--preset",
        "small",
        "--per-kind",
        "16",
        "--batch",
        "16",
        "--min-count",
        "1",
        "--valid-fraction",
        "0.1",
        "--seed",
        "3",
    ];
    c.args(extra);
    c
}

/// Train (one epoch, then a second by `--resume`), embed both sides, score with each score
/// and with `--words`, fix: one model, trained with both objectives.
#[cfg(feature = "neural")]
#[test]
fn train_resume_embed_score_and_fix_with_an_aligner() {
    let (d, src, tgt, tsv) = corpus_dir(40);
    let model = d.path().join("aligner");
    let both = ["--objective", "both", "--r", "2", "--kinds", "P+U+R+I"];
    let (_, err) = succeed(train(&src, &tgt, &model, &both).args(["--epochs", "1"]));
    assert!(err.contains("IBM Model 1 on 36 pairs"), "{err}");
    assert!(err.contains("validation word accuracy"), "{err}");
    assert!(err.contains("pair accuracy (semb)"), "{err}");
    assert!(err.contains("word_accuracy"), "{err}");
    for f in ["model.json", "weights.bpk", "resume/trainer.json"] {
        assert!(model.join(f).exists(), "{f}");
    }
    succeed(train(&src, &tgt, &model, &both).args(["--epochs", "2", "--resume", "-q"]));
    let state = read(model.join("resume/trainer.json"));
    assert!(state.contains("\"epochs_done\": 2"), "{state}");
    let desc: serde_json::Value = serde_json::from_str(&read(model.join("model.json"))).unwrap();
    assert_eq!(desc["kind"], "aligner");
    assert_eq!(desc["kinds"], "PURI");
    assert_eq!(desc["network"]["objective"], "both");
    assert_eq!(desc["network"]["r"], 2.0);
    assert_eq!(desc["network"]["hidden"], 64);

    // Sentence vectors: [→h_last; ←h_first], 2 × 64.
    for (side, input) in [("source", &src), ("target", &tgt)] {
        let emb = d.path().join(format!("{side}.npy"));
        succeed(&mut embed_model(&model, input, side, &emb));
        let e = bitext_core::io::npy::read_npy(&emb).unwrap();
        assert_eq!((e.len(), e.dim()), (40, 128));
    }

    // Scores: semb by default (the head was trained), wemb cosines on request.
    let score = |out: &Path, extra: &[&str]| {
        succeed(
            score_model(&model, &tsv, out)
                .args(COLS)
                .args(["--batch", "7"])
                .args(extra),
        );
        rows(out)
    };
    let semb = score(&d.path().join("semb.tsv"), &[]);
    let explicit = score(&d.path().join("semb2.tsv"), &["--aligner-score", "semb"]);
    assert_eq!(semb, explicit);
    let wemb = score(&d.path().join("wemb.tsv"), &["--aligner-score", "wemb"]);
    assert_eq!((semb.len(), wemb.len()), (40, 40));
    for (k, (s, w)) in semb.iter().zip(&wemb).enumerate() {
        assert_eq!((s.len(), w.len()), (4, 4));
        assert_eq!(s[0], format!("id{k}"));
        let c: f64 = w[3].parse().unwrap();
        assert!((-1.0..=1.0).contains(&c), "{c}");
        assert!(s[3].parse::<f64>().unwrap().is_finite());
    }

    // --words: tokens and one 0/1 label per token for each side, before the score.
    let words = score(
        &d.path().join("words.tsv"),
        &["--words", "--aligner-score", "wemb"],
    );
    assert_eq!(words.len(), 40);
    for (k, row) in words.iter().enumerate() {
        assert_eq!(row.len(), 3 + 4 + 1, "{row:?}");
        assert_eq!(row[..3], wemb[k][..3]);
        assert_eq!(row[7], wemb[k][3]);
        let (a, b) = sentence(k);
        for (tokens, labels, text) in [(&row[3], &row[4], &a), (&row[5], &row[6], &b)] {
            assert_eq!(tokens, text);
            let labels: Vec<&str> = labels.split(' ').collect();
            assert_eq!(labels.len(), tokens.split(' ').count(), "{row:?}");
            assert!(labels.iter().all(|l| *l == "0" || *l == "1"), "{row:?}");
        }
    }

    // Fix: pairs with an unrelated sentence appended to the source or the target.
    let mut input = String::new();
    for k in 0..12 {
        let (a, b) = sentence(k);
        let (x, y) = sentence(k + 20);
        if k % 2 == 0 {
            input.push_str(&format!("{a} {x}\t{b}\tline{k}\n"));
        } else {
            input.push_str(&format!("{a}\t{y} {b}\tline{k}\n"));
        }
    }
    let noisy = write(d.path(), "noisy.tsv", input);
    // Both objectives: the words' divergence scores (the default) and the draft's alignment.
    for objective in ["words", "alignment"] {
        let fixed = d.path().join(format!("fixed-{objective}.tsv"));
        let (_, err) = succeed(&mut cli![
            "fix",
            "--model",
            &model,
            "--input",
            &noisy,
            "--output",
            &fixed,
            "--candidates",
            "5",
            "--tau",
            "1",
            "--batch",
            "5",
            "--objective",
            objective
        ]);
        assert!(err.contains("fixed 12 pairs"), "{err}");
        let out = rows(&fixed);
        let original = rows(&noisy);
        assert_eq!(out.len(), 12);
        for (row, orig) in out.iter().zip(&original) {
            assert_eq!(row.len(), 3 + 6, "{row:?}");
            assert_eq!(row[..3], orig[..]);
            for (text, fixed, span) in [(&orig[0], &row[3], &row[5]), (&orig[1], &row[4], &row[6])]
            {
                let tokens: Vec<&str> = text.split(' ').collect();
                let (a, b) = span.split_once('-').unwrap();
                let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
                assert!(a < b && b <= tokens.len(), "{span} of {text:?}");
                // Spans have more than τ + 1 = 2 tokens unless the side is that short.
                assert!(b - a >= 3.min(tokens.len()), "{span} of {text:?}");
                assert_eq!(*fixed, tokens[a..b].join(" "));
            }
            for c in &row[7..9] {
                let c: f64 = c.parse().unwrap();
                assert!((-1.0..=1.0).contains(&c), "{c}");
            }
        }
    }

    // Re-ranking: weight 0 keeps the objective's first candidate (as `--spans 1`); the aligner
    // itself as the re-ranking encoder, reading the candidates' text, chooses the spans its
    // own vectors choose, with the same cosines.
    let fix_with = |name: &str, extra: &[&str]| {
        let out = d.path().join(format!("fixed-{name}.tsv"));
        let mut c = cli![
            "fix", "--model", &model, "--input", &noisy, "--output", &out, "--tau", "1"
        ];
        c.args(extra);
        succeed(&mut c);
        rows(&out)
    };
    let spans = |rows: &[Vec<String>]| -> Vec<(String, String)> {
        rows.iter().map(|r| (r[5].clone(), r[6].clone())).collect()
    };
    let first = fix_with("first", &["--spans", "1"]);
    // The pairs on standard input: counted for the progress bar, then fixed, as from a file.
    let piped = d.path().join("fixed-piped.tsv");
    let mut child = cli![
        "fix", "--model", &model, "--input", "-", "--output", &piped, "--tau", "1", "--spans", "1",
        "--quiet"
    ]
    .stdin(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        &std::fs::read(&noisy).unwrap(),
    )
    .unwrap();
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(
        done.status.success() && err.contains("fixed 12 pairs"),
        "{err}"
    );
    assert_eq!(rows(&piped), first);
    let zero = fix_with("zero", &["--rerank-weight", "0"]);
    assert_eq!(spans(&first), spans(&zero));
    let own = fix_with("own", &[]);
    let spec = format!("model:{}", model.display());
    let through_text = fix_with("text", &["--rerank-encoder", &spec]);
    assert_eq!(spans(&own), spans(&through_text));
    for (a, b) in own.iter().zip(&through_text) {
        for k in 7..9 {
            let (x, y): (f64, f64) = (a[k].parse().unwrap(), b[k].parse().unwrap());
            assert!((x - y).abs() < 1e-4, "{x} vs {y}");
        }
    }
    // A large weight lets the cosine decide: at least as similar as the first candidates.
    let weighted = fix_with("weighted", &["--rerank-weight", "1000"]);
    let mean = |rows: &[Vec<String>]| {
        rows.iter()
            .map(|r| r[7].parse::<f64>().unwrap())
            .sum::<f64>()
            / rows.len() as f64
    };
    assert!(mean(&weighted) >= mean(&first) - 1e-9);
}

/// A model trained on the word objective alone (and without replace examples, so without
/// IBM-1): `semb` is refused; `--words` needs an aligner; `fix` reports bad lines and other
/// kinds of model.
#[cfg(feature = "neural")]
#[test]
fn aligner_options_refuse_what_they_cannot_do() {
    let (d, src, tgt, tsv) = corpus_dir(24);
    let model = d.path().join("words");
    let (_, err) = succeed(&mut train(
        &src,
        &tgt,
        &model,
        &["--kinds", "U", "--epochs", "1"],
    ));
    assert!(!err.contains("IBM Model 1"), "{err}");
    assert!(!err.contains("pair accuracy"), "{err}");
    let desc = read(model.join("model.json"));
    assert!(desc.contains("\"kinds\": \"PU\""), "{desc}");
    let out = d.path().join("out.tsv");
    let score = |extra: &[&str]| {
        let mut c = score_model(&model, &tsv, &out);
        c.args(COLS).args(extra);
        c
    };
    fail(
        &mut score(&["--aligner-score", "semb"]),
        "--objective sentence or both",
    );
    assert!(!out.exists());
    // The default score of a words-only model is the cosine.
    succeed(&mut score(&[]));
    for row in rows(&out) {
        let c: f64 = row[3].parse().unwrap();
        assert!((-1.0..=1.0).contains(&c), "{c}");
    }
    fail(
        scored("score", "levenshtein", &tsv, d.path().join("lev.tsv")).arg("--words"),
        "need a word-alignment model",
    );
    fail(
        &mut train(&src, &tgt, &d.path().join("x"), &["--kinds", "PUX"]),
        "unknown kind of example 'X'",
    );

    // Another kind of model: --words and fix name its kind.
    let siamese = d.path().join("siamese");
    succeed(&mut cli![
        "train",
        "siamese",
        "--src",
        &src,
        "--tgt",
        &tgt,
        "-o",
        &siamese,
        "--epochs",
        "1",
        "--negatives",
        "1",
        "--min-count",
        "1",
        "-q"
    ]);
    fail(
        score_model(&siamese, &tsv, &out).arg("--words").args(COLS),
        "holds a model of kind \"siamese\"",
    );
    let fixed = d.path().join("fixed.tsv");
    fail(
        &mut cli![
            "fix", "--model", &siamese, "--input", &tsv, "--output", &fixed
        ],
        "is not an aligner",
    );

    // Bad lines are errors naming the file and line, and leave no output.
    let fix = |input: &Path| {
        cli![
            "fix", "--model", &model, "--input", input, "--output", &fixed
        ]
    };
    let empty = write(d.path(), "empty.tsv", "a1 a2 a3\tb3 b2 b1\na1\t \n");
    fail(&mut fix(&empty), "empty.tsv:2");
    let short = write(d.path(), "short.tsv", "a1 a2\tb2 b1\na1 a2\n");
    fail(&mut fix(&short), "short.tsv:2");
    let latin1 = write(d.path(), "latin1.tsv", b"a1\tb1\na\xe91\tb1\n");
    fail(&mut fix(&latin1), "latin1.tsv:2");
    assert!(!fixed.exists());
    fail(fix(&tsv).args(["--src-col", "0"]), "1-based");
    fail(
        fix(&tsv).args(["--candidates", "0"]),
        "--spans must be at least 1",
    );
    for (flag, says) in [
        (
            "--rerank-weight=-1",
            "--rerank-weight must be a finite number",
        ),
        (
            "--rerank-weight=NaN",
            "--rerank-weight must be a finite number",
        ),
        (
            "--rerank-encoder=onnx:no-such-graph.onnx",
            "--rerank-encoder",
        ),
    ] {
        fail(fix(&tsv).arg(flag), says);
    }
    assert!(!fixed.exists());
}

/// The commands and flags are the same in every build.
#[test]
fn aligner_commands_have_help() {
    assert_help(&[&["train", "aligner", "--help"], &["fix", "--help"]]);
}

#[cfg(not(feature = "neural"))]
#[test]
fn without_the_neural_feature_aligner_commands_say_how_to_get_it() {
    let (d, src, tgt, tsv) = corpus_dir(5);
    let model = d.path().join("aligner");
    let out = d.path().join("out.tsv");
    for (what, mut cmd) in [
        (
            "`bitext train siamese|autoencoder|aligner|mlp`",
            cli![
                "train", "aligner", "--src", &src, "--tgt", &tgt, "-o", &model
            ],
        ),
        (
            "`bitext fix`",
            cli!["fix", "--model", &model, "--input", &tsv, "--output", &out],
        ),
        (
            "`bitext score --model`",
            cli![
                "score", "--model", &model, "--words", "--input", &tsv, "--output", &out
            ],
        ),
    ] {
        let (ok, _, err) = common::run(&mut cmd);
        assert!(!ok, "{what} succeeded");
        assert!(
            err.contains(&format!("{what} is not available"))
                && err.contains("built without the cargo feature `neural`"),
            "{err}"
        );
    }
    assert!(!model.exists() && !out.exists());
}
