//! Training the siamese classifier from text into a model directory, loading it back, and the
//! shared `SentenceEncoder` / `PairScorer` conformance suites (`bitext_testkit`) run on the
//! neural implementations: the siamese encoder, the siamese scorer and the MLP scorer.

mod common;

use std::sync::OnceLock;

use bitext_core::{Embeddings, Rng};
use bitext_neural::backend::BackendSpec;
use bitext_neural::batch::Bucketing;
use bitext_neural::mlp::{Mlp, MlpConfig, MlpScorer};
use bitext_neural::siamese::{
    Objective, Pooling, SiameseConfig, SiameseEncoder, SiameseTextTraining, model_kind,
};
use bitext_neural::text::TextTraining;

use bitext_neural::train::TrainConfig;
use bitext_testkit::data::parallel_text;
use bitext_testkit::{pair_scorer_suite, sentence_encoder_suite};
use common::mean;

/// Train a small siamese model on seeded parallel text into a fresh directory; the best
/// epoch's validation metrics come back with it.
fn train_model(
    network: SiameseConfig,
    objective: Objective,
) -> (tempfile::TempDir, std::collections::BTreeMap<String, f64>) {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = parallel_text(60, 1);
    let (vs, vt) = parallel_text(20, 2);
    let mut train = common::siamese_training(
        3,
        TrainConfig {
            clip_norm: Some(5.0),
            ..TrainConfig::new(15, 0.02, 3)
        },
    );
    train.objective = objective;
    let job = SiameseTextTraining {
        corpus: common::every_word_corpus(&src, &tgt, Some((&vs, &vt)), true),
        network,
        train,
        teacher: None,
    };
    let out = job.run(dir.path(), false).unwrap();
    assert_eq!(out.dropped_pairs, 0);
    let best = &out.fitted.state.history[out.fitted.state.best_epoch - 1];
    (dir, best.valid.as_ref().unwrap().metrics.clone())
}

/// The paper's small network: the tiny sizes of these tests, no dropout.
fn small() -> SiameseConfig {
    common::small_siamese(8, 12, 10)
}

/// One model trained once for all tests of this file.
fn trained() -> &'static (tempfile::TempDir, f64) {
    static MODEL: OnceLock<(tempfile::TempDir, f64)> = OnceLock::new();
    MODEL.get_or_init(|| {
        let (dir, metrics) = train_model(small(), Objective::Classifier);
        (dir, metrics["accuracy"])
    })
}

/// The same network with max pooling and a bag of words, trained with the ranking objective.
fn trained_ranking() -> &'static tempfile::TempDir {
    static MODEL: OnceLock<tempfile::TempDir> = OnceLock::new();
    MODEL.get_or_init(|| {
        let network = SiameseConfig {
            pooling: Pooling::Max,
            ..small()
        }
        .with_encoder(|e| e.bag = true);
        train_model(network, Objective::ranking()).0
    })
}

/// The encoder saved in `dir`, in batches of at most 3 sentences and 30 tokens.
fn load_encoder(dir: &std::path::Path) -> SiameseEncoder {
    SiameseEncoder::load(dir, BackendSpec::Flex)
        .unwrap()
        .with_batching(Bucketing {
            max_items: 3,
            max_tokens: 30,
        })
}

fn ranking_encoder() -> SiameseEncoder {
    load_encoder(trained_ranking().path())
}

fn encoder() -> SiameseEncoder {
    load_encoder(trained().0.path())
}

#[test]
fn learns_held_out_pairs_and_saves_a_loadable_directory() {
    let (dir, acc) = trained();
    assert!(*acc > 0.85, "validation accuracy {acc}");
    assert_eq!(model_kind(dir.path()).unwrap(), "siamese");
    let enc = encoder();
    assert!(enc.text().shared());
    let (src, tgt) = parallel_text(30, 9);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt.iter().map(String::as_str).collect();
    let scorer = enc.scorer(&s, &t).unwrap();
    let (aligned, shifted) = common::aligned_and_shifted(&scorer, 30, 1);
    assert!(
        mean(&aligned) > mean(&shifted) + 0.5,
        "{} vs {}",
        mean(&aligned),
        mean(&shifted)
    );
}

/// A siamese scorer of `enc` over 12 sources and 10 targets: the translations of the first 8
/// sources, then 2 unrelated sentences.
fn siamese_scorer_of(enc: &SiameseEncoder) -> bitext_neural::siamese::SiameseScorer {
    let (src, tgt) = parallel_text(12, 31);
    let (_, other) = parallel_text(2, 32);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt[..8].iter().chain(&other).map(String::as_str).collect();
    enc.scorer(&s, &t).unwrap()
}

fn siamese_scorer() -> bitext_neural::siamese::SiameseScorer {
    siamese_scorer_of(&encoder())
}

/// An untrained MLP scorer over 4 × 3 random 5-dimensional vectors.
fn mlp_scorer() -> MlpScorer {
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
}

sentence_encoder_suite!(
    siamese_encoder,
    encoder(),
    bitext_testkit::encoder::Expect::within(1e-5).retrieving(0.7)
);
pair_scorer_suite!(
    siamese,
    siamese_scorer(),
    bitext_testkit::scorer::Expect::within(1e-5)
        .probabilities()
        .planted(8)
);
sentence_encoder_suite!(
    siamese_ranking_bag_encoder,
    ranking_encoder(),
    bitext_testkit::encoder::Expect::within(1e-5).retrieving(0.7)
);
pair_scorer_suite!(
    siamese_ranking_bag,
    siamese_scorer_of(&ranking_encoder()),
    bitext_testkit::scorer::Expect::within(1e-5)
        .probabilities()
        .planted(8)
);
pair_scorer_suite!(
    mlp,
    mlp_scorer(),
    bitext_testkit::scorer::Expect::within(1e-5).probabilities()
);
