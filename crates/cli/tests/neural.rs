//! End-to-end: `bitext train siamese|autoencoder|mlp`, `bitext embed --model`, `bitext score --model` on
//! small files built here; in a build without the cargo feature `neural`
//! (`cargo test -p bitext-cli --no-default-features`), the error those commands give instead.

#[cfg(feature = "neural")]
use std::path::Path;
#[cfg(feature = "neural")]
use std::process::Command;

mod common;
#[cfg(feature = "neural")]
use common::{COLS, embed_model, fail, read, score_model, succeed, toy_vectors, train_mlp};
use common::{bitext, corpus_dir};

/// `bitext train KIND --src SRC --tgt TGT -o OUT`, for the caller's options.
#[cfg(feature = "neural")]
fn train_cmd(
    kind: &str,
    src: impl AsRef<std::ffi::OsStr>,
    tgt: impl AsRef<std::ffi::OsStr>,
    out: impl AsRef<std::ffi::OsStr>,
) -> Command {
    let mut c = bitext();
    c.args(["train", kind, "--src"])
        .arg(src)
        .arg("--tgt")
        .arg(tgt)
        .arg("-o")
        .arg(out);
    c
}

/// [`train_cmd`] of the small preset, every word in the vocabulary (`--min-count 1`).
#[cfg(feature = "neural")]
fn train_small(kind: &str, src: &Path, tgt: &Path, out: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = train_cmd(kind, src, tgt, out);
    c.args(["--preset", "small", "--min-count", "1"]);
    c
}

/// `bitext embed --model MODEL --input INPUT --side SIDE -o OUT`, which must succeed: the
/// vectors it wrote.
#[cfg(feature = "neural")]
fn embed(model: &Path, input: impl AsRef<Path>, side: &str, out: &Path) -> bitext_core::Embeddings {
    succeed(&mut embed_model(model, input.as_ref(), side, out));
    bitext_core::io::npy::read_npy(out).unwrap()
}

#[cfg(feature = "neural")]
#[test]
fn train_embed_and_score_with_a_siamese_and_an_mlp() {
    let (d, src, tgt, tsv) = corpus_dir(40);
    let model = d.path().join("siamese");
    // Trained long enough (2 s) that its vectors carry the pairs, for the MLP below.
    succeed(
        train_small("siamese", &src, &tgt, &model)
            .args(["--epochs", "30", "--lr", "0.01", "--patience", "30"])
            .args(["--negatives", "2", "--valid-fraction", "0.1", "-q"]),
    );
    for f in [
        "model.json",
        "weights.bpk",
        "vocab.txt",
        "resume/trainer.json",
    ] {
        assert!(model.join(f).exists(), "{f}");
    }

    let emb = d.path().join("e.npy");
    let e = embed(&model, &tgt, "target", &emb);
    assert_eq!((e.len(), e.dim()), (40, 256));

    let scored = d.path().join("scored.tsv");
    succeed(
        score_model(&model, &tsv, &scored)
            .args(COLS)
            .args(["--batch", "7"]),
    );
    let out = read(&scored);
    assert_eq!(out.lines().count(), 40);
    for (k, line) in out.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 4, "{line}");
        assert_eq!(cols[0], format!("id{k}"));
        let p: f64 = cols[3].parse().unwrap();
        assert!((0.0..=1.0).contains(&p), "{p}");
    }

    let mlp = d.path().join("mlp");
    succeed(
        train_mlp(&model, &src, &tgt, &mlp)
            .args(["--hidden", "16,16", "--epochs", "60", "--patience", "60"])
            .args(["--lr", "0.01", "-q"]),
    );
    // §5.2's random negatives are random lines of a noisy corpus, which must be given.
    let mlp_lines = |noisy: bool, count: &str| {
        let mut cmd = bitext();
        cmd.args(["train", "mlp", "--encoder"])
            .arg(&model)
            .arg("--input")
            .arg(&tsv)
            .args(["--src-col", "2", "--tgt-col", "3", "--negatives", "random"])
            .args([
                "--count", count, "--hidden", "8", "--epochs", "1", "-q", "-o",
            ])
            .arg(d.path().join(format!("mlp-lines-{count}")));
        if noisy {
            cmd.arg("--noisy").arg(&tsv);
        }
        cmd
    };
    succeed(&mut mlp_lines(true, "30"));
    fail(&mut mlp_lines(false, "30"), "--noisy");
    fail(&mut mlp_lines(true, "41"), "41 lines");
    succeed(score_model(&mlp, &tsv, &d.path().join("mlp.tsv")).args(COLS));
    // Each score is the MLP's probability of the encoder's two vectors, as the library gives it
    // for the saved model; trained, it tells its parallel pairs from the same sentences
    // misaligned.
    let (m, _) = bitext_neural::mlp::load_mlp(&mlp, Default::default()).unwrap();
    let src_e = embed(&model, &src, "source", &d.path().join("s.npy"));
    let scorer = bitext_neural::mlp::MlpScorer::new(&m, src_e, e).unwrap();
    let aligned: Vec<(usize, usize)> = (0..40).map(|i| (i, i)).collect();
    let want = scorer.probabilities(&aligned).unwrap();
    let out = read(d.path().join("mlp.tsv"));
    let got: Vec<f64> = out
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(got.len(), 40);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() < 1e-6, "pair {k}: {g} vs {w}");
    }
    let shifted: Vec<(usize, usize)> = (0..40).map(|i| (i, (i + 7) % 40)).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (par, mis) = (mean(&want), mean(&scorer.probabilities(&shifted).unwrap()));
    assert!(par > mis + 0.3, "parallel {par} vs misaligned {mis}");

    // An empty field is an error that names the file and line.
    let bad = d.path().join("bad.tsv");
    std::fs::write(&bad, "a1 a2\tb2 b1\na3\t\n").unwrap();
    fail(
        &mut score_model(&model, &bad, &d.path().join("bad.out")),
        "bad.tsv:2",
    );
    assert!(!d.path().join("bad.out").exists());
}

