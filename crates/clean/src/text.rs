//! What the rules read of a side: its folded form (the key of near-duplicates and of
//! untranslated pairs), its numbers, its links, the kinds of its characters and their scripts.

use std::borrow::Cow;

use rustc_hash::FxHasher;
use std::hash::Hasher;

/// A pair's sides as the cleaning steps judge them: with `unescape_html`, HTML entities decoded
/// (`&quot;` → `"`, text escaped as Moses escapes it; `bitext_tokenize::unescape_html`), else
/// as they are. `bitext clean` writes the lines themselves, never these.
#[must_use]
pub fn judged_sides<'a>(
    src: &'a str,
    tgt: &'a str,
    unescape_html: bool,
) -> (Cow<'a, str>, Cow<'a, str>) {
    if unescape_html {
        (
            bitext_tokenize::unescape_html(src),
            bitext_tokenize::unescape_html(tgt),
        )
    } else {
        (Cow::Borrowed(src), Cow::Borrowed(tgt))
    }
}

/// `text` folded as bifixer's aggressive deduplication folds it: lower case, and only letters
/// kept (punctuation, symbols, spaces and digits dropped), so that two lines differing only in
/// those fold to one string.
///
/// ```
/// assert_eq!(bitext_clean::fold("Das Haus, 2 Etagen!"), bitext_clean::fold("das haus – 3 etagen"));
/// ```
#[must_use]
pub fn fold(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A 64-bit key of a folded text (FxHash of its UTF-8 bytes): the same in every run and
/// process, so that a sharded run deduplicates as one process does.
#[must_use]
pub fn key(folded: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(folded.as_bytes());
    h.write_u8(0xff);
    h.finish()
}

/// The numbers of `text`: each maximal run of digits, with the separators inside it (`,` `.`
/// `'` thin and no-break spaces between digits, and a space before a group of exactly three
/// digits) dropped, so that `1,000.5`, `1.000,5` and `1 000.5` agree; sorted.
#[must_use]
pub fn numbers(text: &str) -> Vec<String> {
    // The digits of a link belong to the link (the links rule compares them).
    let words: Vec<&str> = text.split(' ').filter(|w| link(w).is_none()).collect();
    let chars: Vec<char> = words.join(" ").chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_digit() {
            cur.push(c);
            continue;
        }
        let digit_at = |k: usize| chars.get(k).is_some_and(char::is_ascii_digit);
        // A space joins a group of exactly three digits (`582 000`), the other separators any.
        let joins = !cur.is_empty()
            && match c {
                ',' | '.' | '\'' | '\u{2009}' | '\u{202f}' | '\u{a0}' => digit_at(i + 1),
                ' ' => (1..=3).all(|k| digit_at(i + k)) && !digit_at(i + 4),
                _ => false,
            };
        if !joins && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.sort();
    out
}

/// The links of `text`: URLs (`http://`, `https://`, `ftp://`, `www.`) and e-mail addresses,
/// lower-cased, trailing punctuation dropped; sorted.
#[must_use]
pub fn links(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text.split_whitespace().filter_map(link).collect();
    out.sort();
    out
}

/// The word `w` lower-cased, trailing punctuation dropped, when it is a URL or an e-mail
/// address.
fn link(w: &str) -> Option<String> {
    let w = w.trim_matches(|c: char| "()[]<>\"'«»“”‘’,;:!?.".contains(c));
    let lower = w.to_lowercase();
    let url = ["http://", "https://", "ftp://", "www."]
        .iter()
        .any(|p| lower.starts_with(p));
    let mail = w
        .split_once('@')
        .is_some_and(|(user, host)| !user.is_empty() && host.contains('.') && !host.ends_with('.'));
    (url || mail).then_some(lower)
}

/// Whether `text` holds markup: an HTML/XML tag (`<b>`, `</p>`, `<br/>`) or a character entity
/// (`&amp;`, `&#39;`, `&#x27;`).
#[must_use]
pub fn has_markup(text: &str) -> bool {
    has_tag(text) || has_entity(text)
}

fn has_tag(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'<'
            && b.get(i + 1)
                .is_some_and(|&n| n == b'/' || n.is_ascii_alphabetic())
            && b[i + 1..]
                .iter()
                .take(200)
                .position(|&x| x == b'>')
                .is_some_and(|end| !b[i + 1..i + 1 + end].contains(&b'<'))
    })
}

