//! The word tokenizer for word-level methods (EMD sentence distance, IBM-1, word alignment,
//! bag-of-words encoders): Unicode-aware, deterministic, one pass, no regular expressions.
//!
//! # Rules
//!
//! 1. HTML character references are replaced first (when [`WordConfig::unescape_html`] is on,
//!    the default): `&quot;` → `"`, `&amp;` → `&`, `&apos;` → `'`, `&#124;` → `|`, `&#x5B;` →
//!    `[`; unknown ones (`&foo;`) stay as they are. See [`crate::unescape_html`].
//! 2. Invisible formatting characters (soft hyphen, byte-order mark, bidirectional marks, word
//!    joiner) are removed without splitting the word they sit in.
//! 3. Whitespace (Unicode `White_Space`, including no-break spaces), control characters and the
//!    zero-width space separate tokens and are dropped. Tokens never contain them.
//! 4. A token is a run of letters and digits (`char::is_alphanumeric`, any script). Combining
//!    marks, zero-width (non-)joiners and emoji skin tones continue the token before them, and
//!    a symbol after a zero-width joiner joins the symbol before it (`👨‍👩` is one token).
//!    CJK ideographs are one token each ([`WordConfig::split_cjk`], on by default, as BERT);
//!    other scripts written without spaces (Thai, Khmer) stay one token per run.
//! 5. Every other punctuation or symbol character is a token of its own; a run of one repeated
//!    character is one token (`...`, `--`, `!!!`), different ones are not (`?!` → `?` `!`).
//! 6. Numbers are kept whole: `,` and `.` between digits stay inside (`1,000`, `3.5`,
//!    `0,5`, `1.000.000`), a leading `-` or `.` at the start of a whitespace-separated chunk
//!    starts the number (`-5`, `.5`); `%`, `:` and `/` split (`0,5` `%`, `12` `:` `30`).
//! 7. Hyphens (`-`, `‐`, `‑`) between letters or digits stay inside (`Fußball-EM`, `COVID-19`,
//!    `e-mail`); a hyphen ending a chunk stays on its word (German `Haupt- und Nebeneingang`);
//!    one starting a chunk before a letter or digit stays too (`-vorplatz`, `-5`).
//! 8. Apostrophes (`'`, `’`, `ʼ`) between letters stay inside (`don't`, `l'homme`, `O'Neill`);
//!    a leading one stays on an English clitic (`'s`, `'re`, `'ve`, `'ll`, `'d`, `'m`, `'t`, as
//!    Moses writes them); a trailing one stays on its word (French `l'`, `qu'` as Moses writes
//!    them, English `students'`) unless an apostrophe opened a quotation earlier on the line, in
//!    which case it closes it (`'hello'` → `'` `hello` `'`).
//! 9. `.` between letters or digits stays inside (`U.S`, `www.example.com`). A final `.` stays
//!    on its word when the word is an abbreviation with inner periods whose parts have one to
//!    four letters (`U.S.`, `z.B.`, `e.g.`, `Ph.D.`; not `example.com.`), or, when more text
//!    follows on the line, when the word is a single letter (`J. Watson`), a number of at most
//!    three digits followed by a letter or digit (German ordinals: `13. November`), a built-in
//!    abbreviation, ignoring case (`Mr.`, `Dr.`, `Nr.`, `bzw.`, `ca.`, `vs.` …), or the next
//!    word starts lowercase (`usw. vollgepackter`). Otherwise it is split off (`Er kam.` →
//!    `Er` `kam` `.`).
//! 10. Lowercasing ([`WordConfig::lowercase`], off by default) is Unicode lowercasing per token
//!     (`ÄRGER` → `ärger`, final sigma `ΟΔΟΣ` → `οδος`), applied after splitting so the rules
//!     above see the original case.
//!
//! Text that Moses already tokenized (`Der Hund , sagte er .`) tokenizes to its
//! space-separated tokens, entities unescaped: Moses splits what these rules split, and the
//! tokens it keeps whole (`'s`, `n't`, `l'`, `z.B.`, `13.`, `Mr.`, `-5`, `...`, `--`) are kept
//! whole here. Exceptions: a period Moses kept at the end of a line, or before a capitalised
//! word after an abbreviation outside the built-in list (`usw. Lassen`), is split off; so is a
//! leading apostrophe before something other than an English clitic (Moses' English rules
//! write `dell'Acqua` as `dell 'Acqua`, here `dell` `'` `Acqua`).
//!
//! Tokenizing the space-joined tokens again gives the same tokens (checked by a property
//! test), so tokenized output can be stored as text and read back.

mod classify;
pub(crate) mod entities;
mod marks;
mod scan;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use self::classify::is_ignorable;
use self::entities::unescape_html;
use self::scan::Scanner;

