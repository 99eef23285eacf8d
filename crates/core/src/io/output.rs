//! The one writer of the workspace: every output of bitext (text, TSV, embeddings, indexes,
//! models, plans, calibration files, plots) is written through [`AtomicFile`], or, for a library
//! that writes a file by name, through [`TempPath`]. Both ask [`placement`] what is at the
//! destination now and write it accordingly:
//!
//! | at the destination | how it is written |
//! |---|---|
//! | nothing, or a regular file | a temporary file beside it, renamed onto it at `commit`; a failed run leaves the old file (or nothing) and no temporary file |
//! | a symbolic link | followed, hop by hop, to the path it leads to, which is written as above; the link stays a link |
//! | a character or block device (`/dev/null`), a FIFO (`mkfifo`, `>(gzip > x.gz)`), a socket | opened and written in place as the bytes come; nothing to roll back, so a failed run leaves what it wrote so far |
//! | a file a process holds open (`/dev/stdout`, `/dev/fd/N`, `/proc/PID/fd/N` leading to a regular file) | appended to in place, keeping the place the shell's `>` or `>>` gave it |
//! | a directory | an error naming it |
//!
//! A rename onto a device, FIFO or link would replace it with a regular file: as root,
//! `-o /dev/null` would turn the machine's `/dev/null` into a file holding the output.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::stream::{self, Compression, Out, Sink, is_stdio};
use crate::error::{Error, Result};

/// How an output path is written, chosen by [`placement`] from what is at the path now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// A temporary file beside this path is renamed onto it: the destination itself (a regular
    /// file or nothing), or what its symbolic links lead to.
    Replace(PathBuf),
    /// The destination is opened and written in place, streaming.
    InPlace(Special),
}

/// What a destination written in place is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Special {
    /// A character device (`/dev/null`, a terminal).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A FIFO (named pipe), or the pipe behind `/dev/stdout`.
    Fifo,
    /// A Unix socket: connected to, then written.
    Socket,
    /// A regular file that a process holds open, reached through a file-descriptor link
    /// (`/proc/PID/fd/N`, `/dev/fd/N`, `/dev/stdout`): appended to.
    HeldOpen,
}

/// The most symbolic links followed from one destination (Linux's own limit).
const MAX_LINKS: usize = 40;

/// How `path` is written (see the [module docs](self)): links followed, devices, FIFOs and
/// sockets in place, anything else through a temporary file renamed onto the path the links
/// lead to. Reads metadata only; opens nothing.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the path when it is a directory or its links go round in
/// a loop; [`Error::Io`] naming it when its metadata cannot be read (a permission denied on a
/// directory on the way).
pub fn placement(path: impl AsRef<Path>) -> Result<Placement> {
    let path = path.as_ref();
    let refuse =
        |why: &str| Error::InvalidArgument(format!("cannot write {}: {why}", path.display()));
    // What the path finally is, links followed.
    match fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(refuse("it is a directory")),
        Ok(m) if !m.is_file() => return Ok(Placement::InPlace(special(&m.file_type()))),
        Ok(_) => {}
        Err(e) if missing(&e) => {}
        Err(e) if e.raw_os_error() == Some(ELOOP) => {
            return Err(refuse("its symbolic links go round in a loop"));
        }
        Err(e) => return Err(Error::io(path, e)),
    }
    // A regular file or nothing: the path to rename onto, following the links one by one.
    let mut at = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                if is_descriptor_link(&at) {
                    return Ok(Placement::InPlace(Special::HeldOpen));
                }
                let to = fs::read_link(&at).map_err(|e| Error::io(path, e))?;
                at = match at.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(_) => return Ok(Placement::Replace(at)),
            Err(e) if missing(&e) => return Ok(Placement::Replace(at)),
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Err(refuse("its symbolic links go round in a loop"))
}

/// `ELOOP`, "too many levels of symbolic links" (40 on Linux, 62 on macOS and the BSDs).
#[cfg(target_os = "linux")]
const ELOOP: i32 = 40;
#[cfg(not(target_os = "linux"))]
const ELOOP: i32 = 62;

/// Nothing there: the path, or a directory on its way, does not exist.
fn missing(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

#[cfg(unix)]
fn special(t: &fs::FileType) -> Special {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        Special::Fifo
    } else if t.is_socket() {
        Special::Socket
    } else if t.is_block_device() {
        Special::BlockDevice
    } else {
        Special::CharDevice
    }
}

#[cfg(not(unix))]
fn special(_: &fs::FileType) -> Special {
    Special::CharDevice
}

