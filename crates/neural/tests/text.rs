//! Training the siamese classifier from text into a model directory, loading it back, and the
//! `SentenceEncoder` / `PairScorer` conformance suites run on the neural implementations.

use std::sync::OnceLock;

use bitext_core::{Embeddings, Rng};
use bitext_encode::{SentenceEncoder, Side};
use bitext_neural::backend::BackendSpec;
use bitext_neural::batch::Bucketing;
use bitext_neural::mlp::{Mlp, MlpConfig, MlpScorer};
use bitext_neural::siamese::{
    SiameseConfig, SiameseEncoder, SiameseTextTraining, SiameseTrainConfig, model_kind,
    train_siamese,
};
use bitext_neural::text::WordVocabConfig;
use bitext_neural::train::TrainConfig;
use bitext_similarity::PairScorer;

/// Sentences `a3 a7 a1` whose translation is `b1 b7 b3` (reversed, renamed): learnable.
fn corpus(n: usize, seed: u64) -> (Vec<String>, Vec<String>) {
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = 2 + rng.below(5);
            let w: Vec<usize> = (0..len).map(|_| rng.below(20)).collect();
            let s = w
                .iter()
                .map(|i| format!("a{i}"))
                .collect::<Vec<_>>()
                .join(" ");
            let t = w.iter().rev().map(|i| format!("b{i}")).collect::<Vec<_>>();
            (s, t.join(" "))
        })
        .unzip()
}

/// One model trained once for all tests of this file.
fn trained() -> &'static (tempfile::TempDir, f64) {
    static MODEL: OnceLock<(tempfile::TempDir, f64)> = OnceLock::new();
    MODEL.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (src, tgt) = corpus(60, 1);
        let (vs, vt) = corpus(20, 2);
        let mut train = SiameseTrainConfig::paper(3);
        train.negatives = 3;
        train.batching = Bucketing {
            max_items: 32,
            max_tokens: 1000,
        };
        train.train = TrainConfig {
            clip_norm: Some(5.0),
            ..TrainConfig::new(15, 0.02, 3)
        };
        let job = SiameseTextTraining {
            src: &src,
            tgt: &tgt,
            valid: Some((&vs, &vt)),
            network: SiameseConfig {
                emb_dim: 12,
                hidden: 10,
                ff: 8,
                dropout_input: 0.0,
                dropout_output: 0.0,
                ..SiameseConfig::paper(1, 1)
            },
            train,
            vocab: WordVocabConfig {
                min_count: 1,
                ..WordVocabConfig::default()
            },
        };
        let out = train_siamese(&job, dir.path(), false).unwrap();
        assert_eq!(out.dropped_pairs, 0);
        let best = &out.fitted.state.history[out.fitted.state.best_epoch - 1];
        let acc = best.valid.as_ref().unwrap().metrics["accuracy"];
        (dir, acc)
    })
}

fn encoder() -> SiameseEncoder {
    SiameseEncoder::load(trained().0.path(), BackendSpec::Flex)
        .unwrap()
        .with_batching(Bucketing {
            max_items: 3,
            max_tokens: 30,
        })
}

#[test]
fn learns_held_out_pairs_and_saves_a_loadable_directory() {
    let (dir, acc) = trained();
    assert!(*acc > 0.85, "validation accuracy {acc}");
    assert_eq!(model_kind(dir.path()).unwrap(), "siamese");
    let enc = encoder();
    assert!(enc.text().shared());
    let (src, tgt) = corpus(30, 9);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt.iter().map(String::as_str).collect();
    let scorer = enc.scorer(&s, &t).unwrap();
    let aligned = scorer
        .score(&(0..30).map(|i| (i, i)).collect::<Vec<_>>())
        .unwrap();
    let shifted = scorer
        .score(&(0..30).map(|i| (i, (i + 1) % 30)).collect::<Vec<_>>())
        .unwrap();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        mean(&aligned) > mean(&shifted) + 0.5,
        "{} vs {}",
        mean(&aligned),
        mean(&shifted)
    );
}

macro_rules! sentence_encoder_conformance {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn shapes_order_and_batching_agree() {
                let enc = $make;
                let sents = ["a1 a2 a3", "a4", "a5 a6", "a7 a8 a9 a10 a11", "a1"];
                let all = enc.encode_batch(Side::Source, &sents).unwrap();
                assert_eq!((all.len(), all.dim()), (sents.len(), enc.dim()));
                for (i, s) in sents.iter().enumerate() {
                    let one = enc.encode_batch(Side::Source, &[*s]).unwrap();
                    for (a, b) in one.row(0).iter().zip(all.row(i)) {
                        assert!((a - b).abs() < 1e-5, "sentence {i}: {a} vs {b}");
                    }
                }
                let chunked = enc.encode(Side::Source, &sents).unwrap();
                assert_eq!(chunked.len(), sents.len());
                assert!(all.check_finite().is_ok());
            }

            #[test]
            fn empty_text_is_an_error() {
                let enc = $make;
                assert!(enc.encode_batch(Side::Target, &["b1", ""]).is_err());
            }
        }
    };
}

macro_rules! pair_scorer_conformance {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;

            #[test]
            fn scores_are_probabilities_in_any_batching() {
                let scorer = $make;
                let (n, m) = scorer.sizes();
                let pairs: Vec<(usize, usize)> =
                    (0..n).flat_map(|i| (0..m).map(move |j| (i, j))).collect();
                let all = scorer.score(&pairs).unwrap();
                assert!(all.iter().all(|p| (0.0..=1.0).contains(p)));
                for (k, p) in pairs.iter().enumerate().step_by(3) {
                    let one = scorer.score(&[*p]).unwrap()[0];
                    assert!((one - all[k]).abs() < 1e-5, "{p:?}: {one} vs {}", all[k]);
                }
                assert!(scorer.score(&[(n, 0)]).is_err());
                assert!(scorer.score(&[(0, m)]).is_err());
                assert!(scorer.score(&[]).unwrap().is_empty());
            }
        }
    };
}

sentence_encoder_conformance!(siamese_encoder, encoder());
pair_scorer_conformance!(
    siamese_scorer,
    encoder()
        .scorer(
            &["a1 a2", "a3", "a4 a5 a6"],
            &["b2 b1", "b3", "b9", "b6 b5"]
        )
        .unwrap()
);
pair_scorer_conformance!(mlp_scorer, {
    let mut rng = Rng::seed(4);
    let mut rows = |n: usize| {
        Embeddings::from_rows(
            (0..n).map(|_| (0..5).map(|_| rng.normal() as f32).collect::<Vec<_>>()),
            5,
        )
        .unwrap()
    };
    let (a, b) = (rows(4), rows(3));
    let mlp = Mlp::new(&MlpConfig::paper(5), 1, &burn::tensor::Device::flex()).unwrap();
    MlpScorer::new(&mlp, a, b).unwrap()
});
