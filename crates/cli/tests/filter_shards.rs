//! `bitext filter --shards N --work-dir DIR`: a large TSV filtered as resumable steps over
//! byte-range shards. Byte-identical to the single-process filter for 1, 3 and 7 shards, with
//! line and word budgets, thresholds and decimals, for scorers of sentences and a scorer of
//! embeddings with an encoder; a failed step resumes with the missing steps only; a changed
//! budget or threshold reruns only the selection and the writing; `mine-step` runs the steps;
//! scorers that need the whole corpus are refused.

use std::path::{Path, PathBuf};
use std::process::Command;

use bitext_testkit::data::parallel_text;

mod common;
use common::{COLS, bitext, calibration, fail, fail_at_step, lexicon_encoder, log_len, logged};
use common::{mine_step, read, succeed, write};

/// 120 lines `id<TAB>source<TAB>target`: translations, and every fourth line a mismatched pair;
/// word vectors of both languages; the encoder spec of their bag of words.
fn corpus(dir: &Path) -> (PathBuf, String) {
    let (src, tgt) = parallel_text(120, 8);
    let lines: String = (0..120)
        .map(|i| {
            let t = if i % 4 == 3 {
                &tgt[(i * 5 + 1) % 120]
            } else {
                &tgt[i]
            };
            format!("l{i}\t{}\t{t}\n", src[i])
        })
        .collect();
    let tsv = write(dir, "corpus.tsv", lines);
    (tsv, lexicon_encoder(dir, 9))
}

/// `bitext COMMAND…` of columns 2 and 3 of `tsv` into `out` with `extra`.
fn tsv_cmd(command: &[&str], tsv: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c: Command = bitext();
    c.args(command)
        .args(COLS)
        .arg("--input")
        .arg(tsv)
        .arg("-o")
        .arg(out)
        .args(extra);
    c
}

fn filter_cmd(tsv: &Path, out: &Path, extra: &[&str]) -> Command {
    tsv_cmd(&["filter", "-q"], tsv, out, extra)
}

/// `bitext score` of `tsv` into `out` with `extra`, which must succeed: the output file.
fn score(tsv: &Path, out: &Path, extra: &[&str]) -> String {
    succeed(&mut tsv_cmd(&["score"], tsv, out, extra));
    read(out)
}

/// The filter's output file and its report line.
fn filter(tsv: &Path, out: &Path, extra: &[&str]) -> (String, String) {
    let (_, err) = succeed(&mut filter_cmd(tsv, out, extra));
    let report = err.lines().last().unwrap_or_default().to_string();
    (read(out), report)
}

fn sharded(tsv: &Path, work: &Path, n: usize, extra: &[&str]) -> (String, String) {
    let n = n.to_string();
    let mut args = vec!["--shards", &n, "--work-dir", work.to_str().unwrap()];
    args.extend_from_slice(extra);
    filter(tsv, &work.with_extension("tsv"), &args)
}

#[test]
fn sharded_filtering_writes_the_single_process_bytes() {
    let d = tempfile::tempdir().unwrap();
    let (tsv, enc) = corpus(d.path());
    let cosine = ["--scorer", "cosine", "--encoder", &enc];
    let cases: Vec<Vec<&str>> = vec![
        vec!["--scorer", "levenshtein", "--budget-words", "300"],
        vec![
            "--scorer",
            "length-ratio",
            "--length-unit",
            "tokens",
            "--budget-lines",
            "50",
        ],
        vec![
            "--scorer",
            "levenshtein",
            "--threshold",
            "0.3",
            "--decimals",
            "3",
        ],
        [
            &cosine[..],
            &["--budget-words", "200", "--word-side", "both"],
        ]
        .concat(),
        [&cosine[..], &["--threshold", "0.5"]].concat(),
    ];
    for (c, args) in cases.iter().enumerate() {
        let (want, report) = filter(&tsv, &d.path().join("single.tsv"), args);
        let kept = want.lines().count();
        assert!(kept > 10 && kept < 120, "{args:?}: {kept} lines kept");
        for n in [1, 3, 7] {
            let work = d.path().join(format!("w{c}-{n}"));
            let (got, got_report) = sharded(&tsv, &work, n, args);
            assert_eq!(got, want, "{args:?}, {n} shards");
            assert_eq!(got_report, report, "{args:?}, {n} shards");
        }
    }
}

