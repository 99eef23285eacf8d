//! `--bad-lines error|skip` and `--rejects` of every command that reads text or TSV: by
//! default a line that cannot be read stops the command naming it; `skip` leaves it out, writes
//! it (number, reason, text) to the rejects file and counts it, and the lines read are worked on
//! as a file without the bad lines would be. Where a line left out would put rows out of step
//! (text beside embeddings made elsewhere, `mine --mode score`, one document pair of
//! `align-docs`, a labelled calibration sample), `skip` is refused, saying why.

mod common;

use std::path::Path;
use std::process::Command;

use common::{cli, fail, read, succeed, with_input};

/// A TSV with a good line, a line with a byte that is not UTF-8, a line of one field, a line
/// with an empty source, and another good line.
const CRAWL: &[u8] = b"id1\tDas Haus ist rot\tThe house is red\n\
id2\tbad \xff byte\tok\n\
short\n\
id4\t \tempty\n\
id5\tGuten Morgen\tGood morning\n";

const GOOD: &[u8] = b"id1\tDas Haus ist rot\tThe house is red\n\
id5\tGuten Morgen\tGood morning\n";

const REJECTED: &str = "2\tinvalid UTF-8 at byte 8 of the line\tid2\tbad \u{fffd} byte\tok\n\
3\t1 tab-separated fields, but 3 are needed (source in column 2, target in column 3)\tshort\n\
4\tempty source field\tid4\t \tempty\n";

/// `bitext COMMAND --input INPUT --scorer SCORER -o OUT` on the TSV's columns 2 and 3, with
/// `extra` arguments.
fn scoring(command: &str, input: &Path, scorer: &str, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = cli![command, "--input", input, "--scorer", scorer, "-o", out];
    cmd.args(["--src-col", "2", "--tgt-col", "3"]).args(extra);
    cmd
}

/// `--bad-lines skip --rejects REJECTS`, for a command that has `-q` already.
fn skipping(rejects: &Path) -> [&str; 4] {
    [
        "--bad-lines",
        "skip",
        "--rejects",
        rejects.to_str().unwrap(),
    ]
}

/// `--bad-lines skip -q --rejects REJECTS`.
fn skip(rejects: &Path) -> [&str; 5] {
    [
        "--bad-lines",
        "skip",
        "-q",
        "--rejects",
        rejects.to_str().unwrap(),
    ]
}

#[test]
fn a_bad_line_stops_score_and_filter_by_default() {
    let (dir, input) = with_input(CRAWL);
    let out = dir.path().join("out.tsv");
    for command in ["score", "filter"] {
        for extra in [&[][..], &["--bad-lines", "error"]] {
            let mut cmd = scoring(command, &input, "levenshtein", &out, extra);
            fail(&mut cmd, "in.tsv:2: invalid UTF-8 at byte 8 of the line");
        }
        assert!(!out.exists());
    }
}

#[test]
fn skipped_lines_go_to_the_rejects_file_and_the_rest_scores_as_a_clean_file() {
    let (dir, input) = with_input(CRAWL);
    let clean = common::write(dir.path(), "clean.tsv", GOOD);
    for (command, scorer) in [("score", "levenshtein"), ("filter", "length-ratio")] {
        let (out, want) = (dir.path().join("out.tsv"), dir.path().join("want.tsv"));
        let rejects = dir.path().join(format!("{command}.rejects.tsv"));
        let (_, err) = succeed(&mut scoring(command, &input, scorer, &out, &skip(&rejects)));
        assert!(
            err.contains("skipped 3 lines of") && err.contains("rejects.tsv"),
            "{err}"
        );
        assert_eq!(read(&rejects), REJECTED);
        succeed(&mut scoring(command, &clean, scorer, &want, &[]));
        assert_eq!(read(&out), read(&want), "{command}");
        assert_eq!(read(&out).lines().count(), 2);
    }
}

#[test]
fn a_clean_file_under_skip_writes_an_empty_rejects_file_and_says_nothing() {
    let (dir, input) = with_input(GOOD);
    let (out, rejects) = (dir.path().join("out.tsv"), dir.path().join("rej.tsv"));
    let (_, err) = succeed(&mut scoring(
        "score",
        &input,
        "levenshtein",
        &out,
        &skip(&rejects),
    ));
    assert!(!err.contains("skipped"), "{err}");
    assert_eq!(read(&rejects), "");
}

