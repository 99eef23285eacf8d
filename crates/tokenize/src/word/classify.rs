//! Character classes of the word tokenizer, and the small word lists its period rule uses.

use super::marks::is_mark;

/// What a character does in a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// Separates tokens and is dropped: whitespace, control characters, zero-width space.
    Sep,
    /// A letter or digit (`char::is_alphanumeric`).
    Word,
    /// A CJK ideograph: a token of its own (when CJK splitting is on), as in BERT.
    Han,
    /// Continues the token before it: combining marks, zero-width (non-)joiners, emoji skin
    /// tones.
    Mark,
    /// `'`, `’` or `ʼ`: inside a word, or a quote mark, depending on its neighbours.
    Apostrophe,
    /// `-`, `‐` or `‑`: inside a word (`Fußball-EM`), at its edge (`Haupt-`, `-5`) or alone.
    Hyphen,
    /// `.`: inside a number or abbreviation (`3.5`, `U.S.`), or sentence punctuation.
    Period,
    /// `,`: inside a number (`1,000`), else punctuation.
    Comma,
    /// Any other punctuation or symbol: a token of its own (runs of one character, like `...`
    /// or `--`, form one token).
    Punct,
}

/// Classify `c`.
#[inline]
pub(crate) fn classify(c: char) -> Class {
    if c.is_ascii() {
        return match c as u8 {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => Class::Word,
            b'\'' => Class::Apostrophe,
            b'-' => Class::Hyphen,
            b'.' => Class::Period,
            b',' => Class::Comma,
            0..=0x20 | 0x7F => Class::Sep,
            _ => Class::Punct,
        };
    }
    classify_non_ascii(c)
}

fn classify_non_ascii(c: char) -> Class {
    match c {
        '\u{2019}' | '\u{02BC}' => Class::Apostrophe,
        '\u{2010}' | '\u{2011}' => Class::Hyphen,
        '\u{200B}' => Class::Sep,
        '\u{200C}' | '\u{200D}' | '\u{1F3FB}'..='\u{1F3FF}' => Class::Mark,
        _ if c.is_whitespace() || c.is_control() => Class::Sep,
        _ if is_han(c) => Class::Han,
        _ if c.is_alphanumeric() => Class::Word,
        _ if is_mark(c) => Class::Mark,
        _ => Class::Punct,
    }
}

/// CJK ideographs (the blocks BERT's basic tokenizer splits into single characters).
fn is_han(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{20000}'..='\u{2A6DF}'
        | '\u{2A700}'..='\u{2CEAF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{2F800}'..='\u{2FA1F}')
}

/// Invisible formatting characters removed before tokenizing, without splitting the word
/// they sit in: soft hyphen, byte-order mark / zero-width no-break space, word joiner,
/// invisible operators, bidirectional marks and embeddings.
#[inline]
pub(crate) fn is_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{FEFF}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// English clitics that keep their leading apostrophe (`'s`, `'re`, …: Moses-tokenized English
/// writes them as tokens of their own). Compared case-insensitively.
const CLITICS: &[&str] = &["d", "ll", "m", "re", "s", "t", "ve"];

/// Whether `word` (the letters after a leading apostrophe) is an English clitic.
pub(crate) fn is_clitic(word: &str) -> bool {
    word.len() <= 2 && CLITICS.iter().any(|c| c.eq_ignore_ascii_case(word))
}

/// Abbreviations (English, German, French) that keep their period when more text follows on
/// the line, also before a capitalised word (`Mr. Kelly`, `Nr. 51`, `Prof. Dr. Weber`).
/// Compared ASCII-case-insensitively (so lowercased text tokenizes alike); lowercase, sorted
/// for binary search.
const ABBREVIATIONS: &[&str] = &[
    "abb", "abs", "adm", "apr", "art", "aug", "bd", "brig", "bzw", "ca", "capt", "co", "col",
    "corp", "dec", "dez", "dr", "evtl", "feb", "fig", "fr", "gen", "ggf", "gov", "hr", "hrn",
    "inc", "inkl", "jan", "jh", "jr", "jul", "jun", "lt", "ltd", "mar", "mio", "mlle", "mm", "mme",
    "mr", "mrd", "mrs", "ms", "mt", "nov", "nr", "oct", "okt", "prof", "rep", "sen", "sens", "sep",
    "sept", "sgt", "sr", "st", "tel", "vgl", "vs", "zzgl",
];

/// Whether `word` is one of the built-in abbreviations (ignoring ASCII case).
pub(crate) fn is_abbreviation(word: &str) -> bool {
    let mut buf = [0u8; 4];
    let Some(low) = buf.get_mut(..word.len()) else {
        return false;
    };
    low.copy_from_slice(word.as_bytes());
    low.make_ascii_lowercase();
    std::str::from_utf8(low).is_ok_and(|w| ABBREVIATIONS.binary_search(&w).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        use Class::*;
        let cases = [
            ('a', Word),
            ('Ä', Word),
            ('ß', Word),
            ('7', Word),
            ('٣', Word),
            ('Ж', Word),
            ('中', Han),
            ('の', Word),
            ('\u{301}', Mark),
            ('\u{200D}', Mark),
            ('\'', Apostrophe),
            ('’', Apostrophe),
            ('-', Hyphen),
            ('.', Period),
            (',', Comma),
            ('"', Punct),
            ('«', Punct),
            ('€', Punct),
            ('…', Punct),
            ('😀', Punct),
            (' ', Sep),
            ('\t', Sep),
            ('\u{A0}', Sep),
            ('\u{3000}', Sep),
            ('\u{200B}', Sep),
            ('\u{1}', Sep),
        ];
        for (c, want) in cases {
            assert_eq!(classify(c), want, "{c:?}");
        }
        assert!(is_ignorable('\u{AD}') && !is_ignorable('a'));
    }

    #[test]
    fn word_lists() {
        assert!(ABBREVIATIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_abbreviation("Mr") && is_abbreviation("bzw") && is_abbreviation("MR"));
        assert!(!is_abbreviation("Mister") && !is_abbreviation("") && !is_abbreviation("Mü"));
        assert!(is_clitic("s") && is_clitic("LL") && !is_clitic("hello") && !is_clitic("x"));
    }
}
