//! Encoders and scorers built from specs (`bitext_neural::spec`) equal the ones loaded by hand:
//! a siamese model directory as an `EncoderSpec` and as a `ModelSpec` scorer; bad model specs
//! are errors naming the directory.

mod common;

use bitext_encode::{EncoderSpec, ModelSpec, SentenceEncoder, Side};
use bitext_neural::backend::BackendSpec;
use bitext_neural::siamese::{SiameseEncoder, SiameseTextTraining};
use bitext_neural::spec::NeuralModel;
use bitext_neural::text::TextTraining;
use bitext_neural::train::TrainConfig;
use bitext_similarity::PairScorer;
use bitext_testkit::data::parallel_text;

/// A small siamese model (two epochs: the test compares loaders, not quality).
fn train(dir: &std::path::Path) {
    let (src, tgt) = parallel_text(30, 1);
    let job = SiameseTextTraining {
        corpus: common::every_word_corpus(&src, &tgt, None, true),
        network: common::small_siamese(4, 8, 6),
        train: common::siamese_training(2, TrainConfig::new(2, 0.02, 3)),
        teacher: None,
    };
    job.run(dir, false).unwrap();
}

#[test]
fn model_specs_build_the_loaded_siamese_model() {
    let dir = tempfile::tempdir().unwrap();
    train(dir.path());
    let (src, tgt) = parallel_text(6, 9);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt.iter().map(String::as_str).collect();
    let hand = SiameseEncoder::load(dir.path(), BackendSpec::Flex).unwrap();

    let spec: EncoderSpec = format!("model:{}", dir.path().display()).parse().unwrap();
    let enc = NeuralModel::load(spec.as_model().unwrap())
        .unwrap()
        .into_encoder();
    for (side, text) in [(Side::Source, &s), (Side::Target, &t)] {
        assert_eq!(
            enc.encode(side, text).unwrap(),
            hand.encode(side, text).unwrap()
        );
    }

    let model = NeuralModel::load(&ModelSpec::new(dir.path())).unwrap();
    assert!(matches!(model, NeuralModel::Siamese(_)));
    let pairs: Vec<(usize, usize)> = (0..6).flat_map(|i| (0..6).map(move |j| (i, j))).collect();
    assert_eq!(
        model.scorer(&s, &t).unwrap().score(&pairs).unwrap(),
        hand.scorer(&s, &t).unwrap().score(&pairs).unwrap()
    );
}

#[test]
fn bad_model_specs_name_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let e = NeuralModel::load(&ModelSpec::new(dir.path())).unwrap_err();
    assert!(
        e.to_string().contains(&dir.path().display().to_string()),
        "{e}"
    );
    // An unknown backend is refused when the spec is read, naming it.
    let e = serde_json::from_str::<ModelSpec>(r#"{"dir": "m", "backend": "tpu"}"#).unwrap_err();
    assert!(e.to_string().contains("tpu"), "{e}");
    let e = "tpu".parse::<bitext_encode::Backend>().unwrap_err();
    assert!(e.to_string().contains("tpu"), "{e}");
    let cpu: ModelSpec = serde_json::from_str(r#"{"dir": "m", "backend": "cpu"}"#).unwrap();
    assert_eq!(cpu.backend, bitext_encode::Backend::Flex);
}

/// A sentence with no token (an empty line; `&nbsp;&nbsp;`, which the word tokenizer unescapes
/// to spaces) is an error naming its side, position and text by default, and a zero row with
/// `"no_known_word": "zero"`; a sentence of unknown words is `<unk>` tokens, a finite row
/// under both. A scorer refuses the zero policy.
#[test]
fn a_sentence_without_tokens_is_an_error_or_a_zero_row() {
    let dir = tempfile::tempdir().unwrap();
    train(dir.path());
    let sentences = ["a1 a2", "a3", "zzz qqq", "", "&nbsp;&nbsp;", "a4"];
    let strict = NeuralModel::load(&ModelSpec::new(dir.path()))
        .unwrap()
        .into_encoder();
    let e = strict.encode(Side::Target, &sentences).unwrap_err();
    assert!(
        matches!(&e, bitext_encode::Error::NoToken { side: Side::Target, index: 3, sentence } if sentence.is_empty()),
        "{e}"
    );
    // Past the first batch, the position among all the sentences.
    let e = strict.encode(Side::Source, &sentences[4..]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "source sentence 0 has no token: \"&nbsp;&nbsp;\""
    );

    let spec: EncoderSpec = format!(
        r#"{{"type": "model", "dir": "{}", "no_known_word": "zero"}}"#,
        dir.path().display()
    )
    .parse()
    .unwrap();
    let model = NeuralModel::load(spec.as_model().unwrap()).unwrap();
    let e = model.scorer(&sentences, &sentences).err().unwrap();
    assert!(e.to_string().contains("no_known_word"), "{e}");
    let zero = model.into_encoder();
    let got = zero.encode(Side::Source, &sentences).unwrap();
    got.check_finite().unwrap();
    let norm = |r: &[f32]| r.iter().map(|x| x * x).sum::<f32>();
    for (i, s) in sentences.iter().enumerate() {
        if s.is_empty() || s.starts_with('&') {
            assert_eq!(norm(got.row(i)), 0.0, "{s:?}");
        } else {
            // The row the sentence has alone (up to the rounding of other batch shapes).
            let alone = strict.encode(Side::Source, &[s]).unwrap();
            let far = got
                .row(i)
                .iter()
                .zip(alone.row(0))
                .any(|(a, b)| (a - b).abs() > 1e-5);
            assert!(!far, "{s:?}");
            assert!(norm(got.row(i)) > 0.0, "{s:?}");
        }
    }
}
