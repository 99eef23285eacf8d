//! The sentencepiece backend and subword training (feature `sentencepiece`), on text generated
//! here: tiny joint models trained in the test, round trips, ids against pieces, determinism,
//! and bad input (missing and corrupt models, invalid UTF-8, empty lines).
#![cfg(feature = "sentencepiece")]

use std::path::Path;
use std::sync::OnceLock;

use bitext_core::Rng;
use bitext_tokenize::{
    Error, ModelType, Normalization, PieceType, Sentencepiece, SequenceConfig, SubwordTrainer,
    Tokenizer, TokenizerSpec,
};
use proptest::prelude::*;

const DE: &[&str] = &[
    "der", "die", "das", "Hund", "Katze", "Haus", "schläft", "läuft", "im", "Garten", "groß",
    "klein", "und", "nicht", "Straße", "Mädchen", "grün", "über", "Brücke", "heute",
];
const EN: &[&str] = &[
    "the", "a", "dog", "cat", "house", "sleeps", "runs", "in", "garden", "big", "small", "and",
    "not", "street", "girl", "green", "over", "bridge", "today", "quickly",
];

/// `n` sentences of 3–9 words from `words`, with punctuation and numbers, seeded.
fn sentences(words: &[&str], n: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = 3 + rng.below(7);
            let mut s: Vec<String> = (0..len)
                .map(|_| (*rng.choose(words).unwrap()).to_string())
                .collect();
            if rng.bernoulli(0.2) {
                s.push(format!("{}", rng.below(1000)));
            }
            let mut s = s.join(" ");
            s.push(if rng.bernoulli(0.5) { '.' } else { '!' });
            s
        })
        .collect()
}

fn corpora() -> (Vec<String>, Vec<String>) {
    (sentences(DE, 400, 1), sentences(EN, 400, 2))
}

fn trainer(model_type: ModelType) -> SubwordTrainer {
    SubwordTrainer::new()
        .model_type(model_type)
        .vocab_size(120)
        .character_coverage(1.0)
        .lang_tags(["de", "en"])
        .threads(Some(2))
}

/// A joint BPE model over the generated German and English text, trained once.
fn bpe_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let (de, en) = corpora();
        let m = trainer(ModelType::Bpe)
            .train_corpora(&[("de", &de[..]), ("en", &en[..])])
            .unwrap();
        m.to_bytes().to_vec()
    })
}

fn bpe() -> Sentencepiece {
    Sentencepiece::from_bytes(bpe_bytes()).unwrap()
}

#[test]
fn joint_models_put_specials_and_tags_where_vocab_does() {
    let (de, en) = corpora();
    for model_type in [ModelType::Bpe, ModelType::Unigram] {
        let m = trainer(model_type)
            .train_corpora(&[("de", &de[..]), ("en", &en[..])])
            .unwrap();
        let t = m.tokenizer();
        assert_eq!(t.vocab_size(), 120);
        assert_eq!(t.model_type(), model_type);
        assert_eq!(t.normalizer(), "nmt_nfkc");
        let pieces: Vec<&str> = (0..6).map(|i| t.id_to_piece(i).unwrap()).collect();
        assert_eq!(pieces, ["<pad>", "<unk>", "<s>", "</s>", "<de>", "<en>"]);
        let s = t.special_ids();
        assert_eq!(
            (s.pad, s.unk, s.bos, s.eos),
            (Some(0), Some(1), Some(2), Some(3))
        );
        assert_eq!((t.lang_id("de"), t.lang_id("en")), (Some(4), Some(5)));
        assert_eq!(t.pieces()[1].kind, PieceType::Unknown);
        assert_eq!(t.pieces()[2].kind, PieceType::Control);
        assert_eq!(t.pieces()[4].kind, PieceType::UserDefined);
        // Characters of both languages are covered: no <unk> in training-like text.
        for text in [&de[0], &en[0], &"Mädchen über Straße".to_string()] {
            let ids = t.encode_ids(text).unwrap();
            assert!(!ids.contains(&1), "{text}: {ids:?}");
        }
        let r = m.report();
        assert_eq!((r.sentences, r.pieces), (800, 120));
        assert_eq!((r.inputs[0].used, r.inputs[1].used), (400, 400));
        assert!(r.to_string().contains("de: 400 lines, 400 used"), "{r}");
    }
}

