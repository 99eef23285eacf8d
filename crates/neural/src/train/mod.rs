//! The training loop shared by every model: a [`Task`] says what an epoch's batches are, how a
//! batch's loss is computed, how to validate and how to save the model's description; [`fit`]
//! does the rest — optimiser steps, global-norm gradient clipping, the learning-rate schedule,
//! validation after each epoch, early stopping, checkpoints and resumption, a progress bar with
//! loss and throughput — deterministically for a given seed.
//!
//! Determinism: epoch `e` draws its batches from `Rng::seed(seed).fork(2e)` and its dropout
//! masks from `fork(2e + 1)`, and parameters are drawn on the host, so a run is a function of
//! its seed and data, and a run resumed after epoch `e` continues exactly as the uninterrupted
//! run would have (same weights bit for bit, on the same backend and thread count).

pub mod checkpoint;
mod config;
mod optim;
pub mod split;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use bitext_core::Rng;
use burn::module::{Module, ParamId};
use burn::optim::GradientsParams;
use burn::tensor::{Gradients, Tensor};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};

pub use config::TrainConfig;
pub use optim::{LrSchedule, OptimizerSpec, clip_global_norm, grad_norm};

use crate::error::{Error, Result};
use checkpoint::{RESUME_DIR, WEIGHTS_FILE};

/// What a model's training needs to say; [`fit`] does the rest.
pub trait Task {
    /// The model (on an autodiff device while training).
    type Model: Module + 'static;
    /// One batch, as the task describes it (e.g. pair indices and labels).
    type Batch;

    /// The batches of epoch `epoch` (1-based), e.g. fresh negatives and a new shuffle, drawn
    /// from `rng`.
    ///
    /// # Errors
    /// When the data cannot be batched.
    fn epoch_batches(&mut self, epoch: usize, rng: &mut Rng) -> Result<Vec<Self::Batch>>;

    /// Items (pairs, sentences) in a batch, for throughput and the mean loss.
    fn batch_items(&self, batch: &Self::Batch) -> usize;

    /// The mean loss of a batch `[1]` (with any deferred gradient stages); dropout masks come
    /// from `rng`.
    ///
    /// # Errors
    /// When the batch does not fit the model.
    fn loss(&self, model: &Self::Model, batch: &Self::Batch, rng: &mut Rng) -> Result<TrainLoss>;

    /// `model` as it trains best on this machine, measured on the first `batch` a run trains
    /// on (e.g. how many pieces a batch is encoded in); unchanged by default. It must change
    /// the arithmetic at most by float rounding and draw nothing from the training's
    /// generators.
    ///
    /// # Errors
    /// When the measurement's batch does not fit the model.
    fn tuned(&self, model: Self::Model, batch: &Self::Batch) -> Result<Self::Model> {
        let _ = batch;
        Ok(model)
    }

    /// Validation of the inference copy of the model (`None` when the task has no held-out
    /// data; the last epoch's model is then kept).
    ///
    /// # Errors
    /// When validation fails.
    fn validate(&self, model: &Self::Model) -> Result<Option<Validation>>;

    /// Write the model's description (`model.json`, vocabularies) into `dir`; [`fit`] writes
    /// the weights beside it.
    ///
    /// # Errors
    /// I/O errors with the path.
    fn save_description(&self, model: &Self::Model, dir: &Path) -> Result<()>;

    /// What an item is, for the progress bar (`"pairs"`).
    fn unit(&self) -> &'static str {
        "items"
    }
}

/// The result of a validation: a loss (lower is better; it drives early stopping, the plateau
/// schedule and the choice of the best epoch) and other named metrics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    /// Held-out loss.
    pub loss: f64,
    /// Other metrics (accuracy, …).
    #[serde(default)]
    pub metrics: BTreeMap<String, f64>,
}

/// What happened in one epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EpochReport {
    /// 1-based epoch.
    pub epoch: usize,
    /// Updates in this epoch.
    pub steps: usize,
    /// Items trained on.
    pub items: usize,
    /// Mean training loss per item.
    pub train_loss: f64,
    /// Mean global gradient norm before clipping.
    pub grad_norm: f64,
    /// Learning rate of the epoch's last update.
    pub lr: f64,
    /// Validation after the epoch.
    pub valid: Option<Validation>,
    /// Wall-clock seconds of training (without validation).
    pub seconds: f64,
    /// Items per second of training.
    pub items_per_sec: f64,
    /// Whether the epoch stopped early (step or time limit).
    pub truncated: bool,
}

