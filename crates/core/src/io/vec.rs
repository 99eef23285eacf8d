//! fastText / MUSE `.vec` word vectors: a header line `N D`, then `N` lines of a word followed
//! by `D` space-separated values (a trailing space is allowed, as fastText writes one).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::Write;
use std::path::Path;

use crate::embeddings::Embeddings;
use crate::error::{Error, Location, Result};
use crate::io::{AtomicFile, LineReader};

/// Word vectors: words in file order, an index, and the matrix of their vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct WordVectors {
    words: Vec<String>,
    index: HashMap<String, usize>,
    vectors: Embeddings,
}

impl WordVectors {
    /// Build from words and their vectors (row `i` belongs to `words[i]`).
    ///
    /// # Errors
    /// [`Error::Shape`] when the counts differ; [`Error::InvalidArgument`] for an empty,
    /// duplicate, or whitespace-holding word.
    pub fn new(words: Vec<String>, vectors: Embeddings) -> Result<Self> {
        if words.len() != vectors.len() {
            return Err(Error::Shape(format!(
                "{} words but {} vectors",
                words.len(),
                vectors.len()
            )));
        }
        let mut index = HashMap::with_capacity(words.len());
        for (i, w) in words.iter().enumerate() {
            if w.is_empty() || w.contains(char::is_whitespace) {
                return Err(Error::InvalidArgument(format!(
                    "word {i} ({w:?}) is empty or holds whitespace"
                )));
            }
            if index.insert(w.clone(), i).is_some() {
                return Err(Error::InvalidArgument(format!("duplicate word {w:?}")));
            }
        }
        Ok(Self {
            words,
            index,
            vectors,
        })
    }

    /// The words, in file order (most frequent first for fastText/MUSE files).
    #[must_use]
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The vectors; row `i` is the vector of `words()[i]`.
    #[must_use]
    pub fn vectors(&self) -> &Embeddings {
        &self.vectors
    }

    /// Mutable vectors (e.g. to normalise them); the words stay fixed.
    pub fn vectors_mut(&mut self) -> &mut Embeddings {
        &mut self.vectors
    }

    /// Row index of `word`.
    #[must_use]
    pub fn index_of(&self, word: &str) -> Option<usize> {
        self.index.get(word).copied()
    }

    /// The vector of `word`.
    #[must_use]
    pub fn get(&self, word: &str) -> Option<&[f32]> {
        self.index_of(word).map(|i| self.vectors.row(i))
    }

    /// Number of words.
    #[must_use]
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Vector dimension.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.vectors.dim()
    }
}

/// Read a `.vec` file; with `limit`, only its first `limit` words (the rest is not read).
///
/// # Errors
/// Missing file; a bad header; a line whose value count differs from the header's dimension; a
/// value that is not a finite number; a duplicate word (naming both lines); fewer or more lines
/// than the header says; an empty file — each naming the file and line.
pub fn read_vec(path: impl AsRef<Path>, limit: Option<usize>) -> Result<WordVectors> {
    let path = path.as_ref();
    let mut r = LineReader::open(path)?;
    if !r.advance()? {
        return Err(Error::parse(
            path,
            Location::File,
            "file is empty: no header",
        ));
    }
    let header = r.line().to_string();
    let nums: Vec<&str> = header.split_whitespace().collect();
    let parsed: Option<(usize, usize)> = match nums[..] {
        [n, d] => n.parse().ok().zip(d.parse().ok()),
        _ => None,
    };
    let (n, dim) = parsed.ok_or_else(|| {
        r.error(format!(
            "expected a header \"<word count> <dimension>\", found {header:?}"
        ))
    })?;
    if dim == 0 || n == 0 {
        return Err(r.error(format!("header {header:?} declares no vectors")));
    }
    let want = limit.map_or(n, |l| l.min(n));
    // Each vector line holds a word, then `dim` values each after a space, then a line break:
    // at least 2 + 2·dim bytes. A header promising more than the file can hold is refused
    // before anything is allocated for it.
    let bytes = std::fs::metadata(path)
        .map_err(|e| Error::io(path, e))?
        .len();
    let per_line = 2u64.saturating_add(2u64.saturating_mul(dim as u64));
    if (want as u64).saturating_mul(per_line) > bytes {
        return Err(r.error(format!(
            "the header declares {n} vectors of dimension {dim}, more than the file's {bytes} \
             bytes can hold"
        )));
    }
    let mut words = Vec::with_capacity(want);
    let mut data = Vec::with_capacity(want.saturating_mul(dim));
    let mut index: HashMap<String, usize> = HashMap::with_capacity(want);
    while words.len() < want {
        if !r.advance()? {
            return Err(Error::parse(
                path,
                Location::Line(r.line_number()),
                format!(
                    "file ends after {} vectors but the header says {n}",
                    words.len()
                ),
            ));
        }
        let line = r.line();
        let line = line.strip_suffix(' ').unwrap_or(line);
        let mut parts = line.split(' ');
        let word = parts.next().unwrap_or_default().to_string();
        if word.is_empty() {
            return Err(r.error("line starts with a space: empty word"));
        }
        let start = data.len();
        for (j, tok) in parts.enumerate() {
            let v: f32 = tok.parse().map_err(|_| {
                r.error(format!(
                    "value {} of {word:?} is not a number: {tok:?}",
                    j + 1
                ))
            })?;
            if !v.is_finite() {
                return Err(r.error(format!("value {} of {word:?} is {v}", j + 1)));
            }
            data.push(v);
        }
        if data.len() - start != dim {
            return Err(r.error(format!(
                "{word:?} has {} values, the header says {dim}",
                data.len() - start
            )));
        }
        match index.entry(word) {
            Entry::Occupied(e) => {
                // Lines: header is 1, word i is on line i + 2.
                return Err(r.error(format!(
                    "duplicate word {:?} (first on line {})",
                    e.key(),
                    e.get() + 2
                )));
            }
            Entry::Vacant(v) => {
                words.push(v.key().clone());
                v.insert(words.len() - 1);
            }
        }
    }
    if limit.is_none_or(|l| l >= n) && r.advance()? {
        return Err(r.error(format!("more vectors than the {n} the header declares")));
    }
    let vectors = Embeddings::new(data, dim)?;
    Ok(WordVectors {
        words,
        index,
        vectors,
    })
}