#[test]
fn encode_decode_round_trip_and_pieces_match_ids() {
    let t = bpe();
    for text in sentences(DE, 50, 9).iter().chain(&sentences(EN, 50, 10)) {
        let enc = t.encode(text).unwrap();
        assert_eq!(t.decode(&enc.ids).unwrap(), *text);
        assert_eq!(enc.pieces.concat().replace('▁', " ").trim_start(), text);
        for (&id, piece) in enc.ids.iter().zip(&enc.pieces) {
            assert_eq!(t.id_to_piece(id), Some(piece.as_str()));
            assert_eq!(t.token_to_id(piece), Some(id));
        }
    }
    // A language tag in the text is one piece (user-defined symbol); encode_lang puts its id
    // first without it being in the text.
    let enc = t.encode("<de> der Hund").unwrap();
    assert!(enc.pieces.contains(&"<de>".to_string()), "{:?}", enc.pieces);
    let tagged = t.encode_ids_lang("der Hund", "en").unwrap();
    assert_eq!(tagged[0], 5);
    assert_eq!(tagged[1..], t.encode_ids("der Hund").unwrap());
    assert!(t.encode_lang("der Hund", "fr").is_err());
    // Unknown characters keep their text with the unknown id; decoding shows ` ⁇ `.
    let enc = t.encode("Hund 😀").unwrap();
    assert_eq!(enc.ids.last(), Some(&1));
    assert_eq!(enc.pieces.last().map(String::as_str), Some("😀"));
    assert_eq!(t.decode(&enc.ids).unwrap(), "Hund  ⁇ ");
}

#[test]
fn empty_and_whitespace_text_encodes_to_nothing() {
    let t = bpe();
    for text in ["", " ", "\t \u{3000} "] {
        assert!(t.encode(text).unwrap().is_empty(), "{text:?}");
    }
    let framed = bpe()
        .with_sequence(SequenceConfig {
            add_bos: true,
            add_eos: true,
            max_len: Some(5),
        })
        .unwrap();
    let enc = framed.encode("").unwrap();
    assert_eq!(enc.ids, [2, 3]);
    assert_eq!(enc.pieces, ["<s>", "</s>"]);
    let long = framed.encode("der Hund schläft im Garten").unwrap();
    assert_eq!(long.len(), 5);
    assert_eq!((long.ids[0], long.ids[4]), (2, 3));
    let kept = t.decode(&long.ids).unwrap();
    assert_eq!(kept, t.decode(&long.ids[1..4]).unwrap());
    assert!("der Hund schläft im Garten".starts_with(&kept), "{kept}");
}

#[test]
fn training_is_deterministic() {
    let (de, en) = corpora();
    let data = [("de", &de[..]), ("en", &en[..])];
    let bytes = |t: SubwordTrainer| t.train_corpora(&data).unwrap().to_bytes().to_vec();
    for model_type in [ModelType::Bpe, ModelType::Unigram] {
        let a = bytes(trainer(model_type).max_sentences(Some(500)).seed(5));
        assert_eq!(
            a,
            bytes(trainer(model_type).max_sentences(Some(500)).seed(5))
        );
        assert_ne!(
            a,
            bytes(trainer(model_type).max_sentences(Some(500)).seed(6))
        );
    }
    // BPE does not depend on the thread count (the recorded setting aside).
    let pieces = |threads| {
        let m = trainer(ModelType::Bpe)
            .threads(Some(threads))
            .train_corpora(&data)
            .unwrap();
        m.tokenizer().pieces().to_vec()
    };
    assert_eq!(pieces(1), pieces(3));
}