/// Trainer state saved after every epoch (`resume/trainer.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct TrainerState {
    /// Epochs finished.
    pub epochs_done: usize,
    /// Updates done.
    pub step: usize,
    /// Best validation loss so far.
    pub best_loss: Option<f64>,
    /// Epoch of the best validation loss (the model in the top directory).
    pub best_epoch: usize,
    /// Epochs since the best.
    pub bad_epochs: usize,
    /// Accumulated plateau factor.
    pub plateau_scale: f64,
    /// Why training stopped, when it did.
    pub stopped: Option<String>,
    /// One report per epoch.
    pub history: Vec<EpochReport>,
}

/// The outcome of [`fit`].
#[derive(Debug)]
pub struct Fitted<M> {
    /// The best model (lowest validation loss; the last one without validation data).
    pub model: M,
    /// Everything that happened.
    pub state: TrainerState,
    /// The directory the best model was saved to.
    pub dir: PathBuf,
}

#[derive(Serialize)]
struct TrainingDoc<'a> {
    config: &'a TrainConfig,
    state: &'a TrainerState,
}

/// A parameter's gradient computed outside burn's autodiff graph (on the inner device).
#[derive(Debug, Clone)]
pub enum ParamGrad {
    /// Of a vector parameter.
    Rank1(ParamId, Tensor<1>),
    /// Of a matrix parameter.
    Rank2(ParamId, Tensor<2>),
}

/// A gradient stage run after back-propagation: reads (and removes) the gradients of leaves it
/// created during the forward pass, returns the parameter gradients they imply.
pub type Deferred = Box<dyn FnOnce(&mut Gradients) -> Result<Vec<ParamGrad>> + Send>;

/// A training loss: the value to back-propagate and the deferred gradient stages of the forward
/// pass (see [`crate::rnn::BiRnn::forward_deferred`]).
pub struct TrainLoss {
    /// The mean loss, `[1]`, on an autodiff device.
    pub value: Tensor<1>,
    /// Stages to run after `value.backward()`.
    pub deferred: Vec<Deferred>,
}

impl std::fmt::Debug for TrainLoss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrainLoss")
            .field("deferred", &self.deferred.len())
            .finish_non_exhaustive()
    }
}

impl From<Tensor<1>> for TrainLoss {
    fn from(value: Tensor<1>) -> Self {
        Self {
            value,
            deferred: Vec::new(),
        }
    }
}

fn add_grad<const D: usize>(params: &mut GradientsParams, id: ParamId, g: Tensor<D>) {
    let g = match params.remove::<D>(id) {
        Some(old) => old + g,
        None => g,
    };
    params.register(id, g);
}

/// Back-propagate a loss through `model`: burn's gradients plus those of the deferred stages,
/// keyed by parameter.
///
/// # Errors
/// A deferred stage's error.
pub fn backward<M: Module>(model: &M, loss: TrainLoss) -> Result<GradientsParams> {
    let mut grads = loss.value.backward();
    let mut extra = Vec::new();
    for stage in loss.deferred {
        extra.extend(stage(&mut grads)?);
    }
    let mut params = GradientsParams::from_grads(grads, model);
    for g in extra {
        match g {
            ParamGrad::Rank1(id, t) => add_grad(&mut params, id, t),
            ParamGrad::Rank2(id, t) => add_grad(&mut params, id, t),
        }
    }
    Ok(params)
}

/// Every float parameter of `module` with its gradient in `grads` (empty where it has none),
/// in visiting order: for tests that compare gradients parameter by parameter.
#[cfg(test)]
pub(crate) fn grads_of<M: Module>(module: &M, grads: &GradientsParams) -> Vec<(ParamId, Vec<f32>)> {
    use burn::module::{ModuleVisitor, Param};
    struct V<'a>(&'a GradientsParams, Vec<(ParamId, Vec<f32>)>);
    impl ModuleVisitor for V<'_> {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let g = self.0.get::<D>(p.id).map_or_else(Vec::new, |g| {
                g.into_data().try_into_vec::<f32>().expect("f32 gradient")
            });
            self.1.push((p.id, g));
        }
    }
    let mut v = V(grads, Vec::new());
    module.visit(&mut v);
    v.1
}

