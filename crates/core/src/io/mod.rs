//! File formats shared by every crate, and the two mechanisms all of them use: [`AtomicFile`]
//! (outputs are written to a temporary file and renamed into place) and [`LineReader`] (text read
//! line by line with UTF-8 checked per line, so errors name the line).
//!
//! | format | module |
//! |---|---|
//! | LASER raw embeddings (little-endian f32/f16, no header) | [`raw`] |
//! | NumPy `.npy` 2-D arrays | [`npy`] |
//! | memory-mapped raw / `.npy` embeddings | [`crate::MappedEmbeddings`] |
//! | BUCC sentence and gold files | [`bucc`] |
//! | sentence alignments of documents (vecalign's beads) | [`beads`] |
//! | plain and line-parallel text | [`text`] |
//! | mined pairs `score<TAB>src<TAB>tgt` and bicleaner-style TSV | [`tsv`] |
//! | fastText / MUSE `.vec` word vectors | [`mod@vec`] |
//! | the protobuf wire format (sentencepiece models, ONNX graphs) | [`proto`] |
//! | embedding files written block by block (raw, `.npy`) | [`writer`] |
//!
//! Text is read and written as streams ([`stream`]): `-` is standard input or output, and
//! `.gz`, `.xz` and `.zst` files are (de)compressed by extension, in every text reader
//! ([`LineReader::open`]) and text writer ([`AtomicFile::create_text`]).

pub mod beads;
pub mod bucc;
pub mod npy;
pub mod proto;
pub mod raw;
pub mod stream;
pub mod text;
pub mod tsv;
pub mod vec;
pub mod writer;

use std::fs::{self, File};
use std::io::{self, BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Location, Result};
use stream::{Compression, Sink};
pub use stream::{Input, STDIO, is_stdio};

