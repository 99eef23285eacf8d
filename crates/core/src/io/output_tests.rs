//! Tests of the one writer on regular files: replaced only at `commit`, compressed by
//! extension, checked before work. Links, FIFOs, sockets and devices: `tests/output.rs`.

use std::fs;
use std::io::Write;

use super::*;
use crate::io::LineReader;

/// Write `bytes` to `f`, which replaces `dest` at `commit`: nothing stands at `dest` before.
fn write_and_commit(mut f: AtomicFile, dest: &std::path::Path, bytes: &[u8]) {
    f.write_all(bytes).unwrap();
    assert!(!dest.exists());
    f.commit().unwrap();
}

#[test]
fn outputs_are_checked_before_work() {
    let dir = tempfile::tempdir().unwrap();
    check_output(dir.path().join("x.tsv")).unwrap();
    check_output("-").unwrap();
    let e = check_output(dir.path().join("missing/x.tsv")).unwrap_err();
    assert!(
        e.to_string().contains("missing/x.tsv")
            && e.to_string().contains("directory")
            && e.to_string().contains("does not exist"),
        "{e}"
    );
    let e = check_output(dir.path()).unwrap_err();
    assert!(e.to_string().contains("it is a directory"), "{e}");
    // The probe leaves nothing behind.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn text_outputs_compress_by_extension_and_stay_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.tsv.gz");
    write_and_commit(AtomicFile::create_text(&dest).unwrap(), &dest, b"a\tb\n");
    let mut r = LineReader::open(&dest).unwrap();
    assert!(r.advance().unwrap());
    assert_eq!(r.line(), "a\tb");
    assert!(fs::read(&dest).unwrap().starts_with(b"\x1f\x8b"));
    // A binary output refuses both.
    assert!(AtomicFile::create(dir.path().join("x.f32.gz")).is_err());
    assert!(AtomicFile::create("-").is_err());
}

#[test]
fn atomic_file_renames_on_commit_and_cleans_up_on_drop() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.txt");
    write_and_commit(AtomicFile::create(&dest).unwrap(), &dest, b"hello");
    assert_eq!(fs::read_to_string(&dest).unwrap(), "hello");

    let dest2 = dir.path().join("never.txt");
    {
        let mut f = AtomicFile::create(&dest2).unwrap();
        f.write_all(b"partial").unwrap();
    }
    assert!(!dest2.exists());
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        1,
        "temporary file left behind"
    );
}
