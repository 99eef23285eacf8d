//! `bitext mine --src-text A --tgt-text B --encoder SPEC --shards N --work-dir DIR`: text to
//! pairs as one plan whose embed steps cut each text into byte ranges. Byte-identical to the
//! single-process `mine --encoder` (which embeds each file whole) for 1, 3 and 7 shards, plain
//! and BUCC text; resumable after a failed embed step; a changed threshold reruns only the
//! selection; a changed text reruns its side's embed steps and what depends on them, never
//! reusing rows of the old text; a corrupt embed output is redone; `mine-step` runs embed steps.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use bitext_testkit::data::parallel_text;

mod common;
use common::{bitext, embed_encoder, fail, fail_at_step, lexicon_encoder, log_len, logged};
use common::{mine_embeddings, mine_step, read, step_id, step_names, succeed, write};

/// Comparable corpora: 90 sources, and 70 targets of which the first 45 translate sources
/// (shuffled by a stride); word vectors of both languages in one `.vec` file.
fn corpora(dir: &Path, bucc: bool) -> (PathBuf, PathBuf, String) {
    let (src, tgt) = parallel_text(90, 3);
    let (_, other) = parallel_text(25, 4);
    let mut targets: Vec<&String> = (0..45).map(|i| &tgt[(i * 7) % 45]).collect();
    targets.extend(other.iter());
    let lines = |v: Vec<&String>, p: &str| -> String {
        v.iter()
            .enumerate()
            .map(|(i, s)| {
                if bucc {
                    format!("{p}-{i:06}\t{s}\n")
                } else {
                    format!("{s}\n")
                }
            })
            .collect()
    };
    let s = write(dir, "src.txt", lines(src.iter().collect(), "de"));
    let t = write(dir, "tgt.txt", lines(targets, "en"));
    (s, t, lexicon_encoder(dir, 5))
}

fn mine_cmd(s: &Path, t: &Path, encoder: &str, extra: &[&str]) -> Command {
    let mut c: Command = bitext();
    c.args(["mine", "-q", "-k", "3", "--src-text"])
        .arg(s)
        .arg("--tgt-text")
        .arg(t)
        .args(["--encoder", encoder])
        .args(extra);
    c
}

fn mine(s: &Path, t: &Path, encoder: &str, extra: &[&str]) -> (String, String) {
    succeed(&mut mine_cmd(s, t, encoder, extra))
}

