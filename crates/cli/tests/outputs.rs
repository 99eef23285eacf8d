//! Outputs that are not regular files: `-o FIFO` streams into the FIFO and leaves it a FIFO,
//! `-o LINK` writes through a symbolic link and leaves the link, `-o /proc/self/fd/1` writes
//! into the command's open standard output (a pipe, or a file a shell opened for appending),
//! and a failed run leaves no partial regular file. No test names a real device: what the
//! writer chooses for `/dev/null` is asked of `bitext_core::io::placement` in bitext-core.

#![cfg(target_os = "linux")]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use bitext_core::io::raw::{self, RawDtype};
use bitext_testkit::files::{assert_link, drain, fifo, names, received};

mod common;
use common::{COLS, embed, fail, read, scored, succeed, with_file, write};

const PAIRS: &str = "u1\tDer Hund schläft .\tThe dog sleeps .\n\
                     u2\tJa\tThis sentence is much longer than its source .\n\
                     u3\tEin Haus\tA house\n";

/// `bitext score --scorer length-ratio` of `input` into `output`.
fn score(input: &Path, output: &Path) -> std::process::Command {
    let mut c = scored("score", "length-ratio", input, output);
    c.args(COLS);
    c
}

/// [`PAIRS`] written to `dir/pairs.tsv`, and what `score` writes of them to the regular file
/// `dir/plain.tsv`.
fn scored_plainly(dir: &Path) -> (PathBuf, Vec<u8>) {
    let input = write(dir, "pairs.tsv", PAIRS);
    let plain = dir.join("plain.tsv");
    succeed(&mut score(&input, &plain));
    (input, fs::read(&plain).unwrap())
}

#[test]
fn score_streams_into_a_fifo_and_leaves_it_a_fifo() {
    let d = tempfile::tempdir().unwrap();
    let (input, want) = scored_plainly(d.path());
    assert_eq!(String::from_utf8_lossy(&want).lines().count(), 3);

    let out = fifo(d.path(), "out.tsv");
    let reader = drain(&out);
    succeed(&mut score(&input, &out));
    assert_eq!(received(&out, reader), want);

    // A failed run reports its error; the FIFO stays, holding nothing of the bad line.
    let bad = write(
        d.path(),
        "bad.tsv",
        [PAIRS.as_bytes(), b"u4\t\xff\tx\n"].concat(),
    );
    let reader = drain(&out);
    let err = fail(&mut score(&bad, &out), "bad.tsv:4");
    assert!(err.contains("UTF-8"), "{err}");
    let got = received(&out, reader);
    assert!(!String::from_utf8_lossy(&got).contains("u4"));
    assert_eq!(
        names(d.path()),
        ["bad.tsv", "out.tsv", "pairs.tsv", "plain.tsv"]
    );
}

#[test]
fn embed_writes_through_a_link_and_leaves_the_link() {
    let (d, vectors) = with_file("de.vec", "3 3\nhund 1 0 0\nkatze 0 1 0\nhaus 0 0 1\n");
    let input = write(d.path(), "de.txt", "Hund und Katze\nHaus\n");
    let embed_to = |out: &Path| embed(&input, &vectors, out);
    let plain = d.path().join("plain.f32");
    succeed(&mut embed_to(&plain));

    fs::create_dir(d.path().join("real")).unwrap();
    let target = write(&d.path().join("real"), "de.f32", "old bytes");
    let link = d.path().join("de.f32");
    symlink("real/de.f32", &link).unwrap();
    succeed(&mut embed_to(&link));
    assert_link(&link, Path::new("real/de.f32"));
    assert_eq!(fs::read(&target).unwrap(), fs::read(&plain).unwrap());
    assert_eq!(raw::read_raw(&link, 3, RawDtype::F32).unwrap().len(), 2);
    assert_eq!(names(&d.path().join("real")), ["de.f32"]);
}

#[test]
fn a_failed_run_through_a_link_leaves_the_old_file_and_no_temporary_file() {
    let d = tempfile::tempdir().unwrap();
    fs::create_dir(d.path().join("real")).unwrap();
    let target = write(&d.path().join("real"), "out.tsv", "old\n");
    let link = d.path().join("out.tsv");
    symlink(&target, &link).unwrap();
    // Many good lines first, so that the output is written before the bad line is met.
    let good: String = (0..5000)
        .map(|i| format!("u{i}\tein Satz\ta sentence\n"))
        .collect();
    let bad = write(
        d.path(),
        "bad.tsv",
        [good.as_bytes(), b"u\t\xff\tx\n"].concat(),
    );
    fail(&mut score(&bad, &link), "bad.tsv:5001");
    assert_eq!(read(&target), "old\n");
    assert_link(&link, &target);
    assert_eq!(names(&d.path().join("real")), ["out.tsv"]);
    assert_eq!(names(d.path()), ["bad.tsv", "out.tsv", "real"]);
}

#[test]
fn the_open_standard_output_is_written_in_place() {
    let d = tempfile::tempdir().unwrap();
    let (input, want) = scored_plainly(d.path());
    let want = String::from_utf8(want).unwrap();
    // `/proc/self/fd/1` is the command's own standard output: here a pipe,
    let fd1 = Path::new("/proc/self/fd/1");
    let (out, _) = succeed(&mut score(&input, fd1));
    assert_eq!(out, want);
    // and here a file the "shell" opened for appending (`>> log`), which keeps its head.
    let log = write(d.path(), "log.tsv", "head\n");
    let held = fs::OpenOptions::new().append(true).open(&log).unwrap();
    let run = score(&input, fd1)
        .stdout(Stdio::from(held))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(read(&log), format!("head\n{want}"));
    assert_eq!(names(d.path()), ["log.tsv", "pairs.tsv", "plain.tsv"]);
}
