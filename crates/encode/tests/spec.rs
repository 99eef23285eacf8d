//! `EncoderSpec`: serde and `FromStr` round trips, the bag-of-words encoder built from a spec
//! equals the hand-built one, and bad specs are clear errors.

use std::path::{Path, PathBuf};

use bitext_core::Rng;
use bitext_core::io::vec::read_vec;
use bitext_encode::{
    BowEncoder, BowSpec, EncoderSpec, Idf, NoKnownWord, SentenceEncoder, Side, Weighting,
};
use bitext_tokenize::{WordConfig, WordTokenizer};

const WORDS: [&str; 6] = ["haus", "katze", "hund", "das", "die", "der"];

/// A `.vec` file of `WORDS` with seeded random vectors.
fn write_vec(dir: &Path, name: &str, seed: u64) -> PathBuf {
    let mut rng = Rng::seed(seed);
    let mut text = format!("{} 4\n", WORDS.len());
    for w in WORDS {
        let v: Vec<String> = (0..4)
            .map(|_| format!("{}", rng.next_f32() - 0.5))
            .collect();
        text.push_str(&format!("{w} {}\n", v.join(" ")));
    }
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SENTENCES: [&str; 4] = [
    "Das Haus",
    "die Katze , der Hund",
    "Haus Haus Katze",
    "der Hund",
];

#[test]
fn serde_and_from_str_round_trip() {
    let specs = [
        EncoderSpec::bow("de.vec"),
        EncoderSpec::Bow(BowSpec {
            vectors: "de.vec".into(),
            target_vectors: Some("en.vec".into()),
            max_words: Some(1000),
            lowercase: false,
            pieces: Some(bitext_tokenize::TokenizerSpec::Sentencepiece {
                model: "spm.model".into(),
                sequence: bitext_tokenize::SequenceConfig::default(),
            }),
            weighting: Weighting::TfIdf,
            idf_corpus: Some("de.txt".into()),
            target_idf_corpus: Some("en.txt".into()),
            no_known_word: NoKnownWord::Zero,
            normalize: false,
        }),
        EncoderSpec::model("runs/siamese"),
    ];
    for s in specs {
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(
            serde_json::from_str::<EncoderSpec>(&json).unwrap(),
            s,
            "{json}"
        );
        assert_eq!(s.to_string().parse::<EncoderSpec>().unwrap(), s);
    }
    assert_eq!(
        serde_json::to_string(&EncoderSpec::bow("de.vec")).unwrap(),
        r#"{"type":"bow","vectors":"de.vec"}"#
    );
    assert_eq!(
        "model:m".parse::<EncoderSpec>().unwrap(),
        serde_json::from_str(r#"{"type":"model","dir":"m","backend":"flex"}"#).unwrap()
    );
}

#[test]
fn every_kind_spells_the_no_token_policy_alike() {
    for (plain, kind) in [
        (r#"{"type":"bow","vectors":"de.vec"}"#, "bow"),
        (r#"{"type":"model","dir":"m"}"#, "model"),
        (r#"{"type":"onnx","model":"g.onnx"}"#, "onnx"),
    ] {
        let spec: EncoderSpec = plain.parse().unwrap();
        assert_eq!(spec.no_known_word(), NoKnownWord::Error, "{kind}");
        let zero = spec.clone().with_no_known_word(NoKnownWord::Zero);
        assert_eq!(zero.no_known_word(), NoKnownWord::Zero, "{kind}");
        // Written only when it is not the default, and read back.
        let json = zero.to_string();
        assert!(json.contains(r#""no_known_word":"zero""#), "{json}");
        assert!(!spec.to_string().contains("no_known_word"), "{kind}");
        assert_eq!(json.parse::<EncoderSpec>().unwrap(), zero);
        let written = plain.replace('}', r#","no_known_word":"zero"}"#);
        assert_eq!(written.parse::<EncoderSpec>().unwrap(), zero, "{kind}");
        let e = plain
            .replace('}', r#","no_known_word":"skip"}"#)
            .parse::<EncoderSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("skip") && e.contains("zero"), "{e}");
    }
}

#[test]
fn bad_specs_are_clear_errors() {
    let err = |s: &str| s.parse::<EncoderSpec>().unwrap_err().to_string();
    assert!(err(r#"{"type":"glove","vectors":"x"}"#).contains("glove"));
    assert!(err(r#"{"type":"bow","vectors":"x","colour":1}"#).contains("colour"));
    assert!(err(r#"{"type":"bow"}"#).contains("vectors"));
    assert!(err("x.vec").contains("bow:FILE"));
    assert!(err(r#"{"type":"bow","vectors":"x","max_words":0}"#).contains("max_words"));
    assert!(err(r#"{"type":"bow","vectors":"x","idf_corpus":"c"}"#).contains("tf_idf"));

    let missing = EncoderSpec::bow("/nonexistent/de.vec").build_bow(None::<&[&str]>);
    assert!(
        missing
            .unwrap_err()
            .to_string()
            .contains("/nonexistent/de.vec")
    );

    let dir = tempfile::tempdir().unwrap();
    let v = write_vec(dir.path(), "de.vec", 1);
    let tfidf = EncoderSpec::Bow(BowSpec {
        weighting: Weighting::TfIdf,
        ..BowSpec::new(&v)
    });
    let e = tfidf.build_bow(None::<&[&str]>).unwrap_err().to_string();
    assert!(e.contains("idf_corpus"), "{e}");
    let no_corpus = EncoderSpec::Bow(BowSpec {
        weighting: Weighting::TfIdf,
        idf_corpus: Some(dir.path().join("missing.txt")),
        ..BowSpec::new(&v)
    });
    let e = no_corpus
        .build_bow(None::<&[&str]>)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.txt"), "{e}");

    let e = EncoderSpec::model("runs/x")
        .build(None::<&[&str]>)
        .err()
        .unwrap();
    assert!(e.to_string().contains("bitext-neural"), "{e}");
}

/// Both encoders give the same vectors on both sides.
fn assert_same(a: &dyn SentenceEncoder, b: &BowEncoder) {
    for side in [Side::Source, Side::Target] {
        let x = a.encode(side, &SENTENCES).unwrap();
        let y = b.encode(side, &SENTENCES).unwrap();
        assert_eq!(x, y, "{side}");
    }
}

#[test]
fn bow_specs_build_the_hand_built_encoders() {
    let dir = tempfile::tempdir().unwrap();
    let de = write_vec(dir.path(), "de.vec", 7);
    let en = write_vec(dir.path(), "en.vec", 8);

    // Mean over one shared file.
    let hand = BowEncoder::builder_shared(read_vec(&de, None).unwrap())
        .build()
        .unwrap();
    let spec: EncoderSpec = format!("bow:{}", de.display()).parse().unwrap();
    assert_same(&*spec.build(None::<&[&str]>).unwrap(), &hand);

    // Two files, the first 4 words, case kept, zero rows, unnormalised.
    let hand = BowEncoder::builder(
        read_vec(&de, Some(4)).unwrap(),
        read_vec(&en, Some(4)).unwrap(),
    )
    .lowercase(false)
    .no_known_word(NoKnownWord::Zero)
    .normalize(false)
    .build()
    .unwrap();
    let spec = EncoderSpec::Bow(BowSpec {
        target_vectors: Some(en.clone()),
        max_words: Some(4),
        lowercase: false,
        no_known_word: NoKnownWord::Zero,
        normalize: false,
        ..BowSpec::new(&de)
    });
    assert_same(&*spec.build(None::<&[&str]>).unwrap(), &hand);

    // TF-IDF over reference sentences, and over the same sentences read from a file.
    let tok = WordTokenizer::new(WordConfig {
        lowercase: true,
        ..WordConfig::default()
    });
    let idf = Idf::from_sentences(&tok, &SENTENCES).unwrap();
    let hand = BowEncoder::builder_shared(read_vec(&de, None).unwrap())
        .tfidf_from(idf.clone(), idf)
        .build()
        .unwrap();
    let tfidf = BowSpec {
        weighting: Weighting::TfIdf,
        ..BowSpec::new(&de)
    };
    let spec = EncoderSpec::Bow(tfidf.clone());
    assert_same(&*spec.build(Some(&SENTENCES)).unwrap(), &hand);
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, SENTENCES.join("\n") + "\n").unwrap();
    let from_file = EncoderSpec::Bow(BowSpec {
        idf_corpus: Some(corpus),
        ..tfidf.clone()
    });
    assert_same(&*from_file.build(None::<&[&str]>).unwrap(), &hand);
    // A BUCC corpus (`id<TAB>sentence`) gives the same IDF.
    let bucc = dir.path().join("corpus.bucc");
    let lines: Vec<String> = SENTENCES
        .iter()
        .enumerate()
        .map(|(i, s)| format!("de-{i:09}\t{s}\n"))
        .collect();
    std::fs::write(&bucc, lines.concat()).unwrap();
    let from_bucc = EncoderSpec::Bow(BowSpec {
        idf_corpus: Some(bucc),
        ..tfidf.clone()
    });
    assert_same(&*from_bucc.build(None::<&[&str]>).unwrap(), &hand);

    // Two languages, each weighed by its own corpus.
    let en_corpus = dir.path().join("en.txt");
    let en_sentences = ["the house", "the cat and the dog"];
    std::fs::write(&en_corpus, en_sentences.join("\n") + "\n").unwrap();
    let en_idf = Idf::from_sentences(&tok, &en_sentences).unwrap();
    let de_idf = Idf::from_sentences(&tok, &SENTENCES).unwrap();
    let hand = BowEncoder::builder(read_vec(&de, None).unwrap(), read_vec(&en, None).unwrap())
        .tfidf_from(de_idf, en_idf)
        .build()
        .unwrap();
    let two = EncoderSpec::Bow(BowSpec {
        target_vectors: Some(en.clone()),
        target_idf_corpus: Some(en_corpus),
        ..tfidf
    });
    assert_same(&*two.build(Some(&SENTENCES)).unwrap(), &hand);
}
