//! The scanner behind [`super::WordTokenizer`]: one pass over a line, cutting it into token
//! byte ranges by the rules documented on the tokenizer.

use super::classify::{Class, classify, is_abbreviation, is_clitic};
use super::marks::is_mark;

/// Splits `text` and hands each token's byte range to a sink, in order.
pub(crate) struct Scanner<'t, F> {
    text: &'t str,
    split_cjk: bool,
    /// The last token found, held back because a following mark or repeated punctuation
    /// character may still extend it.
    pending: Option<(usize, usize)>,
    /// `Some(c)` when the pending token is a run of the punctuation character `c`.
    pending_run: Option<char>,
    /// The last character was a zero-width joiner: the next one joins the token before it
    /// (emoji sequences such as 👨‍👩).
    glue: bool,
    /// An apostrophe opened a quotation on this line (so a word-final one closes it rather
    /// than belonging to the word).
    quote_open: bool,
    sink: F,
}

impl<'t, F: FnMut(&'t str)> Scanner<'t, F> {
    pub(crate) fn new(text: &'t str, split_cjk: bool, sink: F) -> Self {
        Self {
            text,
            split_cjk,
            pending: None,
            pending_run: None,
            glue: false,
            quote_open: false,
            sink,
        }
    }

    /// Scan the whole text.
    pub(crate) fn run(mut self) {
        let text = self.text;
        let mut chunks = Chunks { text, pos: 0 }.peekable();
        while let Some((s, e)) = chunks.next() {
            let next_chunk = chunks.peek().map(|&(a, b)| &text[a..b]);
            self.chunk(s, e, next_chunk);
        }
        self.flush();
    }

    fn flush(&mut self) {
        if let Some((s, e)) = self.pending.take() {
            (self.sink)(&self.text[s..e]);
        }
        self.pending_run = None;
    }

    fn emit(&mut self, s: usize, e: usize) {
        self.flush();
        self.pending = Some((s, e));
    }

    /// A punctuation or symbol token at `s..e`; `glued` when a joiner came right before.
    fn punct(&mut self, s: usize, e: usize, c: char, glued: bool) {
        let adjacent = self.pending.is_some_and(|(_, pe)| pe == s);
        if adjacent && glued {
            self.pending = self.pending.map(|(ps, _)| (ps, e));
            self.pending_run = None;
        } else if adjacent && self.pending_run == Some(c) {
            self.pending = self.pending.map(|(ps, _)| (ps, e));
        } else {
            self.emit(s, e);
            self.pending_run = Some(c);
        }
    }

    /// Tokenize one whitespace-free chunk `text[s..e]`; `next_chunk` is the chunk after it on
    /// the line, if any.
    fn chunk(&mut self, s: usize, e: usize, next_chunk: Option<&str>) {
        let text = self.text;
        let chunk = &text[s..e];
        // Start of the word being built, and whether it is a lone CJK ideograph.
        let mut word: Option<usize> = None;
        let mut han = false;
        // Whether the previous character (marks looked through) is a letter/digit, a digit.
        let (mut prev_alnum, mut prev_digit) = (false, false);
        // Each character is classified once: the class of the next one is carried over.
        let mut it = chunk.char_indices().map(|(o, c)| (o, c, classify(c)));
        let mut cur = it.next();
        while let Some((off, c, class)) = cur {
            cur = it.next();
            let i = s + off;
            let j = i + c.len_utf8();
            let glued = std::mem::take(&mut self.glue);
            let next = cur.map(|(_, n, _)| n);
            // Whether the next character can continue a word (a CJK ideograph cannot when
            // ideographs are tokens of their own).
            let next_alnum = match cur {
                Some((_, _, Class::Word)) => true,
                Some((_, _, Class::Han)) => !self.split_cjk,
                _ => false,
            };
            match class {
                Class::Word | Class::Han => {
                    if han || (class == Class::Han && self.split_cjk) {
                        self.close(&mut word, i);
                    }
                    han = class == Class::Han && self.split_cjk;
                    word.get_or_insert(i);
                    prev_alnum = !han;
                    prev_digit = c.is_numeric();
                    continue;
                }
                Class::Mark => {
                    self.glue = c == '\u{200D}';
                    if word.is_none() {
                        match self.pending {
                            Some((ps, pe)) if pe == i => {
                                self.pending = Some((ps, j));
                                self.pending_run = None;
                            }
                            _ => word = Some(i),
                        }
                    }
                    continue;
                }
                _ => {}
            }
            han = false;
            // A joiner glues symbols (emoji), not a symbol to a word.
            let glued = glued && word.is_none();
            let inside = word.is_some() && prev_alnum;
            match class {
                Class::Period if inside && next_alnum => continue,
                Class::Comma if inside && prev_digit && next.is_some_and(char::is_numeric) => {
                    continue;
                }
                Class::Hyphen | Class::Apostrophe if inside && next_alnum => continue,
                Class::Period if inside && next != Some('.') => {
                    let w = word.take().unwrap_or(i);
                    let after = if next.is_some() {
                        Some(&text[j..e])
                    } else {
                        next_chunk
                    };
                    if keeps_period(&text[w..i], after) {
                        self.emit(w, j);
                    } else {
                        self.emit(w, i);
                        self.punct(i, j, c, false);
                    }
                }
                Class::Hyphen if inside && next.is_none() => {
                    let w = word.take().unwrap_or(i);
                    self.emit(w, j);
                }
                Class::Apostrophe if inside && !self.quote_open => {
                    let w = word.take().unwrap_or(i);
                    self.emit(w, j);
                }
                Class::Period if off == 0 && next.is_some_and(|n| n.is_ascii_digit()) => {
                    self.close(&mut word, i);
                    word = Some(i);
                }
                Class::Hyphen if off == 0 && next_alnum => {
                    self.close(&mut word, i);
                    word = Some(i);
                }
                Class::Apostrophe
                    if !prev_alnum && next_alnum && clitic_follows(&chunk[j - s..]) =>
                {
                    self.close(&mut word, i);
                    word = Some(i);
                }
                _ => {
                    self.close(&mut word, i);
                    if class == Class::Apostrophe {
                        if prev_alnum {
                            self.quote_open = false;
                        } else if next_alnum {
                            self.quote_open = true;
                        }
                    }
                    self.punct(i, j, c, glued);
                }
            }
            prev_alnum = false;
            prev_digit = false;
        }
        self.close(&mut word, e);
        self.glue = false;
    }

    fn close(&mut self, word: &mut Option<usize>, end: usize) {
        if let Some(w) = word.take() {
            self.emit(w, end);
        }
    }
}

