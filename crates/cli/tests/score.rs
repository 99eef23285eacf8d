//! End-to-end tests of `bitext score` on small files built here.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{
    COLS, bow_spec, cli, embed_encoder, emd, fail, last_column, read, scored, succeed, with_file,
    with_input, word_vectors, write,
};

/// German and English word vectors in one space: translations are close.
fn vectors(dir: &Path) -> (PathBuf, PathBuf) {
    word_vectors(
        dir,
        "4 2\nhund 1 0\nkatze 0 1\nhaus 0.7 0.7\nbaum -1 0\n",
        "4 2\ndog 0.95 0.05\ncat 0.05 0.95\nhouse 0.7 0.72\ntree -0.98 0.02\n",
    )
}

/// Three pairs `id<TAB>German<TAB>English`: two translations, and a mismatch in the middle.
const PAIRS: &str = "u1\tDer Hund und die Katze .\tThe dog and the cat .\n\
                     u2\tDas Haus !\tThe tree .\n\
                     u3\tEin Baum\ta tree\n";

/// `bitext score --scorer emd` of columns 1 and 2 of `input` with the vectors above.
fn score(dir: &Path, input: &Path, output: &Path, extra: &[&str]) -> Command {
    let (de, en) = vectors(dir);
    let mut cmd = emd("score", &de, &en, input, output);
    cmd.args(extra);
    cmd
}

