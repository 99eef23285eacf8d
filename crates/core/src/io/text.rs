//! Plain text files of one sentence per line, and line-parallel pairs of them (line `i` of the
//! source file translates line `i` of the target file).

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Location, Result};
use crate::io::{AtomicFile, LineReader};

/// What to do with a line that is empty (or only whitespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmptyLines {
    /// An empty line is an error naming the file and line (the default: an empty sentence has
    /// no embedding worth mining).
    #[default]
    Reject,
    /// Keep empty lines as empty strings (filtering keeps every input line).
    Keep,
}

/// Read every line of `path`.
///
/// # Errors
/// Missing file, invalid UTF-8 (with line), an empty line under [`EmptyLines::Reject`], or a file
/// with no lines at all.
pub fn read_lines(path: impl AsRef<Path>, empty: EmptyLines) -> Result<Vec<String>> {
    let mut out = Vec::new();
    LineReader::open(path)?.each_line("lines", |r, line| {
        if empty == EmptyLines::Reject && line.trim().is_empty() {
            return Err(r.error("empty line"));
        }
        out.push(line.to_string());
        Ok(())
    })?;
    Ok(out)
}

/// Read two line-parallel files.
///
/// # Errors
/// As [`read_lines`] for each file; different line counts (naming both files and counts).
pub fn read_parallel(
    src: impl AsRef<Path>,
    tgt: impl AsRef<Path>,
    empty: EmptyLines,
) -> Result<(Vec<String>, Vec<String>)> {
    let (src, tgt) = (src.as_ref(), tgt.as_ref());
    let a = read_lines(src, empty)?;
    let b = read_lines(tgt, empty)?;
    if a.len() != b.len() {
        let (short, long, n) = if a.len() < b.len() {
            (src, tgt, a.len())
        } else {
            (tgt, src, b.len())
        };
        return Err(Error::parse(
            short,
            Location::Line(n),
            format!(
                "file ends after {n} lines but the parallel file {} has {}",
                long.display(),
                a.len().max(b.len())
            ),
        ));
    }
    Ok((a, b))
}

/// Write one line per string (atomically). When the first string starts with U+FEFF, a
/// byte-order mark is written before it, so that readers, which drop a leading mark, give the
/// text back whole.
///
/// # Errors
/// [`Error::Io`]; a string holding a line break (it would become two lines).
pub fn write_lines<S: AsRef<str>>(path: impl AsRef<Path>, lines: &[S]) -> Result<()> {
    let path = path.as_ref();
    let mut out = AtomicFile::create_text(path)?;
    if lines
        .first()
        .is_some_and(|l| l.as_ref().starts_with('\u{feff}'))
    {
        out.write_all(super::BOM).map_err(|e| out.err(e))?;
    }
    for (i, l) in lines.iter().enumerate() {
        let l = l.as_ref();
        if l.contains(['\n', '\r']) {
            return Err(Error::parse(
                path,
                Location::Line(i + 1),
                "text contains a line break",
            ));
        }
        writeln!(out, "{l}").map_err(|e| out.err(e))?;
    }
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lines_round_trip(lines in proptest::collection::vec("[^\r\n]{0,20}[a-zäöü0-9]", 1..30)) {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("t.txt");
            write_lines(&p, &lines).unwrap();
            prop_assert_eq!(read_lines(&p, EmptyLines::Reject).unwrap(), lines);
        }
    }

    #[test]
    fn parallel_mismatch_and_empty_lines() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.de");
        let b = d.path().join("b.en");
        std::fs::write(&a, "eins\nzwei\ndrei\n").unwrap();
        std::fs::write(&b, "one\ntwo\n").unwrap();
        let e = read_parallel(&a, &b, EmptyLines::Reject)
            .unwrap_err()
            .to_string();
        assert!(e.contains("b.en:2: file ends after 2 lines"), "{e}");
        assert!(e.contains("a.de has 3"), "{e}");
        std::fs::write(&b, "one\n\nthree\n").unwrap();
        let e = read_parallel(&a, &b, EmptyLines::Reject)
            .unwrap_err()
            .to_string();
        assert!(e.contains("b.en:2: empty line"), "{e}");
        let (x, y) = read_parallel(&a, &b, EmptyLines::Keep).unwrap();
        assert_eq!((x.len(), y[1].as_str()), (3, ""));
        std::fs::write(&b, "").unwrap();
        assert!(
            read_lines(&b, EmptyLines::Keep)
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        assert!(write_lines(d.path().join("w"), &["a\nb"]).is_err());
    }
}