#[test]
fn skip_needs_a_rejects_file_and_a_rejects_file_needs_skip() {
    let (dir, input) = with_input(CRAWL);
    let out = dir.path().join("out.tsv");
    let rejects = dir.path().join("rej.tsv");
    let cases: [(&[&str], &str); 3] = [
        (
            &["--bad-lines", "skip"],
            "--bad-lines skip needs --rejects FILE",
        ),
        (
            &["--rejects", rejects.to_str().unwrap()],
            "--rejects lists skipped lines: it needs --bad-lines skip",
        ),
        (
            &["--bad-lines", "drop"],
            "invalid value 'drop' for '--bad-lines <POLICY>'",
        ),
    ];
    for command in ["score", "filter"] {
        for (extra, want) in cases {
            fail(
                &mut scoring(command, &input, "levenshtein", &out, extra),
                want,
            );
        }
    }
    assert!(!out.exists() && !rejects.exists());
}

#[test]
fn filter_refuses_to_skip_lines_beside_precomputed_embeddings() {
    let (dir, input) = with_input(CRAWL);
    let e = bitext_core::Embeddings::new(vec![1.0; 10], 2).unwrap();
    let (src, tgt) = common::write_pair(dir.path(), &e, &e);
    let rejects = dir.path().join("rej.tsv");
    let (src, tgt, rejects) = (src.to_str().unwrap(), tgt.to_str().unwrap(), rejects);
    let extra = [
        "--src-embeddings",
        src,
        "--tgt-embeddings",
        tgt,
        "--bad-lines",
        "skip",
        "--rejects",
        rejects.to_str().unwrap(),
    ];
    let out = dir.path().join("out.tsv");
    fail(
        &mut scoring("filter", &input, "cosine", &out, &extra),
        "--bad-lines skip would put the TSV's lines out of step",
    );
}

#[test]
fn train_ibm1_skips_bad_lines_into_the_rejects_file() {
    let (dir, input) = with_input(CRAWL);
    let (model, rejects) = (dir.path().join("ibm1"), dir.path().join("rej.tsv"));
    let mut cmd = cli!["train", "ibm1", "--input", &input, "-o", &model];
    cmd.args(["--src-col", "2", "--tgt-col", "3", "--iterations", "1"]);
    let mut strict = cli!["train", "ibm1", "--input", &input, "-o", &model, "-q"];
    strict.args(["--src-col", "2", "--tgt-col", "3"]);
    fail(&mut strict, "in.tsv:2: invalid UTF-8");
    assert!(!model.exists());
    let (_, err) = succeed(cmd.args(skip(&rejects)));
    assert!(err.contains("trained IBM Model 1 on 2 pairs"), "{err}");
    assert!(err.contains("skipped 3 lines of"), "{err}");
    assert_eq!(read(&rejects), REJECTED);
}

/// German and English one-hot word vectors in `dir`, as a bag-of-words encoder spec.
fn bow(dir: &Path) -> String {
    let de = ["das", "haus", "ist", "rot", "guten", "morgen"];
    let en = ["the", "house", "is", "red", "good", "morning"];
    let vec = |l: &[&str]| common::one_hot_vectors(l);
    let (de, en) = common::word_vectors(dir, &vec(&de), &vec(&en));
    common::bow_spec(&de, &en)
}

/// A German text with a line that is not UTF-8 (2) and an empty line (3); the same without.
const TEXT: &[u8] = b"das haus\nist \xff rot\n\nguten morgen\n";
const CLEAN_TEXT: &str = "das haus\nguten morgen\n";
const TEXT_REJECTED: &str =
    "2\tinvalid UTF-8 at byte 4 of the line\tist \u{fffd} rot\n3\tempty line\t\n";