#[test]
fn models_save_load_and_build_from_a_spec() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("joint.model");
    bpe().save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bpe_bytes());
    let t = Sentencepiece::open(&path).unwrap();
    let spec: TokenizerSpec = serde_json::from_value(serde_json::json!({
        "type": "sentencepiece", "model": path, "sequence": {"add_eos": true}
    }))
    .unwrap();
    let built = spec.build().unwrap();
    let text = "die Katze läuft über die Brücke";
    let mut want = t.encode_ids(text).unwrap();
    want.push(3);
    assert_eq!(built.encode_ids(text).unwrap(), want);
    // Nothing else was written beside the model (sentencepiece's model_prefix files).
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
}

#[test]
fn missing_and_corrupt_models_name_the_file() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing.model");
    let e = Sentencepiece::open(&missing).unwrap_err().to_string();
    assert!(e.contains("missing.model"), "{e}");
    let good = bpe_bytes();
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("empty.model", Vec::new(), "empty file"),
        ("text.model", b"this is not a model\n".to_vec(), "wire type"),
        ("cut.model", good[..good.len() / 2].to_vec(), "truncated"),
        (
            "noise.model",
            (0..4000u32).map(|i| (i * 7919 % 251) as u8).collect(),
            "",
        ),
    ];
    for (name, bytes, why) in cases {
        let p = d.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let e = Sentencepiece::open(&p).unwrap_err();
        assert!(matches!(e, Error::Core(_)), "{name}: {e:?}");
        let e = e.to_string();
        assert!(e.contains(name) && e.contains(why), "{name}: {e}");
        assert!(Sentencepiece::from_bytes(bytes).is_err(), "{name}");
    }
    // Well-formed protobuf with a piece twice (the first field, `<pad>`, appended again).
    assert_eq!(good[0], 0x0a);
    let first = 2 + usize::from(good[1]);
    let mut dup = good.to_vec();
    dup.extend_from_slice(&good[..first]);
    let e = Sentencepiece::from_bytes(dup).unwrap_err().to_string();
    assert!(e.contains("<in-memory sentencepiece model>"), "{e}");
}

fn write(dir: &Path, name: &str, content: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

#[test]
fn training_input_errors_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let (de, en) = corpora();
    let good = write(d.path(), "en.txt", en.join("\n").as_bytes());
    let mut bad = de[..5].join("\n").into_bytes();
    bad.extend_from_slice(b"\nKatze \xff\xfe Hund\n");
    let bad = write(d.path(), "de.txt", &bad);
    let e = trainer(ModelType::Bpe)
        .train_files(&[&good, &bad])
        .unwrap_err()
        .to_string();
    assert!(e.contains("de.txt:6: invalid UTF-8"), "{e}");

    let with_empty = format!("{}\n\n{}\n", de[0], de[1]);
    let with_empty = write(d.path(), "empty.txt", with_empty.as_bytes());
    let e = trainer(ModelType::Bpe)
        .train_files(&[&with_empty])
        .unwrap_err()
        .to_string();
    assert!(e.contains("empty.txt:2: empty line"), "{e}");
    let missing = d.path().join("nope.txt");
    let e = trainer(ModelType::Bpe)
        .train_files(&[&missing])
        .unwrap_err()
        .to_string();
    assert!(e.contains("nope.txt"), "{e}");

    // Skipping empty lines works and is counted; files train like the same text in memory.
    let de_file = write(
        d.path(),
        "de_ok.txt",
        format!("{}\n\n", de.join("\n")).as_bytes(),
    );
    let m = trainer(ModelType::Bpe)
        .skip_empty_lines(true)
        .train_files(&[&de_file, &good])
        .unwrap();
    assert_eq!(m.report().inputs[0].empty, 1);
    assert_eq!(m.report().inputs[0].used, 400);
    assert_eq!(m.tokenizer().pieces(), bpe().pieces());
}

