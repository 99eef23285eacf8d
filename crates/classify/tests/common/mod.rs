//! Shared by this crate's integration tests: a toy language pair built in code (German-like
//! sources translated word by word into English-like targets, numbers and punctuation
//! copied), and small helpers.

#![allow(dead_code, unreachable_pub)]

use bitext_core::Rng;

/// The toy lexicon: each source word and its translation.
pub const LEXICON: &[(&str, &str)] = &[
    ("haus", "house"),
    ("katze", "cat"),
    ("hund", "dog"),
    ("baum", "tree"),
    ("wasser", "water"),
    ("stadt", "city"),
    ("kind", "child"),
    ("buch", "book"),
    ("tisch", "table"),
    ("fenster", "window"),
    ("garten", "garden"),
    ("blume", "flower"),
    ("schule", "school"),
    ("lehrer", "teacher"),
    ("wagen", "car"),
    ("strasse", "street"),
    ("brot", "bread"),
    ("milch", "milk"),
    ("apfel", "apple"),
    ("vogel", "bird"),
    ("fisch", "fish"),
    ("sonne", "sun"),
    ("mond", "moon"),
    ("stern", "star"),
    ("berg", "hill"),
    ("fluss", "river"),
    ("wald", "forest"),
    ("feld", "field"),
    ("rot", "red"),
    ("blau", "blue"),
    ("gross", "big"),
    ("klein", "small"),
    ("alt", "old"),
    ("neu", "new"),
    ("gut", "good"),
    ("schnell", "fast"),
    ("sieht", "sees"),
    ("hat", "has"),
    ("liebt", "loves"),
    ("findet", "finds"),
    ("und", "and"),
    ("der", "the"),
    ("ein", "one"),
    ("mit", "with"),
    ("ohne", "without"),
    ("hier", "here"),
    ("heute", "today"),
    ("morgen", "tomorrow"),
];

pub fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `n` translated pairs drawn with `seed`: 4 to 12 words, a number in some (on both sides), a
/// comma in some and a final mark, all copied.
pub fn corpus(n: usize, seed: u64) -> Vec<(String, String)> {
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = 4 + rng.below(9);
            let mut s: Vec<String> = Vec::with_capacity(len + 1);
            let mut t: Vec<String> = Vec::with_capacity(len + 1);
            for _ in 0..len {
                let (a, b) = LEXICON[rng.below(LEXICON.len())];
                s.push(a.into());
                t.push(b.into());
            }
            if rng.bernoulli(0.4) {
                let at = rng.below(len);
                let number = (1 + rng.below(999)).to_string();
                s.insert(at, number.clone());
                t.insert(at, number);
            }
            if rng.bernoulli(0.3) {
                let at = rng.below(s.len() - 1);
                s[at].push(',');
                t[at].push(',');
            }
            let end = [".", "!", "?"][rng.below(3)];
            let join = |w: &[String]| format!("{}{end}", capitalised(&w.join(" ")));
            (join(&s), join(&t))
        })
        .collect()
}

pub fn sides(pairs: &[(String, String)]) -> (Vec<&str>, Vec<&str>) {
    pairs.iter().map(|(s, t)| (s.as_str(), t.as_str())).unzip()
}

pub fn diagonal(n: usize) -> Vec<(usize, usize)> {
    (0..n).map(|i| (i, i)).collect()
}

/// The values of column `name` of `x`.
pub fn column<'a>(x: &'a bitext_classify::Matrix, name: &str) -> &'a [f64] {
    let c = x.names.iter().position(|n| n == name);
    &x.columns[c.unwrap_or_else(|| panic!("no column {name} in {:?}", x.names))]
}

/// The test pairs of the feature checks: clean pairs, then pairs that fail rules (identical
/// sides, markup, different numbers, a long side), then odd punctuation.
pub fn feature_pairs() -> Vec<(String, String)> {
    let mut pairs = corpus(30, 9);
    for (s, t) in [
        ("Der hund sieht die katze.", "Der hund sieht die katze."),
        ("<b>Haus</b> und baum.", "<b>House</b> and tree."),
        ("Der hund hat 3 katzen.", "The dog has 4 cats."),
        (
            "Haus.",
            "The house and the tree and the garden and the river and the forest.",
        ),
        ("„Ja“, sagt der hund!", "\"Yes\", says the dog."),
        ("Haus 12 und 13.", "House 12 and 14."),
    ] {
        pairs.push((s.into(), t.into()));
    }
    pairs
}
