//! HTML character references: `&quot;`, `&amp;`, `&#124;`, `&#x5B;` and the other named
//! entities of HTML 4 (plus `&apos;`), the ones Moses-tokenized corpora and web text carry.
//!
//! Only well-formed references are replaced: a name from the table or a decimal/hexadecimal code
//! point of a Unicode scalar value (not 0, not a surrogate), closed by `;`. Anything else —
//! `&foo;`, `&#xD800;`, `AT&T` — is left exactly as it is. One pass: `&amp;quot;` becomes
//! `&quot;`, as a browser shows it.

use std::borrow::Cow;

/// Named references (HTML 4 plus `apos`), sorted by name (byte order) for binary search.
/// Generated from Python's `html.entities.name2codepoint`.
#[rustfmt::skip]
const NAMED: &[(&str, char)] = &[
    ("AElig", '\u{C6}'), ("Aacute", '\u{C1}'), ("Acirc", '\u{C2}'), ("Agrave", '\u{C0}'),
    ("Alpha", '\u{391}'), ("Aring", '\u{C5}'), ("Atilde", '\u{C3}'), ("Auml", '\u{C4}'),
    ("Beta", '\u{392}'), ("Ccedil", '\u{C7}'), ("Chi", '\u{3A7}'), ("Dagger", '\u{2021}'),
    ("Delta", '\u{394}'), ("ETH", '\u{D0}'), ("Eacute", '\u{C9}'), ("Ecirc", '\u{CA}'),
    ("Egrave", '\u{C8}'), ("Epsilon", '\u{395}'), ("Eta", '\u{397}'), ("Euml", '\u{CB}'),
    ("Gamma", '\u{393}'), ("Iacute", '\u{CD}'), ("Icirc", '\u{CE}'), ("Igrave", '\u{CC}'),
    ("Iota", '\u{399}'), ("Iuml", '\u{CF}'), ("Kappa", '\u{39A}'), ("Lambda", '\u{39B}'),
    ("Mu", '\u{39C}'), ("Ntilde", '\u{D1}'), ("Nu", '\u{39D}'), ("OElig", '\u{152}'),
    ("Oacute", '\u{D3}'), ("Ocirc", '\u{D4}'), ("Ograve", '\u{D2}'), ("Omega", '\u{3A9}'),
    ("Omicron", '\u{39F}'), ("Oslash", '\u{D8}'), ("Otilde", '\u{D5}'), ("Ouml", '\u{D6}'),
    ("Phi", '\u{3A6}'), ("Pi", '\u{3A0}'), ("Prime", '\u{2033}'), ("Psi", '\u{3A8}'),
    ("Rho", '\u{3A1}'), ("Scaron", '\u{160}'), ("Sigma", '\u{3A3}'), ("THORN", '\u{DE}'),
    ("Tau", '\u{3A4}'), ("Theta", '\u{398}'), ("Uacute", '\u{DA}'), ("Ucirc", '\u{DB}'),
    ("Ugrave", '\u{D9}'), ("Upsilon", '\u{3A5}'), ("Uuml", '\u{DC}'), ("Xi", '\u{39E}'),
    ("Yacute", '\u{DD}'), ("Yuml", '\u{178}'), ("Zeta", '\u{396}'), ("aacute", '\u{E1}'),
    ("acirc", '\u{E2}'), ("acute", '\u{B4}'), ("aelig", '\u{E6}'), ("agrave", '\u{E0}'),
    ("alefsym", '\u{2135}'), ("alpha", '\u{3B1}'), ("amp", '\u{26}'), ("and", '\u{2227}'),
    ("ang", '\u{2220}'), ("apos", '\u{27}'), ("aring", '\u{E5}'), ("asymp", '\u{2248}'),
    ("atilde", '\u{E3}'), ("auml", '\u{E4}'), ("bdquo", '\u{201E}'), ("beta", '\u{3B2}'),
    ("brvbar", '\u{A6}'), ("bull", '\u{2022}'), ("cap", '\u{2229}'), ("ccedil", '\u{E7}'),
    ("cedil", '\u{B8}'), ("cent", '\u{A2}'), ("chi", '\u{3C7}'), ("circ", '\u{2C6}'),
    ("clubs", '\u{2663}'), ("cong", '\u{2245}'), ("copy", '\u{A9}'), ("crarr", '\u{21B5}'),
    ("cup", '\u{222A}'), ("curren", '\u{A4}'), ("dArr", '\u{21D3}'), ("dagger", '\u{2020}'),
    ("darr", '\u{2193}'), ("deg", '\u{B0}'), ("delta", '\u{3B4}'), ("diams", '\u{2666}'),
    ("divide", '\u{F7}'), ("eacute", '\u{E9}'), ("ecirc", '\u{EA}'), ("egrave", '\u{E8}'),
    ("empty", '\u{2205}'), ("emsp", '\u{2003}'), ("ensp", '\u{2002}'), ("epsilon", '\u{3B5}'),
    ("equiv", '\u{2261}'), ("eta", '\u{3B7}'), ("eth", '\u{F0}'), ("euml", '\u{EB}'),
    ("euro", '\u{20AC}'), ("exist", '\u{2203}'), ("fnof", '\u{192}'), ("forall", '\u{2200}'),
    ("frac12", '\u{BD}'), ("frac14", '\u{BC}'), ("frac34", '\u{BE}'), ("frasl", '\u{2044}'),
    ("gamma", '\u{3B3}'), ("ge", '\u{2265}'), ("gt", '\u{3E}'), ("hArr", '\u{21D4}'),
    ("harr", '\u{2194}'), ("hearts", '\u{2665}'), ("hellip", '\u{2026}'), ("iacute", '\u{ED}'),
    ("icirc", '\u{EE}'), ("iexcl", '\u{A1}'), ("igrave", '\u{EC}'), ("image", '\u{2111}'),
    ("infin", '\u{221E}'), ("int", '\u{222B}'), ("iota", '\u{3B9}'), ("iquest", '\u{BF}'),
    ("isin", '\u{2208}'), ("iuml", '\u{EF}'), ("kappa", '\u{3BA}'), ("lArr", '\u{21D0}'),
    ("lambda", '\u{3BB}'), ("lang", '\u{2329}'), ("laquo", '\u{AB}'), ("larr", '\u{2190}'),
    ("lceil", '\u{2308}'), ("ldquo", '\u{201C}'), ("le", '\u{2264}'), ("lfloor", '\u{230A}'),
    ("lowast", '\u{2217}'), ("loz", '\u{25CA}'), ("lrm", '\u{200E}'), ("lsaquo", '\u{2039}'),
    ("lsquo", '\u{2018}'), ("lt", '\u{3C}'), ("macr", '\u{AF}'), ("mdash", '\u{2014}'),
    ("micro", '\u{B5}'), ("middot", '\u{B7}'), ("minus", '\u{2212}'), ("mu", '\u{3BC}'),
    ("nabla", '\u{2207}'), ("nbsp", '\u{A0}'), ("ndash", '\u{2013}'), ("ne", '\u{2260}'),
    ("ni", '\u{220B}'), ("not", '\u{AC}'), ("notin", '\u{2209}'), ("nsub", '\u{2284}'),
    ("ntilde", '\u{F1}'), ("nu", '\u{3BD}'), ("oacute", '\u{F3}'), ("ocirc", '\u{F4}'),
    ("oelig", '\u{153}'), ("ograve", '\u{F2}'), ("oline", '\u{203E}'), ("omega", '\u{3C9}'),
    ("omicron", '\u{3BF}'), ("oplus", '\u{2295}'), ("or", '\u{2228}'), ("ordf", '\u{AA}'),
    ("ordm", '\u{BA}'), ("oslash", '\u{F8}'), ("otilde", '\u{F5}'), ("otimes", '\u{2297}'),
    ("ouml", '\u{F6}'), ("para", '\u{B6}'), ("part", '\u{2202}'), ("permil", '\u{2030}'),
    ("perp", '\u{22A5}'), ("phi", '\u{3C6}'), ("pi", '\u{3C0}'), ("piv", '\u{3D6}'),
    ("plusmn", '\u{B1}'), ("pound", '\u{A3}'), ("prime", '\u{2032}'), ("prod", '\u{220F}'),
    ("prop", '\u{221D}'), ("psi", '\u{3C8}'), ("quot", '\u{22}'), ("rArr", '\u{21D2}'),
    ("radic", '\u{221A}'), ("rang", '\u{232A}'), ("raquo", '\u{BB}'), ("rarr", '\u{2192}'),
    ("rceil", '\u{2309}'), ("rdquo", '\u{201D}'), ("real", '\u{211C}'), ("reg", '\u{AE}'),
    ("rfloor", '\u{230B}'), ("rho", '\u{3C1}'), ("rlm", '\u{200F}'), ("rsaquo", '\u{203A}'),
    ("rsquo", '\u{2019}'), ("sbquo", '\u{201A}'), ("scaron", '\u{161}'), ("sdot", '\u{22C5}'),
    ("sect", '\u{A7}'), ("shy", '\u{AD}'), ("sigma", '\u{3C3}'), ("sigmaf", '\u{3C2}'),
    ("sim", '\u{223C}'), ("spades", '\u{2660}'), ("sub", '\u{2282}'), ("sube", '\u{2286}'),
    ("sum", '\u{2211}'), ("sup", '\u{2283}'), ("sup1", '\u{B9}'), ("sup2", '\u{B2}'),
    ("sup3", '\u{B3}'), ("supe", '\u{2287}'), ("szlig", '\u{DF}'), ("tau", '\u{3C4}'),
    ("there4", '\u{2234}'), ("theta", '\u{3B8}'), ("thetasym", '\u{3D1}'), ("thinsp", '\u{2009}'),
    ("thorn", '\u{FE}'), ("tilde", '\u{2DC}'), ("times", '\u{D7}'), ("trade", '\u{2122}'),
    ("uArr", '\u{21D1}'), ("uacute", '\u{FA}'), ("uarr", '\u{2191}'), ("ucirc", '\u{FB}'),
    ("ugrave", '\u{F9}'), ("uml", '\u{A8}'), ("upsih", '\u{3D2}'), ("upsilon", '\u{3C5}'),
    ("uuml", '\u{FC}'), ("weierp", '\u{2118}'), ("xi", '\u{3BE}'), ("yacute", '\u{FD}'),
    ("yen", '\u{A5}'), ("yuml", '\u{FF}'), ("zeta", '\u{3B6}'), ("zwj", '\u{200D}'),
    ("zwnj", '\u{200C}'),
];