#[test]
fn score_appends_a_column_and_ranks_translations_first() {
    let (d, input) = with_input(PAIRS);
    let output = d.path().join("out.tsv");
    succeed(&mut score(d.path(), &input, &output, &["--batch", "2"]));
    let text = read(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let scores = last_column(&output);
    assert!(lines[0].starts_with("u1\tDer Hund und die Katze .\tThe dog and the cat .\t"));
    assert!(scores.iter().all(|s| *s <= 0.0));
    assert!(scores[0] > scores[1] && scores[2] > scores[1], "{scores:?}");
    for extra in [&["--no-idf"][..], &["--oov", "match", "--oov-cost", "0.5"]] {
        succeed(&mut score(d.path(), &input, &output, extra));
    }
}

#[test]
fn score_errors_name_the_file_and_line() {
    let (d, empty) = with_file("empty.tsv", "u1\tHund\tdog\nu2\t \tcat\n");
    let output = d.path().join("out.tsv");
    fail(
        &mut score(d.path(), &empty, &output, &[]),
        "empty.tsv:2: empty source field",
    );
    assert!(!output.exists(), "no partial output");
    let short = write(d.path(), "short.tsv", "u1\tHund\n");
    // Columns are counted from 1 in messages, as in the flags (here --src-col 2 --tgt-col 3).
    fail(
        &mut score(d.path(), &short, &output, &[]),
        "short.tsv:1: 2 tab-separated fields, but 3 are needed (source in column 2, target in \
         column 3)",
    );
    fail(&mut scored("score", "emd", &empty, &output), "--src-vec");
    let good = write(d.path(), "good.tsv", "u1\tHund\tdog\n");
    fail(
        &mut score(d.path(), &good, &output, &["--oov-cost", "-1"]),
        "oov_cost",
    );
}

/// `bitext filter --scorer emd` keeps the lines `bitext score --scorer emd` ranks best, with the
/// same scores.
#[test]
fn filter_with_the_emd_scorer_keeps_the_best_lines() {
    let (d, input) = with_input(PAIRS);
    let (de, en) = vectors(d.path());
    let scored = d.path().join("scored.tsv");
    succeed(&mut score(d.path(), &input, &scored, &[]));
    let kept = d.path().join("kept.tsv");
    succeed(emd("filter", &de, &en, &input, &kept).args(["--budget-lines", "2"]));
    let scored = read(&scored);
    let mut lines: Vec<&str> = scored.lines().collect();
    lines.sort_by(|a, b| {
        let s = |l: &str| l.rsplit('\t').next().unwrap().parse::<f64>().unwrap();
        s(b).total_cmp(&s(a))
    });
    let mut best: Vec<&str> = lines[..2].to_vec();
    best.sort();
    let kept = read(&kept);
    let mut got: Vec<&str> = kept.lines().collect();
    got.sort();
    assert_eq!(got, best);
}

/// `bitext score --encoder SPEC`: the cosine of the encoder's two sentence vectors, computed
/// here from the vectors themselves (bag of words: the normalised mean of the known words).
#[test]
fn score_with_an_encoder_appends_the_cosine_of_its_vectors() {
    let (d, input) = with_input("u1\tHund\tdog\nu2\tHund Katze\tcat\nu3\tBaum\tdog\n");
    let (de, en) = vectors(d.path());
    let spec = bow_spec(&de, &en);
    let output = d.path().join("out.tsv");
    succeed(
        cli![
            "score",
            "--encoder",
            &spec,
            "--batch",
            "2",
            "--input",
            &input,
            "--output",
            &output
        ]
        .args(COLS),
    );
    let unit = |v: [f64; 2]| {
        let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
        [v[0] / n, v[1] / n]
    };
    let cos = |a: [f64; 2], b: [f64; 2]| {
        let (a, b) = (unit(a), unit(b));
        a[0] * b[0] + a[1] * b[1]
    };
    let want = [
        cos([1.0, 0.0], [0.95, 0.05]),
        cos([0.5, 0.5], [0.05, 0.95]),
        cos([-1.0, 0.0], [0.95, 0.05]),
    ];
    let out = read(&output);
    let got = last_column(&output);
    assert_eq!(got.len(), 3, "{out}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() < 1e-4, "{g} vs {w}: {out}");
    }
    // Not together with another scorer.
    fail(
        scored("score", "levenshtein", &input, &output)
            .arg("--encoder")
            .arg(&spec),
        "cannot be used with",
    );
}

/// `bitext filter --encoder SPEC`: the TSV's columns encoded in memory, filtered exactly as with
/// the embeddings `bitext embed` writes for the same columns.
#[test]
fn filter_with_an_encoder_equals_filter_with_its_embeddings() {
    let d = tempfile::tempdir().unwrap();
    let (de, en) = vectors(d.path());
    let spec = bow_spec(&de, &en);
    let rows = [
        ("Hund", "dog"),
        ("Katze", "the cat"),
        ("Baum", "dog"),
        ("Haus", "house"),
        ("Hund Katze", "tree"),
    ];
    let tsv: String = rows
        .iter()
        .enumerate()
        .map(|(i, (s, t))| format!("u{i}\t{s}\t{t}\n"))
        .collect();
    let input = write(d.path(), "in.tsv", tsv);
    let (xs, ys) = (d.path().join("x.npy"), d.path().join("y.npy"));
    for (k, side, out) in [(0, "source", &xs), (1, "target", &ys)] {
        let col: String = rows
            .iter()
            .map(|r| format!("{}\n", [r.0, r.1][k]))
            .collect();
        let col = write(d.path(), &format!("col{k}.txt"), col);
        succeed(&mut embed_encoder(&col, &spec, side, out));
    }
    let filter = |extra: &[&dyn AsRef<std::ffi::OsStr>], out: &Path| {
        let mut c = cli![
            "filter",
            "-q",
            "--input",
            &input,
            "--budget-lines",
            "3",
            "-o",
            out
        ];
        c.args(COLS).args(extra.iter().map(|x| x.as_ref()));
        succeed(&mut c)
    };
    let (a, b) = (d.path().join("a.tsv"), d.path().join("b.tsv"));
    filter(&[&"--src-embeddings", &xs, &"--tgt-embeddings", &ys], &a);
    filter(&[&"--encoder", &spec], &b);
    let want = read(&a);
    assert_eq!(want.lines().count(), 3, "{want}");
    assert_eq!(read(&b), want);
}

/// An input without a line is the same error in `score` and `filter`, naming the file, and
/// leaves no output.
#[test]
fn an_empty_input_is_the_same_error_in_score_and_filter() {
    let (d, empty) = with_file("empty.tsv", "");
    let out = d.path().join("out.tsv");
    for command in ["score", "filter"] {
        fail(
            &mut scored(command, "length-ratio", &empty, &out),
            "empty.tsv: no sentence pairs",
        );
        assert!(!out.exists(), "{command}");
    }
}

/// Without `-o`, `score` and `filter` (single-process and sharded) write to standard output,
/// as `mine` and `align-docs` do.
#[test]
fn score_and_filter_write_to_standard_output_by_default() {
    let (d, input) = with_input("u1\tein Hund\ta dog\nu2\tja\ta much longer sentence\n");
    let to_file = d.path().join("scored.tsv");
    let args = [&["--scorer", "length-ratio"][..], &COLS].concat();
    succeed(cli!["score", "--input", &input, "-o", &to_file].args(&args));
    let want = read(&to_file);
    let (out, _) = succeed(cli!["score", "--input", &input].args(&args));
    assert_eq!(out, want);
    let (kept, _) = succeed(cli!["filter", "--input", &input, "--budget-lines", "1"].args(&args));
    assert_eq!(kept.lines().count(), 1);
    assert!(want.contains(&kept), "{kept} not among\n{want}");
    let work = d.path().join("work");
    let (sharded, _) = succeed(
        cli![
            "score",
            "--input",
            &input,
            "--shards",
            "2",
            "--work-dir",
            &work
        ]
        .args(&args),
    );
    assert_eq!(sharded, want);
}