#[test]
fn embed_leaves_out_bad_lines_and_writes_a_row_per_line_kept() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let input = common::write(d.path(), "de.txt", TEXT);
    let clean = common::write(d.path(), "clean.txt", CLEAN_TEXT);
    let (out, want, rejects) = (
        d.path().join("x.npy"),
        d.path().join("w.npy"),
        d.path().join("r.tsv"),
    );
    let embed = |input: &Path, out: &Path| common::embed_with(input, &spec, out);
    fail(
        &mut embed(&input, &out),
        "de.txt:2: invalid UTF-8 at byte 4 of the line",
    );
    let (_, err) = succeed(embed(&input, &out).args(skipping(&rejects)));
    assert!(
        err.contains("skipped 2 lines of") && err.contains("de.txt"),
        "{err}"
    );
    assert_eq!(read(&rejects), TEXT_REJECTED);
    succeed(&mut embed(&clean, &want));
    let (got, want) = (npy(&out), npy(&want));
    assert_eq!((got.len(), got.as_slice()), (2, want.as_slice()));
    // Zero rows are listed by their line in the input, skipped lines counted.
    let unknown = common::write(d.path(), "u.txt", b"das haus\n\xfe\nxyz\nrot\n");
    let list = d.path().join("unknown.txt");
    let mut cmd = embed(&unknown, &out);
    cmd.args(skipping(&rejects))
        .arg("--zero-unknown")
        .arg("--unknown-list")
        .arg(&list);
    let (_, err) = succeed(&mut cmd);
    assert!(
        err.contains("1 sentences had no known word and got zero rows (lines 3)"),
        "{err}"
    );
    assert_eq!((read(&list), npy(&out).len()), ("3\n".to_string(), 3));
}

#[test]
fn embed_skips_the_same_bucc_lines_with_every_encoder() {
    let d = tempfile::tempdir().unwrap();
    let bucc = b"de-1\tdas haus\nde-2\nde-1\tguten morgen\nde-3\tist rot\n";
    let input = common::write(d.path(), "de.tsv", bucc);
    let want = "2\tmissing tab: expected id<TAB>sentence\tde-2\n\
                3\tduplicate id de-1 (first on line 1)\tde-1\tguten morgen\n";
    // The bag of words reads the file whole; a model streams it.
    #[allow(unused_mut)]
    let mut specs = vec![bow(d.path())];
    #[cfg(feature = "neural")]
    specs.push(format!("model:{}", aligner(d.path()).display()));
    for spec in specs {
        let (out, rejects) = (d.path().join("x.npy"), d.path().join("r.tsv"));
        fail(
            &mut common::embed_with(&input, &spec, &out),
            "de.tsv:2: missing tab",
        );
        succeed(common::embed_with(&input, &spec, &out).args(skipping(&rejects)));
        assert_eq!(read(&rejects), want, "{spec}");
        assert_eq!(npy(&out).len(), 2);
    }
}

/// A small word-alignment model trained in `dir` on a toy corpus (an encoder too).
#[cfg(feature = "neural")]
fn aligner(dir: &Path) -> std::path::PathBuf {
    let (_corpus, src, tgt, _) = common::toy_corpus(24, 3, 6);
    let model = dir.join("aligner");
    let quick = [
        "--preset",
        "small",
        "--per-kind",
        "8",
        "--min-count",
        "1",
        "--epochs",
        "1",
    ];
    let mut train = cli![
        "train",
        "aligner",
        "-q",
        "-o",
        &model,
        "--src-text",
        &src,
        "--tgt-text"
    ];
    succeed(train.arg(&tgt).args(quick));
    model
}

/// `bitext mine --encoder SPEC` of the German `src` against the English `tgt`, names as text.
fn mine_text(spec: &str, src: &Path, tgt: &Path, out: &Path) -> Command {
    let mut cmd = cli![
        "mine",
        "-q",
        "--encoder",
        spec,
        "--src-text",
        src,
        "--tgt-text",
        tgt
    ];
    cmd.args(["-k", "1", "--text-format", "plain", "-o"])
        .arg(out);
    cmd
}

#[test]
fn mine_with_an_encoder_skips_the_same_lines_in_its_rows_and_names() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let de = common::write(d.path(), "de.txt", TEXT);
    let en = common::write(d.path(), "en.txt", b"good morning\n\xc3\nthe house\n");
    let clean_de = common::write(d.path(), "clean.de", CLEAN_TEXT);
    let clean_en = common::write(d.path(), "clean.en", "good morning\nthe house\n");
    let (out, want, rejects) = (
        d.path().join("m.tsv"),
        d.path().join("w.tsv"),
        d.path().join("r.tsv"),
    );
    fail(
        &mut mine_text(&spec, &de, &en, &out),
        "de.txt:2: invalid UTF-8",
    );
    let (_, err) = succeed(mine_text(&spec, &de, &en, &out).args(skipping(&rejects)));
    assert!(
        err.contains("skipped 3 lines (2 of") && err.contains("1 of"),
        "{err}"
    );
    let (dn, en_name) = (de.display(), en.display());
    assert_eq!(
        read(&rejects),
        format!(
            "2\t{dn}: invalid UTF-8 at byte 4 of the line\tist \u{fffd} rot\n\
             3\t{dn}: empty line\t\n\
             2\t{en_name}: invalid UTF-8 at byte 0 of the line\t\u{fffd}\n"
        )
    );
    succeed(&mut mine_text(&spec, &clean_de, &clean_en, &want));
    assert_eq!(read(&out), read(&want));
    assert_eq!(read(&out).lines().count(), 2);
}