/// One optimisation step at a time: back-propagation, global-norm clipping, the optimiser's
/// update. [`fit`] uses it; benchmarks and custom loops can too.
pub struct Updater {
    optim: burn::optim::ModuleOptimizer,
    clip_norm: Option<f64>,
}

impl std::fmt::Debug for Updater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Updater")
            .field("clip_norm", &self.clip_norm)
            .finish_non_exhaustive()
    }
}

impl Updater {
    /// An optimiser with fresh state.
    ///
    /// # Errors
    /// [`Error::Config`] for invalid parameters.
    pub fn new(optimizer: &OptimizerSpec, clip_norm: Option<f64>) -> Result<Self> {
        optimizer.check()?;
        if clip_norm.is_some_and(|c| !(c > 0.0 && c.is_finite())) {
            return Err(Error::Config(format!(
                "clip_norm must be positive, got {clip_norm:?}"
            )));
        }
        Ok(Self {
            optim: optimizer.build(),
            clip_norm,
        })
    }

    /// Back-propagate `loss` through `model`, clip, and update with learning rate `lr`.
    /// Returns the updated model and the global gradient norm before clipping.
    ///
    /// # Errors
    /// As [`backward`].
    pub fn step<M: Module>(&mut self, model: M, loss: TrainLoss, lr: f64) -> Result<(M, f64)> {
        let mut grads = backward(&model, loss)?;
        let norm = match self.clip_norm {
            Some(c) => clip_global_norm(&model, &mut grads, c)?,
            None => grad_norm(&model, &mut grads)?.0,
        };
        Ok((self.optim.step(lr, model, grads), norm))
    }
}

