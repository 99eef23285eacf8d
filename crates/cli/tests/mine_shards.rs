//! `bitext mine --shards N --work-dir DIR`: byte-identical to single-process mining for 1, 3
//! and 7 shards (an uneven last shard), for f32 and binary16 inputs, normalised or unit, at f32
//! and reduced precision; resumable: a run failed on purpose and rerun redoes only the steps
//! that had not completed, a lost output redoes only its step, a changed threshold redoes only
//! retrieval; and `bitext mine-step` runs the same plan step by step (as the Ray driver does).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use bitext_core::Embeddings;
use bitext_core::io::raw::{RawDtype, write_raw};

mod common;
use common::{fail, fail_at_step, log_len, logged, mine_embeddings, mine_step, planted};
use common::{step_id, step_names, succeed};

const D: usize = 20;

fn files(dir: &Path, x: &Embeddings, y: &Embeddings, dtype: RawDtype) -> (PathBuf, PathBuf) {
    let (xp, yp) = (dir.join("x.emb"), dir.join("y.emb"));
    write_raw(&xp, x.view(), dtype).unwrap();
    write_raw(&yp, y.view(), dtype).unwrap();
    (xp, yp)
}

/// [`planted`] data written as f32 files in `dir`.
fn planted_files(dir: &Path, n: usize, m: usize, pairs: usize, seed: u64) -> (PathBuf, PathBuf) {
    let (x, y) = planted(D, n, m, pairs, seed);
    files(dir, &x, &y, RawDtype::F32)
}

fn mine_cmd(x: &Path, y: &Path, extra: &[&str]) -> Command {
    let mut c = mine_embeddings(D, x, y);
    c.args(extra);
    c
}

fn mine(x: &Path, y: &Path, extra: &[&str]) -> (String, String) {
    succeed(&mut mine_cmd(x, y, extra))
}

fn sharded(x: &Path, y: &Path, work: &Path, n: usize, extra: &[&str]) -> (String, String) {
    let n = n.to_string();
    let mut args = vec!["--shards", &n, "--work-dir", work.to_str().unwrap()];
    args.extend_from_slice(extra);
    mine(x, y, &args)
}

/// [`planted_files`] in `dir`, the single-process output over them, and the work folder
/// `dir/work` (not made yet).
fn planted_run(
    dir: &Path,
    n: usize,
    m: usize,
    pairs: usize,
    seed: u64,
) -> (PathBuf, PathBuf, String, PathBuf) {
    let (xp, yp) = planted_files(dir, n, m, pairs, seed);
    let (want, _) = mine(&xp, &yp, &[]);
    (xp, yp, want, dir.join("work"))
}

#[test]
fn sharded_mining_writes_the_single_process_bytes() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = planted(D, 300, 263, 120, 5);
    let args = ["--margin", "ratio", "--retrieval", "max", "-k", "4"];
    for (dtype, extra) in [
        (RawDtype::F32, vec![]),
        (RawDtype::F32, vec!["--precision", "int8"]),
        (RawDtype::F16, vec!["--fp16"]),
        (RawDtype::F16, vec!["--fp16", "--precision", "bf16"]),
    ] {
        let (xp, yp) = files(d.path(), &x, &y, dtype);
        let all = [&args[..], &extra].concat();
        let (want, _) = mine(&xp, &yp, &all);
        assert!(want.lines().count() > 60, "{want}");
        for n in [1, 3, 7] {
            let work = d.path().join(format!("w{n}-{dtype:?}-{}", extra.len()));
            let (got, err) = sharded(&xp, &yp, &work, n, &all);
            assert!(got == want, "{n} shards {extra:?}");
            assert!(err.contains("ran, 0 already done"), "{err}");
        }
    }
    // .npy inputs (the header gives the dimension).
    let (xn, yn) = (d.path().join("x.npy"), d.path().join("y.npy"));
    bitext_core::io::npy::write_npy(&xn, x.view()).unwrap();
    bitext_core::io::npy::write_npy(&yn, y.view()).unwrap();
    let (want, _) = mine(&xn, &yn, &args);
    let (got, _) = sharded(&xn, &yn, &d.path().join("npy"), 3, &args);
    assert!(got == want && want.lines().count() > 60, "npy");
    // Unit rows are searched as they are (no copy), other retrievals and margins too.
    let (mut xu, mut yu) = (x.clone(), y.clone());
    xu.normalize_l2();
    yu.normalize_l2();
    let (xp, yp) = files(d.path(), &xu, &yu, RawDtype::F32);
    for extra in [
        ["--retrieval", "fwd", "--margin", "distance"],
        ["--retrieval", "intersect", "--margin", "absolute"],
        ["--retrieval", "bwd", "--margin", "ratio"],
    ] {
        let (want, _) = mine(&xp, &yp, &extra);
        let work = d.path().join(format!("unit-{}", extra[1]));
        let (got, _) = sharded(&xp, &yp, &work, 3, &extra);
        assert!(got == want, "{extra:?}");
    }
}

