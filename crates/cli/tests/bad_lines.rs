//! `--bad-lines error|skip` and `--rejects` of the commands that read a TSV of pairs (score,
//! filter, train ibm1, calibrate, fix; `bad_lines_text.rs` has those that read text): by
//! default a line that cannot be read stops the command naming it; `skip` leaves it out, writes
//! it (number, reason, text) to the rejects file and counts it, and the lines read are worked on
//! as a file without the bad lines would be. Where a line left out would change what is
//! measured or put rows out of step (text beside embeddings made elsewhere, a labelled
//! calibration sample), `skip` is refused, saying why.

mod common;

use std::path::Path;
use std::process::Command;

use common::{cli, fail, read, skip, succeed, with_input};

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

#[cfg(feature = "neural")]
#[test]
fn fix_skips_bad_lines_into_the_rejects_file() {
    let (dir, input) = with_input(CRAWL);
    let model = common::aligner(dir.path());
    let (out, rejects) = (dir.path().join("fixed.tsv"), dir.path().join("r.tsv"));
    let fix = || {
        let mut c = cli![
            "fix", "--model", &model, "--input", &input, "-o", &out, "-q"
        ];
        c.args(["--src-col", "2", "--tgt-col", "3", "--tau", "1"]);
        c
    };
    fail(&mut fix(), "in.tsv:2: invalid UTF-8");
    let (_, err) = succeed(fix().args(common::skipping(&rejects)));
    assert!(err.contains("skipped 3 lines of"), "{err}");
    assert_eq!(read(&rejects), REJECTED);
    let kept: Vec<String> = common::rows(&out).iter().map(|r| r[0].clone()).collect();
    assert_eq!(kept, ["id1", "id5"]);
}