#[test]
fn a_failed_step_resumes_and_a_new_budget_reruns_the_selection_only() {
    let d = tempfile::tempdir().unwrap();
    let (tsv, enc) = corpus(d.path());
    let budget = |lines| {
        [
            "--scorer",
            "cosine",
            "--encoder",
            &enc,
            "--budget-lines",
            lines,
        ]
    };
    let args = budget("40");
    let (want, _) = filter(&tsv, &d.path().join("single.tsv"), &args);
    let work = d.path().join("work");
    let mut c = filter_cmd(&tsv, &d.path().join("out.tsv"), &args);
    c.args(["--shards", "3", "--work-dir"]).arg(&work);
    fail_at_step(c, "score-lines-2");
    let first = logged(&work, 0, "ran ");
    assert_eq!(
        first,
        ["score-lines-0", "score-lines-1"].map(String::from).into()
    );
    let at = log_len(&work);
    assert_eq!(sharded(&tsv, &work, 3, &args).0, want);
    assert_eq!(logged(&work, at, "skipped "), first);
    // A new budget: the scores are reused.
    let args = budget("25");
    let (want, _) = filter(&tsv, &d.path().join("single.tsv"), &args);
    let at = log_len(&work);
    assert_eq!(sharded(&tsv, &work, 3, &args).0, want);
    assert_eq!(
        logged(&work, at, "ran "),
        ["select", "write"].map(String::from).into()
    );
}

#[test]
fn mine_step_runs_filter_steps_and_whole_corpus_scorers_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let (tsv, _) = corpus(d.path());
    let args = ["--scorer", "levenshtein", "--budget-lines", "30"];
    let (want, _) = filter(&tsv, &d.path().join("single.tsv"), &args);
    let work = d.path().join("work");
    let w = work.to_str().unwrap();
    let out = d.path().join("out.tsv");
    let mut plan = filter_cmd(&tsv, &out, &args);
    succeed(plan.args(["--shards", "2", "--work-dir", w, "--plan-only"]));
    let steps = ["score-lines-0", "score-lines-1", "select", "write"];
    fail(
        mine_step(&work).arg("select"),
        "score-lines-0 has not completed",
    );
    succeed(mine_step(&work).args(steps));
    assert_eq!(sharded(&tsv, &work, 2, &args).0, want);
    let refused = [
        (vec!["--scorer", "ratio"], "margins"),
        (vec!["--scorer", "cosine"], "needs an encoder"),
        (
            vec!["--scorer", "levenshtein", "--shards", "200"],
            "200 shards but the file",
        ),
    ];
    for (extra, why) in refused {
        let mut c = filter_cmd(&tsv, &out, &extra);
        if !extra.contains(&"--shards") {
            c.args(["--shards", "2"]);
        }
        fail(c.arg("--work-dir").arg(d.path().join("w2")), why);
    }
}

#[test]
fn sharded_scoring_writes_the_single_process_bytes() {
    let d = tempfile::tempdir().unwrap();
    let (tsv, enc) = corpus(d.path());
    let cases: [&[&str]; 3] = [
        &["--scorer", "levenshtein"],
        &["--scorer", "length-ratio", "--decimals", "4"],
        &["--encoder", &enc],
    ];
    for args in cases {
        let score = |extra: &[&str], out: &Path| score(&tsv, out, &[args, extra].concat());
        let want = score(&[], &d.path().join("single.tsv"));
        assert_eq!(want.lines().count(), 120);
        for n in ["1", "3"] {
            let work = d.path().join(format!("score-{n}"));
            let got = score(
                &["--shards", n, "--work-dir", work.to_str().unwrap()],
                &d.path().join("s.tsv"),
            );
            assert_eq!(got, want, "{args:?}, {n} shards");
        }
    }
}

#[test]
fn calibrated_sharded_runs_write_the_single_process_probabilities() {
    let d = tempfile::tempdir().unwrap();
    let (tsv, _) = corpus(d.path());
    let (cal_path, _) = calibration(d.path());
    let c = cal_path.to_str().unwrap();
    let calibrated = ["--scorer", "levenshtein", "--calibration", c];
    let args = [&calibrated[..], &["--min-precision", "0.9"]].concat();
    let (want, _) = filter(&tsv, &d.path().join("single.tsv"), &args);
    let kept = want.lines().count();
    assert!(
        kept > 5 && want.lines().all(|l| l.split('\t').count() == 5),
        "{want}"
    );
    let (got, _) = sharded(&tsv, &d.path().join("fw"), 3, &args);
    assert_eq!(got, want);
    let score = |extra: &[&str], out: &Path| score(&tsv, out, &[&calibrated[..], extra].concat());
    let want = score(&[], &d.path().join("s1.tsv"));
    let work = d.path().join("sw");
    let got = score(
        &["--shards", "2", "--work-dir", work.to_str().unwrap()],
        &d.path().join("s2.tsv"),
    );
    assert_eq!(got, want);
}
