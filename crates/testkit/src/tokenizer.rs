//! The [`Tokenizer`] conformance suite: [`tokenizer_suite!`](crate::tokenizer_suite) expands to
//! one `#[test]` per check below for one tokenizer, made by an expression. Tokenizers under test
//! are trained on (or hold a vocabulary of) the first five [`SAMPLE_TEXTS`].
//!
//! Checked: ids below `vocab_size` with one piece each that maps back to its id (unknown pieces
//! aside), determinism, empty text gives at most special tokens, batches (parallel or not)
//! equal one-by-one encoding, distinct special ids, every id decodes and others are
//! [`Error::UnknownId`], decoding then encoding is stable, hostile and long text is handled,
//! and references, boxes and `Arc`s forward every method.

use std::sync::Arc;

use bitext_tokenize::{Encoding, Error, Tokenizer, set_parallelism};

use crate::data::{HOSTILE_TEXTS, SAMPLE_TEXTS};

/// Every text the checks encode: the samples, the hostile texts and one long text.
fn texts() -> Vec<String> {
    let mut all: Vec<String> = SAMPLE_TEXTS
        .iter()
        .chain(HOSTILE_TEXTS)
        .map(|s| (*s).to_owned())
        .collect();
    all.push(SAMPLE_TEXTS[..5].join(" ").repeat(200));
    all
}

/// Ids are below `vocab_size`, one piece (non-empty) per id, each piece's id is its own (unless
/// it is the unknown token), `encode_ids` agrees with `encode`, and encoding twice gives the
/// same result, on samples, hostile text and a 30 000-character text.
pub fn ids_and_pieces_agree<T: Tokenizer>(make: impl Fn() -> T) {
    let t = make();
    let unk = t.special_ids().unk;
    for text in texts() {
        let enc = t.encode(&text).unwrap();
        let short: String = text.chars().take(40).collect();
        assert_eq!(enc.ids.len(), enc.pieces.len(), "{short:?}");
        assert!(enc.ids.iter().all(|&id| (id as usize) < t.vocab_size()));
        assert!(enc.pieces.iter().all(|p| !p.is_empty()), "{:?}", enc.pieces);
        assert_eq!(t.encode_ids(&text).unwrap(), enc.ids, "{short:?}");
        assert_eq!(
            t.encode(&text).unwrap(),
            enc,
            "{short:?}: not deterministic"
        );
        for (&id, piece) in enc.ids.iter().zip(&enc.pieces) {
            if Some(id) != unk {
                assert_eq!(t.token_to_id(piece), Some(id), "{piece:?}");
            }
        }
    }
}

/// Empty and whitespace-only text encodes to special tokens only (framing), if any.
pub fn empty_text_has_only_special_tokens<T: Tokenizer>(make: impl Fn() -> T) {
    let t = make();
    let s = t.special_ids();
    let specials = [s.pad, s.unk, s.bos, s.eos];
    for text in ["", " \t ", "\n"] {
        for id in t.encode_ids(text).unwrap() {
            assert!(specials.contains(&Some(id)), "{text:?}: {id}");
        }
    }
}

/// `encode_batch` and `encode_batch_ids` equal one-by-one encoding, with batch parallelism on
/// and off; an empty batch is empty.
pub fn batches_equal_single_encodes<T: Tokenizer>(make: impl Fn() -> T) {
    let t = make();
    let all = texts();
    // The long text once, the others cycled to 300 texts (enough for parallel chunks).
    let (long, short) = all.split_last().unwrap();
    let mut texts: Vec<&str> = short.iter().map(String::as_str).cycle().take(299).collect();
    texts.insert(150, long);
    let single: Vec<Encoding> = texts.iter().map(|x| t.encode(x).unwrap()).collect();
    for par in [true, false] {
        set_parallelism(par);
        assert_eq!(t.encode_batch(&texts).unwrap(), single);
        let ids: Vec<Vec<u32>> = single.iter().map(|e| e.ids.clone()).collect();
        assert_eq!(t.encode_batch_ids(&texts).unwrap(), ids);
    }
    set_parallelism(true);
    assert!(t.encode_batch(&[]).unwrap().is_empty());
    assert!(t.encode_batch_ids(&[]).unwrap().is_empty());
}

/// Special ids are distinct and below `vocab_size`; a language tag is not one of them.
pub fn special_ids_are_distinct<T: Tokenizer>(make: impl Fn() -> T) {
    let t = make();
    let s = t.special_ids();
    let ids: Vec<u32> = [s.pad, s.unk, s.bos, s.eos].into_iter().flatten().collect();
    assert!(ids.iter().all(|&id| (id as usize) < t.vocab_size()));
    let mut dedup = ids.clone();
    dedup.sort_unstable();
    dedup.dedup();
    assert_eq!(dedup.len(), ids.len(), "{s:?}");
    for lang in ["de", "en"] {
        if let Some(id) = t.lang_id(lang) {
            assert!(!ids.contains(&id) && (id as usize) < t.vocab_size());
        }
    }
}

