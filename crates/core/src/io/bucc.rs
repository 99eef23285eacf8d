//! BUCC shared-task files: sentence files (`id<TAB>sentence`, e.g. `de-000000001<TAB>Der …`) and
//! gold files (`src_id<TAB>tgt_id`).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Location, Result};
use crate::io::rejects::{BadLines, Rejected};
use crate::io::{AtomicFile, LineReader, check_field};

/// The sentences of one side of a BUCC corpus, in file order, with an id → row index map.
#[derive(Debug, Clone, Default)]
pub struct BuccSentences {
    path: PathBuf,
    ids: Vec<String>,
    sentences: Vec<String>,
    index: HashMap<String, usize>,
    /// The line of each row (1-based; rows follow lines unless lines were skipped).
    lines: Vec<usize>,
}

impl BuccSentences {
    /// Build from `(id, sentence)` pairs; `path` names the source in errors.
    ///
    /// # Errors
    /// An empty id or sentence, an id or sentence with a tab or line break, or a duplicate id
    /// (the error names both records, counted from 1).
    pub fn from_pairs(
        path: impl AsRef<Path>,
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self> {
        let mut s = Self {
            path: path.as_ref().to_path_buf(),
            ..Self::default()
        };
        for (id, sentence) in pairs {
            let line = s.ids.len() + 1;
            check_field(&s.path, line - 1, "id", &id)?;
            check_field(&s.path, line - 1, "sentence", &sentence)?;
            s.push(line, id, sentence)?;
        }
        Ok(s)
    }

    fn push(&mut self, line: usize, id: String, sentence: String) -> Result<()> {
        let at = Location::Line(line);
        if id.is_empty() {
            return Err(Error::parse(&self.path, at, "empty sentence id"));
        }
        if sentence.trim().is_empty() {
            return Err(Error::parse(
                &self.path,
                at,
                format!("sentence {id} is empty"),
            ));
        }
        match self.index.entry(id) {
            Entry::Occupied(e) => {
                return Err(Error::parse(
                    &self.path,
                    at,
                    format!(
                        "duplicate id {} (first on line {})",
                        e.key(),
                        self.lines[*e.get()]
                    ),
                ));
            }
            Entry::Vacant(v) => {
                self.ids.push(v.key().clone());
                v.insert(self.sentences.len());
            }
        }
        self.sentences.push(sentence);
        self.lines.push(line);
        Ok(())
    }

    /// The file these sentences came from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of sentences.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are none (never, for a file that was read).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The ids, in file order.
    #[must_use]
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// The sentences, in file order.
    #[must_use]
    pub fn sentences(&self) -> &[String] {
        &self.sentences
    }

    /// The line (1-based) of each row: `1..=len()` unless lines were skipped
    /// ([`read_bucc_sentences_skipping`]).
    #[must_use]
    pub fn lines(&self) -> &[usize] {
        &self.lines
    }

    /// Row index of `id`.
    #[must_use]
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    /// Id of row `i`.
    ///
    /// # Panics
    /// When `i >= len()`.
    #[must_use]
    pub fn id(&self, i: usize) -> &str {
        &self.ids[i]
    }

    /// Sentence of row `i`.
    ///
    /// # Panics
    /// When `i >= len()`.
    #[must_use]
    pub fn sentence(&self, i: usize) -> &str {
        &self.sentences[i]
    }
}

/// Read a BUCC sentence file.
///
/// # Errors
/// Missing file, invalid UTF-8, a line without exactly one tab, an empty id or sentence, a
/// duplicate id, or an empty file — each naming the file and line.
pub fn read_bucc_sentences(path: impl AsRef<Path>) -> Result<BuccSentences> {
    let path = path.as_ref();
    parse_bucc_sentences(LineReader::open(path)?)
}

/// Parse BUCC sentences from any line reader.
///
/// # Errors
/// As [`read_bucc_sentences`].
pub fn parse_bucc_sentences<R: BufRead>(r: LineReader<R>) -> Result<BuccSentences> {
    Ok(parse_bucc_skipping(r, BadLines::Error)?.0)
}

/// [`read_bucc_sentences`] under `bad`: with [`BadLines::Skip`], a line that cannot be read (not
/// UTF-8, not `id<TAB>sentence`, an empty id or sentence, a duplicate id) is left out and
/// returned with its number, reason and text.
///
/// # Errors
/// As [`read_bucc_sentences`], less the lines skipped.
pub fn read_bucc_sentences_skipping(
    path: impl AsRef<Path>,
    bad: BadLines,
) -> Result<(BuccSentences, Vec<Rejected>)> {
    parse_bucc_skipping(LineReader::open(path)?, bad)
}

fn parse_bucc_skipping<R: BufRead>(
    r: LineReader<R>,
    bad: BadLines,
) -> Result<(BuccSentences, Vec<Rejected>)> {
    let mut s = BuccSentences {
        path: r.path().to_path_buf(),
        ..BuccSentences::default()
    };
    let rejected = r.each_line_skipping("sentences", bad, |r, line| {
        let f = r.fields(line, 2, "id<TAB>sentence")?;
        s.push(r.line_number(), f[0].to_string(), f[1].to_string())
    })?;
    Ok((s, rejected))
}

/// Write a BUCC sentence file (atomically).
///
/// # Errors
/// [`Error::Io`]; an id or sentence holding a tab or line break.
pub fn write_bucc_sentences(path: impl AsRef<Path>, s: &BuccSentences) -> Result<()> {
    let path = path.as_ref();
    let mut out = AtomicFile::create_text(path)?;
    for (i, (id, sent)) in s.ids.iter().zip(&s.sentences).enumerate() {
        check_field(path, i, "id", id)?;
        check_field(path, i, "sentence", sent)?;
        writeln!(out, "{id}\t{sent}").map_err(|e| out.err(e))?;
    }
    out.commit()
}

/// Gold alignments of a BUCC corpus: `(source id, target id)` pairs in file order, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuccGold {
    path: PathBuf,
    pairs: Vec<(String, String)>,
}

