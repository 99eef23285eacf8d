//! Text streams for the Unix way of working (`zcat corpus.gz | bitext … | gzip`): the path `-`
//! is standard input or standard output, and `.gz`, `.xz` and `.zst` files are decompressed
//! when read and compressed when written, chosen by extension.
//!
//! Readers: [`open`] (and [`super::LineReader::open`], which every text reader of bitext uses).
//! Writers: [`super::AtomicFile::create_text`]. Binary formats (raw and `.npy` embeddings,
//! models) are memory-mapped or seeked and stay plain files: [`require_plain`] says so
//! clearly when one is named with `-` or a compression extension.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Stdout, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};

/// Standard input read whole by [`hold_stdin`], for commands that read their input twice.
static HELD_STDIN: OnceLock<Arc<[u8]>> = OnceLock::new();

/// Read all of standard input into memory now, so that every later [`open`] of `-` reads it
/// from the start: for commands that read their input more than once (a count, then the
/// work). Streaming commands do not call it and read standard input as it comes.
///
/// # Errors
/// [`Error::Io`] naming `<stdin>`.
pub fn hold_stdin() -> Result<()> {
    if HELD_STDIN.get().is_none() {
        let mut bytes = Vec::new();
        io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(STDIN_NAME, e))?;
        let _ = HELD_STDIN.set(bytes.into());
    }
    Ok(())
}

/// The path that means standard input (when read) or standard output (when written).
pub const STDIO: &str = "-";

/// How standard input is named in errors (`<stdin>:3: invalid UTF-8 …`).
pub const STDIN_NAME: &str = "<stdin>";

/// How standard output is named in errors.
pub const STDOUT_NAME: &str = "<stdout>";

/// Whether `path` is `-` (standard input or output).
#[must_use]
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == STDIO
}

/// A compression format, from a file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// No compression.
    None,
    /// gzip (`.gz`), read with concatenated members as `zcat` reads them.
    Gzip,
    /// xz (`.xz`), concatenated streams too.
    Xz,
    /// Zstandard (`.zst`), concatenated frames too.
    Zstd,
}

impl Compression {
    /// The format of `path` by its extension (case-insensitive).
    #[must_use]
    pub fn of(path: &Path) -> Self {
        match path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .as_deref()
        {
            Some("gz") => Compression::Gzip,
            Some("xz") => Compression::Xz,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// The format's name in messages.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }
}

/// A buffered text input: a file, standard input, or a decompressing reader over either.
pub type Input = BufReader<Box<dyn Read + Send>>;

/// The name `path` has in errors: [`STDIN_NAME`] for `-`, else the path.
#[must_use]
pub fn input_name(path: &Path) -> PathBuf {
    if is_stdio(path) {
        PathBuf::from(STDIN_NAME)
    } else {
        path.to_path_buf()
    }
}

/// Open a text input: `-` is standard input; a `.gz`, `.xz` or `.zst` file is decompressed.
///
/// # Errors
/// [`Error::Io`] naming `path` when it cannot be opened. Corrupt or truncated compressed data
/// is an I/O error of the read that meets it, saying so.
pub fn open(path: impl AsRef<Path>) -> Result<Input> {
    let path = path.as_ref();
    let raw: Box<dyn Read + Send> = if is_stdio(path) {
        match HELD_STDIN.get() {
            Some(held) => Box::new(io::Cursor::new(Arc::clone(held))),
            None => Box::new(io::stdin()),
        }
    } else {
        Box::new(File::open(path).map_err(|e| Error::io(path, e))?)
    };
    let format = Compression::of(path);
    let read: Box<dyn Read + Send> = match format {
        Compression::None => raw,
        Compression::Gzip => Box::new(Decoded {
            inner: flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, raw)),
            format,
        }),
        Compression::Xz => Box::new(Decoded {
            inner: liblzma::read::XzDecoder::new_multi_decoder(BufReader::with_capacity(
                1 << 16,
                raw,
            )),
            format,
        }),
        Compression::Zstd => Box::new(Decoded {
            inner: zstd::stream::read::Decoder::new(raw).map_err(|e| Error::io(path, e))?,
            format,
        }),
    };
    Ok(BufReader::with_capacity(1 << 20, read))
}