/// Every id below `vocab_size` decodes, alone and all together; no ids decode; an id at or
/// above `vocab_size` is [`Error::UnknownId`] naming it.
pub fn decodes_every_id_and_rejects_others<T: Tokenizer>(make: impl Fn() -> T) {
    let t = make();
    let n = u32::try_from(t.vocab_size()).unwrap();
    let all: Vec<u32> = (0..n.min(5000)).collect();
    for id in &all {
        t.decode(&[*id]).unwrap();
    }
    t.decode(&all).unwrap();
    t.decode(&[]).unwrap();
    for bad in [n, u32::MAX] {
        let e = t.decode(&[0, bad]).unwrap_err();
        assert!(matches!(e, Error::UnknownId { id, .. } if id == bad), "{e}");
    }
}

/// Decoding the ids of a text without unknown tokens and encoding the result again gives the
/// same ids; when the text was truncated (its doubled text encodes to no more ids), decoding
/// and encoding is at least a fixed point after one round.
pub fn decode_then_encode_is_stable<T: Tokenizer>(make: impl Fn() -> T) {
    let t = make();
    let unk = t.special_ids().unk;
    let round = |ids: &[u32]| t.encode_ids(&t.decode(ids).unwrap()).unwrap();
    for text in &SAMPLE_TEXTS[..5] {
        let ids = t.encode_ids(text).unwrap();
        if unk.is_some_and(|u| ids.contains(&u)) {
            continue;
        }
        let once = round(&ids);
        let doubled = t.encode_ids(&format!("{text} {text}")).unwrap();
        if doubled.len() > ids.len() {
            assert_eq!(once, ids, "{text:?} → {:?}", t.decode(&ids).unwrap());
        } else {
            assert_eq!(round(&once), once, "{text:?} (truncated)");
        }
    }
}

/// References, boxes and `Arc`s of the tokenizer encode, decode and look up as it does.
pub fn forwards_through_pointers<T: Tokenizer + 'static>(make: impl Fn() -> T) {
    fn generic<T: Tokenizer>(t: T) -> Vec<Encoding> {
        t.encode_batch(SAMPLE_TEXTS).unwrap()
    }
    let t = make();
    let want = t.encode_batch(SAMPLE_TEXTS).unwrap();
    let by_ref: &dyn Tokenizer = &t;
    assert_eq!(generic(by_ref), want);
    let boxed: Box<dyn Tokenizer> = Box::new(make());
    assert_eq!(generic(&boxed), want);
    assert_eq!(generic(boxed), want);
    let arc: Arc<dyn Tokenizer> = Arc::new(make());
    assert_eq!(arc.encode_batch(SAMPLE_TEXTS).unwrap(), want);
    assert_eq!(arc.vocab_size(), t.vocab_size());
    assert_eq!(arc.special_ids(), t.special_ids());
    assert_eq!(arc.lang_id("de"), t.lang_id("de"));
    let ids = t.encode_ids(SAMPLE_TEXTS[0]).unwrap();
    assert_eq!(arc.decode(&ids).unwrap(), t.decode(&ids).unwrap());
}

/// The [`Tokenizer`] conformance suite for one tokenizer: a module `$name` with one `#[test]`
/// per check of [`bitext_testkit::tokenizer`](crate::tokenizer).
///
/// `$make` is an expression that makes the tokenizer (evaluated once or more per test); items
/// of the calling module are in scope.
///
/// ```ignore
/// bitext_testkit::tokenizer_suite!(word_level, word_level_plain());
/// ```
#[macro_export]
macro_rules! tokenizer_suite {
    ($name:ident, $make:expr $(,)?) => {
        $crate::__suite! { $name, tokenizer, (|| $make), [
            ids_and_pieces_agree, empty_text_has_only_special_tokens,
            batches_equal_single_encodes, special_ids_are_distinct,
            decodes_every_id_and_rejects_others, decode_then_encode_is_stable,
            forwards_through_pointers
        ] }
    };
}

/// A Hugging Face `tokenizer.json` of a lowercasing whitespace word-level model over `words`
/// (ids in order; `[CLS]` is id 2 and `[SEP]` id 3, wrapped around a single sentence), for the
/// tests of transformer exports.
#[must_use]
pub fn word_level_json(words: &[&str]) -> String {
    let vocab: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| format!("\"{w}\": {i}"))
        .collect();
    format!(
        r#"{{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": {{"type": "Lowercase"}}, "pre_tokenizer": {{"type": "Whitespace"}},
            "post_processor": {{"type": "TemplateProcessing",
              "single": [{{"SpecialToken": {{"id": "[CLS]", "type_id": 0}}}},
                         {{"Sequence": {{"id": "A", "type_id": 0}}}},
                         {{"SpecialToken": {{"id": "[SEP]", "type_id": 0}}}}],
              "pair": [{{"Sequence": {{"id": "A", "type_id": 0}}}}],
              "special_tokens": {{"[CLS]": {{"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}},
                                 "[SEP]": {{"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}}}}},
            "decoder": null,
            "model": {{"type": "WordLevel", "vocab": {{{}}}, "unk_token": "[UNK]"}}}}"#,
        vocab.join(", ")
    )
}
