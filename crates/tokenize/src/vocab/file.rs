//! The vocabulary file format: UTF-8 text, one entry per line, written atomically.
//!
//! ```text
//! #bitext-vocab 1
//! <pad>\tspecial=pad
//! <unk>\tspecial=unk
//! <s>\tspecial=bos
//! </s>\tspecial=eos
//! <de>\tspecial=lang
//! ,\t120345
//! der\t98012
//! ```
//!
//! (`\t` stands for a tab character.)
//!
//! - Line 1 is the header `#bitext-vocab 1` (format version 1).
//! - Every other line is `token<TAB>value`: `value` is a count (a non-negative decimal integer)
//!   or `special=ROLE` with ROLE one of `pad`, `unk`, `bos`, `eos`, `lang`.
//! - The id of a token is its position among the entries: the entry on line `n` has id `n - 2`.
//! - Exactly one entry each for `pad`, `unk`, `bos` and `eos`; any number of `lang` entries.
//! - Tokens are non-empty, unique and hold no tab or line break (they may hold spaces).
//!   Lines end with `\n` (a `\r\n` ending is accepted when reading).
//!
//! Reading names the file and line of every problem: a missing or wrong header, an empty
//! file, invalid UTF-8, a line without a tab, an empty token, a duplicate token, a bad count or
//! role, a second `pad`/`unk`/`bos`/`eos`, or (at the end) a missing one.

use std::io::{BufRead, Write};
use std::path::Path;

use bitext_core::io::{AtomicFile, LineReader};
use bitext_core::{Error as CoreError, Location};

use super::{Entry, Role, Vocab, VocabParts};
use crate::error::Result;

/// The first line of every vocabulary file.
pub const HEADER: &str = "#bitext-vocab 1";

impl Vocab {
    /// Write the vocabulary to `path` (atomically: a temporary file renamed into place).
    ///
    /// # Errors
    /// [`crate::Error::Core`] naming the file when it cannot be written.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let mut out = AtomicFile::create(path)?;
        self.write_to(&mut out).map_err(|e| out.err(e))?;
        out.commit()?;
        Ok(())
    }

    /// Write the vocabulary in the file format to `w`.
    ///
    /// # Errors
    /// The writer's I/O errors.
    pub fn write_to(&self, mut w: impl Write) -> std::io::Result<()> {
        writeln!(w, "{HEADER}")?;
        for ((token, &count), role) in self.tokens.iter().zip(&self.counts).zip(&self.roles) {
            match role {
                Some(r) => writeln!(w, "{token}\tspecial={r}")?,
                None => writeln!(w, "{token}\t{count}")?,
            }
        }
        w.flush()
    }

    /// Read a vocabulary file.
    ///
    /// # Errors
    /// [`crate::Error::Core`] naming the file and line and the reason (see the
    /// [format](self)).
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        Self::read_from(LineReader::open(path)?)
    }

    /// Read a vocabulary in the file format from a [`LineReader`] (its name is used in errors).
    ///
    /// # Errors
    /// As [`Vocab::load`].
    pub fn read_from<R: BufRead>(mut r: LineReader<R>) -> Result<Self> {
        if !r.advance()? {
            return Err(CoreError::parse(r.path(), Location::File, "file is empty").into());
        }
        if r.line() != HEADER {
            return Err(r
                .error(format!(
                    "not a bitext vocabulary: the first line must be {HEADER:?}"
                ))
                .into());
        }
        let mut parts = VocabParts::default();
        while r.advance()? {
            let line = r.line();
            let Some((token, value)) = line.rsplit_once('\t') else {
                return Err(r.error("missing tab: expected token<TAB>count").into());
            };
            let entry = parse_value(value).map_err(|reason| r.error(reason))?;
            parts.push(token, entry).map_err(|reason| r.error(reason))?;
        }
        parts
            .finish()
            .map_err(|reason| CoreError::parse(r.path(), Location::File, reason).into())
    }
}