/// The first line of a text input, for format detection, without consuming standard input:
/// for `-` it is peeked from standard input's buffer (so at most its first 8 KiB, which the
/// next reader of `-` still reads), or read from what [`hold_stdin`] holds. `None` for an
/// empty input.
///
/// # Errors
/// As [`open`] and [`super::LineReader::advance`].
pub fn first_line(path: &Path) -> Result<Option<String>> {
    if is_stdio(path) && HELD_STDIN.get().is_none() {
        use std::io::BufRead;
        let mut stdin = io::stdin().lock();
        let buf = stdin.fill_buf().map_err(|e| Error::io(STDIN_NAME, e))?;
        let buf = super::strip_bom(buf);
        let line = buf.split(|&b| b == b'\n').next().unwrap_or_default();
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        return Ok((!buf.is_empty()).then(|| String::from_utf8_lossy(line).into_owned()));
    }
    let mut r = super::LineReader::open(path)?;
    Ok(r.advance()?.then(|| r.line().to_string()))
}

/// A decompressor whose errors say that the data is corrupt or truncated.
struct Decoded<R> {
    inner: R,
    format: Compression,
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted {
                e
            } else {
                io::Error::new(
                    e.kind(),
                    format!("corrupt or truncated {} data ({e})", self.format.name()),
                )
            }
        })
    }
}

/// Refuse `-` and compressed paths for a binary format that must be a plain file.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the path and `what` it was meant to be.
pub fn require_plain(path: &Path, what: &str) -> Result<()> {
    if is_stdio(path) {
        return Err(Error::InvalidArgument(format!(
            "{what} cannot be standard input or output (-): it must be a file"
        )));
    }
    let c = Compression::of(path);
    if c != Compression::None {
        return Err(Error::InvalidArgument(format!(
            "{}: {what} cannot be {} compressed (it is memory-mapped or seeked); decompress it \
             or name a plain file",
            path.display(),
            c.name()
        )));
    }
    Ok(())
}

/// What an output's bytes are written into: a file (a temporary file to be renamed, or a
/// device, FIFO or held-open file written in place), or a Unix socket connected to.
#[derive(Debug)]
pub(crate) enum Out {
    File(File),
    #[cfg(unix)]
    Socket(std::os::unix::net::UnixStream),
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::File(f) => f.write(buf),
            #[cfg(unix)]
            Out::Socket(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::File(f) => f.flush(),
            #[cfg(unix)]
            Out::Socket(s) => s.flush(),
        }
    }
}

/// Where a text output goes: a file, device or socket (plain or compressing), or standard
/// output.
pub(crate) enum Sink {
    File(BufWriter<Out>),
    Gzip(flate2::write::GzEncoder<BufWriter<Out>>),
    Xz(liblzma::write::XzEncoder<BufWriter<Out>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<Out>>),
    Stdout(BufWriter<Stdout>),
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Sink::File(_) => "Sink::File",
            Sink::Gzip(_) => "Sink::Gzip",
            Sink::Xz(_) => "Sink::Xz",
            Sink::Zstd(_) => "Sink::Zstd",
            Sink::Stdout(_) => "Sink::Stdout",
        })
    }
}

impl Sink {
    /// A sink writing `format` into `out`.
    pub(crate) fn new(out: Out, format: Compression) -> io::Result<Self> {
        let w = BufWriter::with_capacity(1 << 20, out);
        Ok(match format {
            Compression::None => Sink::File(w),
            Compression::Gzip => Sink::Gzip(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::default(),
            )),
            Compression::Xz => Sink::Xz(liblzma::write::XzEncoder::new(w, 6)),
            Compression::Zstd => Sink::Zstd(zstd::stream::write::Encoder::new(w, 3)?),
        })
    }

    /// Standard output.
    pub(crate) fn stdout() -> Self {
        Sink::Stdout(BufWriter::with_capacity(1 << 16, io::stdout()))
    }

    /// Finish the compressed stream and flush: what was written into (`None` for standard
    /// output), a temporary file to sync and rename.
    pub(crate) fn finish(self) -> io::Result<Option<Out>> {
        let w = match self {
            Sink::File(w) => w,
            Sink::Gzip(e) => e.finish()?,
            Sink::Xz(e) => e.finish()?,
            Sink::Zstd(e) => e.finish()?,
            Sink::Stdout(mut w) => {
                w.flush()?;
                return Ok(None);
            }
        };
        w.into_inner()
            .map(Some)
            .map_err(io::IntoInnerError::into_error)
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::File(w) => w,
            Sink::Gzip(w) => w,
            Sink::Xz(w) => w,
            Sink::Zstd(w) => w,
            Sink::Stdout(w) => w,
        }
    }
}

