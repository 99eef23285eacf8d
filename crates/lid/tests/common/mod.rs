//! A tiny language-identification model shared by the tests: three languages (de, en, fr),
//! a few function words each, written in fastText's format by `bitext_testkit::fasttext`.

#![allow(dead_code)]

use bitext_lid::FastText;
use bitext_testkit::fasttext::{FastTextModel, Loss, Storage};

/// The words of the tiny model: `</s>` first, then three per language.
pub(crate) const WORDS: &[&str] = &[
    "</s>", "der", "die", "und", "the", "of", "and", "le", "la", "et",
];
/// Its labels, in the order of their counts (de most frequent), as fastText sorts them.
pub(crate) const LABELS: &[&str] = &["__label__de", "__label__en", "__label__fr"];

/// Sentences of each language for the conformance suite.
pub(crate) const SENTENCES: &[(&str, &str)] = &[
    ("de", "der Hund und die Katze"),
    ("en", "the cat and the dog"),
    ("fr", "le chat et la souris"),
    ("en", "of"),
];

/// The tiny model with `loss`: dimension 3, word `i` of language `l` has row `e_l`, `</s>` a
/// small row towards English; the output layer sends `e_l` to language `l`.
pub(crate) fn tiny(loss: Loss) -> FastTextModel {
    let mut m = FastTextModel::new(3, loss, WORDS, LABELS);
    m.labels[0].1 = 30;
    m.labels[1].1 = 20;
    m.labels[2].1 = 10;
    m.input[..3].copy_from_slice(&[0.0, 0.25, 0.0]);
    for w in 1..WORDS.len() {
        m.input[w * 3 + (w - 1) / 3] = 1.0;
    }
    match loss {
        Loss::HierarchicalSoftmax => {
            // The tree over counts 30, 20, 10: the root (inner node 1) sends de right and
            // the rest left to inner node 0, which sends en right and fr left.
            m.output[..3].copy_from_slice(&[0.0, 10.0, -10.0]);
            m.output[3..6].copy_from_slice(&[10.0, -10.0, -10.0]);
        }
        _ => {
            for l in 0..3 {
                m.output[l * 3 + l] = 10.0;
            }
        }
    }
    m
}

/// Read model bytes as a [`FastText`].
pub(crate) fn load(bytes: &[u8]) -> FastText {
    FastText::from_bytes("tiny.bin", bytes).unwrap()
}

/// The tiny model as a `.bin`.
pub(crate) fn tiny_bin(loss: Loss) -> FastText {
    load(&tiny(loss).to_bin())
}

/// The tiny model as an `.ftz`: input quantized in sub-vectors of `dsub` with norms 2 (the
/// rows halved, so that they come back exactly), output quantized too when `qout`.
pub(crate) fn tiny_ftz(loss: Loss, dsub: usize, qout: bool) -> FastText {
    let mut m = tiny(loss);
    for v in &mut m.input {
        *v /= 2.0;
    }
    let rows = m.input.len() / m.dim;
    let input = Storage::Quantized {
        dsub,
        norms: Some(vec![2.0; rows]),
    };
    let output = if qout {
        Storage::Quantized { dsub, norms: None }
    } else {
        Storage::Dense
    };
    load(&m.write(&input, &output).unwrap())
}
