//! Seeded test data: embedding matrices (normal, small integers with many ties, planted
//! neighbours, planted translation pairs), a learnable parallel text with its bilingual word
//! vectors, random lines of given words (for training subword models), and sample texts for
//! tokenizers. Everything is drawn from [`bitext_core::Rng`], so
//! the same seed gives the same data on every platform.

use bitext_core::io::vec::WordVectors;
use bitext_core::{Embeddings, Rng, normalize_row};

/// `n` rows of `d` standard-normal values.
///
/// # Panics
/// When `d` is 0.
#[must_use]
pub fn normal(n: usize, d: usize, seed: u64) -> Embeddings {
    let mut r = Rng::seed(seed);
    Embeddings::new((0..n * d).map(|_| r.normal() as f32).collect(), d).expect("d > 0")
}

/// `n` rows of `d` integers in `-2..=2`: products and sums are exact in `f32`, and many scores
/// tie (which exercises tie-breaking).
///
/// # Panics
/// When `d` is 0.
#[must_use]
pub fn integers(n: usize, d: usize, seed: u64) -> Embeddings {
    let mut r = Rng::seed(seed);
    Embeddings::new((0..n * d).map(|_| r.below(5) as f32 - 2.0).collect(), d).expect("d > 0")
}

/// Database vectors in tight clusters and queries that are perturbed copies of known database
/// rows: what an approximate index must find (see [`planted_knn`]).
#[derive(Debug, Clone)]
pub struct PlantedKnn {
    /// Unit database vectors, `clusters × per` rows.
    pub db: Embeddings,
    /// Unit queries, each a slightly perturbed copy of a database row.
    pub queries: Embeddings,
    /// The database row each query copies (its planted nearest neighbour).
    pub truth: Vec<usize>,
}

impl PlantedKnn {
    /// recall@k of `ids(q)`: the share of queries whose planted neighbour is among the ids
    /// found for it.
    #[must_use]
    pub fn recall(&self, ids: impl Fn(usize) -> Vec<usize>) -> f64 {
        let hits = (0..self.truth.len())
            .filter(|&q| ids(q).contains(&self.truth[q]))
            .count();
        hits as f64 / self.truth.len().max(1) as f64
    }
}

/// `clusters × per` unit vectors of dimension `d` around `clusters` random centres (noise 0.35
/// per coordinate) and `nq` queries copied from random rows (noise 0.02).
///
/// # Panics
/// When `d` or `clusters × per` is 0.
#[must_use]
pub fn planted_knn(clusters: usize, per: usize, d: usize, nq: usize, seed: u64) -> PlantedKnn {
    let mut r = Rng::seed(seed);
    let centers = normal(clusters, d, seed ^ 1);
    let mut db = Embeddings::with_capacity(d, clusters * per).expect("d > 0");
    for c in 0..clusters {
        for _ in 0..per {
            db.push_row(&jittered(centers.row(c), 0.35, &mut r))
                .expect("same dimension");
        }
    }
    db.normalize_l2();
    let mut queries = Embeddings::with_capacity(d, nq).expect("d > 0");
    let mut truth = Vec::with_capacity(nq);
    for _ in 0..nq {
        let i = r.below(db.len());
        truth.push(i);
        queries
            .push_row(&jittered(db.row(i), 0.02, &mut r))
            .expect("same dimension");
    }
    queries.normalize_l2();
    PlantedKnn { db, queries, truth }
}

/// `row` with normal noise of standard deviation `sigma` added to each value, drawn in turn.
fn jittered(row: &[f32], sigma: f32, rng: &mut Rng) -> Vec<f32> {
    row.iter()
        .map(|&x| x + sigma * rng.normal() as f32)
        .collect()
}

/// Two sets of unit vectors of dimension `d`, `n_src` sources and `n_tgt` targets, where target
/// `j < planted` is a noisy copy of source `j` (a translation) and the other targets are
/// unrelated.
///
/// # Panics
/// When `d` is 0 or `planted > min(n_src, n_tgt)`.
#[must_use]
pub fn planted_pairs(
    n_src: usize,
    n_tgt: usize,
    planted: usize,
    d: usize,
    seed: u64,
) -> (Embeddings, Embeddings) {
    assert!(planted <= n_src.min(n_tgt), "cannot plant {planted} pairs");
    let mut rng = Rng::seed(seed);
    let mut rows = |n: usize| {
        let mut e =
            Embeddings::new((0..n * d).map(|_| rng.normal() as f32).collect(), d).expect("d > 0");
        e.normalize_l2();
        e
    };
    let x = rows(n_src);
    let mut y = rows(n_tgt);
    for j in 0..planted {
        let copy: Vec<f32> = x
            .row(j)
            .iter()
            .zip(y.row(j))
            .map(|(a, b)| a + 0.2 * b)
            .collect();
        y.row_mut(j).copy_from_slice(&copy);
    }
    y.normalize_l2();
    (x, y)
}

/// Words per side of [`parallel_text`] and [`lexicon`]: `a0 … a19` and `b0 … b19`.
pub const VOCAB: usize = 20;

/// `n` learnable sentence pairs: a source `a3 a7 a1` (2 to 6 words of `a0 … a19`) and its
/// translation `b1 b7 b3` (reversed, renamed).
#[must_use]
pub fn parallel_text(n: usize, seed: u64) -> (Vec<String>, Vec<String>) {
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = 2 + rng.below(5);
            let w: Vec<usize> = (0..len).map(|_| rng.below(VOCAB)).collect();
            let s: Vec<String> = w.iter().map(|i| format!("a{i}")).collect();
            let t: Vec<String> = w.iter().rev().map(|i| format!("b{i}")).collect();
            (s.join(" "), t.join(" "))
        })
        .unzip()
}

