//! What a reader does with a line it cannot read ([`BadLines`]), and the rejects file that
//! keeps every skipped line ([`RejectsWriter`]): `line<TAB>reason<TAB>text`, the text last and
//! verbatim (invalid UTF-8 replaced by U+FFFD), so that nothing is skipped silently.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Location, Result};
use crate::io::AtomicFile;

/// What a reader does with a line it cannot read: text that is not UTF-8, too few columns, an
/// empty field where one is needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BadLines {
    /// Stop with an error naming the file, the line and the reason (the default).
    #[default]
    Error,
    /// Skip the line and keep it, with its number and the reason, as a [`Rejected`].
    Skip,
}

/// A line a reader skipped under [`BadLines::Skip`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// 1-based line number in its file.
    pub line: usize,
    /// Why it was skipped, in words.
    pub reason: String,
    /// The line without its terminator (invalid UTF-8 replaced by U+FFFD).
    pub text: String,
}

impl Rejected {
    /// The [`Rejected`] of an error at a line under [`BadLines::Skip`] (its reason and the
    /// line's `text`), or the error back when it is not about one line (an I/O error, a
    /// problem of the whole file) or the policy is [`BadLines::Error`].
    ///
    /// # Errors
    /// `error` itself when the line cannot be skipped.
    pub fn of(policy: BadLines, error: Error, text: &str) -> Result<Self> {
        match (policy, error) {
            (
                BadLines::Skip,
                Error::Parse {
                    at: Location::Line(line),
                    reason,
                    ..
                },
            ) => Ok(Self {
                line,
                reason,
                text: text.to_string(),
            }),
            (_, e) => Err(e),
        }
    }
}

/// Writes [`Rejected`] lines, `line<TAB>reason<TAB>text` each, atomically on
/// [`RejectsWriter::commit`].
#[derive(Debug)]
pub struct RejectsWriter {
    out: AtomicFile,
    count: usize,
}

impl RejectsWriter {
    /// Create the rejects file `path`.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self {
            out: AtomicFile::create_text(path)?,
            count: 0,
        })
    }

    /// Write `rejected` (a reason's tabs and line breaks become spaces; the text cannot hold
    /// a line break).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn write(&mut self, rejected: &[Rejected]) -> Result<()> {
        for r in rejected {
            let reason = r.reason.replace(['\t', '\n', '\r'], " ");
            writeln!(self.out, "{}\t{reason}\t{}", r.line, r.text).map_err(|e| self.out.err(e))?;
            self.count += 1;
        }
        Ok(())
    }

    /// The lines written so far.
    #[must_use]
    pub fn count(&self) -> usize {
        self.count
    }

    /// Finish: rename into place.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn commit(self) -> Result<()> {
        self.out.commit()
    }
}

/// Each rejected line as `(line, reason, text)`, for the tests of the readers.
#[cfg(test)]
pub(crate) fn triples(rejected: &[Rejected]) -> Vec<(usize, &str, &str)> {
    rejected
        .iter()
        .map(|r| (r.line, r.reason.as_str(), r.text.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_line_errors_are_skipped_and_only_under_skip() {
        let at_line = || Error::parse("f.tsv", Location::Line(7), "empty source field");
        let r = Rejected::of(BadLines::Skip, at_line(), "a\t").unwrap();
        assert_eq!(
            (r.line, r.reason.as_str(), r.text.as_str()),
            (7, "empty source field", "a\t")
        );
        let e = Rejected::of(BadLines::Error, at_line(), "a\t").unwrap_err();
        assert_eq!(e.to_string(), "f.tsv:7: empty source field");
        let whole = Error::parse("f.tsv", Location::File, "file is empty");
        assert!(Rejected::of(BadLines::Skip, whole, "").is_err());
        let io = Error::io("f.tsv", std::io::Error::other("disk"));
        assert!(Rejected::of(BadLines::Skip, io, "").is_err());
    }

    #[test]
    fn a_skipping_reader_reads_on_and_keeps_each_bad_line() {
        use crate::io::LineReader;
        use crate::io::tsv::BitextTsvReader;
        let bytes = b"\xef\xbb\xbfid\tHallo\tHello\nx\tbad \xff byte\tok\nshort\ny\t \tempty\nz\tGut\tGood\n";
        let open = || BitextTsvReader::new(LineReader::new("c.tsv", &bytes[..]), 1, 2).unwrap();
        let e = open().collect::<Result<Vec<_>>>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.tsv:2: invalid UTF-8 at byte 6 of the line"
        );
        let mut r = open().bad_lines(BadLines::Skip);
        let kept: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
        let lines: Vec<_> = kept.iter().map(|x| (x.line, x.src.as_str())).collect();
        assert_eq!(lines, [(1, "Hallo"), (5, "Gut")]);
        let rejected = r.take_rejected();
        assert_eq!(
            triples(&rejected),
            [
                (
                    2,
                    "invalid UTF-8 at byte 6 of the line",
                    "x\tbad \u{fffd} byte\tok"
                ),
                (
                    3,
                    "1 tab-separated fields, but 3 are needed (source in column 2, target in \
                     column 3)",
                    "short"
                ),
                (4, "empty source field", "y\t \tempty"),
            ]
        );
        assert!(r.take_rejected().is_empty());
    }

    #[test]
    fn the_rejects_file_keeps_number_reason_and_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rejects.tsv");
        let mut w = RejectsWriter::create(&path).unwrap();
        w.write(&[
            Rejected {
                line: 3,
                reason: "invalid UTF-8\tat byte 2".into(),
                text: "a\u{fffd}\tb".into(),
            },
            Rejected {
                line: 9,
                reason: "1 tab-separated fields".into(),
                text: "x".into(),
            },
        ])
        .unwrap();
        assert_eq!(w.count(), 2);
        w.commit().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "3\tinvalid UTF-8 at byte 2\ta\u{fffd}\tb\n9\t1 tab-separated fields\tx\n"
        );
    }
}