/// `bitext train autoencoder` (resumable, with monolingual text), its vectors through
/// `bitext embed --model` on both sides, cosine scores through `bitext score --model`, and an
/// MLP trained on its vectors.
#[cfg(feature = "neural")]
#[test]
fn train_embed_and_score_with_an_autoencoder() {
    let (d, src, tgt, tsv) = corpus_dir(40);
    let mono = d.path().join("mono.txt");
    std::fs::write(&mono, "b1 b2 b3\nb4 b5\n").unwrap();
    let model = d.path().join("ae");
    let train = |epochs: &str, resume: bool| {
        let mut c = train_small("autoencoder", &src, &tgt, &model);
        c.arg("--mono")
            .arg(&mono)
            .args(["--epochs", epochs, "--candidates", "8"])
            .args(["--valid-fraction", "0.1", "--max-len", "4"]);
        if resume {
            c.arg("--resume");
        }
        c
    };
    let (_, err) = succeed(&mut train("1", false));
    assert!(err.contains("cut to 4 tokens"), "{err}");
    assert!(
        err.contains("validation per-token loss: translation"),
        "{err}"
    );
    succeed(&mut train("2", true));
    let state = read(model.join("resume/trainer.json"));
    assert!(state.contains("\"epochs_done\": 2"), "{state}");
    let desc = read(model.join("model.json"));
    assert!(desc.contains("\"kind\": \"autoencoder\""), "{desc}");

    for (side, input) in [("source", &src), ("target", &tgt)] {
        let emb = d.path().join(format!("{side}.npy"));
        let e = embed(&model, input, side, &emb);
        assert_eq!((e.len(), e.dim()), (40, 256));
    }
    let scored = d.path().join("scored.tsv");
    succeed(score_model(&model, &tsv, &scored).args(COLS));
    let out = read(&scored);
    assert_eq!(out.lines().count(), 40);
    for line in out.lines() {
        let c: f64 = line.split('\t').nth(3).unwrap().parse().unwrap();
        assert!((-1.0..=1.0).contains(&c), "{c}");
    }
    let mlp = d.path().join("mlp");
    succeed(train_mlp(&model, &src, &tgt, &mlp).args(["--hidden", "16", "--epochs", "1", "-q"]));
    // Pairs of different lengths are an error, not a model.
    let short = d.path().join("short.txt");
    std::fs::write(&short, "b1\n").unwrap();
    fail(
        &mut train_cmd("autoencoder", &src, &short, d.path().join("bad")),
        "line",
    );
}