/// Bilingual word vectors for [`parallel_text`]: words `a{i}` (source) and `b{i}` (target),
/// `i < n`, of dimension `dim`, where `a{i}` and `b{i}` are unit noisy copies (noise 0.1 per
/// coordinate) of one random vector.
///
/// # Panics
/// When `n` or `dim` is 0.
#[must_use]
pub fn lexicon(n: usize, dim: usize, seed: u64) -> (WordVectors, WordVectors) {
    let mut rng = Rng::seed(seed);
    let (mut src, mut tgt) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let v: Vec<f32> = (0..dim).map(|_| rng.normal() as f32).collect();
        for out in [&mut src, &mut tgt] {
            let mut w = jittered(&v, 0.1, &mut rng);
            normalize_row(&mut w);
            out.extend(w);
        }
    }
    let side = |prefix: &str, values: Vec<f32>| {
        let words = (0..n).map(|i| format!("{prefix}{i}")).collect();
        WordVectors::new(words, Embeddings::new(values, dim).expect("dim > 0"))
            .expect("one vector per word")
    };
    (side("a", src), side("b", tgt))
}

/// `n` lines of `min` to `max` words (inclusive) drawn from `words`, joined by spaces: a line's
/// length is drawn before its words, and only when `min < max`.
///
/// # Panics
/// When `words` is empty or `max < min`.
#[must_use]
pub fn word_lines(words: &[&str], n: usize, min: usize, max: usize, seed: u64) -> Vec<String> {
    assert!(
        !words.is_empty() && min <= max,
        "word_lines: no words or max < min"
    );
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = if min < max {
                min + rng.below(max - min + 1)
            } else {
                min
            };
            let line: Vec<&str> = (0..len).map(|_| words[rng.below(words.len())]).collect();
            line.join(" ")
        })
        .collect()
}

/// Sample texts for tokenizers: German and English, Moses-tokenized and raw, HTML entities,
/// numbers, other scripts and emoji, empty and whitespace-only, words no vocabulary has.
/// Tokenizers under test are trained on the first five.
pub const SAMPLE_TEXTS: &[&str] = &[
    "Der Hund , sagte er .",
    "&quot; Two soldiers came up to me &quot; , Parliament &apos;s prerogative",
    "Das BIP wuchs um 0,5% im 3. Quartal (Stand: 13. November 2019).",
    "Don't panic — it's only 3.5 km to Zürich!",
    "Москва и Αθήνα, 我爱北京 😀",
    "",
    "   \t ",
    "words never seen in training: Quokka Xylophon",
];

/// Texts a tokenizer must survive without panicking: control characters, a NUL, lone
/// combining marks, very long words, tags that look like special tokens.
pub const HOSTILE_TEXTS: &[&str] = &[
    "\0\u{1}\u{7f} a\u{200b}b \u{feff}",
    "\u{301}\u{301} e\u{301} \u{fe0f}",
    "<s> </s> <pad> <unk> <de> <en>",
    "\n\r\n line\nbreaks \r",
];

/// A toy lexicon of German-like words and their English-like translations, for
/// [`translated_pairs`].
pub const TOY_LEXICON: &[(&str, &str)] = &[
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

/// `w` with its first letter upper-cased.
fn capitalised(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `n` pairs translated word by word through [`TOY_LEXICON`], drawn with `seed`: 4 to 12
/// words, a number in some (on both sides), a comma in some and a final mark, all copied (what
/// a pair classifier's tests train on).
#[must_use]
pub fn translated_pairs(n: usize, seed: u64) -> Vec<(String, String)> {
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = 4 + rng.below(9);
            let mut s: Vec<String> = Vec::with_capacity(len + 1);
            let mut t: Vec<String> = Vec::with_capacity(len + 1);
            for _ in 0..len {
                let (a, b) = TOY_LEXICON[rng.below(TOY_LEXICON.len())];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_seeded_and_shaped() {
        assert_eq!(normal(3, 4, 1), normal(3, 4, 1));
        assert_ne!(normal(3, 4, 1), normal(3, 4, 2));
        let ints = integers(50, 3, 7);
        assert!(
            ints.as_slice()
                .iter()
                .all(|x| x.fract() == 0.0 && x.abs() <= 2.0)
        );
        let p = planted_knn(4, 8, 5, 10, 3);
        assert_eq!((p.db.len(), p.queries.len(), p.truth.len()), (32, 10, 10));
        assert!(p.truth.iter().all(|&t| t < 32));
        let (x, y) = planted_pairs(5, 4, 3, 6, 1);
        assert_eq!((x.len(), y.len(), x.dim()), (5, 4, 6));
        let lines = word_lines(&["a", "b"], 20, 1, 3, 4);
        assert_eq!(lines, word_lines(&["a", "b"], 20, 1, 3, 4));
        assert!(
            lines
                .iter()
                .all(|l| (1..=3).contains(&l.split(' ').count()))
        );
        assert!(word_lines(&["a"], 3, 2, 2, 1).iter().all(|l| l == "a a"));
    }

    #[test]
    fn parallel_text_is_covered_by_the_lexicon() {
        let (src, tgt) = parallel_text(30, 1);
        let (a, b) = lexicon(VOCAB, 4, 2);
        for (s, t) in src.iter().zip(&tgt) {
            let rev: Vec<String> = s.split(' ').rev().map(|w| w.replace('a', "b")).collect();
            assert_eq!(&rev.join(" "), t);
            assert!(s.split(' ').all(|w| a.index_of(w).is_some()));
            assert!(t.split(' ').all(|w| b.index_of(w).is_some()));
        }
    }
}
