//! Files for the tests of outputs that are not regular files (Unix): FIFOs made by `mkfifo`
//! and what their readers receive, the names left in a directory (no temporary file may stay
//! behind), and symbolic links that must stay links.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// The names in `dir`, sorted.
///
/// # Panics
/// When `dir` cannot be read.
#[must_use]
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `link` is still a symbolic link, and to `target` (as written in the link).
///
/// # Panics
/// When `link` is missing, not a link, or points elsewhere.
pub fn assert_link(link: &Path, target: &Path) {
    let kind = std::fs::symlink_metadata(link).unwrap().file_type();
    assert!(
        kind.is_symlink(),
        "{} is not a link: {kind:?}",
        link.display()
    );
    assert_eq!(std::fs::read_link(link).unwrap(), target);
}

/// A FIFO at `dir/name`, made by `mkfifo`.
///
/// # Panics
/// When `mkfifo` fails.
#[must_use]
pub fn fifo(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let ok = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo {}", p.display());
    p
}

/// Everything a reader of the FIFO `p` receives, read on another thread (opening a FIFO for
/// reading waits for a writer).
#[must_use]
pub fn drain(p: &Path) -> JoinHandle<Vec<u8>> {
    let p = p.to_path_buf();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        std::fs::File::open(p)
            .unwrap()
            .read_to_end(&mut got)
            .unwrap();
        got
    })
}

/// Linux's `O_NONBLOCK` (the same on x86-64 and AArch64).
#[cfg(target_os = "linux")]
const O_NONBLOCK: i32 = 0o4000;

/// What the reader of the FIFO `p` ([`drain`]) received, once the writer is done. The FIFO is
/// checked first: one replaced by a regular file would leave its reader waiting, so the check
/// fails the test instead of hanging it. Then, on Linux, the FIFO is opened for writing without
/// waiting and closed, so that a reader still waiting for a writer (a run that failed before it
/// opened its output) sees the end; with no reader left, that open fails at once.
///
/// # Panics
/// When `p` is no longer a FIFO, or the reader failed.
#[cfg(unix)]
#[must_use]
pub fn received(p: &Path, reader: JoinHandle<Vec<u8>>) -> Vec<u8> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::symlink_metadata(p).unwrap().file_type();
    assert!(
        kind.is_fifo(),
        "{} is no longer a FIFO: {kind:?}",
        p.display()
    );
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(O_NONBLOCK)
            .open(p);
    }
    reader.join().unwrap()
}
