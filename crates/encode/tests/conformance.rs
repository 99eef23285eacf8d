//! The shared [`SentenceEncoder`](bitext_encode::SentenceEncoder) conformance suite
//! (`bitext_testkit::sentence_encoder_suite!`) instantiated for each configuration of
//! `BowEncoder`: mean and TF-IDF weighting, unnormalised with case kept and zero rows for
//! sentences without a known word, one shared vocabulary. The word vectors are the testkit's
//! lexicon for its parallel text, so translations must retrieve each other.

use bitext_core::Embeddings;
use bitext_core::io::vec::WordVectors;
use bitext_encode::{BowEncoder, BowEncoderBuilder, NoKnownWord};
use bitext_testkit::data::{VOCAB, lexicon, parallel_text};
use bitext_testkit::encoder::Expect;
use bitext_testkit::sentence_encoder_suite;

fn builder() -> BowEncoderBuilder {
    let (src, tgt) = lexicon(VOCAB, 6, 3);
    BowEncoder::builder(src, tgt)
}

/// Both sides' words in one table.
fn joint() -> WordVectors {
    let (src, tgt) = lexicon(VOCAB, 6, 3);
    let words = src.words().iter().chain(tgt.words()).cloned().collect();
    let mut rows = src.vectors().clone();
    rows.extend_from_view(tgt.vectors().view()).unwrap();
    WordVectors::new(words, Embeddings::new(rows.into_vec(), 6).unwrap()).unwrap()
}

fn tfidf() -> BowEncoder {
    let (src, tgt) = parallel_text(40, 9);
    builder().tfidf(&src, &tgt).build().unwrap()
}

sentence_encoder_suite!(
    bow_mean,
    builder().build().unwrap(),
    Expect::exact().retrieving(0.9)
);
sentence_encoder_suite!(bow_tfidf, tfidf(), Expect::exact().retrieving(0.9));
sentence_encoder_suite!(
    bow_unnormalised_keep_case,
    builder()
        .normalize(false)
        .lowercase(false)
        .no_known_word(NoKnownWord::Zero)
        .build()
        .unwrap(),
    Expect::exact().retrieving(0.9)
);
sentence_encoder_suite!(
    bow_shared_vocabulary,
    BowEncoder::builder_shared(joint())
        .no_known_word(NoKnownWord::Zero)
        .build()
        .unwrap(),
    Expect::exact().retrieving(0.9)
);
