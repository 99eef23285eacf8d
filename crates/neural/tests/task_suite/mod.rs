//! The [`Task`] conformance suite: [`task_suite!`](crate::task_suite) expands to one `#[test]`
//! per check below for one training task, made fresh (with its model, drawn from one seed) by
//! an expression, and trained by [`fit`] under a [`TrainConfig`] of at least two epochs.
//!
//! Checked, as `fit`'s docs promise for every task: the same seed and data give the same run
//! bit for bit (the last epoch's weights, the best epoch's weights, every epoch's losses,
//! gradient norms, learning rates and validations); a run stopped after its first epochs and
//! resumed from its checkpoint (`resume/`) ends as the uninterrupted run does, bit for bit;
//! resuming a finished run changes nothing; another seed gives another run.
//!
//! Instantiate it once per task, in `tests/task_conformance.rs`:
//!
//! ```ignore
//! task_suite!(siamese_classifier, || (task(), model()), train_config(3));
//! ```

#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use bitext_neural::train::{EpochReport, Fitted, Task, TrainConfig, checkpoint, fit};
use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::Tensor;

/// Expands to a module `$name` with one `#[test]` per check of [`crate::task_suite`]:
/// `$make` makes a fresh `(task, model)` (the same for every call), `$config` trains it (at
/// least two epochs).
#[macro_export]
macro_rules! task_suite {
    ($name:ident, $make:expr, $config:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn the_same_seed_gives_the_same_run() {
                $crate::task_suite::the_same_seed_gives_the_same_run($make, &$config);
            }

            #[test]
            fn a_resumed_run_ends_as_the_uninterrupted_one() {
                $crate::task_suite::a_resumed_run_ends_as_the_uninterrupted_one($make, &$config);
            }

            #[test]
            fn resuming_a_finished_run_changes_nothing() {
                $crate::task_suite::resuming_a_finished_run_changes_nothing($make, &$config);
            }

            #[test]
            fn another_seed_gives_another_run() {
                $crate::task_suite::another_seed_gives_another_run($make, &$config);
            }
        }
    };
}

/// Every float parameter of `m` as the bits of its values, in visiting order.
pub fn bits<M: Module>(m: &M) -> Vec<Vec<u32>> {
    struct V(Vec<Vec<u32>>);
    impl ModuleVisitor for V {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let v = p.val().into_data().try_into_vec::<f32>().unwrap();
            self.0.push(v.into_iter().map(f32::to_bits).collect());
        }
    }
    let mut v = V(Vec::new());
    m.visit(&mut v);
    v.0
}

/// What an epoch's report says that does not depend on the clock, with floats as bits.
fn report(r: &EpochReport) -> String {
    let valid = r.valid.as_ref().map(|v| {
        let metrics: Vec<String> = v
            .metrics
            .iter()
            .map(|(k, x)| format!("{k}={:x}", x.to_bits()))
            .collect();
        format!("loss={:x} {}", v.loss.to_bits(), metrics.join(" "))
    });
    format!(
        "epoch {} steps {} items {} loss {:x} norm {:x} lr {:x} valid {valid:?} truncated {}",
        r.epoch,
        r.steps,
        r.items,
        r.train_loss.to_bits(),
        r.grad_norm.to_bits(),
        r.lr.to_bits(),
        r.truncated
    )
}

/// A finished run in `dir`: its history, the best epoch, the bits of its best model (saved
/// beside its description) and of its last epoch's model (saved to resume from).
#[derive(Debug, PartialEq)]
struct Run {
    history: Vec<String>,
    best_epoch: usize,
    best: Vec<Vec<u32>>,
    last: Vec<Vec<u32>>,
}

fn run_of<T: Task>(fitted: &Fitted<T::Model>, fresh: T::Model, dir: &Path) -> Run {
    let load = |file: &str| {
        let m = checkpoint::load_weights(fresh.clone(), &dir.join(file)).unwrap();
        bits(&m)
    };
    let best = load(checkpoint::WEIGHTS_FILE);
    assert_eq!(best, bits(&fitted.model), "the best model is the one saved");
    assert!(
        dir.join(checkpoint::MODEL_FILE).exists(),
        "the task describes its model"
    );
    Run {
        history: fitted.state.history.iter().map(report).collect(),
        best_epoch: fitted.state.best_epoch,
        best,
        last: load(&format!(
            "{}/{}",
            checkpoint::RESUME_DIR,
            checkpoint::WEIGHTS_FILE
        )),
    }
}

/// Train a fresh task and model of `make` under `config` into `dir` (resuming a run there
/// when `resume`).
fn train<T: Task + Send>(
    make: &impl Fn() -> (T, T::Model),
    config: &TrainConfig,
    dir: &Path,
    resume: bool,
) -> Run {
    let (mut task, model) = make();
    let fitted = fit(&mut task, model, config, dir, resume).unwrap();
    assert_eq!(
        fitted.state.history.len(),
        config.epochs,
        "a run of {} epochs",
        config.epochs
    );
    run_of::<T>(&fitted, make().1, dir)
}

fn checked(config: &TrainConfig) -> TrainConfig {
    assert!(config.epochs >= 2, "the suite needs at least two epochs");
    assert!(
        config.patience.is_none() && config.max_steps.is_none(),
        "the suite's runs go to their last epoch"
    );
    config.clone()
}

/// Two runs of the same seed and data are the same bit for bit.
pub fn the_same_seed_gives_the_same_run<T: Task + Send>(
    make: impl Fn() -> (T, T::Model),
    config: &TrainConfig,
) {
    let config = checked(config);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = train(&make, &config, a.path(), false);
    assert_eq!(first, train(&make, &config, b.path(), false));
}

/// A run of `epochs − 1` epochs resumed for the last one ends with the weights, history and
/// best model of the run of `epochs` epochs, bit for bit.
pub fn a_resumed_run_ends_as_the_uninterrupted_one<T: Task + Send>(
    make: impl Fn() -> (T, T::Model),
    config: &TrainConfig,
) {
    let config = checked(config);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let straight = train(&make, &config, a.path(), false);
    let cut = TrainConfig {
        epochs: config.epochs - 1,
        ..config.clone()
    };
    let first = train(&make, &cut, b.path(), false);
    assert_eq!(first.history[..], straight.history[..cut.epochs]);
    assert_eq!(train(&make, &config, b.path(), true), straight);
}

/// Resuming a run that finished all its epochs trains nothing more.
pub fn resuming_a_finished_run_changes_nothing<T: Task + Send>(
    make: impl Fn() -> (T, T::Model),
    config: &TrainConfig,
) {
    let config = checked(config);
    let dir = tempfile::tempdir().unwrap();
    let done = train(&make, &config, dir.path(), false);
    assert_eq!(train(&make, &config, dir.path(), true), done);
}

/// The seed of the training (batches, negatives, dropout) matters: another one gives other
/// weights.
pub fn another_seed_gives_another_run<T: Task + Send>(
    make: impl Fn() -> (T, T::Model),
    config: &TrainConfig,
) {
    let config = checked(config);
    let other = TrainConfig {
        seed: config.seed ^ 0x5eed,
        ..config.clone()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (x, y) = (
        train(&make, &config, a.path(), false),
        train(&make, &other, b.path(), false),
    );
    assert_ne!(x.last, y.last);
}