/// Implement [`Write`] for `$ty` by passing every call on to what its `writer()` method
/// returns (the sink a wrapper writes through).
macro_rules! write_through_writer {
    ($ty:ty) => {
        impl std::io::Write for $ty {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.writer().write(buf)
            }

            fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
                self.writer().write_all(buf)
            }

            fn flush(&mut self) -> std::io::Result<()> {
                self.writer().flush()
            }
        }
    };
}
pub(crate) use write_through_writer;

write_through_writer!(Sink);

#[cfg(test)]
mod tests {
    use std::io::BufRead;

    use super::*;

    fn at_end(r: &mut Input) -> bool {
        r.fill_buf().map(<[u8]>::is_empty).unwrap_or(false)
    }

    fn compress(format: Compression, data: &[u8]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x");
        let mut s = Sink::new(Out::File(File::create(&p).unwrap()), format).unwrap();
        s.write_all(data).unwrap();
        drop(s.finish().unwrap().unwrap());
        std::fs::read(&p).unwrap()
    }

    #[test]
    fn compressed_files_round_trip_by_extension() {
        let dir = tempfile::tempdir().unwrap();
        let text = "eins\tone\nzwei\ttwo\n".repeat(1000);
        for (ext, format) in [
            ("txt", Compression::None),
            ("gz", Compression::Gzip),
            ("XZ", Compression::Xz),
            ("zst", Compression::Zstd),
        ] {
            let p = dir.path().join(format!("t.{ext}"));
            assert_eq!(Compression::of(&p), format);
            let bytes = compress(format, text.as_bytes());
            if format != Compression::None {
                assert!(bytes.len() < text.len() / 10, "{ext}: {}", bytes.len());
            }
            // Two streams one after the other read as one text, as zcat reads them.
            std::fs::write(&p, [bytes.clone(), bytes].concat()).unwrap();
            let mut got = String::new();
            let mut r = open(&p).unwrap();
            r.read_to_string(&mut got).unwrap();
            assert_eq!(got, text.repeat(2), "{ext}");
            assert!(at_end(&mut r));
        }
    }

    #[test]
    fn truncated_and_corrupt_compressed_data_is_an_error_that_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let text = "a line of text\n".repeat(5000);
        for (ext, format) in [
            ("gz", Compression::Gzip),
            ("xz", Compression::Xz),
            ("zst", Compression::Zstd),
        ] {
            let bytes = compress(format, text.as_bytes());
            let p = dir.path().join(format!("t.{ext}"));
            for bad in [
                bytes[..bytes.len() / 2].to_vec(),
                b"this is not compressed at all\n".to_vec(),
            ] {
                std::fs::write(&p, bad).unwrap();
                let mut got = String::new();
                let e = open(&p)
                    .and_then(|mut r| r.read_to_string(&mut got).map_err(|e| Error::io(&p, e)));
                let e = e.expect_err(ext).to_string();
                assert!(
                    e.contains(&format!("t.{ext}"))
                        && e.contains(&format!("corrupt or truncated {}", format.name())),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn binary_formats_refuse_streams() {
        assert!(require_plain(Path::new("x.f32"), "embeddings").is_ok());
        let e = require_plain(Path::new("-"), "embeddings").unwrap_err();
        assert!(e.to_string().contains("standard input or output"), "{e}");
        let e = require_plain(Path::new("x.npy.gz"), "embeddings").unwrap_err();
        assert!(
            e.to_string().contains("x.npy.gz") && e.to_string().contains("gzip"),
            "{e}"
        );
        assert_eq!(input_name(Path::new("-")), PathBuf::from("<stdin>"));
    }
}