impl BuccGold {
    /// Build from pairs; `path` names the source in errors.
    ///
    /// # Errors
    /// A duplicate pair, an empty id, or an id with a tab or line break.
    pub fn from_pairs(
        path: impl AsRef<Path>,
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let mut seen = HashMap::new();
        let mut out = Vec::new();
        for (i, (a, b)) in pairs.into_iter().enumerate() {
            check_field(&path, i, "source id", &a)?;
            check_field(&path, i, "target id", &b)?;
            push_gold(&path, i + 1, &mut seen, &mut out, a, b)?;
        }
        Ok(Self { path, pairs: out })
    }

    /// The gold file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pairs, in file order.
    #[must_use]
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// Number of gold pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Check that every gold id occurs in the sentence files.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the gold file, the line, the id and the sentence file it is
    /// missing from.
    pub fn check_ids(&self, src: &BuccSentences, tgt: &BuccSentences) -> Result<()> {
        for (i, (a, b)) in self.pairs.iter().enumerate() {
            for (id, side) in [(a, src), (b, tgt)] {
                if side.index_of(id).is_none() {
                    return Err(Error::parse(
                        &self.path,
                        Location::Line(i + 1),
                        format!("id {id} does not occur in {}", side.path().display()),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The pairs as row indices into the two sentence files.
    ///
    /// # Errors
    /// As [`BuccGold::check_ids`].
    pub fn to_indices(
        &self,
        src: &BuccSentences,
        tgt: &BuccSentences,
    ) -> Result<Vec<(usize, usize)>> {
        self.check_ids(src, tgt)?;
        Ok(self
            .pairs
            .iter()
            .map(|(a, b)| (src.index_of(a).unwrap_or(0), tgt.index_of(b).unwrap_or(0)))
            .collect())
    }
}

fn push_gold(
    path: &Path,
    line: usize,
    seen: &mut HashMap<(String, String), usize>,
    out: &mut Vec<(String, String)>,
    a: String,
    b: String,
) -> Result<()> {
    let at = Location::Line(line);
    if a.is_empty() || b.is_empty() {
        return Err(Error::parse(path, at, "empty id"));
    }
    match seen.entry((a, b)) {
        Entry::Occupied(e) => Err(Error::parse(
            path,
            at,
            format!(
                "duplicate pair {} {} (first on line {})",
                e.key().0,
                e.key().1,
                e.get()
            ),
        )),
        Entry::Vacant(v) => {
            out.push(v.key().clone());
            v.insert(line);
            Ok(())
        }
    }
}

/// Read a BUCC gold file.
///
/// # Errors
/// Missing file, invalid UTF-8, a line without exactly one tab, an empty id, a duplicate pair,
/// or an empty file — each naming the file and line.
pub fn read_bucc_gold(path: impl AsRef<Path>) -> Result<BuccGold> {
    let path = path.as_ref();
    let mut seen = HashMap::new();
    let mut pairs = Vec::new();
    LineReader::open(path)?.each_line("gold pairs", |r, line| {
        let f = r.fields(line, 2, "source id<TAB>target id")?;
        let (a, b) = (f[0].to_string(), f[1].to_string());
        push_gold(path, r.line_number(), &mut seen, &mut pairs, a, b)
    })?;
    Ok(BuccGold {
        path: path.to_path_buf(),
        pairs,
    })
}

/// Write a BUCC gold file (atomically).
///
/// # Errors
/// [`Error::Io`]; an id with a tab or line break.
pub fn write_bucc_gold(path: impl AsRef<Path>, gold: &BuccGold) -> Result<()> {
    let path = path.as_ref();
    let mut out = AtomicFile::create_text(path)?;
    for (i, (a, b)) in gold.pairs.iter().enumerate() {
        check_field(path, i, "source id", a)?;
        check_field(path, i, "target id", b)?;
        writeln!(out, "{a}\t{b}").map_err(|e| out.err(e))?;
    }
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn skipping_bucc_lines_keeps_ids_and_names_the_first_of_a_duplicate_by_line() {
        let text = b"de-1\tHallo\nnotab\nde-2\tWelt\nde-1\tnoch mal\n";
        let read = |bad| parse_bucc_skipping(LineReader::new("s.txt", &text[..]), bad);
        let e = read(BadLines::Error).unwrap_err().to_string();
        assert_eq!(e, "s.txt:2: missing tab: expected id<TAB>sentence");
        let (s, rejected) = read(BadLines::Skip).unwrap();
        assert_eq!(s.ids(), ["de-1", "de-2"]);
        assert_eq!((s.lines(), s.index_of("de-2")), (&[1, 3][..], Some(1)));
        let reasons: Vec<_> = crate::io::rejects::triples(&rejected);
        assert_eq!(reasons[0].0, 2);
        assert_eq!(
            reasons[1],
            (4, "duplicate id de-1 (first on line 1)", "de-1\tnoch mal")
        );
    }

    /// Files saved by an editor that writes a byte-order mark (and CRLF): the ids still match.
    #[test]
    fn byte_order_marks_do_not_end_up_in_ids() {
        let d = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = d.path().join(name);
            std::fs::write(&p, [crate::io::BOM, text.as_bytes()].concat()).unwrap();
            p
        };
        let de = write(
            "de",
            "de-000000001\tHallo Welt\r\nde-000000002\tTschüss\r\n",
        );
        let en = write("en", "en-000000001\tHello world\n");
        let gold = write("gold", "de-000000001\ten-000000001\n");
        let (de, en) = (
            read_bucc_sentences(&de).unwrap(),
            read_bucc_sentences(&en).unwrap(),
        );
        assert_eq!(de.ids()[0], "de-000000001");
        assert_eq!(de.sentences()[0], "Hallo Welt");
        let gold = read_bucc_gold(&gold).unwrap();
        gold.check_ids(&de, &en).unwrap();
        assert_eq!(gold.to_indices(&de, &en).unwrap(), vec![(0, 0)]);
    }

    fn text() -> impl Strategy<Value = String> {
        "[^\t\r\n]{0,20}[a-zäöü0-9]".prop_map(|s| s.to_string())
    }

    proptest! {
        #[test]
        fn sentences_round_trip(sents in proptest::collection::vec(text(), 1..20)) {
            let pairs: Vec<(String, String)> =
                sents.iter().enumerate().map(|(i, s)| (format!("de-{i:09}"), s.clone())).collect();
            let s = BuccSentences::from_pairs("mem", pairs.clone()).unwrap();
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("de.txt");
            write_bucc_sentences(&p, &s).unwrap();
            let back = read_bucc_sentences(&p).unwrap();
            prop_assert_eq!(back.ids(), s.ids());
            prop_assert_eq!(back.sentences(), s.sentences());
            prop_assert_eq!(back.index_of("de-000000000"), Some(0));
        }

        #[test]
        fn gold_round_trip(n in 1usize..30) {
            let g = BuccGold::from_pairs("mem", (0..n).map(|i| (format!("de-{i}"), format!("en-{}", n - i)))).unwrap();
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("gold");
            write_bucc_gold(&p, &g).unwrap();
            let back = read_bucc_gold(&p).unwrap();
            prop_assert_eq!(back.pairs(), g.pairs());
        }
    }

    fn file(d: &tempfile::TempDir, name: &str, content: &[u8]) -> PathBuf {
        let p = d.path().join(name);
        std::fs::write(&p, content).unwrap();
        p
    }

    #[test]
    fn sentence_file_errors_name_file_and_line() {
        let d = tempfile::tempdir().unwrap();
        let cases: [(&str, &[u8], &str); 6] = [
            ("notab", b"de-1\tHallo\nde-2 Welt\n", "notab:2: missing tab"),
            (
                "twotabs",
                b"de-1\tHallo\tWelt\n",
                "twotabs:1: expected 2 tab-separated fields",
            ),
            (
                "dup",
                b"de-1\tA\nde-2\tB\nde-1\tC\n",
                "dup:3: duplicate id de-1 (first on line 1)",
            ),
            (
                "utf8",
                b"de-1\tA\nde-2\t\xc3\x28\n",
                "utf8:2: invalid UTF-8",
            ),
            (
                "emptysent",
                b"de-1\t \n",
                "emptysent:1: sentence de-1 is empty",
            ),
            ("empty", b"", "empty: file is empty"),
        ];
        for (name, content, want) in cases {
            let e = read_bucc_sentences(file(&d, name, content))
                .unwrap_err()
                .to_string();
            assert!(e.ends_with(want) || e.contains(want), "{name}: {e}");
            assert!(
                e.starts_with(&d.path().join(name).display().to_string()),
                "{e}"
            );
        }
    }

    #[test]
    fn gold_errors_and_id_check() {
        let d = tempfile::tempdir().unwrap();
        let e = read_bucc_gold(file(&d, "g1", b"de-1\ten-1\nde-1\ten-1\n")).unwrap_err();
        assert!(e.to_string().contains("g1:2: duplicate pair"), "{e}");
        let e = read_bucc_gold(file(&d, "g2", b"de-1 en-1\n")).unwrap_err();
        assert!(e.to_string().contains("g2:1: missing tab"), "{e}");
        assert!(read_bucc_gold(file(&d, "g3", b"")).is_err());

        let src = read_bucc_sentences(file(&d, "de", b"de-1\tA\nde-2\tB\n")).unwrap();
        let tgt = read_bucc_sentences(file(&d, "en", b"en-1\tA\n")).unwrap();
        let gold = read_bucc_gold(file(&d, "gold", b"de-2\ten-1\nde-1\ten-9\n")).unwrap();
        let e = gold.check_ids(&src, &tgt).unwrap_err().to_string();
        assert!(e.contains("gold:2: id en-9 does not occur in"), "{e}");
        assert!(e.ends_with("en"), "{e}");
        let ok = read_bucc_gold(file(&d, "gold2", b"de-2\ten-1\n")).unwrap();
        assert_eq!(ok.to_indices(&src, &tgt).unwrap(), vec![(1, 0)]);
    }
}