/// A file written under a temporary name in the destination's directory and renamed into place
/// by [`AtomicFile::commit`]. Dropped without `commit` (an error on the way), the temporary
/// file is removed and the destination is left untouched. A text output
/// ([`AtomicFile::create_text`]) may also be standard output (`-`, written as it comes) or
/// compressed by its extension.
#[derive(Debug)]
pub struct AtomicFile {
    /// The temporary file (`None` for standard output).
    tmp: Option<PathBuf>,
    dest: PathBuf,
    writer: Option<Sink>,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl AtomicFile {
    /// Create the temporary file for `dest`, a binary file written as it is.
    ///
    /// # Errors
    /// [`Error::Io`] naming `dest` when the temporary file cannot be created (its directory
    /// missing or not writable); [`Error::InvalidArgument`] for `-` or a compression extension
    /// (see [`stream::require_plain`]).
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
                tmp: None,
                dest: PathBuf::from(stream::STDOUT_NAME),
                writer: Some(Sink::stdout()),
            });
        }
        Self::make(dest, Compression::of(dest))
    }

    fn make(dest: &Path, format: Compression) -> Result<Self> {
        let dest = dest.to_path_buf();
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dest.file_name().ok_or_else(|| {
            Error::InvalidArgument(format!("{} is not a file path", dest.display()))
        })?;
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(
            ".{}.{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id(),
            n
        ));
        let file = File::create(&tmp).map_err(|e| Error::io(&dest, e))?;
        let writer = Sink::file(file, format).map_err(|e| Error::io(&dest, e))?;
        Ok(Self {
            tmp: Some(tmp),
            dest,
            writer: Some(writer),
        })
    }

    /// The final path.
    #[must_use]
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    fn writer(&mut self) -> &mut Sink {
        self.writer.as_mut().expect("AtomicFile used after commit")
    }

    /// Finish compressing, flush, sync and rename into place (standard output: flush).
    ///
    /// # Errors
    /// [`Error::Io`] naming the destination.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("AtomicFile committed twice");
        let file = writer.finish().map_err(|e| Error::io(&self.dest, e))?;
        if let (Some(file), Some(tmp)) = (file, &self.tmp) {
            file.sync_all().map_err(|e| Error::io(&self.dest, e))?;
            drop(file);
            fs::rename(tmp, &self.dest).map_err(|e| Error::io(&self.dest, e))?;
        }
        Ok(())
    }

    /// Wrap an I/O error of this file with its destination path.
    pub fn err(&self, e: io::Error) -> Error {
        Error::io(&self.dest, e)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some()
            && let Some(tmp) = &self.tmp
        {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Check, before any long work, that an output can be written at `path`: its directory exists
/// and a file can be created in it (a probe file is created and removed), and `path` is not a
/// directory. `-` (standard output) always can.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the path and the reason.
pub fn check_output(path: impl AsRef<Path>) -> Result<()> {
    let path = path.as_ref();
    if is_stdio(path) {
        return Ok(());
    }
    let dir = match path.parent() {
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
    if path.is_dir() {
        return refuse("it is a directory".into());
    }
    match AtomicFile::make(path, Compression::None) {
        Ok(probe) => {
            drop(probe);
            Ok(())
        }
        Err(Error::Io { error, .. }) => refuse(format!(
            "no file can be created in {} ({error})",
            dir.display()
        )),
        Err(e) => Err(e),
    }
}

/// Open a text input for buffered reading (`-`: standard input; `.gz`, `.xz`, `.zst`:
/// decompressed), naming the path in the error.
///
/// # Errors
/// [`Error::Io`] naming `path`.
pub fn open(path: impl AsRef<Path>) -> Result<Input> {
    stream::open(path)
}

/// Reads a text file line by line: checks UTF-8 per line, strips `\n` / `\r\n`, and numbers
/// lines from 1 so that every error can name its line.
///
/// ```
/// use bitext_core::io::LineReader;
/// # fn main() -> bitext_core::Result<()> {
/// let mut r = LineReader::new("mem.txt", &b"one\ntwo\n"[..]);
/// while r.advance()? {
///     if r.line() == "two" {
///         assert_eq!(r.error("bad").to_string(), "mem.txt:2: bad");
///     }
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct LineReader<R> {
    path: PathBuf,
    reader: R,
    text: String,
    line: usize,
    /// The reader starts inside the file (a byte-range shard): no byte-order mark to drop.
    mid_file: bool,
}

impl LineReader<Input> {
    /// Open `path` (`-`: standard input, named `<stdin>` in errors; `.gz`, `.xz`, `.zst`:
    /// decompressed).
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        Ok(Self::new(stream::input_name(path), open(path)?))
    }
}

impl<R: BufRead> LineReader<R> {
    /// Read from `reader`; `path` is the name used in errors.
    pub fn new(path: impl AsRef<Path>, reader: R) -> Self {
        Self {
            path: path.as_ref().to_path_buf(),
            reader,
            text: String::new(),
            line: 0,
            mid_file: false,
        }
    }

    /// A reader that starts inside the file, at a line boundary (a shard of its bytes): a
    /// byte-order mark on its first line is part of the text, as it is for a reader of the
    /// whole file, and [`LineReader::line_number`] counts from the shard's start.
    #[must_use]
    pub fn mid_file(mut self) -> Self {
        self.mid_file = true;
        self
    }

    /// The file's name, as used in errors.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The 1-based number of the current line (0 before the first).
    #[must_use]
    pub fn line_number(&self) -> usize {
        self.line
    }

    /// The current line, without its terminator (empty before the first).
    #[must_use]
    pub fn line(&self) -> &str {
        &self.text
    }

    /// An error at the current line.
    pub fn error(&self, reason: impl Into<String>) -> Error {
        Error::parse(&self.path, Location::Line(self.line), reason)
    }

    /// Move to the next line; `false` at the end of the file. A UTF-8 byte-order mark at the
    /// start of the file is dropped; line terminators (`\n`, `\r\n`) are not part of the line.
    ///
    /// # Errors
    /// [`Error::Io`] on read failure; [`Error::Parse`] naming the line when it is not UTF-8.
    pub fn advance(&mut self) -> Result<bool> {
        let mut buf = std::mem::take(&mut self.text).into_bytes();
        buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| Error::io(&self.path, e))?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.line == 1 && !self.mid_file && buf.starts_with(BOM) {
            buf.drain(..BOM.len());
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        match String::from_utf8(buf) {
            Ok(s) => {
                self.text = s;
                Ok(true)
            }
            Err(e) => Err(self.error(format!(
                "invalid UTF-8 at byte {} of the line",
                e.utf8_error().valid_up_to()
            ))),
        }
    }

    /// Call `f` with every remaining line (and the reader, for [`LineReader::error`] and
    /// [`LineReader::fields`]): the one loop of the line-based readers.
    ///
    /// # Errors
    /// As [`LineReader::advance`] and `f`; a file without any line is an error,
    /// `file is empty: no {what}`.
    pub fn each_line<E: From<Error>>(
        mut self,
        what: &str,
        mut f: impl FnMut(&Self, &str) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        while self.advance()? {
            f(&self, self.line())?;
        }
        if self.line == 0 {
            let reason = format!("file is empty: no {what}");
            return Err(Error::parse(&self.path, Location::File, reason).into());
        }
        Ok(())
    }

    /// The sentence of `line` in a sentence file: for BUCC (`bucc`), the second of exactly two
    /// tab-separated fields, both non-empty; otherwise the line, which must not be blank. The
    /// one check of `bitext embed`'s streaming reader and of a sharded plan's embed steps.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the line.
    pub fn sentence<'a>(&self, line: &'a str, bucc: bool) -> Result<&'a str> {
        if bucc {
            let fields = self.fields(line, 2, "id<TAB>sentence")?;
            if fields[0].trim().is_empty() || fields[1].trim().is_empty() {
                return Err(self.error("empty id or sentence"));
            }
            Ok(fields[1])
        } else if line.trim().is_empty() {
            Err(self.error("empty line"))
        } else {
            Ok(line)
        }
    }

    /// Split `line` on tabs, requiring exactly `n` fields (`what` describes them, e.g.
    /// `"id<TAB>sentence"`); the error names the line and says how many were found.
    ///
    /// # Errors
    /// [`Error::Parse`] for a line with another number of fields.
    pub fn fields<'a>(&self, line: &'a str, n: usize, what: &str) -> Result<Vec<&'a str>> {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() == n {
            return Ok(fields);
        }
        Err(if fields.len() == 1 {
            self.error(format!("missing tab: expected {what}"))
        } else {
            self.error(format!(
                "expected {n} tab-separated fields ({what}), found {}",
                fields.len()
            ))
        })
    }
}

