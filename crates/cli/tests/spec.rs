//! Specs on the command line: `bitext embed --encoder SPEC` and `--scorer-spec SPEC` of
//! `bitext score` and `bitext filter` give what the equivalent flags give, and conflict with
//! them.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Run the binary; (success, stderr).
fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bitext"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S]) {
    let (ok, err) = run(args);
    assert!(ok, "{args:?}: {err}");
}

/// The command line `base` followed by `extra`, owned.
fn line(base: &[&str], extra: &[&str]) -> Vec<String> {
    base.iter().chain(extra).map(|a| (*a).to_owned()).collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Word vectors of both languages in one 3-d space.
const VEC: &str =
    "6 3\nhund 1 0 0\nkatze 0 1 0\nhaus 0 0 1\ndog 1 0.1 0\ncat 0 1 0.1\nhouse 0.1 0 1\n";

/// A temporary folder holding [`VEC`] as `w.vec`: the folder and that file.
fn with_vectors() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let v = write(d.path(), "w.vec", VEC);
    (d, v)
}

#[test]
fn embed_encoder_spec_equals_the_flags() {
    let (d, v) = with_vectors();
    let input = write(
        d.path(),
        "de.txt",
        "Hund und Katze\nein Haus\nHund Hund Haus\n",
    );
    let (a, b) = (d.path().join("a.f32"), d.path().join("b.f32"));
    let embed = |out: &Path, extra: &[&str]| {
        line(&["embed", "-q", "--input", s(&input), "-o", s(out)], extra)
    };
    ok(&embed(
        &a,
        &["--vectors", s(&v), "--tfidf", "--zero-unknown"],
    ));
    let spec = format!(
        r#"{{"type":"bow","vectors":"{}","weighting":"tf_idf","no_known_word":"zero"}}"#,
        s(&v)
    );
    ok(&embed(&b, &["--encoder", &spec]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());

    let short = format!("bow:{}", s(&v));
    ok(&embed(&b, &["--encoder", &short]));
    ok(&embed(&a, &["--vectors", s(&v)]));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());

    let (fine, err) = run(&embed(&b, &["--encoder", &short, "--vectors", s(&v)]));
    assert!(!fine && err.contains("cannot be used with"), "{err}");
    let (fine, err) = run(&embed(&b, &["--encoder", "glove"]));
    assert!(!fine && err.contains("bow:FILE"), "{err}");
}

#[test]
fn score_and_filter_scorer_specs_equal_the_flags() {
    let (d, v) = with_vectors();
    let tsv = write(
        d.path(),
        "in.tsv",
        "Hund und Katze\tdog and cat\nein Haus\ta house\nKatze\thouse\n",
    );
    let (a, b) = (d.path().join("a.tsv"), d.path().join("b.tsv"));
    let score = |out: &Path, extra: &[&str]| {
        line(&["score", "--input", s(&tsv), "--output", s(out)], extra)
    };
    ok(&score(
        &a,
        &[
            "--scorer",
            "emd",
            "--src-vec",
            s(&v),
            "--tgt-vec",
            s(&v),
            "--oov",
            "match",
        ],
    ));
    let spec = format!(
        r#"{{"type":"emd","src_vectors":"{0}","tgt_vectors":"{0}",
            "distance":{{"oov":"match_identical"}}}}"#,
        s(&v)
    );
    ok(&score(&b, &["--scorer-spec", &spec]));
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap()
    );
    let (fine, err) = run(&score(&b, &["--scorer-spec", "cosine"]));
    assert!(
        !fine && err.contains("scores embeddings, not sentences"),
        "{err}"
    );

    // filter: 4 lines, embeddings written by embed.
    let tsv = write(
        d.path(),
        "f.tsv",
        "Hund\tdog\nKatze\tcat\nHaus\thouse\nHund Katze\tcat\n",
    );
    let de = write(d.path(), "de.txt", "Hund\nKatze\nHaus\nHund Katze\n");
    let en = write(d.path(), "en.txt", "dog\ncat\nhouse\ncat\n");
    let (xe, ye) = (d.path().join("x.f32"), d.path().join("y.f32"));
    for (text, out) in [(&de, &xe), (&en, &ye)] {
        ok(&[
            "embed",
            "-q",
            "--input",
            s(text),
            "--vectors",
            s(&v),
            "-o",
            s(out),
        ]);
    }
    let filter = |out: &Path, extra: &[&str]| {
        let base = [
            "filter",
            "-q",
            "--input",
            s(&tsv),
            "--src-embeddings",
            s(&xe),
            "--trg-embeddings",
            s(&ye),
            "--dim",
            "3",
            "-o",
            s(out),
        ];
        line(&base, extra)
    };
    let ratio = r#"{"type":"margin","margin":{"type":"ratio","k_src":2,"k_trg":2}}"#;
    for (flags, spec) in [
        (&["--scorer", "ratio", "-k", "2"][..], ratio),
        (&["--scorer", "distance", "-k", "4"][..], "distance"),
        (&["--scorer", "cosine"][..], "cosine"),
    ] {
        ok(&filter(&a, flags));
        ok(&filter(&b, &["--scorer-spec", spec]));
        assert_eq!(
            std::fs::read_to_string(&a).unwrap(),
            std::fs::read_to_string(&b).unwrap(),
            "{spec}"
        );
    }
    ok(&filter(
        &b,
        &["--scorer-spec", r#"{"type":"neg_euclidean"}"#],
    ));
    let emd = format!(
        r#"{{"type":"emd","src_vectors":"{0}","tgt_vectors":"{0}"}}"#,
        s(&v)
    );
    // The EMD scores the TSV's sentences: given embeddings, filter says they are not used.
    let (fine, err) = run(&filter(&b, &["--scorer-spec", &emd]));
    assert!(
        !fine && err.contains("reads the TSV's sentences, not embeddings"),
        "{err}"
    );
    let (fine, err) = run(&filter(
        &b,
        &["--scorer-spec", "cosine", "--scorer", "ratio"],
    ));
    assert!(!fine && err.contains("cannot be used with"), "{err}");
}
