//! The shared [`Tokenizer`] conformance suite (`bitext_testkit::tokenizer_suite!`) instantiated
//! for every tokenizer of this crate: `WordLevel` with and without framing (bos/eos, truncation)
//! and, with the `sentencepiece` feature, a BPE `Sentencepiece` model with and without framing,
//! all trained on the testkit's sample texts. Beyond the suite: framing and decoding details.

use bitext_testkit::data::SAMPLE_TEXTS as TEXTS;
use bitext_testkit::tokenizer_suite;
use bitext_tokenize::{
    SequenceConfig, TokenCounter, Tokenizer, VocabBuilder, WordLevel, WordTokenizer,
};

fn corpus_vocab(lowercase: bool) -> (WordTokenizer, bitext_tokenize::Vocab) {
    let words = WordTokenizer::builder().lowercase(lowercase).build();
    let counts = TokenCounter::from_texts(&words, &TEXTS[..5]);
    let vocab = VocabBuilder::new()
        .lang_tags(["de", "en"])
        .build(&counts)
        .unwrap();
    (words, vocab)
}

fn word_level_plain() -> WordLevel {
    let (words, vocab) = corpus_vocab(false);
    WordLevel::new(words, vocab, SequenceConfig::default()).unwrap()
}

fn word_level_framed() -> WordLevel {
    let (words, vocab) = corpus_vocab(true);
    let seq = SequenceConfig {
        add_bos: true,
        add_eos: true,
        max_len: Some(8),
    };
    WordLevel::new(words, vocab, seq).unwrap()
}

tokenizer_suite!(word_level, word_level_plain());
tokenizer_suite!(word_level_framed, word_level_framed());

#[test]
fn framing_truncates_to_max_len_with_eos_kept() {
    let t = word_level_framed();
    let enc = t.encode(TEXTS[2]).unwrap();
    assert_eq!(enc.len(), 8);
    assert_eq!(enc.pieces.first().map(String::as_str), Some("<s>"));
    assert_eq!(enc.pieces.last().map(String::as_str), Some("</s>"));
    assert_eq!(enc.pieces[1..4], ["das", "bip", "wuchs"]);
    let tagged = t.encode_ids_lang(TEXTS[0], "de").unwrap();
    assert_eq!(
        tagged[..2],
        [t.lang_id("de").unwrap(), t.special_ids().bos.unwrap()]
    );
    assert!(t.encode_lang(TEXTS[0], "fr").is_err());
}

#[test]
fn decode_skips_framing_and_keeps_unknowns() {
    let t = word_level_framed();
    let ids = t.encode_ids("Der Hund , sagte Quokka").unwrap();
    assert_eq!(t.decode(&ids).unwrap(), "der hund , sagte <unk>");
}

/// A joint BPE model trained on the sample texts (feature `sentencepiece`), once.
#[cfg(feature = "sentencepiece")]
fn sentencepiece_model() -> bitext_tokenize::Sentencepiece {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let bytes = BYTES.get_or_init(|| {
        let lines: Vec<&str> = TEXTS[..5].iter().copied().cycle().take(50).collect();
        bitext_tokenize::SubwordTrainer::new()
            .model_type(bitext_tokenize::ModelType::Bpe)
            .vocab_size(120)
            .character_coverage(1.0)
            .lang_tags(["de", "en"])
            .train_corpora(&[("sample", &lines[..])])
            .unwrap()
            .to_bytes()
            .to_vec()
    });
    bitext_tokenize::Sentencepiece::from_bytes(bytes.as_slice()).unwrap()
}

#[cfg(feature = "sentencepiece")]
fn sentencepiece_framed() -> bitext_tokenize::Sentencepiece {
    sentencepiece_model()
        .with_sequence(SequenceConfig {
            add_bos: true,
            add_eos: true,
            max_len: Some(8),
        })
        .unwrap()
}

#[cfg(feature = "sentencepiece")]
tokenizer_suite!(sentencepiece, sentencepiece_model());
#[cfg(feature = "sentencepiece")]
tokenizer_suite!(sentencepiece_framed, sentencepiece_framed());
