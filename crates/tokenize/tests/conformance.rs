//! The conformance suite every [`Tokenizer`] backend must pass, instantiated once per backend
//! (`tokenizer_conformance!(module_name, || constructor)`).

use std::sync::Arc;

use bitext_tokenize::{
    Error, SequenceConfig, TokenCounter, Tokenizer, VocabBuilder, WordLevel, WordTokenizer,
    set_parallelism,
};

/// Sample texts: German and English, Moses-tokenized and raw, entities, numbers, other
/// scripts, empty and whitespace-only.
const TEXTS: &[&str] = &[
    "Der Hund , sagte er .",
    "&quot; Two soldiers came up to me &quot; , Parliament &apos;s prerogative",
    "Das BIP wuchs um 0,5% im 3. Quartal (Stand: 13. November 2019).",
    "Don't panic — it's only 3.5 km to Zürich!",
    "Москва и Αθήνα, 我爱北京 😀",
    "",
    "   \t ",
    "words never seen in training: Quokka Xylophon",
];

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

macro_rules! tokenizer_conformance {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;

            fn make() -> impl Tokenizer + 'static {
                ($make)()
            }

            #[test]
            fn ids_and_pieces_agree_and_stay_in_range() {
                let t = make();
                for text in TEXTS {
                    let enc = t.encode(text).unwrap();
                    assert_eq!(enc.ids.len(), enc.pieces.len(), "{text:?}");
                    assert!(enc.ids.iter().all(|&id| (id as usize) < t.vocab_size()));
                    assert_eq!(t.encode_ids(text).unwrap(), enc.ids, "{text:?}");
                    let unk = t.special_ids().unk;
                    for (&id, piece) in enc.ids.iter().zip(&enc.pieces) {
                        if Some(id) != unk {
                            assert_eq!(t.token_to_id(piece), Some(id), "{piece:?}");
                        }
                    }
                }
            }

            #[test]
            fn empty_text_has_only_special_tokens() {
                let t = make();
                let s = t.special_ids();
                let specials = [s.pad, s.unk, s.bos, s.eos];
                for text in ["", " \t "] {
                    for id in t.encode_ids(text).unwrap() {
                        assert!(specials.contains(&Some(id)), "{id}");
                    }
                }
            }

            #[test]
            fn batches_equal_single_encodes_with_and_without_parallelism() {
                let t = make();
                let texts: Vec<&str> = TEXTS.iter().copied().cycle().take(300).collect();
                let single: Vec<_> = texts.iter().map(|x| t.encode(x).unwrap()).collect();
                for par in [true, false] {
                    set_parallelism(par);
                    assert_eq!(t.encode_batch(&texts).unwrap(), single);
                    let ids: Vec<_> = single.iter().map(|e| e.ids.clone()).collect();
                    assert_eq!(t.encode_batch_ids(&texts).unwrap(), ids);
                }
                set_parallelism(true);
                assert!(t.encode_batch(&[]).unwrap().is_empty());
            }

            #[test]
            fn special_ids_are_distinct_and_in_range() {
                let t = make();
                let s = t.special_ids();
                let ids: Vec<u32> = [s.pad, s.unk, s.bos, s.eos].into_iter().flatten().collect();
                assert!(ids.iter().all(|&id| (id as usize) < t.vocab_size()));
                let mut dedup = ids.clone();
                dedup.sort_unstable();
                dedup.dedup();
                assert_eq!(dedup.len(), ids.len());
                if let Some(id) = t.lang_id("de") {
                    assert!(!ids.contains(&id));
                }
            }

            #[test]
            fn decode_rejects_unknown_ids() {
                let t = make();
                let bad = u32::try_from(t.vocab_size()).unwrap();
                assert!(matches!(t.decode(&[bad]), Err(Error::UnknownId { .. })));
                let ids = t.encode_ids(TEXTS[0]).unwrap();
                assert!(t.decode(&ids).is_ok());
            }

            #[test]
            fn references_boxes_and_arcs_forward() {
                let t = make();
                let want = t.encode_batch(TEXTS).unwrap();
                let vocab_size = t.vocab_size();
                fn generic<T: Tokenizer>(t: T) -> Vec<bitext_tokenize::Encoding> {
                    t.encode_batch(TEXTS).unwrap()
                }
                let by_ref: &dyn Tokenizer = &t;
                assert_eq!(generic(by_ref), want);
                let boxed: Box<dyn Tokenizer> = Box::new(make());
                assert_eq!(generic(&boxed), want);
                assert_eq!(generic(boxed), want);
                let arc: Arc<dyn Tokenizer> = Arc::new(make());
                assert_eq!(arc.encode_batch(TEXTS).unwrap(), want);
                assert_eq!(arc.vocab_size(), vocab_size);
                assert_eq!(arc.special_ids(), t.special_ids());
            }
        }
    };
}

tokenizer_conformance!(word_level, word_level_plain);
tokenizer_conformance!(word_level_framed, word_level_framed);

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
tokenizer_conformance!(sentencepiece, sentencepiece_model);
#[cfg(feature = "sentencepiece")]
tokenizer_conformance!(sentencepiece_framed, sentencepiece_framed);