fn has_entity(text: &str) -> bool {
    text.match_indices('&').any(|(i, _)| {
        let rest = &text[i + 1..];
        let Some(end) = rest.find(';').filter(|&e| (2..=10).contains(&e)) else {
            return false;
        };
        let name = &rest[..end];
        match name.strip_prefix('#') {
            Some(n) => match n.strip_prefix(['x', 'X']) {
                Some(h) => !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()),
                None => n.chars().all(|c| c.is_ascii_digit()),
            },
            None => name.chars().all(|c| c.is_ascii_alphanumeric()),
        }
    })
}

/// How the characters of a side divide: letters, digits, punctuation and symbols (every other
/// character that is not a space).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kinds {
    /// Alphabetic characters (of any script).
    pub letters: usize,
    /// Decimal digits.
    pub digits: usize,
    /// Punctuation and symbols.
    pub other: usize,
}

impl Kinds {
    /// The kinds of the characters of `text`.
    #[must_use]
    pub fn of(text: &str) -> Self {
        let mut k = Self::default();
        for c in text.chars().filter(|c| !c.is_whitespace()) {
            if c.is_alphabetic() {
                k.letters += 1;
            } else if c.is_numeric() {
                k.digits += 1;
            } else {
                k.other += 1;
            }
        }
        k
    }

    /// Characters that are not spaces.
    #[must_use]
    pub fn visible(&self) -> usize {
        self.letters + self.digits + self.other
    }
}

/// A writing system, as far as the rules tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Script {
    /// Latin letters (with their accented forms).
    Latin,
    /// Greek.
    Greek,
    /// Cyrillic.
    Cyrillic,
    /// Armenian.
    Armenian,
    /// Hebrew.
    Hebrew,
    /// Arabic (and the Persian and Urdu letters).
    Arabic,
    /// Devanagari (Hindi, Marathi, Nepali).
    Devanagari,
    /// Bengali.
    Bengali,
    /// Tamil.
    Tamil,
    /// Thai.
    Thai,
    /// Georgian.
    Georgian,
    /// Hangul (Korean).
    Hangul,
    /// Hiragana and katakana (Japanese).
    Kana,
    /// Han characters (Chinese, and Japanese kanji).
    Han,
    /// Any other letter.
    Other,
}

/// The script of a letter.
#[must_use]
pub fn script(c: char) -> Script {
    match c as u32 {
        0x41..=0x5a | 0x61..=0x7a | 0xc0..=0x24f | 0x1e00..=0x1eff | 0xaa | 0xba => Script::Latin,
        0x370..=0x3ff | 0x1f00..=0x1fff => Script::Greek,
        0x400..=0x52f | 0x1c80..=0x1c8f | 0x2de0..=0x2dff | 0xa640..=0xa69f => Script::Cyrillic,
        0x530..=0x58f => Script::Armenian,
        0x590..=0x5ff => Script::Hebrew,
        0x600..=0x6ff | 0x750..=0x77f | 0x8a0..=0x8ff | 0xfb50..=0xfdff | 0xfe70..=0xfeff => {
            Script::Arabic
        }
        0x900..=0x97f => Script::Devanagari,
        0x980..=0x9ff => Script::Bengali,
        0xb80..=0xbff => Script::Tamil,
        0xe00..=0xe7f => Script::Thai,
        0x10a0..=0x10ff | 0x1c90..=0x1cbf => Script::Georgian,
        0x1100..=0x11ff | 0x3130..=0x318f | 0xac00..=0xd7af => Script::Hangul,
        0x3040..=0x30ff | 0x31f0..=0x31ff | 0xff66..=0xff9f => Script::Kana,
        0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xf900..=0xfaff | 0x20000..=0x3134f => Script::Han,
        _ => Script::Other,
    }
}

