//! Helpers shared by the CLI's integration tests: the binary under test (`cli![args…]` for
//! a command line of strings and paths), running it and checking how it ended, and writing
//! input files.

#![allow(dead_code, unreachable_pub, unused_imports, unused_macros)]

use std::path::{Path, PathBuf};
use std::process::Command;

use bitext_core::Embeddings;
use bitext_core::io::raw::{self, RawDtype};

/// The `bitext` binary built for these tests.
pub fn bitext() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bitext"))
}

/// The `bitext` binary with these arguments, strings and paths alike:
/// `cli!["embed", "--input", &path]`.
macro_rules! cli {
    ($($arg:expr),* $(,)?) => {{
        let mut cmd = $crate::common::bitext();
        $(cmd.arg($arg);)*
        cmd
    }};
}
pub(crate) use cli;

/// Run `cmd` to the end: whether it succeeded, its stdout and its stderr (both UTF-8).
pub fn run(cmd: &mut Command) -> (bool, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Run `cmd`, which must succeed: its stdout and stderr.
pub fn succeed(cmd: &mut Command) -> (String, String) {
    let (ok, out, err) = run(cmd);
    assert!(ok, "{cmd:?} failed: {err}");
    (out, err)
}

/// Run `cmd`, which must fail with an error containing `want`: its stderr.
pub fn fail(cmd: &mut Command, want: &str) -> String {
    let (ok, _, err) = run(cmd);
    assert!(
        !ok,
        "{cmd:?} succeeded; expected an error containing {want:?}"
    );
    assert!(err.contains(want), "expected {want:?} in: {err}");
    err
}

/// Every one of these command lines (after `bitext`) prints its usage.
pub fn assert_help(commands: &[&[&str]]) {
    for args in commands {
        let (out, _) = succeed(bitext().args(*args));
        assert!(out.contains("Usage:"), "{args:?}: {out}");
    }
}

/// Write `content` to `dir/name` and return the path.
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

/// The tab-separated fields of each line of a text file.
pub fn rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Write `e` as a raw little-endian `f32` file `dir/name` and return the path.
pub fn write_raw(dir: &Path, name: &str, e: &Embeddings) -> PathBuf {
    let p = dir.join(name);
    raw::write_raw(&p, e.view(), RawDtype::F32).unwrap();
    p
}

/// Line-parallel toy text of `n` pairs, `a3 a1` ↔ `b1 b3` (words `a0 … a14`, `b0 … b14`), as
/// `src.txt`, `tgt.txt` and `pairs.tsv` (`id<TAB>src<TAB>tgt`) in `dir`.
pub fn corpus(dir: &Path, n: usize) -> (PathBuf, PathBuf, PathBuf) {
    let (mut s, mut t, mut tsv) = (String::new(), String::new(), String::new());
    for k in 0..n {
        let w: Vec<usize> = (0..2 + k % 4).map(|i| (k * 7 + i * 3) % 15).collect();
        let a = w
            .iter()
            .map(|i| format!("a{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let b = w
            .iter()
            .rev()
            .map(|i| format!("b{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        s.push_str(&format!("{a}\n"));
        t.push_str(&format!("{b}\n"));
        tsv.push_str(&format!("id{k}\t{a}\t{b}\n"));
    }
    let p = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    (p("src.txt", &s), p("tgt.txt", &t), p("pairs.tsv", &tsv))
}

/// The steps a sharded run's `steps.log` in `work` says `what` (`ran `, `skipped `), from its
/// line `from` on.
pub fn logged(work: &Path, from: usize, what: &str) -> std::collections::BTreeSet<String> {
    let log = std::fs::read_to_string(work.join("steps.log")).unwrap();
    log.lines()
        .skip(from)
        .filter_map(|l| l.strip_prefix(what))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// The lines of `work`'s `steps.log` so far.
pub fn log_len(work: &Path) -> usize {
    std::fs::read_to_string(work.join("steps.log")).map_or(0, |s| s.lines().count())
}
