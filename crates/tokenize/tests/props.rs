//! Invariants of the word tokenizer and vocabularies, checked with proptest on text built from
//! fragments that exercise every rule (entities, numbers, hyphens, apostrophes, periods,
//! marks, CJK, invisible characters, odd whitespace).

use bitext_tokenize::{
    SequenceConfig, TokenCounter, Tokenizer, Vocab, VocabBuilder, WordConfig, WordLevel,
    WordTokenizer,
};
use proptest::prelude::*;

const FRAGMENTS: &[&str] = &[
    "Hund", "der", "ÄRGER", "l", "s", "re", "Mr", "z", "B", "U", "13", "1", "000", "5", " ", " ",
    " ", "\t", "\u{a0}", "\u{200b}", ".", ".", ",", ",", "-", "'", "’", "\"", "(", ")", ":", "!",
    "?", "%", "&", ";", "#", "&quot;", "&amp;", "&apos;", "&#124;", "&#x5B;", "&foo;", "\u{301}",
    "\u{200d}", "\u{ad}", "中", "文", "😀", "Ω", "ς", "İ", "_", "@", "…", "«", "\r",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40).prop_map(|v| v.concat())
}

fn config() -> impl Strategy<Value = WordConfig> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(lowercase, unescape_html, split_cjk)| WordConfig {
            lowercase,
            unescape_html,
            split_cjk,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn tokens_are_non_empty_and_hold_no_whitespace(text in text(), cfg in config()) {
        for t in cfg.build().tokenize(&text) {
            prop_assert!(!t.is_empty());
            prop_assert!(!t.chars().any(|c| c.is_whitespace() || c.is_control() || c == '\u{200b}'), "{:?}", t);
        }
    }

    #[test]
    fn deterministic_across_apis_configs_and_batches(texts in prop::collection::vec(text(), 1..20), cfg in config()) {
        let a = cfg.build();
        let json = serde_json::to_string(&cfg).unwrap();
        let b = WordTokenizer::new(serde_json::from_str(&json).unwrap());
        let counts = TokenCounter::from_texts(&a, &texts);
        let vocab = VocabBuilder::new().build(&counts).unwrap();
        let level = WordLevel::new(b, vocab, SequenceConfig::default()).unwrap();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let batch = level.encode_batch(&refs).unwrap();
        for (t, enc) in texts.iter().zip(&batch) {
            let tokens = a.tokenize(t);
            prop_assert_eq!(&tokens, &b.tokenize(t));
            prop_assert_eq!(&tokens, &enc.pieces);
            // Every token was counted, so none is unknown.
            prop_assert!(!enc.ids.contains(&level.vocab().unk_id()));
            prop_assert_eq!(&level.encode_ids(t).unwrap(), &enc.ids);
        }
    }

    #[test]
    fn nothing_but_separators_is_lost(text in text()) {
        // Without unescaping and lowercasing, the tokens are the text minus separators and
        // invisible formatting characters, in order.
        let t = WordTokenizer::builder().unescape_html(false).build();
        let joined: String = t.tokenize(&text).concat();
        let kept: String = text
            .chars()
            .filter(|&c| !(c.is_whitespace() || c.is_control() || c == '\u{200b}' || c == '\u{ad}'))
            .collect();
        prop_assert_eq!(joined, kept);
    }

    #[test]
    fn tokenizing_tokenized_text_changes_nothing(text in text(), cfg in config()) {
        let t = cfg.build();
        let tokens = t.tokenize(&text);
        let again = WordTokenizer::new(WordConfig { lowercase: false, ..cfg }).tokenize(&tokens.join(" "));
        prop_assert_eq!(again, tokens);
    }

    #[test]
    fn vocab_save_load_round_trip(
        counts in prop::collection::btree_map("[^\t\r\n]{1,8}", 1u64..1000, 0..50),
        langs in prop::collection::btree_set("[a-z]{2,3}".prop_filter("special", |l| l != "unk" && l != "pad"), 0..4),
        min_count in 1u64..20,
        max_size in prop::option::of(10usize..40),
    ) {
        let mut c = TokenCounter::new();
        for (t, &n) in &counts {
            c.add_n(t, n);
        }
        let mut b = VocabBuilder::new().lang_tags(langs.iter().cloned()).min_count(min_count);
        if let Some(m) = max_size {
            b = b.max_size(m);
        }
        let v = b.build(&c).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vocab.txt");
        v.save(&path).unwrap();
        let loaded = Vocab::load(&path).unwrap();
        prop_assert_eq!(&loaded, &v);
        prop_assert!(max_size.is_none_or(|m| v.len() <= m));
        for (id, token, count) in v.iter() {
            prop_assert_eq!(loaded.id(token), Some(id));
            prop_assert!(v.is_special(id) || count >= min_count);
        }
        for l in &langs {
            prop_assert!(v.lang_id(l).is_some());
        }
    }

    #[test]
    fn in_vocabulary_words_encode_and_decode(words in prop::collection::vec("[a-zäöüß]{1,6}|[0-9]{1,4}|[.,;!?]", 1..30)) {
        let t = WordTokenizer::default();
        let text = words.join(" ");
        let vocab = VocabBuilder::new().build(&TokenCounter::from_texts(&t, &[&text])).unwrap();
        let level = WordLevel::new(t, vocab, SequenceConfig { add_bos: true, add_eos: true, max_len: None }).unwrap();
        let ids = level.encode_ids(&text).unwrap();
        prop_assert_eq!(ids.len(), words.len() + 2);
        prop_assert_eq!(level.decode(&ids).unwrap(), text);
    }
}
