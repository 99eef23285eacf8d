//! How [`FastText`] turns a line into input rows, checked against an independent reckoning in
//! this file: character n-grams hashed into buckets (UTF-8, fastText's signed-byte FNV-1a),
//! pruned buckets, word n-grams, fastText's separators, `</s>`, label-like tokens, and the
//! format version 11 that has no character n-grams.
//!
//! The models here have two labels whose logit difference is the first coordinate of the
//! hidden vector: softmax gives `a` the probability `σ(h₀)`, so a wrong or missing row shows.

mod common;

use bitext_lid::{FastText, LanguageIdentifier};
use bitext_testkit::fasttext::{FastTextModel, Loss, Storage};
use common::load;

const BUCKET: i32 = 997;

/// fastText's hash, written out again: FNV-1a over the bytes taken as signed `char`s.
fn fnv(s: &str) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for &b in s.as_bytes() {
        h ^= i32::from(b as i8) as u32;
        h = h.wrapping_mul(16_777_619);
    }
    h
}

/// The character n-grams of `<word>` of `minn..=maxn` characters, without bare `<` and `>`.
fn char_ngrams(word: &str, minn: usize, maxn: usize) -> Vec<String> {
    let chars: Vec<char> = format!("<{word}>").chars().collect();
    let mut out = Vec::new();
    for i in 0..chars.len() {
        for n in minn.max(1)..=maxn {
            if i + n > chars.len() {
                break;
            }
            if n == 1 && (i == 0 || i + 1 == chars.len()) {
                continue;
            }
            out.push(chars[i..i + n].iter().collect());
        }
    }
    out
}

/// The probability of label `a` for a line whose input rows have first coordinates `xs`.
fn expected(xs: &[f64]) -> f32 {
    let h = xs.iter().sum::<f64>() / xs.len() as f64;
    (1.0 / (1.0 + (-h).exp()) + 1e-5) as f32
}

/// A model of `words` (after `</s>`) with n-grams of `minn..=maxn` characters and up to
/// `word_ngrams` words; word `i` has row `(0.3 + i / 10, 0)`, bucket `b` the row `(b / 1000,
/// 0)`, `</s>` zero.
fn model(words: &[&str], minn: i32, maxn: i32, word_ngrams: i32) -> FastTextModel {
    let mut all = vec!["</s>"];
    all.extend_from_slice(words);
    let mut m = FastTextModel::new(2, Loss::Softmax, &all, &["__label__a", "__label__b"]);
    (m.minn, m.maxn, m.bucket, m.word_ngrams) = (minn, maxn, BUCKET, word_ngrams);
    m.input = (0..m.input_rows())
        .flat_map(|r| match r {
            0 => [0.0, 0.0],
            r if r < all.len() => [0.3 + r as f32 / 10.0, 0.0],
            r => [(r - all.len()) as f32 / 1000.0, 0.0],
        })
        .collect();
    m.output = vec![1.0, 0.0, 0.0, 0.0];
    m
}

fn p_a(lid: &FastText, text: &str) -> f32 {
    lid.probability(text, "a")
}

fn bucket_x(s: &str) -> f64 {
    f64::from(fnv(s) % BUCKET as u32) / 1000.0
}

#[test]
fn unknown_words_are_their_character_ngrams() {
    let lid = load(&model(&[], 2, 4, 1).to_bin());
    for word in ["Straße", "дом", "日本語", "a", "über-all", "😀x"] {
        let mut xs: Vec<f64> = char_ngrams(word, 2, 4)
            .iter()
            .map(|g| bucket_x(g))
            .collect();
        xs.push(0.0); // `</s>`
        let got = p_a(&lid, word);
        assert!(
            (got - expected(&xs)).abs() < 1e-6,
            "{word}: {got} vs {}",
            expected(&xs)
        );
    }
}

#[test]
fn known_words_add_their_own_row() {
    let lid = load(&model(&["Haus", "der"], 1, 3, 1).to_bin());
    let mut xs: Vec<f64> = vec![f64::from(0.3f32 + 2.0 / 10.0)];
    xs.extend(char_ngrams("der", 1, 3).iter().map(|g| bucket_x(g)));
    xs.push(0.0);
    assert!((p_a(&lid, "der") - expected(&xs)).abs() < 1e-6);
    // `</s>` in the dictionary has only its own row.
    assert!((p_a(&lid, "") - expected(&[0.0])).abs() < 1e-6);
}