/// `bitext mine --fp16` searches the target file in place as binary16 rows: the same bytes as
/// mining the widened f32 files, at every precision, and with unit and non-unit rows.
#[test]
fn fp16_targets_are_searched_in_place_with_the_widened_results() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = planted(D, 300, 263, 120, 11);
    let (mut xu, mut yu) = (x.clone(), y.clone());
    xu.normalize_l2();
    yu.normalize_l2();
    for (name, (x, y)) in [("raw", (&x, &y)), ("unit", (&xu, &yu))] {
        let dir = d.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let (xh, yh) = files(&dir, x, y, RawDtype::F16);
        let widen = |p: &Path, name: &str| {
            let w = bitext_core::io::raw::read_raw(p, D, RawDtype::F16).unwrap();
            let out = dir.join(name);
            write_raw(&out, w.view(), RawDtype::F32).unwrap();
            out
        };
        let (xw, yw) = (widen(&xh, "x.f32"), widen(&yh, "y.f32"));
        for precision in ["f32", "bf16", "int8"] {
            let extra = ["--precision", precision, "-k", "4"];
            let (want, _) = mine(&xw, &yw, &extra);
            let (got, err) = mine(&xh, &yh, &[&extra[..], &["--fp16"]].concat());
            assert!(want.lines().count() > 60);
            assert!(got == want, "{name} {precision}: {err}");
        }
    }
}

#[test]
fn a_failed_run_resumes_with_the_missing_steps_only() {
    let d = tempfile::tempdir().unwrap();
    let (xp, yp, want, work) = planted_run(d.path(), 200, 170, 80, 6);
    let w = work.to_str().unwrap();
    fail_at_step(
        mine_cmd(&xp, &yp, &["--shards", "3", "--work-dir", w]),
        "merge-knn-trg-1",
    );
    let first = logged(&work, 0, "ran ");
    // 9 knn, 3 source merges and the first target merge had completed.
    assert_eq!(first.len(), 13, "{first:?}");
    assert!(first.contains("merge-knn-trg-0") && !first.contains("merge-knn-trg-1"));
    let at = log_len(&work);
    let (got, err) = sharded(&xp, &yp, &work, 3, &[]);
    assert_eq!(got, want);
    assert!(err.contains("13 already done"), "{err}");
    let (ran, skipped) = (logged(&work, at, "ran "), logged(&work, at, "skipped "));
    assert_eq!(skipped, first);
    assert!(ran.is_disjoint(&first) && ran.contains("merge-knn-trg-1") && ran.contains("merge"));
    // A lost output: only its step runs again.
    let id = step_id(&work, "knn-2-0");
    std::fs::remove_file(work.join(format!("knn-2-0-{id}.bin"))).unwrap();
    let at = log_len(&work);
    assert_eq!(sharded(&xp, &yp, &work, 3, &[]).0, want);
    assert_eq!(
        logged(&work, at, "ran "),
        BTreeSet::from(["knn-2-0".to_string()])
    );
    // A new threshold: the searches, means and scores are reused; retrieval and merge run.
    let (want_t, _) = mine(&xp, &yp, &["--threshold", "1.05"]);
    let at = log_len(&work);
    assert_eq!(
        sharded(&xp, &yp, &work, 3, &["--threshold", "1.05"]).0,
        want_t
    );
    let ran = logged(&work, at, "ran ");
    assert_eq!(
        ran,
        BTreeSet::from(["retrieve".to_string(), "merge".to_string()])
    );
}

#[test]
fn mine_step_runs_the_plan_step_by_step() {
    let d = tempfile::tempdir().unwrap();
    let (xp, yp, want, work) = planted_run(d.path(), 90, 70, 40, 7);
    let w = work.to_str().unwrap();
    let (_, err) = mine(&xp, &yp, &["--shards", "2", "--work-dir", w, "--plan-only"]);
    assert!(err.contains("plan.json"), "{err}");
    let names = step_names(&work);
    assert_eq!(names.len(), 4 + 4 + 2 + 4 + 2);
    // Out of order: a step whose dependencies are not done is refused.
    fail(mine_step(&work).arg("retrieve"), "has not completed");
    fail(mine_step(&work).arg("knn-9-9"), "no step");
    for n in &names {
        succeed(mine_step(&work).arg(n));
    }
    let (got, err) = mine(&xp, &yp, &["--shards", "2", "--work-dir", w]);
    assert_eq!(got, want);
    assert!(err.contains("0 ran, 16 already done"), "{err}");
}

#[test]
fn bad_shard_requests_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let (xp, yp) = planted_files(d.path(), 20, 10, 5, 8);
    let w = d.path().join("w");
    for (extra, want) in [
        (vec!["--shards", "0"], "shard count"),
        (vec!["--shards", "11"], "only 10 sentences"),
        (vec!["--shards", "2", "--mode", "score"], "--mode mine"),
        (vec!["--shards", "2", "--skip-zero-rows"], "--mode mine"),
    ] {
        let mut args = extra.clone();
        args.extend(["--work-dir", w.to_str().unwrap()]);
        fail(&mut mine_cmd(&xp, &yp, &args), want);
    }
    fail(&mut mine_cmd(&xp, &yp, &["--shards", "2"]), "--work-dir");
}

/// `--index auto` picks the exact search at this size (the same bytes as without shards) and
/// needs --shards.
#[test]
fn index_auto_is_exact_for_small_sets() {
    let d = tempfile::tempdir().unwrap();
    let (xp, yp) = planted_files(d.path(), 120, 100, 50, 12);
    let (want, _) = mine(&xp, &yp, &[]);
    let (got, err) = sharded(&xp, &yp, &d.path().join("w"), 2, &["--index", "auto"]);
    assert_eq!(got, want);
    assert!(err.contains("--index auto: exact"), "{err}");
    fail(&mut mine_cmd(&xp, &yp, &["--index", "auto"]), "--shards");
}
