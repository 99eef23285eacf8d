//! The one writer (`bitext_core::io::output`) on what is not a regular file: what
//! `placement` chooses for each kind of destination, and that `AtomicFile`, `TempPath` and
//! `check_output` follow it: links followed and kept, FIFOs and sockets streamed into and kept,
//! a file held open appended to. No test writes to a real device: `/dev/null` is only asked
//! about.

#![cfg(unix)]

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use bitext_core::io::{
    AtomicFile, LineReader, Placement, Special, TempPath, check_output, placement,
};
use bitext_testkit::files::{assert_link, drain, fifo, names, received};

#[test]
fn placement_follows_links_and_writes_devices_fifos_and_sockets_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Nothing there, or a regular file: replaced.
    let file = d.join("f.tsv");
    assert_eq!(placement(&file).unwrap(), Placement::Replace(file.clone()));
    fs::write(&file, "x").unwrap();
    assert_eq!(placement(&file).unwrap(), Placement::Replace(file.clone()));
    assert_eq!(
        placement(d.join("no/such/dir.tsv")).unwrap(),
        Placement::Replace(d.join("no/such/dir.tsv"))
    );
    // Links, absolute and relative, chained and dangling: what they lead to is replaced.
    symlink(&file, d.join("abs")).unwrap();
    symlink("abs", d.join("rel")).unwrap();
    symlink("sub/new.tsv", d.join("dangling")).unwrap();
    assert_eq!(
        placement(d.join("abs")).unwrap(),
        Placement::Replace(file.clone())
    );
    assert_eq!(
        placement(d.join("rel")).unwrap(),
        Placement::Replace(file.clone())
    );
    assert_eq!(
        placement(d.join("dangling")).unwrap(),
        Placement::Replace(d.join("sub/new.tsv"))
    );
    // Reading /dev/null's metadata harms nothing: it is written in place.
    assert_eq!(
        placement("/dev/null").unwrap(),
        Placement::InPlace(Special::CharDevice)
    );
    let f = fifo(d, "pipe");
    assert_eq!(placement(&f).unwrap(), Placement::InPlace(Special::Fifo));
    symlink(&f, d.join("to-pipe")).unwrap();
    assert_eq!(
        placement(d.join("to-pipe")).unwrap(),
        Placement::InPlace(Special::Fifo)
    );
    let _listener = UnixListener::bind(d.join("sock")).unwrap();
    assert_eq!(
        placement(d.join("sock")).unwrap(),
        Placement::InPlace(Special::Socket)
    );
    // A directory, directly or through a link, and a loop of links are errors naming them.
    symlink(d, d.join("to-dir")).unwrap();
    for p in [d.to_path_buf(), d.join("to-dir")] {
        let e = placement(&p).unwrap_err().to_string();
        assert!(
            e.contains(&*p.to_string_lossy()) && e.contains("it is a directory"),
            "{e}"
        );
    }
    symlink("loop-b", d.join("loop-a")).unwrap();
    symlink("loop-a", d.join("loop-b")).unwrap();
    let e = placement(d.join("loop-a")).unwrap_err().to_string();
    assert!(e.contains("loop-a") && e.contains("loop"), "{e}");
    assert!(AtomicFile::create(d.join("loop-a")).is_err());
}

#[test]
fn a_fifo_is_streamed_into_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let p = fifo(dir.path(), "out.tsv");
    // Checked before work without opening it (that would wait for a reader).
    check_output(&p).unwrap();
    let reader = drain(&p);
    let mut f = AtomicFile::create_text(&p).unwrap();
    assert!(f.in_place());
    for i in 0..10_000 {
        writeln!(f, "{i}\tline").unwrap();
    }
    f.commit().unwrap();
    let got = String::from_utf8(received(&p, reader)).unwrap();
    assert_eq!(names(dir.path()), ["out.tsv"], "a temporary file was made");
    assert_eq!(got.lines().count(), 10_000);
    assert_eq!(got.lines().last(), Some("9999\tline"));

    // A compressed text output into a FIFO is compressed as it streams.
    let p = fifo(dir.path(), "out.tsv.gz");
    let reader = drain(&p);
    let mut f = AtomicFile::create_text(&p).unwrap();
    f.write_all(b"a\tb\n").unwrap();
    f.commit().unwrap();
    let bytes = received(&p, reader);
    assert!(bytes.starts_with(b"\x1f\x8b"));
    let mut r = LineReader::new(
        "gz",
        bitext_core::io::stream::open(write_back(dir.path(), &bytes)).unwrap(),
    );
    assert!(r.advance().unwrap());
    assert_eq!(r.line(), "a\tb");
}

