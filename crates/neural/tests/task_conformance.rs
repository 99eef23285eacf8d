//! The `Task` conformance suite (`task_suite/`) run by every family's training task, on tiny
//! seeded data built here: the siamese classifier (the paper's objective with dropout; the
//! ranking objective with a bag, a teacher and batches in pieces), the autoencoder (sampled
//! softmax, monolingual sentences and a ranking term that draws pairs; a bag and a teacher),
//! the aligner (every kind of synthetic example, dropout; a bag, a teacher and distillation
//! pairs) and the MLP similarity (dropout); and a task that draws its batches from a generator
//! of its own, which the resumption check catches.

mod common;
#[macro_use]
mod task_suite;

use bitext_core::{Embeddings, Rng};
use bitext_neural::aligner::{
    Aligner, AlignerConfig, AlignerTask, DistillPairs, Kind, RankingTerm, Synthesizer,
};
use bitext_neural::autoencoder::{Autoencoder, AutoencoderConfig, AutoencoderTask, Softmax};
use bitext_neural::batch::Bucketing;
use bitext_neural::distill::{Distilled, Teacher};
use bitext_neural::layers::Dense;
use bitext_neural::mlp::{Mlp, MlpConfig, MlpDescription, MlpTask, PairSet, random_negatives};
use bitext_neural::rnn::CellKind;
use bitext_neural::siamese::{Objective, Pooling, Siamese, SiameseConfig, SiameseTask};
use bitext_neural::train::TrainConfig;
use common::{Toy, ae_toy_pairs, cpu, tiny_siamese, toy_corpus, toy_pairs};

/// Three epochs of Adam with clipping, seed 42.
fn schedule() -> TrainConfig {
    TrainConfig {
        clip_norm: Some(5.0),
        ..TrainConfig::new(3, 0.02, 42)
    }
}

/// Batches of at most 12 items.
fn batching() -> Bucketing {
    Bucketing {
        max_items: 12,
        max_tokens: 400,
    }
}

/// `n` seeded rows of `dim` values: a teacher's vectors.
fn rows(n: usize, dim: usize, seed: u64) -> Embeddings {
    let mut rng = Rng::seed(seed);
    let r = (0..n).map(|_| (0..dim).map(|_| rng.normal() as f32).collect::<Vec<_>>());
    Embeddings::from_rows(r, dim).unwrap()
}

/// A teacher of `train` and `valid` pairs of `dim` dimensions, beside the family's loss.
fn teacher(train: usize, valid: Option<usize>, dim: usize) -> Teacher {
    Teacher {
        train: rows(train, dim, 91).into(),
        valid: valid.map(|n| rows(n, dim, 92)),
        source: None,
        weight: 0.5,
        alone: false,
    }
}

fn siamese_classifier() -> (SiameseTask, Siamese) {
    let config = SiameseConfig {
        dropout_input: 0.2,
        dropout_output: 0.3,
        ..tiny_siamese(CellKind::Gru, false)
    };
    let task = SiameseTask::new(
        config,
        toy_pairs(24, 7),
        Some(toy_pairs(8, 8)),
        3,
        batching(),
        1,
    );
    let model = Siamese::new(&config, 42, &cpu().autodiff()).unwrap();
    (task.unwrap(), model)
}

fn siamese_ranking_distilled() -> (SiameseTask, Siamese) {
    let config = SiameseConfig {
        pooling: Pooling::Max,
        dropout_input: 0.1,
        ..tiny_siamese(CellKind::Lstm, true)
    }
    .with_encoder(|e| (e.bag, e.bag_map) = (true, true));
    let batching = Bucketing {
        max_items: 16,
        max_tokens: 400,
    };
    let task = SiameseTask::new(
        config,
        toy_pairs(40, 3),
        Some(toy_pairs(8, 4)),
        2,
        batching,
        1,
    )
    .unwrap()
    .with_objective(Objective::ranking())
    .with_teacher(teacher(40, Some(8), config.dim()), config.dim())
    .unwrap();
    let model = Siamese::new(&config, 42, &cpu().autodiff()).unwrap();
    (task, model.with_chunks(2))
}

fn tiny_autoencoder() -> AutoencoderConfig {
    AutoencoderConfig {
        softmax: Softmax::Sampled { candidates: 6 },
        dropout: 0.1,
        ..AutoencoderConfig::paper(12, 14)
    }
    .with_encoder(|e| (e.emb_dim, e.hidden) = (8, 4))
}

fn autoencoder_sampled_ranking() -> (AutoencoderTask, Autoencoder) {
    let config = tiny_autoencoder();
    let mono = ae_toy_pairs(6, 5).tgt;
    let task = AutoencoderTask::new(
        config,
        ae_toy_pairs(24, 1),
        mono,
        Some(ae_toy_pairs(8, 2)),
        batching(),
    )
    .unwrap()
    .with_ranking(Some(RankingTerm {
        weight: 0.5,
        scale: 10.0,
        margin: 0.2,
        pairs: 16,
    }));
    (
        task,
        Autoencoder::new(&config, 42, &cpu().autodiff()).unwrap(),
    )
}

