//! Tab-separated pair files:
//!
//! - mined pairs, `score<TAB>src<TAB>tgt` per line, as LASER's `mine_bitexts.py` and WikiMatrix
//!   write them ([`read_mined_pairs`], [`write_mined_pairs`]);
//! - bicleaner-style TSV: any number of columns, two of which hold the source and target
//!   sentences; a scorer appends one score column to each line unchanged
//!   ([`BitextTsvReader`], [`ScoredTsvWriter`]).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Location, Result};
use crate::io::rejects::{BadLines, Rejected};
use crate::io::text::EmptyLines;
use crate::io::{AtomicFile, LineReader, check_field};

/// One line of a mined-pairs file: a score and the two sides (row indices, sentence ids or
/// sentences).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MinedPair {
    /// Score (higher = more likely a translation).
    pub score: f64,
    /// Source side.
    pub src: String,
    /// Target side.
    pub tgt: String,
}

/// Parse a finite float, with an error naming the line.
fn parse_score<R: BufRead>(r: &LineReader<R>, s: &str) -> Result<f64> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| r.error(format!("score {s:?} is not a number")))?;
    if !v.is_finite() {
        return Err(r.error(format!("score {s} is not a finite number")));
    }
    Ok(v)
}

/// Read a mined-pairs file (`score<TAB>src<TAB>tgt`, or with a calibration's probability as a
/// fourth column, as `bitext mine --calibration` writes it: read, checked and not kept).
///
/// # Errors
/// Missing file, invalid UTF-8, a line without three or four fields, a score that is not a
/// finite number, a fourth field that is not a probability, an empty side, or an empty file —
/// naming the file and line.
pub fn read_mined_pairs(path: impl AsRef<Path>) -> Result<Vec<MinedPair>> {
    let mut out = Vec::new();
    LineReader::open(path)?.each_line("pairs", |r, line| {
        let with_probability = line.split('\t').count() == 4;
        let (n, what) = if with_probability {
            (4, "score<TAB>source<TAB>target<TAB>probability")
        } else {
            (3, "score<TAB>source<TAB>target")
        };
        let f = r.fields(line, n, what)?;
        if with_probability && !parse_score(r, f[3]).is_ok_and(|p| (0.0..=1.0).contains(&p)) {
            return Err(r.error(format!("probability {:?} is not a number in [0, 1]", f[3])));
        }
        let score = parse_score(r, f[0])?;
        if f[1].is_empty() || f[2].is_empty() {
            return Err(r.error("empty source or target field"));
        }
        let (src, tgt) = (f[1].to_string(), f[2].to_string());
        out.push(MinedPair { score, src, tgt });
        Ok(())
    })?;
    Ok(out)
}

/// Write mined pairs, one `score<TAB>src<TAB>tgt` line each, in the given order (atomically).
/// Scores are written in the shortest form that reads back to the same `f64`.
///
/// # Errors
/// [`Error::Io`]; a non-finite score, or a side holding a tab or line break (naming the line it
/// would have been written to).
pub fn write_mined_pairs(path: impl AsRef<Path>, pairs: &[MinedPair]) -> Result<()> {
    let path = path.as_ref();
    let mut out = AtomicFile::create_text(path)?;
    for (i, p) in pairs.iter().enumerate() {
        if !p.score.is_finite() {
            return Err(Error::parse(
                path,
                Location::Line(i + 1),
                "score is not finite",
            ));
        }
        check_field(path, i, "source", &p.src)?;
        check_field(path, i, "target", &p.tgt)?;
        writeln!(out, "{}\t{}\t{}", p.score, p.src, p.tgt).map_err(|e| out.err(e))?;
    }
    out.commit()
}

/// One line of a bicleaner-style TSV: the whole line, kept verbatim, and its source and target
/// fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitextRecord {
    /// 1-based line number.
    pub line: usize,
    /// The line without its terminator.
    pub raw: String,
    /// The source column's text.
    pub src: String,
    /// The target column's text.
    pub tgt: String,
}

/// Reads the source and target columns of a bicleaner-style TSV, line by line.
#[derive(Debug)]
pub struct BitextTsvReader<R = super::Input> {
    reader: LineReader<R>,
    src_col: usize,
    tgt_col: usize,
    empty: EmptyLines,
    bad: BadLines,
    rejected: Vec<Rejected>,
}

