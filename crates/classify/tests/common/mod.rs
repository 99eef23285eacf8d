//! Shared by this crate's integration tests: a toy language pair built in code (German-like
//! sources translated word by word into English-like targets, numbers and punctuation
//! copied), and small helpers.

#![allow(dead_code, unreachable_pub)]

pub use bitext_testkit::data::{TOY_LEXICON as LEXICON, translated_pairs as corpus};

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

/// `bitext_classify::train` on `pairs` with `config` into `dir`: no other-language text, the
/// held-out calibration, the light backends, nothing heard.
pub fn fit(
    pairs: &[(String, String)],
    config: &bitext_classify::TrainConfig,
    dir: &std::path::Path,
) -> bitext_classify::Result<bitext_classify::Classifier> {
    bitext_classify::train(
        pairs,
        &[],
        None,
        config,
        dir,
        &bitext_classify::LightBackends,
        &mut |_| {},
    )
}