/// `--init-vectors`: the tables start from `.vec` files (one per language, projected to the
/// preset's 128 columns), and vectors narrower than the table are an error.
#[cfg(feature = "neural")]
#[test]
fn train_siamese_from_bilingual_vectors() {
    let (d, src, tgt, _) = corpus_dir(30);
    let vec_file =
        |name: &str, prefix: &str, dim: usize| toy_vectors(d.path(), name, &[prefix], dim, 0);
    let (sv, tv) = (vec_file("a.vec", "a", 130), vec_file("b.vec", "b", 130));
    let train = |out: &str, sv: &Path, tv: &Path| {
        let mut c = train_small("siamese", &src, &tgt, d.path().join(out));
        c.args(["--epochs", "1", "--negatives", "1"])
            .args(["--separate-vocab", "--freeze-embeddings"])
            .arg("--init-vectors")
            .arg(sv)
            .arg("--init-target-vectors")
            .arg(tv);
        c
    };
    let (_, err) = succeed(&mut train("m", &sv, &tv));
    assert!(
        err.contains("embeddings initialised from the vectors: 30 of"),
        "{err}"
    );
    assert!(
        err.contains("projected on their top 128 principal directions"),
        "{err}"
    );
    let narrow = vec_file("n.vec", "a", 4);
    fail(&mut train("n", &narrow, &tv), "from 4-d vectors");
}

/// A backend the build or the machine cannot run (CUDA in the tests' build, or without a GPU)
/// is refused before the data is read: no output directory is left behind.
#[cfg(feature = "neural")]
#[test]
fn train_refuses_an_unusable_backend_before_writing_anything() {
    let (d, src, tgt, _) = corpus_dir(30);
    for kind in ["siamese", "autoencoder", "aligner"] {
        let out = d.path().join(kind);
        let (ok, _, err) = common::run(train_cmd(kind, &src, &tgt, &out).args([
            "--epochs",
            "1",
            "--backend",
            "cuda",
            "-q",
        ]));
        if ok {
            // A build with the `cuda` feature on a machine with an NVIDIA GPU trains.
            continue;
        }
        assert!(err.contains("backend cuda"), "{kind}: {err}");
        assert!(
            !err.contains("skipped"),
            "{kind} read the data first: {err}"
        );
        assert!(!out.exists(), "{kind} left {} behind", out.display());
    }
}

/// `train autoencoder --bag --ranking`: each encoder's vector adds the bag of its input vectors
/// (embeddings of twice the hidden size), the ranking term is trained beside Kim et al.'s loss,
/// and the vectors embed.
#[cfg(feature = "neural")]
#[test]
fn train_an_autoencoder_with_a_bag_and_a_ranking_term() {
    let (d, src, tgt, _) = corpus_dir(30);
    let model = d.path().join("ae");
    succeed(
        train_small("autoencoder", &src, &tgt, &model)
            .args(["--epochs", "1", "--candidates", "8", "--bag"])
            .args(["--ranking", "0.5", "--scale", "10", "--margin", "0.1"])
            .args(["--ranking-pairs", "16", "--valid-fraction", "0.2", "-q"]),
    );
    let desc = read(model.join("model.json"));
    assert!(desc.contains("\"bag\": true"), "{desc}");
    let emb = d.path().join("e.npy");
    let e = embed(&model, &tgt, "target", &emb);
    assert_eq!((e.len(), e.dim()), (30, 256));
    fail(
        train_cmd("autoencoder", &src, &tgt, d.path().join("bad")).args([
            "--ranking",
            "-1",
            "--min-count",
            "1",
            "-q",
        ]),
        "ranking term",
    );
}