#[test]
fn mine_refuses_to_skip_where_rows_would_go_out_of_step() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let de = common::write(d.path(), "de.txt", TEXT);
    let (out, rejects) = (d.path().join("m.tsv"), d.path().join("r.tsv"));
    let e = bitext_core::Embeddings::new(vec![1.0; 8], 2).unwrap();
    let (x, y) = common::write_pair(d.path(), &e, &e);
    let mut made_elsewhere = cli!["mine", "-q", "--dim", "2", "--src-embeddings", &x];
    made_elsewhere
        .arg("--tgt-embeddings")
        .arg(&y)
        .arg("--src-text")
        .arg(&de);
    made_elsewhere.args(skipping(&rejects));
    fail(&mut made_elsewhere, "--bad-lines skip needs --encoder");
    let mut score = mine_text(&spec, &de, &de, &out);
    score.args(["--mode", "score"]).args(skipping(&rejects));
    fail(&mut score, "--bad-lines skip is refused with --mode score");
    let mut sharded = mine_text(&spec, &de, &de, &out);
    sharded
        .args(["--shards", "2", "--work-dir"])
        .arg(d.path().join("w"))
        .args(skipping(&rejects));
    fail(&mut sharded, "not available with --shards");
    assert!(!out.exists());
}

#[test]
fn align_docs_skips_a_document_pair_that_cannot_be_read() {
    let d = tempfile::tempdir().unwrap();
    let spec = bow(d.path());
    let de = common::write(d.path(), "a.de", CLEAN_TEXT);
    let en = common::write(d.path(), "a.en", "good morning\nthe house\n");
    let bad = common::write(d.path(), "b.de", b"das haus\n\xffguten\n");
    let (out1, out2) = (d.path().join("a.beads"), d.path().join("b.beads"));
    let list_text = format!(
        "{}\t{}\t{}\n{}\t{}\t{}\nonly\ttwo\n",
        de.display(),
        en.display(),
        out1.display(),
        bad.display(),
        en.display(),
        out2.display()
    );
    let list = common::write(d.path(), "docs.tsv", list_text);
    let rejects = d.path().join("r.tsv");
    let align = || cli!["align-docs", "-q", "--encoder", &spec, "--docs", &list];
    fail(&mut align(), "docs.tsv:3: expected 3 tab-separated fields");
    let (_, err) = succeed(align().args(skipping(&rejects)));
    assert!(
        err.contains("skipped 2 lines of") && err.contains("docs.tsv"),
        "{err}"
    );
    assert!(out1.exists() && !out2.exists());
    assert_eq!(
        read(&rejects),
        format!(
            "2\t{}:2: invalid UTF-8 at byte 0 of the line\t{}\t{}\t{}\n\
             3\texpected 3 tab-separated fields (source<TAB>target<TAB>output), found 2\tonly\ttwo\n",
            bad.display(),
            bad.display(),
            en.display(),
            out2.display()
        )
    );
    // One pair: its beads number every line, so none is left out.
    let mut one = cli![
        "align-docs",
        "--encoder",
        &spec,
        "--src-text",
        &bad,
        "--tgt-text",
        &en
    ];
    one.args(skipping(&rejects));
    fail(&mut one, "--bad-lines skip works with --docs");
}