#[test]
fn sentencepiece_errors_and_bad_parameters_are_reported() {
    let (de, _) = corpora();
    let e = trainer(ModelType::Unigram)
        .vocab_size(5000)
        .train_corpora(&[("de", &de[..])])
        .unwrap_err();
    assert!(matches!(e, Error::Sentencepiece(_)), "{e:?}");
    assert!(e.to_string().contains("Vocabulary size too high"), "{e}");
    for bad in [
        trainer(ModelType::Bpe).vocab_size(6),
        trainer(ModelType::Bpe).character_coverage(0.0),
        trainer(ModelType::Bpe).character_coverage(f64::NAN),
        trainer(ModelType::Bpe).lang_tags(["de", "de"]),
        trainer(ModelType::Bpe).user_symbols(["a,b"]),
        trainer(ModelType::Bpe).user_symbols(["<s>"]),
        trainer(ModelType::Bpe).threads(Some(0)),
        trainer(ModelType::Bpe).max_sentences(Some(0)),
    ] {
        let e = bad.train_corpora(&[("de", &de[..])]).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
    }
    let none: [&str; 0] = [];
    assert!(
        trainer(ModelType::Bpe)
            .train_corpora(&[("x", &none[..])])
            .is_err()
    );
}

#[test]
fn identity_normalization_and_byte_fallback() {
    let (de, en) = corpora();
    let m = trainer(ModelType::Unigram)
        .normalization(Normalization::Identity)
        .byte_fallback(true)
        .vocab_size(400)
        .train_corpora(&[("de", &de[..]), ("en", &en[..])])
        .unwrap();
    let t = m.tokenizer();
    assert!(t.byte_fallback());
    assert_eq!(t.normalizer(), "identity");
    let enc = t.encode("Hund 😀").unwrap();
    assert!(
        enc.pieces.contains(&"<0xF0>".to_string()),
        "{:?}",
        enc.pieces
    );
    assert!(!enc.ids.contains(&1));
    assert_eq!(t.decode(&enc.ids).unwrap(), "Hund 😀");
}

#[test]
fn trainer_configs_come_from_json() {
    let t: SubwordTrainer = serde_json::from_str(
        r#"{"model_type": "bpe", "vocab_size": 120, "character_coverage": 1.0,
            "lang_tags": ["de", "en"], "threads": 2}"#,
    )
    .unwrap();
    assert_eq!(t, trainer(ModelType::Bpe));
    assert!(serde_json::from_str::<SubwordTrainer>(r#"{"vocab": 120}"#).is_err());
    assert!(serde_json::from_str::<SubwordTrainer>(r#"{"model_type": "wordpiece"}"#).is_err());
}

fn byte_model() -> &'static Sentencepiece {
    static M: OnceLock<Sentencepiece> = OnceLock::new();
    M.get_or_init(|| {
        let (de, en) = corpora();
        trainer(ModelType::Bpe)
            .normalization(Normalization::Identity)
            .byte_fallback(true)
            .vocab_size(400)
            .train_corpora(&[("de", &de[..]), ("en", &en[..])])
            .unwrap()
            .into_tokenizer()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With identity normalization and byte fallback, decoding gives back the text up to
    /// whitespace (sentencepiece collapses runs of spaces and trims), and every id is in range
    /// with its own piece.
    #[test]
    fn decode_inverts_encode_up_to_whitespace(
        text in "[ a-zäöüßA-Z0-9.!😀€\u{4e00}-\u{4e10}]{0,40}"
    ) {
        let t = byte_model();
        let enc = t.encode(&text).unwrap();
        let want = text.split(' ').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
        prop_assert_eq!(t.decode(&enc.ids).unwrap(), want);
        for (&id, piece) in enc.ids.iter().zip(&enc.pieces) {
            prop_assert!((id as usize) < t.vocab_size());
            prop_assert_eq!(t.id_to_piece(id), Some(piece.as_str()));
        }
    }
}