/// `--objective ranking --bag --pooling max --emb-dim`: the ranking-trained network with a bag
/// of its (unprojected) input vectors, whose vectors have the embedding size (its batches
/// encoded in pieces, `--batch-pieces`).
#[cfg(feature = "neural")]
#[test]
fn train_a_ranking_siamese_with_a_bag_of_words_and_embed() {
    let (d, src, tgt, _) = corpus_dir(30);
    // `b0 … b14` continue the count of `a0 … a14`: the 16th to the 30th word.
    let vectors = toy_vectors(d.path(), "v.vec", &["a", "b"], 16, 15 * 31);
    let model = d.path().join("ranking");
    succeed(
        train_small("siamese", &src, &tgt, &model)
            .args(["--epochs", "2", "--negatives", "2"])
            .args(["--objective", "ranking", "--scale", "10", "--margin", "0.1"])
            .args(["--bag", "--pooling", "max", "--emb-dim", "16"])
            .args(["--freeze-embeddings", "-q"])
            // Batches in one piece per thread (60 sentences: up to three).
            .args(["--batch-pieces", "0"])
            .arg("--init-vectors")
            .arg(&vectors),
    );
    let json = read(model.join("model.json"));
    assert!(
        json.contains("\"bag\": true") && json.contains("\"pooling\": \"max\""),
        "{json}"
    );
    let emb = d.path().join("e.npy");
    let e = embed(&model, &src, "source", &emb);
    assert_eq!((e.len(), e.dim()), (30, 16));
    fail(
        train_cmd("siamese", &src, &tgt, d.path().join("bad"))
            .args(["--objective", "ranking", "--scale", "0"])
            .args(["--min-count", "1", "-q"]),
        "scale",
    );
}

#[cfg(not(feature = "neural"))]
#[test]
fn without_the_neural_feature_neural_commands_say_how_to_get_it() {
    let (d, src, tgt, tsv) = corpus_dir(10);
    let model = d.path().join("siamese");
    let runs: [(&str, Vec<std::ffi::OsString>); 3] = [
        (
            "`bitext train siamese|autoencoder|aligner|mlp`",
            vec![
                "train".into(),
                "siamese".into(),
                "--src".into(),
                src.clone().into(),
                "--tgt".into(),
                tgt.clone().into(),
                "-o".into(),
                model.clone().into(),
            ],
        ),
        (
            "the neural model",
            vec![
                "embed".into(),
                "--model".into(),
                model.clone().into(),
                "--input".into(),
                src.into(),
                "-o".into(),
                d.path().join("e.npy").into(),
            ],
        ),
        (
            "the neural model",
            vec![
                "score".into(),
                "--model".into(),
                model.clone().into(),
                "--input".into(),
                tsv.into(),
                "--output".into(),
                d.path().join("scored.tsv").into(),
            ],
        ),
    ];
    for (what, args) in runs {
        let (ok, _, err) = common::run(bitext().args(&args));
        assert!(!ok, "{what} succeeded");
        assert!(
            err.contains(what)
                && err.contains("is not available")
                && err.contains("built without the cargo feature `neural`")
                && err.contains("cargo install --path crates/cli"),
            "{err}"
        );
    }
    assert!(!model.exists());
    assert!(!d.path().join("e.npy").exists());
    assert!(!d.path().join("scored.tsv").exists());

    // The commands and flags are the same in every build; `--help` marks the missing ones.
    let help = bitext().arg("--help").output().unwrap();
    assert!(help.status.success());
    let help = String::from_utf8(help.stdout).unwrap();
    // (Compared with the spaces folded: the column width follows the longest command name.)
    let folded: Vec<String> = help
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    for line in [
        "train Train a model: IBM Model 1 (the neural models are not in this build: they need \
         the cargo feature `neural`)",
        "fix Cut sentence pairs down to their parallel parts (not in this build: needs the \
         cargo feature `neural`)",
    ] {
        assert!(folded.iter().any(|l| l == line), "{line:?} not in:\n{help}");
    }
}