/// Whether the letters/digits at the start of `rest` form an English clitic ending there.
fn clitic_follows(rest: &str) -> bool {
    let end = rest
        .char_indices()
        .find(|&(_, c)| !c.is_alphanumeric())
        .map_or(rest.len(), |(k, _)| k);
    is_clitic(&rest[..end])
}

/// The period rule: does the `.` after `word` belong to it? `after` is the text that follows
/// on the line (the rest of the chunk, or the next chunk), `None` at the end of the line.
fn keeps_period(word: &str, after: Option<&str>) -> bool {
    // Abbreviations with inner periods: "U.S.", "z.B.", "e.g.", "Ph.D." (not "example.com").
    if word.contains('.')
        && word.split('.').all(|p| {
            (1..=4).contains(&p.chars().filter(|&c| !is_mark(c)).count())
                && p.chars().all(|c| c.is_alphabetic() || is_mark(c))
        })
    {
        return true;
    }
    let Some(after) = after else {
        return false;
    };
    let mut chars = word.chars();
    let first = chars.next();
    let single_letter = first.is_some_and(char::is_alphabetic) && chars.all(is_mark);
    let ordinal = word.len() <= 3 && word.bytes().all(|b| b.is_ascii_digit());
    let next = after.chars().next();
    single_letter
        || (ordinal && next.is_some_and(char::is_alphanumeric))
        || next.is_some_and(char::is_lowercase)
        || is_abbreviation(word)
}

/// Byte ranges of the runs of non-separator characters.
struct Chunks<'t> {
    text: &'t str,
    pos: usize,
}

impl Iterator for Chunks<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let rest = &self.text[self.pos..];
        let start = self.pos + rest.find(|c| classify(c) != Class::Sep)?;
        let len = self.text[start..]
            .find(|c| classify(c) == Class::Sep)
            .unwrap_or(self.text.len() - start);
        self.pos = start + len;
        Some((start, start + len))
    }
}