/// Write a `.vec` file (atomically).
///
/// # Errors
/// [`Error::Io`]; a value that is not finite.
pub fn write_vec(path: impl AsRef<Path>, wv: &WordVectors) -> Result<()> {
    let path = path.as_ref();
    wv.vectors.check_finite().map_err(|e| e.in_file(path))?;
    let mut out = AtomicFile::create_text(path)?;
    writeln!(out, "{} {}", wv.len(), wv.dim()).map_err(|e| out.err(e))?;
    let mut line = String::new();
    for (w, v) in wv.words.iter().zip(wv.vectors.rows()) {
        use std::fmt::Write as _;
        line.clear();
        line.push_str(w);
        for x in v {
            let _ = write!(line, " {x}");
        }
        line.push('\n');
        out.write_all(line.as_bytes()).map_err(|e| out.err(e))?;
    }
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trip(n in 1usize..20, dim in 1usize..10, seed in any::<u64>()) {
            let words: Vec<String> = (0..n).map(|i| format!("wört{i}")).collect();
            let wv = WordVectors::new(words, Embeddings::random(n, dim, seed)).unwrap();
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("w.vec");
            write_vec(&p, &wv).unwrap();
            prop_assert_eq!(&read_vec(&p, None).unwrap(), &wv);
            let head = read_vec(&p, Some(1)).unwrap();
            prop_assert_eq!(head.len(), 1);
            prop_assert_eq!(head.get("wört0"), wv.get("wört0"));
        }
    }

    #[test]
    fn fasttext_trailing_space_and_errors() {
        let d = tempfile::tempdir().unwrap();
        let ok = d.path().join("ok.vec");
        std::fs::write(&ok, "2 3\nder 0.1 0.2 0.3 \ndie -1 0 1e-3 \n").unwrap();
        let wv = read_vec(&ok, None).unwrap();
        assert_eq!(wv.get("die"), Some(&[-1.0f32, 0.0, 1e-3][..]));

        let cases: [(&str, &str, &str); 8] = [
            (
                "absurd",
                "321233221 323\nder 1\n",
                "absurd:1: the header declares 321233221 vectors of dimension 323, more than",
            ),
            ("hdr", "hello\n", "hdr:1: expected a header"),
            (
                "count",
                "1 3\nder 0.1 0.2\n",
                "count:2: \"der\" has 2 values, the header says 3",
            ),
            (
                "num",
                "1 2\nder 0.1 x\n",
                "num:2: value 2 of \"der\" is not a number",
            ),
            (
                "nan",
                "1 2\nder 0.1 NaN\n",
                "nan:2: value 2 of \"der\" is NaN",
            ),
            (
                "dup",
                "2 1\nder 1\nder 2\n",
                "dup:3: duplicate word \"der\" (first on line 2)",
            ),
            (
                "short",
                "3 1\na 1\nb 2\n",
                "short:3: file ends after 2 vectors but the header says 3",
            ),
            ("long", "1 1\na 1\nb 2\n", "long:3: more vectors than the 1"),
        ];
        for (name, content, want) in cases {
            let p = d.path().join(name);
            std::fs::write(&p, content).unwrap();
            let e = read_vec(&p, None).unwrap_err().to_string();
            assert!(e.contains(want), "{name}: {e}");
        }
        let p = d.path().join("empty");
        std::fs::write(&p, "").unwrap();
        assert!(
            read_vec(&p, None)
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
    }
}