/// The single-process run: each text embedded whole into `dir`, then mined.
fn single(dir: &Path, s: &Path, t: &Path, encoder: &str, extra: &[&str]) -> String {
    let (x, y) = (dir.join("x.npy"), dir.join("y.npy"));
    let mut args = vec![
        "--src-embeddings",
        x.to_str().unwrap(),
        "--tgt-embeddings",
        y.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    mine(s, t, encoder, &args).0
}

fn sharded(s: &Path, t: &Path, enc: &str, work: &Path, n: usize, extra: &[&str]) -> String {
    let n = n.to_string();
    let mut args = vec!["--shards", &n, "--work-dir", work.to_str().unwrap()];
    args.extend_from_slice(extra);
    mine(s, t, enc, &args).0
}

/// [`corpora`] in `dir` (plain text), the single-process output over them, and the work folder
/// `dir/work` (not made yet).
fn plain_run(dir: &Path) -> (PathBuf, PathBuf, String, String, PathBuf) {
    let (s, t, enc) = corpora(dir, false);
    let want = single(dir, &s, &t, &enc, &[]);
    (s, t, enc, want, dir.join("work"))
}

fn output_of(work: &Path, step: &str) -> PathBuf {
    work.join(format!("{step}-{}.emb", step_id(work, step)))
}

#[test]
fn sharded_text_to_pairs_writes_the_single_process_bytes() {
    for bucc in [false, true] {
        let d = tempfile::tempdir().unwrap();
        let (s, t, enc) = corpora(d.path(), bucc);
        let want = single(d.path(), &s, &t, &enc, &[]);
        assert!(want.lines().count() >= 40, "{want}");
        if bucc {
            assert!(want.starts_with(|c: char| c.is_ascii_digit()) && want.contains("\tde-0"));
        }
        for n in [1, 3, 7] {
            let work = d.path().join(format!("w{n}"));
            assert_eq!(
                sharded(&s, &t, &enc, &work, n, &[]),
                want,
                "{n} shards, bucc {bucc}"
            );
            let embeds = logged(&work, 0, "ran ")
                .into_iter()
                .filter(|s| s.starts_with("embed-"))
                .count();
            assert_eq!(embeds, 2 * n);
        }
    }
}

#[test]
fn a_failed_embed_step_resumes_and_a_changed_threshold_reruns_the_selection_only() {
    let d = tempfile::tempdir().unwrap();
    let (s, t, enc, want, work) = plain_run(d.path());
    let w = work.to_str().unwrap();
    fail_at_step(
        mine_cmd(&s, &t, &enc, &["--shards", "3", "--work-dir", w]),
        "embed-trg-1",
    );
    let first = logged(&work, 0, "ran ");
    let embedded: BTreeSet<String> = ["embed-src-0", "embed-src-1", "embed-src-2", "embed-trg-0"]
        .map(String::from)
        .into();
    assert_eq!(first, embedded);
    let at = log_len(&work);
    assert_eq!(sharded(&s, &t, &enc, &work, 3, &[]), want);
    assert_eq!(logged(&work, at, "skipped "), embedded);
    assert!(logged(&work, at, "ran ").is_disjoint(&embedded));
    // A new threshold: only retrieval and the final merge run again.
    let want_t = single(d.path(), &s, &t, &enc, &["--threshold", "1.02"]);
    let at = log_len(&work);
    assert_eq!(
        sharded(&s, &t, &enc, &work, 3, &["--threshold", "1.02"]),
        want_t
    );
    let ran = logged(&work, at, "ran ");
    assert_eq!(ran, ["merge", "retrieve"].map(String::from).into());
}

#[test]
fn a_changed_text_or_a_corrupt_embedding_is_recomputed_never_mixed_in() {
    let d = tempfile::tempdir().unwrap();
    let (s, t, enc) = corpora(d.path(), false);
    let work = d.path().join("work");
    sharded(&s, &t, &enc, &work, 3, &[]);
    // A corrupt embed output (same size, one value changed): its step is redone; what was
    // computed from the good rows is still right and is kept.
    let out = output_of(&work, "embed-src-1");
    let mut bytes = std::fs::read(&out).unwrap();
    bytes[5] ^= 0x40;
    std::fs::write(&out, &bytes).unwrap();
    let at = log_len(&work);
    let want = single(d.path(), &s, &t, &enc, &[]);
    assert_eq!(sharded(&s, &t, &enc, &work, 3, &[]), want);
    assert_eq!(
        logged(&work, at, "ran "),
        ["embed-src-1"].map(String::from).into()
    );
    // A changed target text: a new plan; the source's embed steps are reused, every step that
    // reads the target's rows runs again, and the output is that of the new text.
    let text = read(&t);
    std::fs::write(&t, format!("{}b3 b4 b5\n", text.replace("b1 ", "b2 "))).unwrap();
    let want = single(d.path(), &s, &t, &enc, &[]);
    let at = log_len(&work);
    assert_eq!(sharded(&s, &t, &enc, &work, 3, &[]), want);
    let skipped = logged(&work, at, "skipped ");
    assert_eq!(
        skipped,
        ["embed-src-0", "embed-src-1", "embed-src-2"]
            .map(String::from)
            .into()
    );
    let ran = logged(&work, at, "ran ");
    assert!(ran.contains("embed-trg-0") && ran.contains("knn-0-0") && ran.contains("merge"));
}

#[test]
fn mine_step_runs_embed_steps_and_text_plans_refuse_what_they_cannot_do() {
    let d = tempfile::tempdir().unwrap();
    let (s, t, enc, want, work) = plain_run(d.path());
    let w = work.to_str().unwrap();
    let plan = ["--shards", "2", "--work-dir", w, "--plan-only"];
    mine(&s, &t, &enc, &plan);
    let names = step_names(&work);
    assert_eq!(
        &names[..4],
        ["embed-src-0", "embed-src-1", "embed-trg-0", "embed-trg-1"]
    );
    fail(
        mine_step(&work).arg("knn-0-0"),
        "embed-src-0 has not completed",
    );
    succeed(mine_step(&work).args(&names));
    assert_eq!(sharded(&s, &t, &enc, &work, 2, &[]), want);
    // A TF-IDF bag needs its IDF from a corpus file; more shards than lines; --index auto.
    let tfidf = enc.replace("\"type\"", "\"weighting\":\"tf_idf\",\"type\"");
    let w2 = d.path().join("w2");
    let two = ["--shards", "2", "--work-dir"];
    fail(mine_cmd(&s, &t, &tfidf, &two).arg(&w2), "idf_corpus");
    fail(
        mine_cmd(&s, &t, &enc, &["--shards", "80", "--work-dir"]).arg(&w2),
        "80 shards but the file has 70 lines",
    );
    let mut c = mine_cmd(
        &s,
        &t,
        &enc,
        &["--shards", "2", "--index", "auto", "--work-dir"],
    );
    fail(c.arg(&w2), "--index auto");
}

#[test]
fn unify_deduplicates_before_embedding_with_the_single_process_output() {
    let d = tempfile::tempdir().unwrap();
    let (s, t, enc) = corpora(d.path(), false);
    // Repeat some lines of each side further down (and one twice).
    let repeat = |p: &Path, lines: &[usize]| {
        let text = read(p);
        let all: Vec<&str> = text.lines().collect();
        let extra: String = lines.iter().map(|&i| format!("{}\n", all[i])).collect();
        std::fs::write(p, format!("{text}{extra}")).unwrap();
    };
    repeat(&s, &[3, 10, 3, 44]);
    repeat(&t, &[0, 7]);
    let (x, y) = (d.path().join("x.npy"), d.path().join("y.npy"));
    let (x, y) = (x.to_str().unwrap(), y.to_str().unwrap());
    let single = [
        "--src-embeddings",
        x,
        "--tgt-embeddings",
        y,
        "--unify",
        "first",
    ];
    let (want, err) = mine(&s, &t, &enc, &single);
    assert!(want.lines().count() >= 40);
    let notices = |err: &str| -> Vec<String> {
        err.lines()
            .filter(|l| l.starts_with("--unify:"))
            .map(String::from)
            .collect()
    };
    let want_notices = notices(&err);
    assert_eq!(want_notices.len(), 2, "{err}");
    assert!(want_notices[0].contains(" of 94 sentences"), "{err}");
    for n in [1, 3] {
        let work = d.path().join(format!("w{n}"));
        let n_s = n.to_string();
        let args = [
            "--shards",
            &n_s,
            "--work-dir",
            work.to_str().unwrap(),
            "--unify",
            "first",
        ];
        let (got, err) = mine(&s, &t, &enc, &args);
        assert_eq!(got, want, "{n} shards");
        assert_eq!(notices(&err), want_notices);
        let ran = logged(&work, 0, "ran ");
        assert!(
            ran.contains("dedup-src") && ran.contains("dedup-trg"),
            "{ran:?}"
        );
    }
    let w = d.path().join("w9");
    let unify_all = ["--shards", "2", "--unify", "all", "--work-dir"];
    fail(mine_cmd(&s, &t, &enc, &unify_all).arg(&w), "--unify first");
}

#[test]
fn fp16_shards_mine_as_single_process_fp16_files() {
    let d = tempfile::tempdir().unwrap();
    let (s, t, enc) = corpora(d.path(), true);
    // Single process: each text embedded whole into binary16, then mined with --fp16.
    let (x, y) = (d.path().join("x.f16"), d.path().join("y.f16"));
    for (text, side, out) in [(&s, "source", &x), (&t, "target", &y)] {
        succeed(embed_encoder(text, &enc, side, out).arg("--fp16"));
    }
    let mut c = mine_embeddings(16, &x, &y);
    c.args(["-k", "3", "--fp16", "--src-text"])
        .arg(&s)
        .arg("--tgt-text")
        .arg(&t);
    let (want, _) = succeed(&mut c);
    assert!(want.lines().count() >= 40);
    for n in [1, 3] {
        let work = d.path().join(format!("w{n}"));
        let got = sharded(&s, &t, &enc, &work, n, &["--fp16"]);
        assert_eq!(got, want, "{n} shards");
        let size = std::fs::metadata(output_of(&work, "embed-src-0"))
            .unwrap()
            .len();
        let rows = read(&s).lines().count().div_ceil(n);
        assert!(
            size <= (rows * 16 * 2) as u64,
            "binary16 rows: {size} bytes"
        );
    }
}