impl BitextTsvReader {
    /// Open `path`, taking the source from column `src_col` and the target from `tgt_col`
    /// (0-based; bicleaner's `--scol 3 --tcol 4` are `2` and `3` here).
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::InvalidArgument`] when the columns are equal.
    pub fn open(path: impl AsRef<Path>, src_col: usize, tgt_col: usize) -> Result<Self> {
        Self::new(LineReader::open(path)?, src_col, tgt_col)
    }
}

impl<R: BufRead> BitextTsvReader<R> {
    /// Read from a line reader.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the columns are equal.
    pub fn new(reader: LineReader<R>, src_col: usize, tgt_col: usize) -> Result<Self> {
        if src_col == tgt_col {
            return Err(Error::InvalidArgument(format!(
                "source and target are both in column {}",
                src_col + 1
            )));
        }
        Ok(Self {
            reader,
            src_col,
            tgt_col,
            empty: EmptyLines::Reject,
            bad: BadLines::Error,
            rejected: Vec::new(),
        })
    }

    /// Choose what a line that cannot be read does (default: error): with
    /// [`BadLines::Skip`], a line that is not UTF-8, has too few columns or (when rejected)
    /// an empty field is skipped and kept for [`BitextTsvReader::take_rejected`].
    #[must_use]
    pub fn bad_lines(mut self, bad: BadLines) -> Self {
        self.bad = bad;
        self
    }

    /// The lines skipped since the last call, in file order.
    pub fn take_rejected(&mut self) -> Vec<Rejected> {
        std::mem::take(&mut self.rejected)
    }

    /// Choose what an empty source or target field does (default: error).
    #[must_use]
    pub fn empty_fields(mut self, empty: EmptyLines) -> Self {
        self.empty = empty;
        self
    }

    /// The next record, or `None` at the end of the file; under [`BadLines::Skip`], the next
    /// one that can be read.
    ///
    /// # Errors
    /// Invalid UTF-8, too few columns, or (by default) an empty source or target — naming the
    /// file and line (unless skipped); I/O errors.
    pub fn next_record(&mut self) -> Result<Option<BitextRecord>> {
        loop {
            match self.read_record() {
                Err(e) => {
                    let rejected = Rejected::of(self.bad, e, self.reader.line())?;
                    self.rejected.push(rejected);
                }
                ok => return ok,
            }
        }
    }

    fn read_record(&mut self) -> Result<Option<BitextRecord>> {
        let (sc, tc, empty) = (self.src_col, self.tgt_col, self.empty);
        let r = &mut self.reader;
        if !r.advance()? {
            return Ok(None);
        }
        let raw = r.line().to_string();
        let fields: Vec<&str> = raw.split('\t').collect();
        let need = sc.max(tc) + 1;
        if fields.len() < need {
            // Columns counted from 1, as every flag and message of bitext counts them.
            return Err(r.error(format!(
                "{} tab-separated fields, but {need} are needed (source in column {}, target in \
                 column {})",
                fields.len(),
                sc + 1,
                tc + 1
            )));
        }
        let (src, tgt) = (fields[sc].to_string(), fields[tc].to_string());
        if empty == EmptyLines::Reject {
            for (name, v) in [("source", &src), ("target", &tgt)] {
                if v.trim().is_empty() {
                    return Err(r.error(format!("empty {name} field")));
                }
            }
        }
        Ok(Some(BitextRecord {
            line: r.line_number(),
            raw,
            src,
            tgt,
        }))
    }

    /// Replace `batch` with the next records, at most `n` of them (`n` at least 1): `false`
    /// when none was left.
    ///
    /// # Errors
    /// As [`BitextTsvReader::next_record`].
    pub fn next_batch(&mut self, n: usize, batch: &mut Vec<BitextRecord>) -> Result<bool> {
        batch.clear();
        while batch.len() < n.max(1) {
            match self.next_record()? {
                Some(r) => batch.push(r),
                None => break,
            }
        }
        Ok(!batch.is_empty())
    }

    /// `FILE: lines A–B`, the lines a batch of [`BitextTsvReader::next_batch`] came from, for
    /// an error about the whole batch (empty for an empty batch).
    #[must_use]
    pub fn batch_lines(&self, batch: &[BitextRecord]) -> String {
        match (batch.first(), batch.last()) {
            (Some(a), Some(b)) => {
                format!("{}: lines {}–{}", self.path().display(), a.line, b.line)
            }
            _ => String::new(),
        }
    }

    /// The file's name.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.reader.path()
    }
}

impl<R: BufRead> Iterator for BitextTsvReader<R> {
    type Item = Result<BitextRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Writes each input line verbatim with one score column appended (atomically, on
/// [`ScoredTsvWriter::commit`]).
#[derive(Debug)]
pub struct ScoredTsvWriter {
    out: AtomicFile,
    path: PathBuf,
    decimals: Option<usize>,
    lines: usize,
}

impl ScoredTsvWriter {
    /// Create the output.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        Ok(Self {
            out: AtomicFile::create_text(path)?,
            path: path.to_path_buf(),
            decimals: None,
            lines: 0,
        })
    }

    /// Write scores with a fixed number of decimals (bicleaner uses 3); by default the
    /// shortest form that reads back exactly.
    #[must_use]
    pub fn decimals(mut self, decimals: usize) -> Self {
        self.decimals = Some(decimals);
        self
    }

    /// Append `scores` to `raw` as columns, in order (e.g. a raw score and a calibrated one).
    ///
    /// # Errors
    /// As [`ScoredTsvWriter::write`], for any of the scores.
    pub fn write_scores(&mut self, raw: &str, scores: &[f64]) -> Result<()> {
        let Some((&last, rest)) = scores.split_last() else {
            return self.write(raw, f64::NAN);
        };
        let mut line = raw.to_string();
        for &s in rest {
            if !s.is_finite() {
                return Err(Error::parse(
                    &self.path,
                    Location::Line(self.lines + 1),
                    format!("score {s} is not finite"),
                ));
            }
            line.push('\t');
            line.push_str(&match self.decimals {
                Some(d) => format!("{s:.d$}"),
                None => s.to_string(),
            });
        }
        self.write(&line, last)
    }

    /// Append `score` to `raw` (a line without terminator) and write it.
    ///
    /// # Errors
    /// [`Error::Io`]; a non-finite score or a line break in `raw`.
    pub fn write(&mut self, raw: &str, score: f64) -> Result<()> {
        self.lines += 1;
        let at = Location::Line(self.lines);
        if !score.is_finite() {
            return Err(Error::parse(
                &self.path,
                at,
                format!("score {score} is not finite"),
            ));
        }
        if raw.contains(['\n', '\r']) {
            return Err(Error::parse(&self.path, at, "line contains a line break"));
        }
        if self.lines == 1 && raw.starts_with('\u{feff}') {
            // Readers drop a leading byte-order mark: write one so that the text stays whole.
            self.out
                .write_all(super::BOM)
                .map_err(|e| self.out.err(e))?;
        }
        let res = match self.decimals {
            Some(d) => writeln!(self.out, "{raw}\t{score:.d$}"),
            None => writeln!(self.out, "{raw}\t{score}"),
        };
        res.map_err(|e| self.out.err(e))
    }

    /// Finish: rename into place.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn commit(self) -> Result<()> {
        self.out.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn mined_pairs_round_trip(
            items in proptest::collection::vec((-1e6f64..1e6, "[^\t\r\n]{0,20}[a-zäöü0-9]", "[^\t\r\n]{0,20}[a-zäöü0-9]"), 1..20)
        ) {
            let pairs: Vec<MinedPair> =
                items.into_iter().map(|(score, src, tgt)| MinedPair { score, src, tgt }).collect();
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("m.tsv");
            write_mined_pairs(&p, &pairs).unwrap();
            prop_assert_eq!(read_mined_pairs(&p).unwrap(), pairs);
        }

        #[test]
        fn bicleaner_round_trip(rows in proptest::collection::vec(("[a-z]{1,5}", "[^\t\r\n]{0,20}[a-zäöü0-9]", "[^\t\r\n]{0,20}[a-zäöü0-9]", -10f64..10.0), 1..15)) {
            let d = tempfile::tempdir().unwrap();
            let input = d.path().join("in.tsv");
            let text: String = rows.iter().map(|(u, s, t, _)| format!("{u}\t{u}\t{s}\t{t}\n")).collect();
            std::fs::write(&input, text).unwrap();
            let output = d.path().join("out.tsv");
            let mut w = ScoredTsvWriter::create(&output).unwrap();
            let reader = BitextTsvReader::open(&input, 2, 3).unwrap();
            for (rec, (_, s, t, score)) in reader.zip(&rows) {
                let rec = rec.unwrap();
                prop_assert_eq!(&rec.src, s);
                prop_assert_eq!(&rec.tgt, t);
                w.write(&rec.raw, *score).unwrap();
            }
            w.commit().unwrap();
            let back = BitextTsvReader::open(&output, 2, 3).unwrap();
            for (rec, (_, _, _, score)) in back.zip(&rows) {
                let rec = rec.unwrap();
                let last: f64 = rec.raw.rsplit('\t').next().unwrap().parse().unwrap();
                prop_assert_eq!(last, *score);
            }
        }
    }

    #[test]
    fn mined_pair_errors() {
        let d = tempfile::tempdir().unwrap();
        let cases: [(&str, &str, &str); 7] = [
            (
                "a",
                "0.5\tx\ty\nabc\tx\ty\n",
                "a:2: score \"abc\" is not a number",
            ),
            ("b", "0.5\tx\n", "b:1: expected 3 tab-separated fields"),
            ("c", "NaN\tx\ty\n", "c:1: score NaN is not a finite number"),
            ("e", "", "e: file is empty"),
            ("f", "0.1\t\ty\n", "f:1: empty source or target"),
            (
                "g",
                "0.5\tx\ty\t1.5\n",
                "g:1: probability \"1.5\" is not a number in [0, 1]",
            ),
            (
                "h",
                "0.5\tx\ty\t0.1\t2\n",
                "h:1: expected 3 tab-separated fields",
            ),
        ];
        // A calibration's probability as a fourth column is read and left out.
        let p = d.path().join("cal");
        std::fs::write(&p, "0.5\tx\ty\t0.25\n0.25\tz\tw\t0\n").unwrap();
        let read = read_mined_pairs(&p).unwrap();
        assert_eq!((read.len(), read[1].src.as_str()), (2, "z"));
        for (name, content, want) in cases {
            let p = d.path().join(name);
            std::fs::write(&p, content).unwrap();
            let e = read_mined_pairs(&p).unwrap_err().to_string();
            assert!(e.contains(want), "{name}: {e}");
        }
        let bad = [MinedPair {
            score: 1.0,
            src: "a\tb".into(),
            tgt: "c".into(),
        }];
        assert!(
            write_mined_pairs(d.path().join("w"), &bad)
                .unwrap_err()
                .to_string()
                .contains("w:1")
        );
    }

    #[test]
    fn batches_cover_the_file_in_order_and_name_their_lines() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("in.tsv");
        let text: String = (1..=5).map(|i| format!("s{i}\tt{i}\n")).collect();
        std::fs::write(&p, text).unwrap();
        let mut r = BitextTsvReader::open(&p, 0, 1).unwrap();
        let mut batch = Vec::new();
        let mut seen = Vec::new();
        while r.next_batch(2, &mut batch).unwrap() {
            seen.push((batch.len(), r.batch_lines(&batch)));
        }
        let name = p.display();
        assert_eq!(
            seen,
            [
                (2, format!("{name}: lines 1–2")),
                (2, format!("{name}: lines 3–4")),
                (1, format!("{name}: lines 5–5")),
            ]
        );
        assert!(batch.is_empty() && r.batch_lines(&batch).is_empty());
    }

    #[test]
    fn bicleaner_errors_and_decimals() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("in.tsv");
        std::fs::write(&p, "u\tHallo\tHello\nu\tnur eins\n").unwrap();
        let mut r = BitextTsvReader::open(&p, 1, 2).unwrap();
        assert_eq!(r.next_record().unwrap().unwrap().tgt, "Hello");
        let e = r.next_record().unwrap_err().to_string();
        assert!(
            e.contains(
                "in.tsv:2: 2 tab-separated fields, but 3 are needed (source in column 2, target \
                 in column 3)"
            ),
            "{e}"
        );
        std::fs::write(&p, "u\t\tHello\n").unwrap();
        let e = BitextTsvReader::open(&p, 1, 2)
            .unwrap()
            .next_record()
            .unwrap_err()
            .to_string();
        assert!(e.contains("in.tsv:1: empty source field"), "{e}");
        let rec = BitextTsvReader::open(&p, 1, 2)
            .unwrap()
            .empty_fields(EmptyLines::Keep)
            .next_record()
            .unwrap()
            .unwrap();
        assert_eq!(rec.src, "");
        assert!(BitextTsvReader::open(&p, 1, 1).is_err());

        let out = d.path().join("o.tsv");
        let mut w = ScoredTsvWriter::create(&out).unwrap().decimals(3);
        w.write("a\tb", 0.123456).unwrap();
        assert!(w.write("a\tb", f64::NAN).is_err());
        w.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "a\tb\t0.123\n");
    }
}