/// Whether the link `link` is one of the kernel's links to an open file descriptor: it lies in
/// a `fd` directory of `/proc` (`/dev/fd` and `/proc/self` resolve there). What it leads to is
/// some process's open file, opened with that process's own mode.
fn is_descriptor_link(link: &Path) -> bool {
    let dir = match link.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::canonicalize(dir)
        .is_ok_and(|d| d.starts_with("/proc") && d.file_name().is_some_and(|n| n == "fd"))
}

/// Open `path`, a destination of kind `kind`, to be written in place.
fn open_in_place(path: &Path, kind: Special) -> io::Result<Out> {
    match kind {
        #[cfg(unix)]
        Special::Socket => std::os::unix::net::UnixStream::connect(path).map(Out::Socket),
        #[cfg(not(unix))]
        Special::Socket => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "sockets are written only on Unix",
        )),
        Special::HeldOpen => OpenOptions::new().append(true).open(path).map(Out::File),
        Special::CharDevice | Special::BlockDevice | Special::Fifo => {
            OpenOptions::new().write(true).open(path).map(Out::File)
        }
    }
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A new temporary file's path in `dir`, named after `name`.
fn temp_name(dir: &Path, name: &std::ffi::OsStr) -> PathBuf {
    let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(
        ".{}.{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        n
    ))
}

/// The temporary path beside `target`, the path a rename will replace.
fn temp_beside(dest: &Path, target: &Path) -> Result<PathBuf> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .ok_or_else(|| Error::InvalidArgument(format!("{} is not a file path", dest.display())))?;
    Ok(temp_name(dir, name))
}

/// Create the temporary file `tmp` for `target`, with `target`'s permissions when it exists (a
/// replaced file keeps its mode, as `sed -i` keeps it).
fn create_temp(tmp: &Path, target: &Path) -> io::Result<File> {
    let file = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    if let Ok(m) = fs::metadata(target) {
        file.set_permissions(m.permissions())?;
    }
    Ok(file)
}

/// Sync the temporary file `tmp` and rename it onto `target`; removed when that fails.
fn rename_into_place(file: Option<File>, tmp: &Path, target: &Path) -> io::Result<()> {
    let placed = file
        .map_or(Ok(()), |f| f.sync_all())
        .and_then(|()| fs::rename(tmp, target));
    if placed.is_err() {
        let _ = fs::remove_file(tmp);
    }
    placed
}

/// An output written as [`placement`] says: a regular file or a missing path is written under
/// a temporary name beside it and renamed into place by [`AtomicFile::commit`], so that an
/// error on the way (dropped without `commit`) leaves the destination untouched and no
/// temporary file; a symbolic link is followed and its target replaced so; a device, FIFO or
/// socket is written in place as the bytes come, with nothing to roll back. A text output
/// ([`AtomicFile::create_text`]) may also be standard output (`-`, written as it comes) or
/// compressed by its extension.
#[derive(Debug)]
pub struct AtomicFile {
    /// The path as given, which errors name.
    dest: PathBuf,
    /// The temporary file and the path it is renamed onto; `None` when written in place
    /// (standard output included) or once committed.
    rename: Option<(PathBuf, PathBuf)>,
    writer: Option<Sink>,
}

impl AtomicFile {
    /// Create the output `dest`, a binary file written as it is.
    ///
    /// # Errors
    /// [`Error::Io`] naming `dest` when the temporary file cannot be created (its directory
    /// missing or not writable) or an in-place destination cannot be opened;
    /// [`Error::InvalidArgument`] for a directory, `-` or a compression extension (see
    /// [`stream::require_plain`]).
    pub fn create(dest: impl AsRef<Path>) -> Result<Self> {
        stream::require_plain(dest.as_ref(), "this binary output")?;
        Self::make(dest.as_ref(), Compression::None)
    }

    /// Create a text output: `-` is standard output; a `.gz`, `.xz` or `.zst` destination is
    /// compressed; anything else as [`AtomicFile::create`].
    ///
    /// # Errors
    /// As [`AtomicFile::create`].
    pub fn create_text(dest: impl AsRef<Path>) -> Result<Self> {
        let dest = dest.as_ref();
        if is_stdio(dest) {
            return Ok(Self {
                rename: None,
                dest: PathBuf::from(stream::STDOUT_NAME),
                writer: Some(Sink::stdout()),
            });
        }
        Self::make(dest, Compression::of(dest))
    }

    fn make(dest: &Path, format: Compression) -> Result<Self> {
        let (out, rename) = match placement(dest)? {
            Placement::InPlace(kind) => {
                let out = open_in_place(dest, kind).map_err(|e| Error::io(dest, e))?;
                (out, None)
            }
            Placement::Replace(target) => {
                let tmp = temp_beside(dest, &target)?;
                let file = create_temp(&tmp, &target).map_err(|e| Error::io(dest, e))?;
                (Out::File(file), Some((tmp, target)))
            }
        };
        let mut made = Self {
            dest: dest.to_path_buf(),
            rename,
            writer: None,
        };
        made.writer = Some(Sink::new(out, format).map_err(|e| made.err(e))?);
        Ok(made)
    }

