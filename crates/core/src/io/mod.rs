//! File formats shared by every crate, and the two mechanisms all of them use: [`AtomicFile`]
//! (an output is written to a temporary file and renamed into place, or, for a device, FIFO or
//! socket, written in place: [`output`]) and [`LineReader`] (text read line by line with UTF-8
//! checked per line, so errors name the line).
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
//! | skipped lines `line<TAB>reason<TAB>text` ([`rejects::BadLines`]) | [`rejects`] |
//! | embedding files written block by block (raw, `.npy`) | [`writer`] |
//!
//! Text is read and written as streams ([`stream`]): `-` is standard input or output, and
//! `.gz`, `.xz` and `.zst` files are (de)compressed by extension, in every text reader
//! ([`LineReader::open`]) and text writer ([`AtomicFile::create_text`]).

pub mod beads;
pub mod bucc;
pub mod npy;
pub mod output;
pub mod proto;
pub mod raw;
pub mod rejects;
pub mod stream;
pub mod text;
pub mod tsv;
pub mod vec;
pub mod writer;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::error::{Error, Location, Result};
use crate::io::rejects::{BadLines, Rejected};
pub use output::{AtomicFile, Placement, Special, TempPath, check_output, placement};
pub use stream::{Input, STDIO, is_stdio};

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
    /// [`Error::Io`] on read failure; [`Error::Parse`] naming the line when it is not UTF-8
    /// (the reader then holds the line with U+FFFD in place of the bad bytes, and reads on).
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
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                // Kept (lossy) for a reader that skips the line and reports it.
                self.text = String::from_utf8_lossy(e.as_bytes()).into_owned();
                Err(self.error(format!("invalid UTF-8 at byte {at} of the line")))
            }
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
        Ok(self.some_line(what)?)
    }

    /// [`LineReader::each_line`] under `bad`: with [`BadLines::Skip`], a line that is not UTF-8
    /// or that `f` refuses with an error at that line ([`Error::Parse`] at a
    /// [`Location::Line`]) is left out, and returned with its number, reason and text once the
    /// file is read (`f` must keep nothing of a line it refuses); with [`BadLines::Error`] the
    /// first such line is the error, as in [`LineReader::each_line`].
    ///
    /// # Errors
    /// As [`LineReader::each_line`], less the lines skipped.
    pub fn each_line_skipping(
        mut self,
        what: &str,
        bad: BadLines,
        f: impl FnMut(&Self, &str) -> Result<()>,
    ) -> Result<Vec<Rejected>> {
        let mut rejected = Vec::new();
        let mut f = f;
        while self.advance_skipping(bad, &mut rejected, &mut f)? {}
        self.some_line(what)?;
        Ok(rejected)
    }

    /// Move to the next line that reads and that `check` accepts (`false` at the end of the
    /// file): under [`BadLines::Skip`], each line before it that is not UTF-8 or that `check`
    /// refuses with an error at that line is pushed to `rejected` (its number, reason and
    /// text); under [`BadLines::Error`] the first is the error.
    ///
    /// # Errors
    /// As [`LineReader::advance`] and `check`, less the lines skipped.
    pub fn advance_skipping(
        &mut self,
        bad: BadLines,
        rejected: &mut Vec<Rejected>,
        mut check: impl FnMut(&Self, &str) -> Result<()>,
    ) -> Result<bool> {
        loop {
            let read = match self.advance() {
                Ok(false) => return Ok(false),
                Ok(true) => check(self, self.line()),
                Err(e) => Err(e),
            };
            match read {
                Ok(()) => return Ok(true),
                Err(e) => rejected.push(Rejected::of(bad, e, self.line())?),
            }
        }
    }

    /// After reading: `file is empty: no {what}` when the file had no line at all.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the file.
    pub fn some_line(&self, what: &str) -> Result<()> {
        if self.line == 0 {
            let reason = format!("file is empty: no {what}");
            return Err(Error::parse(&self.path, Location::File, reason));
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
}
