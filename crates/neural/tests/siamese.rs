//! The siamese classifier and the training loop: gradients reach every parameter, weights load
//! back bit-identically, the loss falls on a separable task, training is deterministic and a
//! resumed run equals an uninterrupted one.

mod common;

use bitext_core::Rng;
use bitext_encode::Side;
use bitext_neural::batch::Bucketing;
use bitext_neural::rnn::CellKind;
use bitext_neural::siamese::{Siamese, SiameseConfig, SiameseTask};
use bitext_neural::train::{TrainConfig, backward, checkpoint, fit};
use common::{
    cpu, host2, params, siamese_plain_and_deferred_grads, tiny_siamese, toy_pairs, with_dropout,
};

/// The GRU network over two tables and the LSTM one over one shared table, with dropout.
fn with_dropout_per_cell() -> [(CellKind, SiameseConfig); 2] {
    [(CellKind::Gru, false), (CellKind::Lstm, true)]
        .map(|(cell, shared)| (cell, with_dropout(tiny_siamese(cell, shared))))
}

#[test]
fn gradient_reaches_every_parameter() {
    for (cell, config) in with_dropout_per_cell() {
        let model = Siamese::new(&config, 3, &cpu().autodiff()).unwrap();
        let data = toy_pairs(6, 1);
        let src: Vec<&[u32]> = data.src.iter().map(Vec::as_slice).collect();
        let mut tgt: Vec<&[u32]> = data.tgt.iter().map(Vec::as_slice).collect();
        tgt.rotate_left(3);
        let labels = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        let loss = model
            .pair_loss(&src, &tgt, &labels, Some(&mut Rng::seed(2)))
            .unwrap();
        let grads = backward(&model, loss).unwrap();
        common::assert_every_param_learns(&model, &grads, &format!("{cell:?}: "));
    }
}

#[test]
fn deferred_gradients_equal_plain_autodiff() {
    for (cell, config) in with_dropout_per_cell() {
        let model = Siamese::new(&config, 4, &cpu().autodiff()).unwrap();
        let (a, b, stages) = siamese_plain_and_deferred_grads(&model);
        assert_eq!(stages, 1);
        // Every parameter has a gradient on both paths, and they agree.
        let compared = common::assert_same_grads(&a, &b, &format!("{cell:?}"));
        assert_eq!(compared, a.len(), "{cell:?}: parameters without a gradient");
    }
}

#[test]
fn weights_load_back_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.bpk");
    let config = tiny_siamese(CellKind::Gru, false);
    let a = Siamese::new(&config, 1, &cpu()).unwrap();
    checkpoint::save_weights(&a, &path).unwrap();
    let b = Siamese::new(&config, 2, &cpu()).unwrap();
    assert_ne!(params(&a), params(&b));
    let b = checkpoint::load_weights(b, &path).unwrap();
    let (pa, pb) = (params(&a), params(&b));
    for ((_, x), (_, y)) in pa.iter().zip(&pb) {
        let (xb, yb): (Vec<u32>, Vec<u32>) = (
            x.iter().map(|v| v.to_bits()).collect(),
            y.iter().map(|v| v.to_bits()).collect(),
        );
        assert_eq!(xb, yb);
    }
    let s: [&[u32]; 2] = [&[1, 2, 3], &[4, 5]];
    assert_eq!(
        host2(a.encode(&s, Side::Target, None).unwrap()),
        host2(b.encode(&s, Side::Target, None).unwrap())
    );
    // A model of another shape does not take these weights.
    let other = Siamese::new(&tiny_siamese(CellKind::Lstm, false), 1, &cpu()).unwrap();
    let e = checkpoint::load_weights(other, &path).unwrap_err();
    assert!(e.to_string().contains("w.bpk"), "{e}");
}

#[test]
fn ids_outside_the_vocabulary_are_errors() {
    let model = Siamese::new(&tiny_siamese(CellKind::Gru, false), 1, &cpu()).unwrap();
    assert!(model.encode(&[&[1, 12]], Side::Source, None).is_err());
    assert!(model.encode(&[&[1, 13]], Side::Target, None).is_ok());
    assert!(model.encode(&[&[]], Side::Target, None).is_err());
}

