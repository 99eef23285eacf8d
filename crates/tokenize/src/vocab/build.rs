//! Building vocabularies: [`TokenCounter`] counts tokens over a corpus (streaming, in parallel
//! chunks), [`VocabBuilder`] turns counts into a [`Vocab`] with a frequency cut-off and a size
//! limit.

use std::path::Path;

use bitext_core::io::LineReader;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{Entry, Role, SpecialTokens, Vocab, VocabParts, lang_tag};
use crate::error::{Error, Result};
use crate::tokenizer::parallelism;
use crate::word::WordTokenizer;

/// Lines read from a file before they are counted (in parallel) as one chunk.
const CHUNK_LINES: usize = 16_384;

/// Token counts over a corpus. Counters merge, so a corpus can be counted in parts, in
/// parallel, and the parts added up; the result never depends on the order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenCounter {
    counts: FxHashMap<String, u64>,
    total: u64,
}

impl TokenCounter {
    /// An empty counter.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Count one occurrence of `token`.
    pub fn add(&mut self, token: &str) {
        self.add_n(token, 1);
    }

    /// Count `n` occurrences of `token`.
    pub fn add_n(&mut self, token: &str, n: u64) {
        match self.counts.get_mut(token) {
            Some(c) => *c += n,
            None => {
                self.counts.insert(token.to_owned(), n);
            }
        }
        self.total += n;
    }

    /// Count the tokens of one text.
    pub fn add_text(&mut self, tokenizer: &WordTokenizer, text: &str) {
        tokenizer.for_each_token(text, |t| self.add(t));
    }

    /// Add the counts of `other`.
    pub fn merge(&mut self, other: TokenCounter) {
        if self.counts.len() < other.counts.len() {
            let mine = std::mem::replace(self, other);
            self.merge(mine);
            return;
        }
        for (t, n) in other.counts {
            *self.counts.entry(t).or_insert(0) += n;
        }
        self.total += other.total;
    }

    /// Count the tokens of many texts, on all cores unless [`crate::parallelism`] is off.
    pub fn add_texts<S: AsRef<str> + Sync>(&mut self, tokenizer: &WordTokenizer, texts: &[S]) {
        if parallelism() && texts.len() > 256 {
            let part = texts
                .par_chunks(256)
                .fold(TokenCounter::new, |mut c, chunk| {
                    for t in chunk {
                        c.add_text(tokenizer, t.as_ref());
                    }
                    c
                })
                .reduce(TokenCounter::new, |mut a, b| {
                    a.merge(b);
                    a
                });
            self.merge(part);
        } else {
            for t in texts {
                self.add_text(tokenizer, t.as_ref());
            }
        }
    }

    /// Counts of the tokens of `texts`.
    #[must_use]
    pub fn from_texts<S: AsRef<str> + Sync>(tokenizer: &WordTokenizer, texts: &[S]) -> Self {
        let mut c = Self::new();
        c.add_texts(tokenizer, texts);
        c
    }

    /// Count the tokens of a text file, one sentence per line, streaming: chunks of lines are
    /// read and counted in parallel, so memory stays bounded by the chunk and the counts.
    ///
    /// # Errors
    /// A missing file; invalid UTF-8 (naming the file and line).
    pub fn add_file(&mut self, tokenizer: &WordTokenizer, path: impl AsRef<Path>) -> Result<()> {
        let mut reader = LineReader::open(path)?;
        let mut chunk = Vec::with_capacity(CHUNK_LINES);
        while reader.advance()? {
            chunk.push(reader.line().to_owned());
            if chunk.len() == CHUNK_LINES {
                self.add_texts(tokenizer, &chunk);
                chunk.clear();
            }
        }
        self.add_texts(tokenizer, &chunk);
        Ok(())
    }

    /// The count of `token`.
    #[must_use]
    pub fn get(&self, token: &str) -> u64 {
        self.counts.get(token).copied().unwrap_or(0)
    }