/// The UTF-8 byte-order mark, which some editors (Notepad, Excel's "UTF-8" CSV) put at the start
/// of a text file.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte-order mark: every text reader of bitext calls it on the
/// start of a file (the mark would otherwise end up inside the first id, word or field).
#[must_use]
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Reject text that cannot be written as one TSV field (tabs or line breaks inside).
pub(crate) fn check_field(path: &Path, record: usize, name: &str, value: &str) -> Result<()> {
    if let Some(c) = value.chars().find(|&c| c == '\t' || c == '\n' || c == '\r') {
        return Err(Error::parse(
            path,
            Location::Line(record + 1),
            format!("{name} contains {c:?}, which cannot be written in a TSV field"),
        ));
    }
    Ok(())
}

/// A 64-bit checksum of `bytes`, 8 bytes at a time, the same on every machine: what files
/// that record their own integrity (saved quantised copies, sharded mining's completion
/// records) store and check. Not cryptographic: it catches truncation and corruption.
#[must_use]
pub fn checksum(bytes: &[u8]) -> u64 {
    let mix = |h: u64, x: u64| (h.rotate_left(29) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut chunks = bytes.chunks_exact(8);
    let mut h = bytes.len() as u64;
    for c in &mut chunks {
        h = mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    chunks
        .remainder()
        .iter()
        .fold(h, |h, &b| mix(h, u64::from(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_reader_drops_a_byte_order_mark_at_the_start_only() {
        let data = b"\xEF\xBB\xBFde-1\tHallo\r\n\xEF\xBB\xBFx\n";
        let mut r = LineReader::new("bom.txt", &data[..]);
        assert!(r.advance().unwrap());
        assert_eq!(r.line(), "de-1\tHallo");
        assert!(r.advance().unwrap());
        // Inside the file it is text (U+FEFF), kept as it is.
        assert_eq!(r.line(), "\u{feff}x");
        assert!(!r.advance().unwrap());
        // A file that is only a mark has one empty line.
        let mut r = LineReader::new("bom.txt", BOM);
        assert!(r.advance().unwrap());
        assert_eq!(r.line(), "");
        assert_eq!(strip_bom(b"\xEF\xBB\xBF{}"), b"{}");
        assert_eq!(strip_bom(b"{}"), b"{}");
    }

    #[test]
    fn line_reader_strips_terminators_and_numbers_lines() {
        let data = b"a\r\nb\n\nc";
        let mut r = LineReader::new("t.txt", &data[..]);
        let mut got = Vec::new();
        while r.advance().unwrap() {
            got.push((r.line_number(), r.line().to_string()));
        }
        assert_eq!(
            got,
            vec![
                (1, "a".into()),
                (2, "b".into()),
                (3, String::new()),
                (4, "c".into())
            ]
        );
    }

    #[test]
    fn line_reader_reports_invalid_utf8_with_line() {
        let data = b"ok\nbad \xff here\n";
        let mut r = LineReader::new("t.txt", &data[..]);
        r.advance().unwrap();
        let e = r.advance().unwrap_err().to_string();
        assert_eq!(e, "t.txt:2: invalid UTF-8 at byte 4 of the line");
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
        let mut f = AtomicFile::create_text(&dest).unwrap();
        f.write_all(b"a\tb\n").unwrap();
        assert!(!dest.exists());
        f.commit().unwrap();
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
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"hello").unwrap();
        assert!(!dest.exists());
        f.commit().unwrap();
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
}