    /// The path as given.
    #[must_use]
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Whether the output is written in place as it comes (a device, FIFO, socket, held-open
    /// file or standard output): what was written stays written, even without a `commit`.
    #[must_use]
    pub fn in_place(&self) -> bool {
        self.rename.is_none()
    }

    fn writer(&mut self) -> &mut Sink {
        self.writer.as_mut().expect("AtomicFile used after commit")
    }

    /// Finish compressing and flush; then sync and rename into place (written in place: only
    /// the flush).
    ///
    /// # Errors
    /// [`Error::Io`] naming the destination.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("AtomicFile committed twice");
        let out = writer.finish().map_err(|e| self.err(e))?;
        if let Some((tmp, target)) = self.rename.take() {
            let file = match out {
                Some(Out::File(f)) => Some(f),
                _ => None,
            };
            rename_into_place(file, &tmp, &target).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Wrap an I/O error of this file with its destination path.
    pub fn err(&self, e: io::Error) -> Error {
        Error::io(&self.dest, e)
    }
}

stream::write_through_writer!(AtomicFile);

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Close the temporary file before removing it.
        drop(self.writer.take());
        if let Some((tmp, _)) = &self.rename {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// A path lent to a writer that takes a file name rather than a stream (faiss's
/// `write_index`): it writes [`TempPath::path`], then [`TempPath::commit`] places that file at
/// the destination as [`AtomicFile`] would: renamed onto a regular file, a missing path or a
/// link's target, or copied, streaming, into a device, FIFO or socket (the temporary file then
/// lies in the system's temporary directory). Dropped without `commit`, the temporary file is
/// removed.
#[derive(Debug)]
pub struct TempPath {
    dest: PathBuf,
    tmp: PathBuf,
    placement: Placement,
    committed: bool,
}

impl TempPath {
    /// A temporary path for the output `dest` (nothing is created yet).
    ///
    /// # Errors
    /// As [`placement`]; [`Error::InvalidArgument`] for a path with no file name.
    pub fn new(dest: impl AsRef<Path>) -> Result<Self> {
        let dest = dest.as_ref();
        stream::require_plain(dest, "this binary output")?;
        let placement = placement(dest)?;
        let tmp = match &placement {
            Placement::Replace(target) => temp_beside(dest, target)?,
            Placement::InPlace(_) => {
                let name = dest.file_name().unwrap_or(dest.as_os_str());
                temp_name(&std::env::temp_dir(), name)
            }
        };
        Ok(Self {
            dest: dest.to_path_buf(),
            tmp,
            placement,
            committed: false,
        })
    }

    /// The path the writer writes.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Place the file written at [`TempPath::path`] at the destination.
    ///
    /// # Errors
    /// [`Error::Io`] naming the destination (the file was not written, or cannot be placed).
    pub fn commit(mut self) -> Result<()> {
        let err = |e| Error::io(&self.dest, e);
        match &self.placement {
            Placement::Replace(target) => {
                let file = File::open(&self.tmp).map_err(err)?;
                rename_into_place(Some(file), &self.tmp, target).map_err(err)?;
            }
            Placement::InPlace(kind) => {
                let mut from = File::open(&self.tmp).map_err(err)?;
                let mut to = open_in_place(&self.dest, *kind).map_err(err)?;
                io::copy(&mut from, &mut to).map_err(err)?;
                to.flush().map_err(err)?;
                let _ = fs::remove_file(&self.tmp);
            }
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Check, before any long work, that an output can be written at `path`: it is not a
/// directory, and for a path written through a temporary file, the directory of what it leads
/// to exists and a file can be created there (a probe file is created and removed). `-`
/// (standard output) and destinations written in place always can: those are opened when
/// written (opening a FIFO would wait for its reader).
///
/// # Errors
/// [`Error::InvalidArgument`] naming the path and the reason.
pub fn check_output(path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    if is_stdio(path) {
        return Ok(());
    }
    let target = match placement(path)? {
        Placement::InPlace(_) => return Ok(()),
        Placement::Replace(target) => target,
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let refuse = |why: String| {
        Err(Error::InvalidArgument(format!(
            "cannot write {}: {why}",
            path.display()
        )))
    };
    if !dir.is_dir() {
        return refuse(format!("its directory {} does not exist", dir.display()));
    }
    let probe = temp_beside(path, &target)?;
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(f) => {
            drop(f);
            let _ = fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => refuse(format!("no file can be created in {} ({e})", dir.display())),
    }
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
