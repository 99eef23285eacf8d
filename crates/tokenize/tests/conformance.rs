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

/// A BERT-style `tokenizer.json` written here: a WordLevel vocabulary of the sample texts'
/// words (split as the `Whitespace` pre-tokenizer splits, `\w+|[^\w\s]+`), `[CLS] … [SEP]`
/// added by a template post-processor, and the ids of `specials` first.
#[cfg(feature = "tokenizer-json")]
fn tokenizer_json() -> String {
    let specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"];
    let mut words: Vec<String> = Vec::new();
    for text in &TEXTS[..5] {
        for chunk in text.split_whitespace() {
            let mut cur = String::new();
            let mut word = None;
            for c in chunk.chars() {
                let w = c.is_alphanumeric() || c == '_';
                if word.is_some_and(|x| x != w) {
                    words.push(std::mem::take(&mut cur));
                }
                word = Some(w);
                cur.push(c);
            }
            words.push(cur);
        }
    }
    let mut vocab: Vec<String> = specials.iter().map(|s| (*s).to_string()).collect();
    for w in words {
        if !vocab.contains(&w) {
            vocab.push(w);
        }
    }
    let entries: Vec<String> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| format!("{}: {i}", serde_json::to_string(w).unwrap()))
        .collect();
    let added: Vec<String> = specials
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                r#"{{"id": {i}, "content": "{s}", "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": true}}"#
            )
        })
        .collect();
    format!(
        r#"{{"version": "1.0", "truncation": null, "padding": null,
            "added_tokens": [{}],
            "normalizer": null, "pre_tokenizer": {{"type": "Whitespace"}},
            "post_processor": {{"type": "TemplateProcessing",
              "single": [{{"SpecialToken": {{"id": "[CLS]", "type_id": 0}}}},
                         {{"Sequence": {{"id": "A", "type_id": 0}}}},
                         {{"SpecialToken": {{"id": "[SEP]", "type_id": 0}}}}],
              "pair": [{{"Sequence": {{"id": "A", "type_id": 0}}}},
                       {{"Sequence": {{"id": "B", "type_id": 1}}}}],
              "special_tokens": {{"[CLS]": {{"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}},
                                 "[SEP]": {{"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}}}}},
            "decoder": null,
            "model": {{"type": "WordLevel", "vocab": {{{}}}, "unk_token": "[UNK]"}}}}"#,
        added.join(", "),
        entries.join(", ")
    )
}

#[cfg(feature = "tokenizer-json")]
fn hf_tokenizer() -> bitext_tokenize::HfTokenizer {
    bitext_tokenize::HfTokenizer::from_bytes(tokenizer_json().as_bytes(), "test/tokenizer.json")
        .unwrap()
}

#[cfg(feature = "tokenizer-json")]
tokenizer_suite!(tokenizer_json_word_level, hf_tokenizer());

#[cfg(feature = "tokenizer-json")]
#[test]
fn tokenizer_json_adds_its_special_tokens_and_refuses_bad_files() {
    let t = hf_tokenizer();
    let s = t.special_ids();
    assert_eq!(
        (s.pad, s.unk, s.bos, s.eos),
        (Some(0), Some(1), Some(2), Some(3))
    );
    let enc = t.encode("Der Hund , Zebrafink").unwrap();
    assert_eq!(enc.pieces, ["[CLS]", "Der", "Hund", ",", "[UNK]", "[SEP]"]);
    assert_eq!(enc.ids[0], 2);
    assert_eq!(enc.ids[4], 1);
    // Special tokens (the unknown one too) are skipped, as `tokenizers` decodes.
    assert_eq!(t.decode(&enc.ids).unwrap(), "Der Hund ,");
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes, reason) in [
        (
            "bom.json",
            [b"\xef\xbb\xbf".as_slice(), b"{}"].concat(),
            "byte-order mark",
        ),
        ("latin1.json", b"{\"a\": \"\xe9\"}".to_vec(), "not UTF-8"),
        (
            "junk.json",
            b"{\"model\": 3}".to_vec(),
            "not a Hugging Face tokenizer.json",
        ),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let e = bitext_tokenize::HfTokenizer::open(&p)
            .unwrap_err()
            .to_string();
        assert!(e.contains(name) && e.contains(reason), "{e}");
    }
    let e = bitext_tokenize::HfTokenizer::open(dir.path().join("none.json")).unwrap_err();
    assert!(e.to_string().contains("none.json"), "{e}");
}