#[test]
fn calibrate_skips_noisy_pairs_and_reads_a_labelled_sample_whole() {
    let mut tsv = CRAWL.to_vec();
    for k in 0..6 {
        tsv.extend(format!("p{k}\tHaus Nummer {k}\tHouse number {k}\n").bytes());
    }
    let (dir, input) = with_input(&tsv);
    let (out, rejects) = (dir.path().join("cal.json"), dir.path().join("r.tsv"));
    let calibrate = || {
        let mut c = cli![
            "calibrate",
            "--noisy",
            &input,
            "--scorer-spec",
            "levenshtein",
            "-o",
            &out
        ];
        c.args(["--src-col", "2", "--tgt-col", "3"]);
        c
    };
    fail(&mut calibrate(), "in.tsv:2: invalid UTF-8");
    let (_, err) = succeed(calibrate().args(skip(&rejects)));
    assert!(err.contains("skipped 3 lines of"), "{err}");
    assert_eq!(read(&rejects), REJECTED);
    assert!(out.exists());
    let scores = common::write(dir.path(), "s.tsv", "0.9\t1\n0.1\t0\n");
    let mut labelled = cli!["calibrate", "--scores", &scores, "-o", &out];
    labelled.args(skip(&rejects));
    fail(
        &mut labelled,
        "a labelled sample (--scores, --mined) is read whole",
    );
}

/// The rows of a `.npy` file.
fn npy(path: &Path) -> bitext_core::Embeddings {
    bitext_core::io::npy::read_npy(path).unwrap()
}

#[cfg(feature = "neural")]
#[test]
fn fix_skips_bad_lines_into_the_rejects_file() {
    let (dir, input) = with_input(CRAWL);
    let model = aligner(dir.path());
    let (out, rejects) = (dir.path().join("fixed.tsv"), dir.path().join("r.tsv"));
    let fix = || {
        let mut c = cli![
            "fix", "--model", &model, "--input", &input, "-o", &out, "-q"
        ];
        c.args(["--src-col", "2", "--tgt-col", "3", "--tau", "1"]);
        c
    };
    fail(&mut fix(), "in.tsv:2: invalid UTF-8");
    let (_, err) = succeed(fix().args(skipping(&rejects)));
    assert!(err.contains("skipped 3 lines of"), "{err}");
    assert_eq!(read(&rejects), REJECTED);
    let kept: Vec<String> = common::rows(&out).iter().map(|r| r[0].clone()).collect();
    assert_eq!(kept, ["id1", "id5"]);
}

#[cfg(feature = "neural")]
#[test]
fn training_skips_bad_lines_of_every_input_and_pairs_of_parallel_files_together() {
    let (dir, src, tgt, _) = common::toy_corpus(30, 3, 6);
    let mut bad_src = std::fs::read(&src).unwrap();
    bad_src.extend(b"a1 \xff a2\n\na3 a4\n");
    let mut bad_tgt = std::fs::read(&tgt).unwrap();
    bad_tgt.extend(b"b1 b2\nb3\n\n");
    let (s, t) = (
        common::write(dir.path(), "s.txt", bad_src),
        common::write(dir.path(), "t.txt", bad_tgt),
    );
    let tsv = common::write(dir.path(), "more.tsv", b"a1 a2\tb1 b2\nno tab here\n");
    let mono = common::write(dir.path(), "mono.txt", b"b1 b2\n\xfe\n");
    let (model, rejects) = (dir.path().join("ae"), dir.path().join("r.tsv"));
    let train = || {
        let mut c = cli![
            "train",
            "autoencoder",
            "--src-text",
            &s,
            "--tgt-text",
            &t,
            "--input",
            &tsv
        ];
        c.arg("--mono").arg(&mono).arg("-o").arg(&model);
        c.args([
            "--preset",
            "small",
            "--min-count",
            "1",
            "--epochs",
            "1",
            "-q",
        ]);
        c
    };
    fail(&mut train(), "s.txt:31: invalid UTF-8");
    assert!(!model.exists());
    let (_, err) = succeed(train().args(skipping(&rejects)));
    assert!(err.contains("skipped 5 lines (3 of"), "{err}");
    let (sn, tn) = (s.display(), t.display());
    assert_eq!(
        read(&rejects),
        format!(
            "31\t{sn}: invalid UTF-8 at byte 3 of the line\ta1 \u{fffd} a2\tb1 b2\n\
             32\t{sn}: empty line\t\tb3\n\
             33\t{tn}: empty line\ta3 a4\t\n\
             2\t{}: 1 tab-separated fields, but 2 are needed (source in column 1, target in column 2)\tno tab here\n\
             2\t{}: invalid UTF-8 at byte 0 of the line\t\u{fffd}\n",
            tsv.display(),
            mono.display()
        )
    );
    assert!(model.join("model.json").exists());
}