/// `bytes` in a regular `.gz` file of `dir`, to be read back.
fn write_back(dir: &Path, bytes: &[u8]) -> PathBuf {
    let p = dir.join("back.gz");
    fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn a_socket_is_connected_to_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("out.sock");
    let listener = UnixListener::bind(&p).unwrap();
    let reader = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).unwrap();
        got
    });
    let mut f = AtomicFile::create(&p).unwrap();
    f.write_all(b"\x00\x01binary").unwrap();
    f.commit().unwrap();
    assert!(fs::symlink_metadata(&p).unwrap().file_type().is_socket());
    assert_eq!(reader.join().unwrap(), b"\x00\x01binary");
}

#[test]
fn a_link_is_written_through_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("real")).unwrap();
    let target = d.join("real/out.tsv");
    fs::write(&target, "old\n").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    let link = d.join("out.tsv");
    symlink("real/out.tsv", &link).unwrap();
    check_output(&link).unwrap();

    // A failed run (dropped without commit) leaves the old file and no temporary file.
    {
        let mut f = AtomicFile::create_text(&link).unwrap();
        assert!(!f.in_place());
        f.write_all(b"partial").unwrap();
    }
    assert_eq!(fs::read_to_string(&target).unwrap(), "old\n");
    assert_eq!(names(&d.join("real")), ["out.tsv"]);

    let mut f = AtomicFile::create_text(&link).unwrap();
    f.write_all(b"new\n").unwrap();
    // Nothing changes before commit.
    assert_eq!(fs::read_to_string(&target).unwrap(), "old\n");
    f.commit().unwrap();
    assert_link(&link, Path::new("real/out.tsv"));
    assert_eq!(fs::read_to_string(&target).unwrap(), "new\n");
    // The replaced file keeps its mode.
    let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert_eq!(names(d), ["out.tsv", "real"]);
    assert_eq!(names(&d.join("real")), ["out.tsv"]);

    // A dangling link: its target is created.
    symlink("real/created.tsv", d.join("dangling")).unwrap();
    let mut f = AtomicFile::create(d.join("dangling")).unwrap();
    f.write_all(b"made").unwrap();
    f.commit().unwrap();
    assert_eq!(
        fs::read_to_string(d.join("real/created.tsv")).unwrap(),
        "made"
    );
    assert_link(&d.join("dangling"), Path::new("real/created.tsv"));
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_held_open_through_proc_is_appended_to() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.txt");
    fs::write(&log, "head\n").unwrap();
    // As a shell's `>> log.txt` holds it, for `-o /dev/fd/N`.
    let held = fs::OpenOptions::new().append(true).open(&log).unwrap();
    let p = PathBuf::from(format!("/proc/self/fd/{}", held.as_raw_fd()));
    assert_eq!(
        placement(&p).unwrap(),
        Placement::InPlace(Special::HeldOpen)
    );
    let mut f = AtomicFile::create_text(&p).unwrap();
    f.write_all(b"body\n").unwrap();
    f.commit().unwrap();
    assert_eq!(fs::read_to_string(&log).unwrap(), "head\nbody\n");
    assert_eq!(names(dir.path()), ["log.txt"]);
    drop(held);
}

#[test]
fn a_temp_path_is_placed_like_an_atomic_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Through a link: the target is replaced at commit, the link stays.
    fs::write(d.join("index.bin"), "old").unwrap();
    symlink("index.bin", d.join("link.bin")).unwrap();
    let t = TempPath::new(d.join("link.bin")).unwrap();
    assert_eq!(t.path().parent(), Some(d));
    fs::write(t.path(), "new").unwrap();
    assert_eq!(fs::read_to_string(d.join("index.bin")).unwrap(), "old");
    t.commit().unwrap();
    assert_eq!(fs::read_to_string(d.join("index.bin")).unwrap(), "new");
    assert_link(&d.join("link.bin"), Path::new("index.bin"));
    // Dropped without commit: the temporary file is removed.
    let t = TempPath::new(d.join("other.bin")).unwrap();
    fs::write(t.path(), "x").unwrap();
    drop(t);
    assert_eq!(names(d), ["index.bin", "link.bin"]);
    // Committed though nothing was written: an error naming the destination.
    let e = TempPath::new(d.join("never.bin"))
        .unwrap()
        .commit()
        .unwrap_err();
    assert!(e.to_string().contains("never.bin"), "{e}");
    // Into a FIFO: copied through it, and the FIFO stays.
    let p = fifo(d, "index.fifo");
    let reader = drain(&p);
    let t = TempPath::new(&p).unwrap();
    assert_ne!(t.path().parent(), Some(d));
    fs::write(t.path(), vec![7u8; 1 << 20]).unwrap();
    let tmp = t.path().to_path_buf();
    t.commit().unwrap();
    assert_eq!(received(&p, reader), vec![7u8; 1 << 20]);
    assert!(!tmp.exists());
}