fn train_config(epochs: usize) -> TrainConfig {
    let mut c = TrainConfig::new(epochs, 0.02, 42);
    c.clip_norm = Some(5.0);
    c
}

fn task(seed: u64) -> SiameseTask {
    let data = toy_pairs(24, 7);
    let batching = Bucketing {
        max_items: 24,
        max_tokens: 400,
    };
    SiameseTask::new(
        tiny_siamese(CellKind::Gru, false),
        data.clone(),
        Some(data),
        3,
        batching,
        seed,
    )
    .unwrap()
}

fn model() -> Siamese {
    Siamese::new(&tiny_siamese(CellKind::Gru, false), 42, &cpu().autodiff()).unwrap()
}

#[test]
fn loss_falls_on_a_separable_task() {
    let dir = tempfile::tempdir().unwrap();
    let fitted = fit(&mut task(1), model(), &train_config(12), dir.path(), false).unwrap();
    let h = &fitted.state.history;
    assert_eq!(h.len(), 12);
    let first = h[0].valid.as_ref().unwrap().loss;
    let last = h.last().unwrap().valid.as_ref().unwrap().loss;
    assert!(last < 0.5 * first, "validation loss {first} → {last}");
    let acc = fitted.state.history[fitted.state.best_epoch - 1]
        .valid
        .as_ref()
        .unwrap()
        .metrics["accuracy"];
    assert!(acc > 0.9, "accuracy {acc}");
    // The best model is saved with its description, and the resume state beside it.
    for f in [
        "model.json",
        "weights.bpk",
        "training.json",
        "resume/trainer.json",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
}

#[test]
fn training_is_deterministic_and_resumes_exactly() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let straight = fit(&mut task(1), model(), &train_config(3), d1.path(), false).unwrap();
    // Two epochs, then resume for the third.
    fit(&mut task(1), model(), &train_config(2), d2.path(), false).unwrap();
    let resumed = fit(&mut task(1), model(), &train_config(3), d2.path(), true).unwrap();
    assert_eq!(resumed.state.history.len(), 3);
    let last = |dir: &std::path::Path| {
        let m = Siamese::new(&tiny_siamese(CellKind::Gru, false), 0, &cpu()).unwrap();
        params(&checkpoint::load_weights(m, &dir.join("resume/weights.bpk")).unwrap())
            .into_iter()
            .map(|p| p.1)
            .collect::<Vec<_>>()
    };
    assert_eq!(last(d1.path()), last(d2.path()));
    assert_eq!(
        straight.state.history.last().unwrap().train_loss,
        resumed.state.history.last().unwrap().train_loss
    );
}

/// A table set by `with_embedding_table` is the one the network looks up, and with
/// `frozen_embeddings` training leaves it untouched while the other parameters move.
#[test]
fn a_given_table_is_used_and_a_frozen_one_stays() {
    let config = tiny_siamese(CellKind::Gru, false).with_encoder(|e| e.frozen_embeddings = true);
    let rows = config.table_rows();
    let table: Vec<f32> = (0..rows * config.emb_dim)
        .map(|i| ((i * 7) % 11) as f32 / 11.0 - 0.5)
        .collect();
    let wrong = vec![0.0; 3];
    assert!(
        Siamese::new(&config, 42, &cpu())
            .unwrap()
            .with_embedding_table(wrong)
            .is_err()
    );
    let model = Siamese::new(&config, 42, &cpu().autodiff())
        .unwrap()
        .with_embedding_table(table.clone())
        .unwrap();
    assert_eq!(host2(model.embedding.weight.val()), table);
    let before = params(&model);
    let mut t = SiameseTask::new(
        config,
        toy_pairs(24, 7),
        None,
        3,
        Bucketing {
            max_items: 24,
            max_tokens: 400,
        },
        1,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fitted = fit(&mut t, model, &train_config(2), dir.path(), false).unwrap();
    assert_eq!(host2(fitted.model.embedding.weight.val()), table);
    let after = params(&fitted.model);
    let moved = before
        .iter()
        .zip(&after)
        .filter(|((_, a), (_, b))| a != b)
        .count();
    assert_eq!(
        moved,
        before.len() - 1,
        "every parameter but the table moves"
    );
}
