//! Specs on the command line: `bitext embed --encoder SPEC` and `--scorer-spec SPEC` of
//! `bitext score` and `bitext filter` give what the equivalent flags give, and conflict with
//! them.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{cli, embed, fail, read, succeed, write};

/// Word vectors of both languages in one 3-d space.
const VEC: &str =
    "6 3\nhund 1 0 0\nkatze 0 1 0\nhaus 0 0 1\ndog 1 0.1 0\ncat 0 1 0.1\nhouse 0.1 0 1\n";

/// A fresh temporary folder holding [`VEC`] as `w.vec` and `text` as `name`: the folder and the
/// two files.
fn with_vectors(name: &str, text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let v = write(d.path(), "w.vec", VEC);
    let input = write(d.path(), name, text);
    (d, v, input)
}

/// The bytes of two files are the same.
fn assert_same_bytes(a: &Path, b: &Path) {
    assert_eq!(std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
}

#[test]
fn embed_encoder_spec_equals_the_flags() {
    let (d, v, input) = with_vectors("de.txt", "Hund und Katze\nein Haus\nHund Hund Haus\n");
    let (a, b) = (d.path().join("a.f32"), d.path().join("b.f32"));
    let embed = |out: &Path, extra: &[&str]| {
        let mut c = cli!["embed", "-q", "--input", &input, "-o", out];
        c.args(extra);
        c
    };
    succeed(
        embed(&a, &["--tfidf", "--zero-unknown"])
            .arg("--vectors")
            .arg(&v),
    );
    let spec = format!(
        r#"{{"type":"bow","vectors":"{}","weighting":"tf_idf","no_known_word":"zero"}}"#,
        v.display()
    );
    succeed(&mut embed(&b, &["--encoder", &spec]));
    assert_same_bytes(&a, &b);

    let short = format!("bow:{}", v.display());
    succeed(&mut embed(&b, &["--encoder", &short]));
    succeed(embed(&a, &[]).arg("--vectors").arg(&v));
    assert_same_bytes(&a, &b);

    let both = &mut embed(&b, &["--encoder", &short]);
    fail(both.arg("--vectors").arg(&v), "cannot be used with");
    fail(&mut embed(&b, &["--encoder", "glove"]), "bow:FILE");
}

#[test]
fn score_and_filter_scorer_specs_equal_the_flags() {
    let (d, v, tsv) = with_vectors(
        "in.tsv",
        "Hund und Katze\tdog and cat\nein Haus\ta house\nKatze\thouse\n",
    );
    let (a, b) = (d.path().join("a.tsv"), d.path().join("b.tsv"));
    let score = |out: &Path, extra: &[&str]| {
        let mut c = cli!["score", "--input", &tsv, "--output", out];
        c.args(extra);
        c
    };
    succeed(
        score(&a, &["--scorer", "emd", "--oov", "match"])
            .arg("--src-vec")
            .arg(&v)
            .arg("--tgt-vec")
            .arg(&v),
    );
    let spec = format!(
        r#"{{"type":"emd","src_vectors":"{0}","tgt_vectors":"{0}",
            "distance":{{"oov":"match_identical"}}}}"#,
        v.display()
    );
    succeed(&mut score(&b, &["--scorer-spec", &spec]));
    assert_eq!(read(&a), read(&b));
    fail(
        &mut score(&b, &["--scorer-spec", "cosine"]),
        "scores embeddings, not sentences",
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
        succeed(&mut embed(text, &v, out));
    }
    let filter = |out: &Path, extra: &[&str]| -> Command {
        let mut c = cli![
            "filter",
            "-q",
            "--input",
            &tsv,
            "--src-embeddings",
            &xe,
            "--trg-embeddings",
            &ye,
            "--dim",
            "3",
            "-o",
            out
        ];
        c.args(extra);
        c
    };
    let ratio = r#"{"type":"margin","margin":{"type":"ratio","k_src":2,"k_trg":2}}"#;
    for (flags, spec) in [
        (&["--scorer", "ratio", "-k", "2"][..], ratio),
        (&["--scorer", "distance", "-k", "4"][..], "distance"),
        (&["--scorer", "cosine"][..], "cosine"),
    ] {
        succeed(&mut filter(&a, flags));
        succeed(&mut filter(&b, &["--scorer-spec", spec]));
        assert_eq!(read(&a), read(&b), "{spec}");
    }
    succeed(&mut filter(
        &b,
        &["--scorer-spec", r#"{"type":"neg_euclidean"}"#],
    ));
    let emd = format!(
        r#"{{"type":"emd","src_vectors":"{0}","tgt_vectors":"{0}"}}"#,
        v.display()
    );
    // The EMD scores the TSV's sentences: given embeddings, filter says they are not used.
    fail(
        &mut filter(&b, &["--scorer-spec", &emd]),
        "reads the TSV's sentences, not embeddings",
    );
    fail(
        &mut filter(&b, &["--scorer-spec", "cosine", "--scorer", "ratio"]),
        "cannot be used with",
    );
}