fn parse_value(value: &str) -> std::result::Result<Entry, String> {
    if let Some(role) = value.strip_prefix("special=") {
        return Role::from_name(role).map(Entry::Special).ok_or_else(|| {
            format!("unknown special role {role:?} (expected pad, unk, bos, eos or lang)")
        });
    }
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "bad count {value:?}: expected a non-negative integer or special=ROLE"
        ));
    }
    value
        .parse()
        .map(Entry::Count)
        .map_err(|_| format!("bad count {value:?}: too large"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::{TokenCounter, VocabBuilder};

    fn load_str(text: &[u8]) -> String {
        match Vocab::read_from(LineReader::new("v.txt", text)) {
            Ok(v) => format!("ok {}", v.len()),
            Err(e) => e.to_string(),
        }
    }

    const SPECIALS: &str =
        "<pad>\tspecial=pad\n<unk>\tspecial=unk\n<s>\tspecial=bos\n</s>\tspecial=eos\n";

    #[test]
    fn bad_files_name_the_line() {
        let ok = format!("{HEADER}\n{SPECIALS}");
        assert_eq!(load_str(ok.as_bytes()), "ok 4");
        let cases: &[(String, &str)] = &[
            (String::new(), "v.txt: file is empty"),
            ("hello\n".into(), "v.txt:1: not a bitext vocabulary"),
            (
                format!("{ok}a\t1\nb\t2\na\t3\n"),
                "v.txt:8: duplicate token \"a\"",
            ),
            (format!("{ok}a\tx\n"), "v.txt:6: bad count \"x\""),
            (format!("{ok}a\t-1\n"), "v.txt:6: bad count \"-1\""),
            (format!("{ok}a\t\n"), "v.txt:6: bad count \"\""),
            (
                format!("{ok}a\t99999999999999999999999\n"),
                "v.txt:6: bad count",
            ),
            (format!("{ok}a 1\n"), "v.txt:6: missing tab"),
            (format!("{ok}\t1\n"), "v.txt:6: empty token"),
            (
                format!("{ok}x\tspecial=foo\n"),
                "v.txt:6: unknown special role \"foo\"",
            ),
            (
                format!("{ok}[PAD]\tspecial=pad\n"),
                "v.txt:6: second pad token \"[PAD]\"",
            ),
            (
                format!("{HEADER}\n<pad>\tspecial=pad\n<s>\tspecial=bos\n</s>\tspecial=eos\n"),
                "v.txt: missing special token: no entry marked special=unk",
            ),
        ];
        for (text, want) in cases {
            let got = load_str(text.as_bytes());
            assert!(got.starts_with(want), "{text:?}: {got}");
        }
        let mut bad = format!("{ok}ab").into_bytes();
        bad.extend_from_slice(b"\xff\t1\n");
        assert!(load_str(&bad).starts_with("v.txt:6: invalid UTF-8"));
    }

    #[test]
    fn crlf_and_tokens_with_spaces_are_read() {
        let text = format!("{HEADER}\r\n{}a b\t7\r\n", SPECIALS.replace('\n', "\r\n"));
        let v = Vocab::read_from(LineReader::new("v.txt", text.as_bytes())).unwrap();
        assert_eq!((v.id("a b"), v.count(4)), (Some(4), Some(7)));
    }

    #[test]
    fn save_load_round_trip_and_atomic_failure() {
        let mut c = TokenCounter::new();
        c.add_n("Hund", 3);
        c.add_n("der", 5);
        let v = VocabBuilder::new().lang_tags(["de"]).build(&c).unwrap();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("v.txt");
        v.save(&p).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text,
            format!("{HEADER}\n{SPECIALS}<de>\tspecial=lang\nder\t5\nHund\t3\n")
        );
        assert_eq!(Vocab::load(&p).unwrap(), v);
        let missing = d.path().join("no/such/dir/v.txt");
        assert!(v.save(&missing).is_err());
        assert!(
            Vocab::load(d.path().join("nope.txt"))
                .unwrap_err()
                .to_string()
                .contains("nope.txt")
        );
    }
}