/// Longest entity name in [`NAMED`].
const MAX_NAME: usize = 8;

/// Replace the HTML character references in `text` by the characters they stand for.
///
/// Only well-formed references are replaced: a named entity of HTML 4 or `&apos;`, or a
/// decimal/hexadecimal code point of a Unicode scalar value (not 0, not a surrogate), closed
/// by `;`. Anything else (`&foo;`, `&#xD800;`, `AT&T`) stays as it is. One pass: `&amp;quot;`
/// becomes `&quot;`. Borrows `text` when nothing is replaced.
///
/// ```
/// use bitext_tokenize::unescape_html;
/// assert_eq!(unescape_html("&quot;AT&amp;T&quot; &#124; &#x5B;x&#93; &foo;"), "\"AT&T\" | [x] &foo;");
/// ```
#[must_use]
pub fn unescape_html(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let Some(first) = bytes.iter().position(|&b| b == b'&') else {
        return Cow::Borrowed(text);
    };
    let mut out = String::new();
    let mut copied = 0;
    let mut i = first;
    while i < bytes.len() {
        if bytes[i] == b'&'
            && let Some((c, len)) = reference_at(&text[i + 1..])
        {
            if out.is_empty() {
                out.reserve(text.len());
            }
            out.push_str(&text[copied..i]);
            out.push(c);
            i += 1 + len;
            copied = i;
            continue;
        }
        i += 1;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Parse a reference after its `&`: the character and the number of bytes it spans (up to and
/// including `;`).
fn reference_at(rest: &str) -> Option<(char, usize)> {
    let b = rest.as_bytes();
    let semi = b.iter().take(MAX_NAME + 2).position(|&x| x == b';')?;
    let body = &rest[..semi];
    let c = if let Some(num) = body.strip_prefix('#') {
        let (digits, radix) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16),
            None => (num, 10),
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let n = u32::from_str_radix(digits, radix).ok()?;
        if n == 0 {
            return None;
        }
        char::from_u32(n)?
    } else {
        if body.is_empty() || !body.bytes().all(|x| x.is_ascii_alphanumeric()) {
            return None;
        }
        let k = NAMED.binary_search_by(|(n, _)| n.cmp(&body)).ok()?;
        NAMED[k].1
    };
    Some((c, semi + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moses_entities() {
        assert_eq!(
            unescape_html("&quot; &amp; &apos; &lt; &gt; &#124; &#91; &#93;"),
            "\" & ' < > | [ ]"
        );
        assert_eq!(unescape_html("Watson &apos;s"), "Watson 's");
        assert_eq!(
            unescape_html("&auml;&szlig;&eacute;&nbsp;&euro;"),
            "äßé\u{A0}€"
        );
        assert_eq!(
            unescape_html("&#228;&#xE4;&#XE4;&#x1F600;"),
            "ää\u{E4}\u{1F600}"
        );
    }

    #[test]
    fn malformed_references_stay() {
        for s in [
            "AT&T",
            "&",
            "&;",
            "&#;",
            "&#x;",
            "&#0;",
            "&#xD800;",
            "&#1114112;",
            "&foo;",
            "&amp",
            "&#12a;",
            "&Quot;",
            "& amp;",
            "&#99999999999999999999;",
            "&verylongname;",
        ] {
            assert_eq!(unescape_html(s), s);
            assert!(matches!(unescape_html(s), Cow::Borrowed(_)));
        }
        assert_eq!(unescape_html("&&amp;&"), "&&&");
        assert_eq!(unescape_html("&amp;quot;"), "&quot;");
        assert_eq!(unescape_html("ü&amp;ü"), "ü&ü");
    }

    #[test]
    fn table_is_sorted_and_bounded() {
        assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(NAMED.iter().map(|(n, _)| n.len()).max(), Some(MAX_NAME));
    }
}
