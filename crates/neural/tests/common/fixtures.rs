//! Fixtures several integration tests build alike: corpora, ranking terms, small aligners, and
//! the check that every parameter learns.

use std::path::Path;

use bitext_encode::Side;
use bitext_neural::aligner::{AlignerConfig, AlignerModel, LabeledRef, Objective, RankingTerm};
use bitext_neural::autoencoder::{AutoencoderConfig, Softmax};
use bitext_neural::backend::BackendSpec;
use bitext_neural::batch::Bucketing;
use bitext_neural::rnn::CellKind;
use bitext_neural::siamese::{SiameseConfig, SiameseTrainConfig};
use bitext_neural::text::{TextCorpus, WordVocabConfig};
use bitext_neural::train::{Fitted, Task, TrainConfig, fit};
use bitext_similarity::PairScorer;
use burn::module::Module;
use burn::optim::GradientsParams;

use super::{grad_norms, params, weighted_bag};

/// A training corpus of the pairs `src`/`tgt` whose word vocabularies keep every word seen
/// (`min_count` 1), one for both languages when `joint`, validated on `valid` when given.
pub fn every_word_corpus<'a>(
    src: &'a [String],
    tgt: &'a [String],
    valid: Option<(&'a [String], &'a [String])>,
    joint: bool,
) -> TextCorpus<'a> {
    TextCorpus {
        valid,
        vocab: WordVocabConfig {
            joint,
            min_count: 1,
            ..WordVocabConfig::default()
        },
        ..TextCorpus::new(src, tgt)
    }
}

/// The in-batch ranking term of the aligner tests: weight 0.5, scale 20, margin 0.2, over each
/// batch's parallel examples.
pub fn pair_ranking() -> RankingTerm {
    RankingTerm {
        weight: 0.5,
        scale: 20.0,
        margin: 0.2,
        pairs: 0,
    }
}

/// `network` with the small widths of the aligners trained from text: embeddings 12, hidden
/// size 8.
pub fn small_widths(network: AlignerConfig) -> AlignerConfig {
    network.with_encoder(|e| {
        e.emb_dim = 12;
        e.hidden = 8;
    })
}

/// The aligner saved in `dir`, on the Flex backend.
pub fn load_aligner(dir: &Path) -> AlignerModel {
    AlignerModel::load(dir, BackendSpec::Flex).unwrap()
}

/// Assert that `grads` hold a nonzero, finite gradient for every parameter of `model`; `what`
/// begins each failure's message.
pub fn assert_every_param_learns<M: Module>(model: &M, grads: &GradientsParams, what: &str) {
    let norms = grad_norms(model, grads);
    assert_eq!(norms.len(), params(model).len());
    for (k, n) in norms.iter().enumerate() {
        assert!(
            n.is_some_and(|n| n > 0.0 && n.is_finite()),
            "{what}parameter {k} got gradient {n:?}"
        );
    }
}

/// Copy the directory `from` with everything below it to `to` (e.g. a model directory to
/// resume in).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Labelled examples `(src[k], tgt[k])` with per-word labels `ys[k]`, `yt[k]` and pair labels.
pub fn labeled<'a>(
    src: &'a [Vec<u32>],
    tgt: &'a [Vec<u32>],
    ys: &'a [Vec<f32>],
    yt: &'a [Vec<f32>],
    labels: &[f32],
) -> Vec<LabeledRef<'a>> {
    (0..src.len())
        .map(|k| LabeledRef {
            src: &src[k],
            tgt: &tgt[k],
            src_labels: &ys[k],
            tgt_labels: &yt[k],
            label: labels[k],
        })
        .collect()
}

/// A tiny aligner over `src` and `tgt` words: 5 hidden units, embeddings 8, 6 per direction.
pub fn tiny_aligner(src: usize, tgt: usize, objective: Objective) -> AlignerConfig {
    AlignerConfig {
        ff: 5,
        objective,
        ..AlignerConfig::paper(src, tgt)
    }
    .with_encoder(|e| {
        e.emb_dim = 8;
        e.hidden = 6;
    })
}

