//! The conformance suite every [`SentenceEncoder`] of this crate must pass, instantiated once
//! per configuration (`encoder_conformance!(module_name, || constructor)`): shapes, batch
//! independence, progress, determinism, both sides, finite unit rows.

use bitext_core::Embeddings;
use bitext_core::io::vec::WordVectors;
use bitext_encode::{BowEncoder, NoKnownWord, SentenceEncoder, Side};

const DE: &[&str] = &[
    "Der Hund schläft .",
    "Die Katze &quot; schläft &quot; nicht",
    "Hund und Katze",
    "Der Garten",
    "Die Katze und der Hund und der Garten",
];
const EN: &[&str] = &[
    "The dog sleeps .",
    "The cat",
    "A garden and a dog",
    "Cat and dog",
];

fn vectors(words: &[&str], seed: f32) -> WordVectors {
    let rows: Vec<Vec<f32>> = (0..words.len())
        .map(|i| {
            (0..6)
                .map(|j| ((i * 7 + j * 3) as f32 * seed).sin())
                .collect()
        })
        .collect();
    WordVectors::new(
        words.iter().map(|w| (*w).to_owned()).collect(),
        Embeddings::from_rows(rows, 6).unwrap(),
    )
    .unwrap()
}

fn builder() -> bitext_encode::BowEncoderBuilder {
    BowEncoder::builder(
        vectors(
            &[
                "der", "die", "hund", "katze", "schläft", "nicht", "und", "garten",
            ],
            0.9,
        ),
        vectors(&["the", "a", "dog", "cat", "sleeps", "and", "garden"], 1.1),
    )
}

macro_rules! encoder_conformance {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;

            fn make() -> impl SentenceEncoder + 'static {
                ($make)()
            }

            #[test]
            fn one_finite_row_of_dim_per_sentence_on_both_sides() {
                let e = make();
                for (side, s) in [(Side::Source, DE), (Side::Target, EN)] {
                    let m = e.encode(side, s).unwrap();
                    assert_eq!((m.len(), m.dim()), (s.len(), e.dim()));
                    m.check_finite().unwrap();
                }
                assert_eq!(e.encode(Side::Source, &[]).unwrap().len(), 0);
            }

            #[test]
            fn batching_does_not_change_rows_and_progress_reaches_the_end() {
                let e = make();
                let all = e.encode(Side::Source, DE).unwrap();
                for (i, s) in DE.iter().enumerate() {
                    assert_eq!(e.encode(Side::Source, &[s]).unwrap().row(0), all.row(i));
                }
                let mut seen = Vec::new();
                let again = e
                    .encode_with_progress(Side::Source, DE, &mut |n| seen.push(n))
                    .unwrap();
                assert_eq!(again, all);
                assert_eq!(seen.last(), Some(&DE.len()));
                assert!(seen.windows(2).all(|w| w[0] < w[1]));
            }
        }
    };
}

encoder_conformance!(bow_mean, || builder().build().unwrap());
encoder_conformance!(bow_tfidf, || builder().tfidf(DE, EN).build().unwrap());
encoder_conformance!(bow_unnormalised_keep_case, || {
    builder()
        .normalize(false)
        .lowercase(false)
        .no_known_word(NoKnownWord::Zero)
        .build()
        .unwrap()
});
encoder_conformance!(bow_shared_vocabulary, || {
    let joint = vectors(
        &[
            "der", "die", "hund", "katze", "schläft", "nicht", "und", "garten", "the", "a", "dog",
            "cat", "sleeps", "and",
        ],
        0.7,
    );
    BowEncoder::builder_shared(joint)
        .no_known_word(NoKnownWord::Zero)
        .build()
        .unwrap()
});
