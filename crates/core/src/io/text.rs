//! Plain text files of one sentence per line, and line-parallel pairs of them (line `i` of the
//! source file translates line `i` of the target file).

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Location, Result};
use crate::io::rejects::{BadLines, Rejected};
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
    Ok(read_lines_skipping(path, empty, BadLines::Error)?.0)
}

/// [`read_lines`] under `bad`: with [`BadLines::Skip`], a line that is not UTF-8 (or empty,
/// under [`EmptyLines::Reject`]) is left out and returned with its number, reason and text.
///
/// # Errors
/// As [`read_lines`], less the lines skipped.
pub fn read_lines_skipping(
    path: impl AsRef<Path>,
    empty: EmptyLines,
    bad: BadLines,
) -> Result<(Vec<String>, Vec<Rejected>)> {
    let (kept, rejected) = read_numbered(path.as_ref(), empty, bad)?;
    Ok((kept.into_iter().map(|(_, l)| l).collect(), rejected))
}

/// The lines kept of a file, each with its 1-based number, and those skipped.
type Numbered = (Vec<(usize, String)>, Vec<Rejected>);

/// The lines of `path` kept under `bad`, each with its 1-based number, and those skipped.
fn read_numbered(path: &Path, empty: EmptyLines, bad: BadLines) -> Result<Numbered> {
    let mut out = Vec::new();
    let rejected = LineReader::open(path)?.each_line_skipping("lines", bad, |r, line| {
        if empty == EmptyLines::Reject && line.trim().is_empty() {
            return Err(r.error("empty line"));
        }
        out.push((r.line_number(), line.to_string()));
        Ok(())
    })?;
    Ok((out, rejected))
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
    let (a, b, _) = read_parallel_skipping(src, tgt, empty, BadLines::Error)?;
    Ok((a, b))
}

/// [`read_parallel`] under `bad`: with [`BadLines::Skip`], line `i` of both files is left out
/// when it cannot be read in either (not UTF-8, or empty under [`EmptyLines::Reject`]), so that
/// the pairs kept stay in step; each pair left out is returned once, at its line number, with
/// the reason of each side that failed (`FILE: reason`, joined by `; `) and the text
/// `source<TAB>target`.
///
/// # Errors
/// As [`read_parallel`], less the pairs skipped: files of different line counts are an error
/// under either policy (which lines would pair is then unknown).
pub fn read_parallel_skipping(
    src: impl AsRef<Path>,
    tgt: impl AsRef<Path>,
    empty: EmptyLines,
    bad: BadLines,
) -> Result<(Vec<String>, Vec<String>, Vec<Rejected>)> {
    let (src, tgt) = (src.as_ref(), tgt.as_ref());
    let a = by_line(src, read_numbered(src, empty, bad)?);
    let b = by_line(tgt, read_numbered(tgt, empty, bad)?);
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
    let (mut s, mut t, mut rejected) = (Vec::new(), Vec::new(), Vec::new());
    for (line, (x, y)) in a.into_iter().zip(b).enumerate() {
        match (x, y) {
            (Ok(x), Ok(y)) => {
                s.push(x);
                t.push(y);
            }
            (x, y) => {
                let reasons: Vec<&str> = [&x, &y]
                    .into_iter()
                    .filter_map(|r| r.as_ref().err().map(|(why, _)| why.as_str()))
                    .collect();
                let text = |r: &std::result::Result<String, (String, String)>| match r {
                    Ok(l) | Err((_, l)) => l.clone(),
                };
                rejected.push(Rejected {
                    line: line + 1,
                    reason: reasons.join("; "),
                    text: format!("{}\t{}", text(&x), text(&y)),
                });
            }
        }
    }
    Ok((s, t, rejected))
}

/// Line `i` of `path` (from [`read_numbered`]) at index `i − 1`: its text, or the reason it was
/// skipped (`FILE: reason`) and its text.
fn by_line(
    path: &Path,
    (kept, rejected): Numbered,
) -> Vec<std::result::Result<String, (String, String)>> {
    let mut lines: Vec<_> = kept.into_iter().map(|(n, l)| (n, Ok(l))).collect();
    let name = crate::io::stream::input_name(path);
    lines.extend(rejected.into_iter().map(|r| {
        let why = format!("{}: {}", name.display(), r.reason);
        (r.line, Err((why, r.text)))
    }));
    lines.sort_unstable_by_key(|(n, _)| *n);
    lines.into_iter().map(|(_, l)| l).collect()
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
    use crate::io::rejects::triples;
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

    #[test]
    fn skipping_leaves_out_bad_lines_and_keeps_them() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.txt");
        std::fs::write(&p, b"eins\nzw\xffei\n  \nvier\n").unwrap();
        let e = read_lines_skipping(&p, EmptyLines::Reject, BadLines::Error).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("t.txt:2: invalid UTF-8 at byte 2 of the line")
        );
        let (kept, rejected) = read_lines_skipping(&p, EmptyLines::Reject, BadLines::Skip).unwrap();
        assert_eq!(kept, ["eins", "vier"]);
        assert_eq!(
            triples(&rejected),
            [
                (2, "invalid UTF-8 at byte 2 of the line", "zw\u{fffd}ei"),
                (3, "empty line", "  "),
            ]
        );
        // Empty lines kept are not bad.
        let (kept, rejected) = read_lines_skipping(&p, EmptyLines::Keep, BadLines::Skip).unwrap();
        assert_eq!((kept.len(), rejected.len()), (3, 1));
    }

    #[test]
    fn skipping_parallel_files_leaves_out_whole_pairs() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("a.de");
        let b = d.path().join("b.en");
        std::fs::write(&a, b"eins\n\ndr\xffei\nvier\nf\xfcnf\n").unwrap();
        std::fs::write(&b, b"one\ntwo\nthree\n\nfive\n").unwrap();
        let e = read_parallel_skipping(&a, &b, EmptyLines::Reject, BadLines::Error).unwrap_err();
        assert!(e.to_string().contains("a.de:2: empty line"), "{e}");
        let (s, t, rejected) =
            read_parallel_skipping(&a, &b, EmptyLines::Reject, BadLines::Skip).unwrap();
        assert_eq!((s, t), (vec!["eins".to_string()], vec!["one".to_string()]));
        let (an, bn) = (a.display(), b.display());
        let reasons = [
            format!("{an}: empty line"),
            format!("{an}: invalid UTF-8 at byte 2 of the line"),
            format!("{bn}: empty line"),
            format!("{an}: invalid UTF-8 at byte 1 of the line"),
        ];
        let texts = [
            "\ttwo",
            "dr\u{fffd}ei\tthree",
            "vier\t",
            "f\u{fffd}nf\tfive",
        ];
        let want: Vec<_> = (0..4)
            .map(|i| (i + 2, reasons[i].as_str(), texts[i]))
            .collect();
        assert_eq!(triples(&rejected), want);
        // Both sides bad: one pair, both reasons.
        std::fs::write(&b, b"one\n\nthree\n\nfive\n").unwrap();
        let (_, _, rejected) =
            read_parallel_skipping(&a, &b, EmptyLines::Reject, BadLines::Skip).unwrap();
        assert_eq!(
            rejected[0].reason,
            format!("{an}: empty line; {bn}: empty line")
        );
        // Files of different lengths cannot be paired, skipping or not.
        std::fs::write(&b, b"one\n").unwrap();
        let e = read_parallel_skipping(&a, &b, EmptyLines::Reject, BadLines::Skip).unwrap_err();
        assert!(
            e.to_string().contains("b.en:1: file ends after 1 lines"),
            "{e}"
        );
    }
}