fn autoencoder_distilled() -> (AutoencoderTask, Autoencoder) {
    let config = tiny_autoencoder().with_encoder(|e| e.bag = true);
    let task = AutoencoderTask::new(
        config,
        ae_toy_pairs(24, 1),
        Vec::new(),
        Some(ae_toy_pairs(8, 2)),
        batching(),
    )
    .unwrap()
    .with_teacher(teacher(24, Some(8), config.dim()), config.dim())
    .unwrap();
    (
        task,
        Autoencoder::new(&config, 42, &cpu().autodiff()).unwrap(),
    )
}

fn tiny_aligner() -> AlignerConfig {
    AlignerConfig {
        ff: 5,
        dropout: 0.1,
        objective: bitext_neural::aligner::Objective::Both,
        ..AlignerConfig::paper(20, 20)
    }
    .with_encoder(|e| (e.emb_dim, e.hidden) = (8, 6))
}

/// An aligner task of every kind of example on 30 pairs, validated on examples of 10 others.
fn aligner_task(config: AlignerConfig) -> AlignerTask {
    let kinds = Kind::parse_set("PURI").unwrap();
    let valid = Synthesizer::new(&toy_corpus(10, 2))
        .unwrap()
        .epoch(&kinds, 10, &mut Rng::seed(3))
        .unwrap();
    AlignerTask::new(
        config,
        toy_corpus(30, 1),
        &kinds,
        8,
        Some(valid),
        batching(),
    )
    .unwrap()
}

fn aligner_words_and_sentences() -> (AlignerTask, Aligner) {
    let config = tiny_aligner();
    let model = Aligner::new(&config, 42, &cpu().autodiff()).unwrap();
    (aligner_task(config), model)
}

fn aligner_distilled() -> (AlignerTask, Aligner) {
    let config = AlignerConfig {
        pooling: Pooling::Max,
        ..tiny_aligner()
    }
    .with_encoder(|e| (e.bag, e.bag_map) = (true, true));
    let dim = config.dim();
    let extra = toy_corpus(20, 4);
    let pairs = DistillPairs {
        src_rows: rows(20, dim, 93).into(),
        tgt_rows: rows(20, dim, 94).into(),
        src: extra.src,
        tgt: extra.tgt,
        per_epoch: 12,
        ranking: Some(RankingTerm {
            weight: 0.5,
            scale: 10.0,
            margin: 0.2,
            pairs: 0,
        }),
        ranking_spares_words: false,
        parallel: 20,
    };
    let task = aligner_task(config)
        .with_valid_pairs(10)
        .with_teacher(teacher(30, Some(10), dim), dim)
        .unwrap()
        .with_distill_pairs(pairs, dim)
        .unwrap();
    (task, Aligner::new(&config, 42, &cpu().autodiff()).unwrap())
}

fn mlp() -> (MlpTask, Mlp) {
    let config = MlpConfig {
        dim: 4,
        hidden: vec![8],
        dropout: 0.2,
    };
    let (a, b) = (rows(30, 4, 1), rows(30, 4, 2));
    let negatives = random_negatives(30, 30, &mut Rng::seed(3));
    let set = PairSet::with_negative_pairs(a.view(), b.view(), &negatives).unwrap();
    let (train, valid) = set.split(0.2, &mut Rng::seed(4)).unwrap();
    let description = MlpDescription {
        network: config.clone(),
        encoder: None,
    };
    let task = MlpTask::new(description, train, Some(valid), 8).unwrap();
    (task, Mlp::new(&config, 42, &cpu().autodiff()).unwrap())
}

task_suite!(siamese_paper, siamese_classifier, schedule());
task_suite!(siamese_ranking, siamese_ranking_distilled, schedule());
task_suite!(autoencoder_ranking, autoencoder_sampled_ranking, schedule());
task_suite!(autoencoder_teacher, autoencoder_distilled, schedule());
task_suite!(aligner_paper, aligner_words_and_sentences, schedule());
task_suite!(aligner_teacher, aligner_distilled, schedule());
task_suite!(mlp_similarity, mlp, schedule());

/// The toy task drawing its batches from a generator it keeps across epochs instead of the
/// epoch's: a run resumed with a fresh task draws other batches.
fn forgetful() -> (Toy, Dense) {
    let model = Dense::new(1, 1, &mut Rng::seed(1), &cpu().autodiff());
    let task = Toy {
        losses: Vec::new(),
        epoch: Default::default(),
        own: Some(Rng::seed(5)),
    };
    (task, model)
}

#[test]
#[should_panic(expected = "assertion `left == right` failed")]
fn a_task_with_a_generator_of_its_own_does_not_resume() {
    task_suite::a_resumed_run_ends_as_the_uninterrupted_one(forgetful, &schedule());
}