/// A tiny autoencoder over 12 source and 14 target words with the full softmax: embeddings 8,
/// `hidden` per direction, `cell`.
pub fn tiny_autoencoder(hidden: usize, cell: CellKind) -> AutoencoderConfig {
    AutoencoderConfig {
        softmax: Softmax::Full,
        ..AutoencoderConfig::paper(12, 14)
    }
    .with_encoder(|e| {
        e.emb_dim = 8;
        e.hidden = hidden;
        e.cell = cell;
    })
}

/// The paper's siamese network at the small sizes of the text-training tests: `ff` hidden
/// units, embeddings `emb_dim`, `hidden` per direction, no dropout.
pub fn small_siamese(ff: usize, emb_dim: usize, hidden: usize) -> SiameseConfig {
    SiameseConfig {
        ff,
        dropout_input: 0.0,
        dropout_output: 0.0,
        ..SiameseConfig::paper(1, 1)
    }
    .with_encoder(|e| {
        e.emb_dim = emb_dim;
        e.hidden = hidden;
    })
}

/// `config` with dropout 0.2 on the input and 0.3 on the output.
pub fn with_dropout(config: SiameseConfig) -> SiameseConfig {
    SiameseConfig {
        dropout_input: 0.2,
        dropout_output: 0.3,
        ..config
    }
}

/// The paper's siamese training (3 shuffles) with `negatives` per pair, batches of at most 32
/// sentences and 1000 tokens, and `train`.
pub fn siamese_training(negatives: usize, train: TrainConfig) -> SiameseTrainConfig {
    let mut config = SiameseTrainConfig::paper(3);
    config.negatives = negatives;
    config.batching = Bucketing {
        max_items: 32,
        max_tokens: 1000,
    };
    config.train = train;
    config
}

/// `model` fitted to `task` for `epochs` (Adam at 0.02, `seed`, gradients clipped at norm 5)
/// in a throwaway directory.
pub fn fit_clipped<T: Task + Send>(
    task: &mut T,
    model: T::Model,
    epochs: usize,
    seed: u64,
) -> Fitted<T::Model> {
    let train = TrainConfig {
        clip_norm: Some(5.0),
        ..TrainConfig::new(epochs, 0.02, seed)
    };
    let dir = tempfile::tempdir().unwrap();
    fit(task, model, &train, dir.path(), false).unwrap()
}

/// Assert that `encode` gives, per side, each sentence of `sents` as the `dim`-wide weighted
/// bag of its rows of `table` (`weights` per row); the bags wanted, per side, come back.
pub fn assert_weighted_bags(
    encode: impl Fn(&[&[u32]], Side) -> Vec<f32>,
    sides: [(Side, &[f32], &[f32]); 2],
    sents: &[&[u32]],
    dim: usize,
) -> Vec<Vec<f32>> {
    let mut bags = Vec::new();
    for (side, table, w) in sides {
        let got = encode(sents, side);
        let mut want_all = Vec::new();
        for (i, s) in sents.iter().enumerate() {
            for (k, want) in weighted_bag(table, dim, w, s).into_iter().enumerate() {
                let g = f64::from(got[i * dim + k]);
                assert!((g - want).abs() < 1e-5, "{side:?} {i} {k}: {g} vs {want}");
                want_all.push(want as f32);
            }
        }
        bags.push(want_all);
    }
    bags
}

/// The scores of `scorer` for the `n` aligned pairs `(i, i)` and for the pairs `(i, i + shift)`
/// (modulo `n`).
pub fn aligned_and_shifted<S: PairScorer + ?Sized>(
    scorer: &S,
    n: usize,
    shift: usize,
) -> (Vec<f64>, Vec<f64>) {
    let aligned = scorer
        .score(&(0..n).map(|i| (i, i)).collect::<Vec<_>>())
        .unwrap();
    let shifted = scorer
        .score(&(0..n).map(|i| (i, (i + shift) % n)).collect::<Vec<_>>())
        .unwrap();
    (aligned, shifted)
}

/// The mean of `v`.
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}