/// Options of the [`WordTokenizer`] (serde: all fields optional).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WordConfig {
    /// Lowercase every token (Unicode). Default: `false`.
    pub lowercase: bool,
    /// Replace HTML character references (`&quot;`, `&#124;`) before tokenizing. Default:
    /// `true`.
    pub unescape_html: bool,
    /// Make each CJK ideograph a token of its own. Default: `true`.
    pub split_cjk: bool,
}

impl Default for WordConfig {
    fn default() -> Self {
        Self {
            lowercase: false,
            unescape_html: true,
            split_cjk: true,
        }
    }
}

impl WordConfig {
    /// The tokenizer with these options.
    #[must_use]
    pub fn build(self) -> WordTokenizer {
        WordTokenizer { config: self }
    }
}

/// A consuming builder for [`WordTokenizer`].
#[derive(Debug, Clone, Copy, Default)]
#[must_use]
pub struct WordTokenizerBuilder {
    config: WordConfig,
}

impl WordTokenizerBuilder {
    /// Lowercase every token.
    pub fn lowercase(mut self, on: bool) -> Self {
        self.config.lowercase = on;
        self
    }

    /// Replace HTML character references before tokenizing.
    pub fn unescape_html(mut self, on: bool) -> Self {
        self.config.unescape_html = on;
        self
    }

    /// Make each CJK ideograph a token of its own.
    pub fn split_cjk(mut self, on: bool) -> Self {
        self.config.split_cjk = on;
        self
    }

    /// The tokenizer.
    pub fn build(self) -> WordTokenizer {
        self.config.build()
    }
}

/// Splits text into words, punctuation and numbers by the rules of the [module docs](self).
///
/// ```
/// use bitext_tokenize::WordTokenizer;
/// let t = WordTokenizer::default();
/// assert_eq!(
///     t.tokenize("&quot;Der Hund&quot;, sagte er, \"kostet 1.000,50 €.\""),
///     ["\"", "Der", "Hund", "\"", ",", "sagte", "er", ",", "\"", "kostet", "1.000,50", "€", ".", "\""]
/// );
/// let lower = WordTokenizer::builder().lowercase(true).build();
/// assert_eq!(lower.tokenize("Don't PANIC!"), ["don't", "panic", "!"]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct WordTokenizer {
    config: WordConfig,
}

impl WordTokenizer {
    /// A tokenizer with the given options.
    #[must_use]
    pub fn new(config: WordConfig) -> Self {
        Self { config }
    }

    /// A builder, starting from the default options.
    pub fn builder() -> WordTokenizerBuilder {
        WordTokenizerBuilder::default()
    }

    /// The options.
    #[must_use]
    pub fn config(&self) -> &WordConfig {
        &self.config
    }

    /// The tokens of `text`, in order.
    #[must_use]
    pub fn tokenize(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_token(text, |t| out.push(t.to_owned()));
        out
    }

    /// Append the tokens of `text` to `out` (reuse `out` across calls to save allocations).
    pub fn tokenize_into(&self, text: &str, out: &mut Vec<String>) {
        self.for_each_token(text, |t| out.push(t.to_owned()));
    }

    /// Call `f` with each token of `text`, in order, without allocating a `String` per token.
    ///
    /// The `&str` handed to `f` lives only for the call. Text without HTML references,
    /// invisible formatting characters or (with lowercasing on) non-ASCII letters is tokenized
    /// without an allocation per token.
    pub fn for_each_token(&self, text: &str, mut f: impl FnMut(&str)) {
        let text = self.normalize(text);
        if self.config.lowercase {
            let mut buf = String::new();
            Scanner::new(&text, self.config.split_cjk, |t: &str| {
                if !t.is_ascii() {
                    f(&t.to_lowercase());
                } else if t.bytes().any(|b| b.is_ascii_uppercase()) {
                    buf.clear();
                    buf.push_str(t);
                    buf.make_ascii_lowercase();
                    f(&buf);
                } else {
                    f(t);
                }
            })
            .run();
        } else {
            Scanner::new(&text, self.config.split_cjk, |t: &str| f(t)).run();
        }
    }

    /// Number of tokens of `text`.
    #[must_use]
    pub fn count(&self, text: &str) -> usize {
        let mut n = 0;
        self.for_each_token(text, |_| n += 1);
        n
    }

    /// Rules 1 and 2: unescape HTML references, remove invisible formatting characters.
    fn normalize<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let text = if self.config.unescape_html {
            unescape_html(text)
        } else {
            Cow::Borrowed(text)
        };
        if text.is_ascii() || !text.chars().any(is_ignorable) {
            return text;
        }
        Cow::Owned(text.chars().filter(|&c| !is_ignorable(c)).collect())
    }
}