#[test]
fn pruned_buckets_drop_the_others() {
    // Keep the buckets of "<d" and "er>" only, as rows 1 and 0 after the words.
    let mut m = model(&[], 2, 3, 1);
    let (b1, b2) = (fnv("<d") % BUCKET as u32, fnv("er>") % BUCKET as u32);
    m.pruned = Some(vec![(b1 as i32, 1), (b2 as i32, 0)]);
    m.input = vec![0.0, 0.0, 0.25, 0.0, 0.5, 0.0];
    let bytes = m
        .write(
            &Storage::Quantized {
                dsub: 1,
                norms: None,
            },
            &Storage::Dense,
        )
        .unwrap();
    let lid = load(&bytes);
    let want = expected(&[0.5, 0.25, 0.0]);
    assert!((p_a(&lid, "der") - want).abs() < 1e-6);
    // A word none of whose n-grams were kept has `</s>` alone.
    assert!((p_a(&lid, "xyz") - expected(&[0.0])).abs() < 1e-6);
}

#[test]
fn word_ngrams_hash_the_word_hashes() {
    let lid = load(&model(&["a", "b"], 0, 0, 3).to_bin());
    let tokens = ["a", "b", "zz", "</s>"];
    // Word rows (unknown "zz" has none without character n-grams), then n-grams of 2 and 3
    // words: h = h * 116049371 + next, over the hashes sign-extended to 64 bits.
    let mut xs = vec![0.3 + 1.0 / 10.0, 0.3 + 2.0 / 10.0, 0.0];
    xs = xs.into_iter().map(|x: f64| f64::from(x as f32)).collect();
    let hashes: Vec<u64> = tokens.iter().map(|t| fnv(t) as i32 as i64 as u64).collect();
    for i in 0..hashes.len() {
        let mut h = hashes[i];
        for &next in hashes.iter().take(i + 3).skip(i + 1) {
            h = h.wrapping_mul(116_049_371).wrapping_add(next);
            xs.push((h % BUCKET as u64) as f64 / 1000.0);
        }
    }
    let got = p_a(&lid, "a b zz");
    assert!(
        (got - expected(&xs)).abs() < 1e-6,
        "{got} vs {}",
        expected(&xs)
    );
}

#[test]
fn tokens_split_on_fasttexts_separators_only() {
    let lid = load(&model(&["Haus", "der"], 2, 4, 2).to_bin());
    let base = lid.predict("der Haus", 2);
    for same in [
        "der\tHaus",
        "der\x0bHaus",
        "der\x0cHaus",
        "der\0Haus",
        "der\rHaus",
        "  der   Haus \t",
        "der\nHaus",
    ] {
        assert_eq!(lid.predict(same, 2), base, "{same:?}");
    }
    // Other Unicode spaces are part of the word.
    assert_ne!(lid.predict("der\u{a0}Haus", 2), base);
    assert_ne!(lid.predict("der\u{3000}Haus", 2), base);
}

#[test]
fn end_of_sentence_and_label_tokens() {
    let lid = load(&model(&["Haus", "der"], 2, 4, 2).to_bin());
    // A literal `</s>` ends the line, as in fastText.
    assert_eq!(lid.predict("der </s> Haus Haus", 2), lid.predict("der", 2));
    // Tokens that look like labels are skipped, known labels or not.
    assert_eq!(
        lid.predict("__label__a der __label__zz", 2),
        lid.predict("der", 2)
    );
}

#[test]
fn version_11_has_no_character_ngrams() {
    let mut m = model(&["der"], 2, 4, 1);
    m.version = 11;
    let old = load(&m.to_bin());
    m.version = 12;
    (m.minn, m.maxn) = (0, 0);
    let plain = load(&m.to_bin());
    for t in ["der", "Haus", "der Hund", ""] {
        assert_eq!(old.predict(t, 2), plain.predict(t, 2), "{t:?}");
    }
}