/// Train `model` (built on `config.backend`'s autodiff device) for `task`, saving the best
/// model to `out` (with the last epoch's state in `out/resume/`). With `resume`, an existing
/// `out/resume/` is loaded and training continues after its last finished epoch.
///
/// # Errors
/// [`Error::Config`]; [`Error::Diverged`] on a non-finite loss; the task's errors; I/O errors
/// with their paths.
pub fn fit<T: Task + Send>(
    task: &mut T,
    model: T::Model,
    config: &TrainConfig,
    out: &Path,
    resume: bool,
) -> Result<Fitted<T::Model>> {
    config.check()?;
    let resume_dir = out.join(RESUME_DIR);
    std::fs::create_dir_all(&resume_dir)
        .map_err(|e| Error::Core(bitext_core::Error::io(&resume_dir, e)))?;
    config.threads.install(|| {
        let mut model = model;
        let mut updater = Updater::new(&config.optimizer, config.clip_norm)?;
        let mut state = TrainerState {
            plateau_scale: 1.0,
            ..TrainerState::default()
        };
        let state_path = resume_dir.join("trainer.json");
        if resume && state_path.exists() {
            state = checkpoint::read_json(&state_path)?;
            // A resumed run goes on after a time or step limit (the limits count this run).
            state.stopped = None;
            model = checkpoint::load_weights(model, &resume_dir.join(WEIGHTS_FILE))?;
            updater.optim =
                checkpoint::load_optimizer(updater.optim, &resume_dir.join("optimizer.bpk"))?;
        }
        let mut best = (state.epochs_done > 0)
            .then(|| checkpoint::load_weights(model.clone(), &out.join(WEIGHTS_FILE)))
            .transpose()?;
        let base = Rng::seed(config.seed);
        let started = Instant::now();
        let base_lr = config.optimizer.lr();
        for epoch in state.epochs_done + 1..=config.epochs {
            let mut batch_rng = base.fork(2 * epoch as u64);
            let mut drop_rng = base.fork(2 * epoch as u64 + 1);
            let batches = task.epoch_batches(epoch, &mut batch_rng)?;
            let total: usize = batches.iter().map(|b| task.batch_items(b)).sum();
            let bar = progress_bar(config, epoch, total, task.unit());
            let t0 = Instant::now();
            let (mut items, mut loss_sum, mut norm_sum, mut steps) = (0usize, 0.0, 0.0, 0usize);
            let mut lr = base_lr;
            let mut stop: Option<String> = None;
            for (b, batch) in batches.iter().enumerate() {
                if b == 0 && epoch == state.epochs_done + 1 {
                    model = task.tuned(model, batch)?;
                }
                let n = task.batch_items(batch);
                let loss = task.loss(&model, batch, &mut drop_rng)?;
                let lv = f64::from(crate::init::to_host1(loss.value.clone())?[0]);
                if !lv.is_finite() {
                    return Err(Error::Diverged {
                        epoch,
                        step: steps + 1,
                        loss: lv,
                    });
                }
                let spent = config.budget_spent(
                    started.elapsed().as_secs_f64(),
                    state.step,
                    epoch,
                    b,
                    batches.len(),
                );
                lr = base_lr
                    * config
                        .schedule
                        .factor(state.step, state.plateau_scale, spent);
                let (m, norm) = updater.step(model, loss, lr)?;
                model = m;
                state.step += 1;
                steps += 1;
                items += n;
                loss_sum += lv * n as f64;
                norm_sum += norm;
                bar.inc(n as u64);
                bar.set_message(format!("loss {:.4} lr {lr:.2e}", loss_sum / items as f64));
                if config.max_steps.is_some_and(|m| state.step >= m) {
                    stop = Some(format!("reached max_steps = {}", state.step));
                } else if config
                    .time_limit_secs
                    .is_some_and(|t| started.elapsed().as_secs_f64() >= t)
                {
                    stop = Some(format!(
                        "reached the time limit after {:.0} s",
                        started.elapsed().as_secs_f64()
                    ));
                }
                if stop.is_some() {
                    break;
                }
            }
            bar.finish_and_clear();
            let seconds = t0.elapsed().as_secs_f64();
            let valid = task.validate(&model.valid())?;
            let report = EpochReport {
                epoch,
                steps,
                items,
                train_loss: loss_sum / items.max(1) as f64,
                grad_norm: norm_sum / steps.max(1) as f64,
                lr,
                valid: valid.clone(),
                seconds,
                items_per_sec: items as f64 / seconds.max(1e-9),
                truncated: stop.is_some(),
            };
            if config.progress {
                eprintln!("{}", summary(&report, config.epochs, task.unit()));
            }
            state.history.push(report);
            state.epochs_done = epoch;
            let improved = match (&valid, state.best_loss) {
                (None, _) => true,
                (Some(v), None) => v.loss.is_finite(),
                (Some(v), Some(b)) => v.loss < b,
            };
            if improved {
                state.best_loss = valid.as_ref().map(|v| v.loss);
                state.best_epoch = epoch;
                state.bad_epochs = 0;
                task.save_description(&model, out)?;
                checkpoint::save_weights(&model, &out.join(WEIGHTS_FILE))?;
                best = Some(model.clone());
            } else {
                state.bad_epochs += 1;
                if let LrSchedule::Plateau { factor } = config.schedule {
                    state.plateau_scale *= factor;
                }
            }
            if stop.is_none() && config.patience.is_some_and(|p| state.bad_epochs >= p) {
                stop = Some(format!(
                    "no better validation loss for {} epochs (best: epoch {})",
                    state.bad_epochs, state.best_epoch
                ));
            }
            state.stopped = stop.clone();
            checkpoint::save_weights(&model, &resume_dir.join(WEIGHTS_FILE))?;
            checkpoint::save_optimizer(&updater.optim, &resume_dir.join("optimizer.bpk"))?;
            checkpoint::write_json(&state_path, &state)?;
            checkpoint::write_json(
                &out.join("training.json"),
                &TrainingDoc {
                    config,
                    state: &state,
                },
            )?;
            if let Some(why) = stop {
                if config.progress {
                    eprintln!("stopping: {why}");
                }
                break;
            }
        }
        let model = best.unwrap_or(model);
        Ok(Fitted {
            model,
            state,
            dir: out.to_path_buf(),
        })
    })
}

fn progress_bar(config: &TrainConfig, epoch: usize, total: usize, unit: &str) -> ProgressBar {
    let target = if config.progress {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total as u64), target);
    let template = format!(
        "epoch {epoch}/{} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit} \
         {{per_sec}} (eta {{eta}}) {{msg}}",
        config.epochs
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

fn summary(r: &EpochReport, epochs: usize, unit: &str) -> String {
    let mut s = format!(
        "epoch {}/{epochs}: train loss {:.4}, grad norm {:.3}, {:.0} {unit}/s, {:.0} s",
        r.epoch, r.train_loss, r.grad_norm, r.items_per_sec, r.seconds
    );
    if let Some(v) = &r.valid {
        s.push_str(&format!(", valid loss {:.4}", v.loss));
        for (k, x) in &v.metrics {
            s.push_str(&format!(" {k} {x:.4}"));
        }
    }
    s
}