    /// Number of distinct tokens.
    #[must_use]
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether nothing was counted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Number of token occurrences counted.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// `(token, count)` pairs by decreasing count, ties by token (byte order): the order in
    /// which a vocabulary takes them.
    #[must_use]
    pub fn sorted(&self) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = self.counts.iter().map(|(t, &n)| (t.as_str(), n)).collect();
        v.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        v
    }
}

/// Builds a [`Vocab`] from a [`TokenCounter`] (a consuming builder).
///
/// The vocabulary holds, in id order: pad, unk, bos, eos (ids 0–3), the language tags in the
/// order given, then every counted token with a count of at least [`VocabBuilder::min_count`],
/// by decreasing count with ties broken by token (byte order), cut so that the whole
/// vocabulary, special tokens included, has at most [`VocabBuilder::max_size`] entries.
/// Counted tokens equal to a special token are left out (the special token stands for them).
#[derive(Debug, Clone)]
#[must_use]
pub struct VocabBuilder {
    specials: SpecialTokens,
    langs: Vec<String>,
    min_count: u64,
    max_size: Option<usize>,
}

impl Default for VocabBuilder {
    fn default() -> Self {
        Self {
            specials: SpecialTokens::default(),
            langs: Vec::new(),
            min_count: 1,
            max_size: None,
        }
    }
}

impl VocabBuilder {
    /// Default settings: `<pad>`, `<unk>`, `<s>`, `</s>`, no language tags, every token that
    /// occurs, no size limit.
    pub fn new() -> Self {
        Self::default()
    }

    /// The strings of the special tokens.
    pub fn specials(mut self, specials: SpecialTokens) -> Self {
        self.specials = specials;
        self
    }

    /// Language codes whose tags (`de` → `<de>`) become special tokens.
    pub fn lang_tags<I, S>(mut self, langs: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.langs = langs.into_iter().map(Into::into).collect();
        self
    }

    /// Keep only tokens counted at least `n` times (default 1; must be at least 1).
    pub fn min_count(mut self, n: u64) -> Self {
        self.min_count = n;
        self
    }

    /// At most `n` entries in all, special tokens included (default: no limit).
    pub fn max_size(mut self, n: usize) -> Self {
        self.max_size = Some(n);
        self
    }

