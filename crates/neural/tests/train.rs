//! The training loop's bookkeeping with a scripted validation: best epoch, early stopping,
//! the plateau and linear schedules, step limits and the saved files.

mod common;

use std::cell::Cell;

use bitext_core::Rng;
use bitext_neural::layers::Dense;
use bitext_neural::train::{LrSchedule, TrainConfig, checkpoint, fit};
use burn::tensor::Device;
use common::Toy;

fn task(losses: &[f64]) -> Toy {
    Toy {
        losses: losses.to_vec(),
        epoch: Cell::new(0),
        own: None,
    }
}

fn model() -> Dense {
    Dense::new(1, 1, &mut Rng::seed(1), &Device::flex().autodiff())
}

#[test]
fn early_stopping_keeps_the_best_epoch_and_decays_on_plateau() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = TrainConfig::new(10, 0.1, 1);
    c.patience = Some(2);
    c.schedule = LrSchedule::Plateau { factor: 0.5 };
    let f = fit(
        &mut task(&[1.0, 0.5, 0.6, 0.7, 0.2]),
        model(),
        &c,
        dir.path(),
        false,
    )
    .unwrap();
    let s = &f.state;
    assert_eq!((s.epochs_done, s.best_epoch, s.bad_epochs), (4, 2, 2));
    assert_eq!(s.best_loss, Some(0.5));
    assert!((s.plateau_scale - 0.25).abs() < 1e-12);
    assert!(
        s.stopped
            .as_deref()
            .unwrap()
            .contains("no better validation loss")
    );
    // Epoch 3 did not improve: epoch 4 ran at half the rate; epoch 4 halved it again.
    assert!((s.history[2].lr - 0.1).abs() < 1e-12, "{}", s.history[2].lr);
    assert!(
        (s.history[3].lr - 0.05).abs() < 1e-12,
        "{}",
        s.history[3].lr
    );
    let saved: serde_json::Value =
        checkpoint::read_json(&dir.path().join("resume/trainer.json")).unwrap();
    assert_eq!(saved["best_epoch"], 2);
}

#[test]
fn step_limit_cuts_an_epoch() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = TrainConfig::new(10, 0.1, 1);
    c.max_steps = Some(4);
    let f = fit(&mut task(&[1.0, 0.9, 0.8]), model(), &c, dir.path(), false).unwrap();
    let h = &f.state.history;
    assert_eq!(h.len(), 2);
    assert_eq!((h[0].steps, h[1].steps), (3, 1));
    assert!(h[1].truncated && !h[0].truncated);
    assert!(TrainConfig::new(0, 0.1, 1).check().is_err());
    c.max_steps = Some(0);
    assert!(c.check().is_err());
}

#[test]
fn time_limit_cuts_an_epoch_and_keeps_it() {
    // A limit shorter than any update (a picosecond): the first update reaches it, so the
    // first epoch stops after one of its three batches, is validated, saved as the best, and
    // training ends there, whatever the machine's speed.
    let dir = tempfile::tempdir().unwrap();
    let mut c = TrainConfig::new(10, 0.1, 1);
    c.time_limit_secs = Some(1e-12);
    let f = fit(&mut task(&[1.0, 0.9]), model(), &c, dir.path(), false).unwrap();
    let s = &f.state;
    assert_eq!((s.epochs_done, s.best_epoch, s.step), (1, 1, 1));
    assert_eq!(s.history.len(), 1);
    assert!(s.history[0].truncated);
    assert_eq!((s.history[0].steps, s.history[0].items), (1, 4));
    assert_eq!(s.best_loss, Some(1.0));
    let why = s.stopped.as_deref().unwrap();
    assert!(why.starts_with("reached the time limit"), "{why}");
    let saved: serde_json::Value =
        checkpoint::read_json(&dir.path().join("resume/trainer.json")).unwrap();
    assert_eq!(
        (saved["epochs_done"].clone(), saved["step"].clone()),
        (1.into(), 1.into())
    );
    assert!(dir.path().join(checkpoint::WEIGHTS_FILE).is_file());
    // A limit that is not positive is refused before any work.
    c.time_limit_secs = Some(0.0);
    assert!(c.check().is_err());
}

#[test]
fn linear_schedule_decays_over_the_budget() {
    // Over the epochs: 2 epochs of 3 batches; the last update of each epoch is made with
    // 2 of 6 and 5 of 6 batches spent.
    let dir = tempfile::tempdir().unwrap();
    let mut c = TrainConfig::new(2, 0.1, 1);
    c.schedule = LrSchedule::Linear;
    let f = fit(&mut task(&[1.0, 0.9]), model(), &c, dir.path(), false).unwrap();
    let h = &f.state.history;
    assert!((h[0].lr - 0.1 * 2.0 / 3.0).abs() < 1e-12, "{}", h[0].lr);
    assert!((h[1].lr - 0.1 / 6.0).abs() < 1e-12, "{}", h[1].lr);
    // Over a step limit nearer its end than the epochs are: the 4th of 4 updates runs at a
    // quarter of the rate (3 of 4 spent), where the epochs alone would leave 90%.
    let dir = tempfile::tempdir().unwrap();
    let mut c = TrainConfig::new(10, 0.1, 1);
    c.schedule = LrSchedule::Linear;
    c.max_steps = Some(4);
    let f = fit(&mut task(&[1.0, 0.9]), model(), &c, dir.path(), false).unwrap();
    let h = &f.state.history;
    assert!((h[1].lr - 0.025).abs() < 1e-12, "{}", h[1].lr);
    // The time limit counts too: none of a day's limit is spent in these milliseconds.
    c.max_steps = None;
    c.time_limit_secs = Some(86_400.0);
    assert!(c.budget_spent(864.0, 0, 1, 0, 3) > 0.0099);
    assert_eq!(c.budget_spent(1e9, 0, 1, 0, 3), 1.0);
}