/// The scripts a language is written in (ISO 639-1 codes, and the 639-3 codes of fastText's
/// labels where there is no 639-1 code); `None` for a language this table does not know (the
/// script rule then passes that side).
#[must_use]
pub fn scripts_of(lang: &str) -> Option<&'static [Script]> {
    use Script::*;
    Some(match lang {
        "el" => &[Greek],
        "ru" | "uk" | "bg" | "sr" | "mk" | "be" | "kk" | "ky" | "mn" | "tg" | "tt" | "ba"
        | "cv" | "os" | "ce" | "sah" => &[Cyrillic],
        "hy" => &[Armenian],
        "he" | "yi" => &[Hebrew],
        "ar" | "fa" | "ur" | "ps" | "ug" | "ckb" | "arz" | "azb" | "mzn" | "pnb" => &[Arabic],
        "hi" | "mr" | "ne" | "sa" | "bh" | "new" | "mai" => &[Devanagari],
        "bn" | "as" | "bpy" => &[Bengali],
        "ta" => &[Tamil],
        "th" => &[Thai],
        "ka" | "xmf" => &[Georgian],
        "ko" => &[Hangul, Han],
        "ja" => &[Kana, Han],
        "zh" | "yue" | "wuu" | "gan" => &[Han],
        // Serbian and a few others are also written in Latin letters; Latin is accepted in any
        // language below and in those that borrow Latin words (brands, units).
        "en" | "de" | "fr" | "es" | "it" | "pt" | "nl" | "sv" | "da" | "no" | "nb" | "nn"
        | "is" | "fi" | "et" | "lv" | "lt" | "pl" | "cs" | "sk" | "sl" | "hr" | "bs" | "hu"
        | "ro" | "tr" | "az" | "sq" | "ca" | "gl" | "eu" | "ga" | "gd" | "cy" | "br" | "mt"
        | "lb" | "af" | "sw" | "id" | "ms" | "tl" | "vi" | "eo" | "la" | "oc" | "fy" | "uz"
        | "tk" | "ku" | "so" | "ha" | "yo" | "ig" | "zu" | "xh" | "mg" | "ht" | "jv" | "su"
        | "ast" | "an" | "wa" | "nds" | "als" | "fo" | "rm" | "co" | "sc" | "vec" | "lmo"
        | "scn" | "nap" | "pms" | "ceb" | "war" | "ilo" | "qu" => &[Latin],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_keeps_only_lower_case_letters() {
        assert_eq!(fold("Das Haus, 2 Etagen!"), "dashausetagen");
        assert_eq!(fold("  ÄRGER über 3 €  "), "ärgerüber");
        assert_eq!(fold("123 !!"), "");
        assert_eq!(key(&fold("A b")), key(&fold("a-B")));
        assert_ne!(key("ab"), key("ba"));
    }

    #[test]
    fn numbers_agree_across_separators_and_order() {
        assert_eq!(numbers("1,000.5 km in 2024"), ["10005", "2024"]);
        assert_eq!(numbers("2024: 1.000,5 km"), ["10005", "2024"]);
        assert_eq!(numbers("version 3.2."), ["32"]);
        assert!(numbers("keine Zahl, nur Wörter.").is_empty());
        assert_eq!(numbers("a 1, 2"), ["1", "2"]);
        assert_eq!(
            numbers("582 000 Hektar, 100 000 Jahre"),
            ["100000", "582000"]
        );
        assert_eq!(numbers("in 2006 12 Leute"), ["12", "2006"]);
        assert_eq!(numbers("Seite 2 auf https://a.de/p/17?x=3"), ["2"]);
    }

    #[test]
    fn links_are_urls_and_addresses() {
        assert_eq!(
            links("See https://Example.org/a, or write to info@example.org."),
            ["https://example.org/a", "info@example.org"]
        );
        assert_eq!(links("www.test.de (Start)"), ["www.test.de"]);
        assert!(links("a @ b, @user, x@y").is_empty());
    }

    #[test]
    fn markup_is_tags_and_entities() {
        assert!(has_markup("Click <b>here</b>"));
        assert!(has_markup("line<br/>break"));
        assert!(has_markup("Tom &amp; Jerry"));
        assert!(has_markup("it&#39;s"));
        assert!(has_markup("&#x27;quoted"));
        assert!(!has_markup("3 < 4 and 5 > 2"));
        assert!(!has_markup("Tom & Jerry; friends"));
        assert!(!has_markup("a <3 heart"));
    }

    #[test]
    fn kinds_and_scripts() {
        let k = Kinds::of("Tel. 030 12-34!");
        assert_eq!((k.letters, k.digits, k.other, k.visible()), (3, 7, 3, 13));
        assert_eq!(script('ß'), Script::Latin);
        assert_eq!(script('ж'), Script::Cyrillic);
        assert_eq!(script('か'), Script::Kana);
        assert_eq!(script('漢'), Script::Han);
        assert_eq!(script('한'), Script::Hangul);
        assert_eq!(scripts_of("ja"), Some(&[Script::Kana, Script::Han][..]));
        assert_eq!(scripts_of("xx"), None);
    }
}