    /// Build the vocabulary.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`]: `min_count` 0; `max_size` below the number of special
    /// tokens; an empty or malformed special token or language code (whitespace, `<`, `>`);
    /// two special tokens with the same string.
    pub fn build(&self, counts: &TokenCounter) -> Result<Vocab> {
        if self.min_count == 0 {
            return Err(Error::InvalidArgument(
                "min_count must be at least 1".into(),
            ));
        }
        let mut parts = VocabParts::default();
        let s = &self.specials;
        let specials = [
            (&s.pad, Role::Pad),
            (&s.unk, Role::Unk),
            (&s.bos, Role::Bos),
            (&s.eos, Role::Eos),
        ];
        let invalid = |what: String| Error::InvalidArgument(what);
        for (token, role) in specials {
            if token.chars().any(char::is_whitespace) {
                return Err(invalid(format!("{role} token {token:?} holds whitespace")));
            }
            parts
                .push(token, Entry::Special(role))
                .map_err(|r| invalid(format!("{role} token: {r}")))?;
        }
        for lang in &self.langs {
            if lang.is_empty() || lang.contains(|c: char| c.is_whitespace() || c == '<' || c == '>')
            {
                return Err(invalid(format!(
                    "language code {lang:?} must be non-empty, without whitespace, '<' or '>'"
                )));
            }
            parts
                .push(&lang_tag(lang), Entry::Special(Role::Lang))
                .map_err(|r| invalid(format!("language tag: {r}")))?;
        }
        let n_special = parts.tokens.len();
        let max = self.max_size.unwrap_or(usize::MAX);
        if max < n_special {
            return Err(invalid(format!(
                "max_size {max} is smaller than the {n_special} special tokens"
            )));
        }
        for (token, n) in counts.sorted() {
            if n < self.min_count || parts.tokens.len() >= max {
                break;
            }
            if parts.index.contains_key(token) {
                continue;
            }
            parts
                .push(token, Entry::Count(n))
                .map_err(|r| invalid(format!("counted token: {r}")))?;
        }
        parts.finish().map_err(invalid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter(pairs: &[(&str, u64)]) -> TokenCounter {
        let mut c = TokenCounter::new();
        for &(t, n) in pairs {
            c.add_n(t, n);
        }
        c
    }

    #[test]
    fn cut_off_size_and_ties() {
        let c = counter(&[("b", 3), ("a", 3), ("c", 5), ("d", 1), ("<unk>", 9)]);
        let v = VocabBuilder::new().build(&c).unwrap();
        let toks: Vec<&str> = v.iter().map(|(_, t, _)| t).collect();
        assert_eq!(toks, ["<pad>", "<unk>", "<s>", "</s>", "c", "a", "b", "d"]);
        let v = VocabBuilder::new()
            .min_count(3)
            .max_size(6)
            .build(&c)
            .unwrap();
        let toks: Vec<&str> = v.iter().map(|(_, t, _)| t).collect();
        assert_eq!(toks, ["<pad>", "<unk>", "<s>", "</s>", "c", "a"]);
        assert_eq!(v.count(4), Some(5));
        assert_eq!(v.count(1), Some(0));
    }

    #[test]
    fn bad_parameters() {
        let c = counter(&[("a", 1)]);
        for b in [
            VocabBuilder::new().min_count(0),
            VocabBuilder::new().max_size(3),
            VocabBuilder::new().lang_tags(["d e"]),
            VocabBuilder::new().lang_tags([""]),
            VocabBuilder::new().lang_tags(["de", "de"]),
            VocabBuilder::new().specials(SpecialTokens {
                pad: "<s>".into(),
                ..SpecialTokens::default()
            }),
            VocabBuilder::new().specials(SpecialTokens {
                eos: String::new(),
                ..SpecialTokens::default()
            }),
        ] {
            assert!(
                matches!(b.build(&c), Err(Error::InvalidArgument(_))),
                "{b:?}"
            );
        }
        assert_eq!(VocabBuilder::new().max_size(4).build(&c).unwrap().len(), 4);
    }

    #[test]
    fn counting_files_streams_and_names_bad_lines() {
        let words = WordTokenizer::default();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c.txt");
        std::fs::write(&p, "der Hund\n\r\ndie Katze &amp; der Hund\n").unwrap();
        let mut c = TokenCounter::new();
        c.add_file(&words, &p).unwrap();
        assert_eq!((c.get("der"), c.get("&"), c.total()), (2, 1, 7));
        std::fs::write(&p, b"ok\nok\nbad \xc3(\n").unwrap();
        let e = c.add_file(&words, &p).unwrap_err().to_string();
        assert!(e.contains("c.txt:3: invalid UTF-8"), "{e}");
        let e = c.add_file(&words, d.path().join("none.txt")).unwrap_err();
        assert!(e.to_string().contains("none.txt"), "{e}");
    }

    #[test]
    fn parallel_counting_equals_sequential() {
        let words = WordTokenizer::default();
        let texts: Vec<String> = (0..2000)
            .map(|i| format!("w{} , x{} . &quot;y&quot;", i % 37, i % 11))
            .collect();
        let mut seq = TokenCounter::new();
        for t in &texts {
            seq.add_text(&words, t);
        }
        let par = TokenCounter::from_texts(&words, &texts);
        assert_eq!(par, seq);
        assert_eq!(par.get("\""), 4000);
        assert_eq!(par.total(), 2000 * 7);
    }
}
