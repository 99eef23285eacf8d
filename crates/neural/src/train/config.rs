//! The settings of a training run ([`TrainConfig`]): the optimiser and its schedule, clipping,
//! early stopping, the seed, the budget (epochs, updates, seconds) and where it runs.

use serde::{Deserialize, Serialize};

use super::{LrSchedule, OptimizerSpec};
use crate::backend::{BackendSpec, Threads};
use crate::error::{Error, Result};

/// Training hyper-parameters shared by all models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// Most epochs.
    pub epochs: usize,
    /// Optimiser and base learning rate.
    pub optimizer: OptimizerSpec,
    /// Learning-rate schedule.
    #[serde(default)]
    pub schedule: LrSchedule,
    /// Clip the global L2 norm of all gradients to this (None: no clipping).
    pub clip_norm: Option<f64>,
    /// Stop after this many epochs without a better validation loss (None: never early).
    pub patience: Option<usize>,
    /// Seed of every random choice (batches, negatives, dropout, initialisation).
    pub seed: u64,
    /// Stop after this many updates in total (None: no limit).
    #[serde(default)]
    pub max_steps: Option<usize>,
    /// Stop after this many seconds of training (checked after each update; the epoch under
    /// way is then validated and saved, and a resumed run starts at the next epoch).
    #[serde(default)]
    pub time_limit_secs: Option<f64>,
    /// Backend.
    #[serde(default)]
    pub backend: BackendSpec,
    /// Worker threads (0 = all cores).
    #[serde(default)]
    pub threads: Threads,
    /// Draw a progress bar and per-epoch summaries on stderr.
    #[serde(default)]
    pub progress: bool,
}

impl TrainConfig {
    /// A configuration with Adam at `lr`, no clipping, no early stopping.
    #[must_use]
    pub fn new(epochs: usize, lr: f64, seed: u64) -> Self {
        Self {
            epochs,
            optimizer: OptimizerSpec::adam(lr),
            schedule: LrSchedule::Constant,
            clip_norm: None,
            patience: None,
            seed,
            max_steps: None,
            time_limit_secs: None,
            backend: BackendSpec::Flex,
            threads: Threads(0),
            progress: false,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        self.optimizer.check()?;
        self.schedule.check()?;
        if self.epochs == 0 {
            return Err(Error::Config("epochs must be at least 1".into()));
        }
        if self.clip_norm.is_some_and(|c| !(c > 0.0 && c.is_finite())) {
            return Err(Error::Config(format!(
                "clip_norm must be positive, got {:?}",
                self.clip_norm
            )));
        }
        if self.patience == Some(0) {
            return Err(Error::Config("patience must be at least 1".into()));
        }
        if self.max_steps == Some(0) {
            return Err(Error::Config("max_steps must be at least 1".into()));
        }
        if self.time_limit_secs.is_some_and(|t| t.is_nan() || t <= 0.0) {
            return Err(Error::Config("time_limit_secs must be positive".into()));
        }
        Ok(())
    }

    /// The share of the run's budget spent, in `[0, 1]`: the largest of the shares of the time
    /// limit (`seconds` of this run), of the step limit (`step` updates done) and of the epochs
    /// (`epoch`, 1-based, `batch` of its `batches` batches done). What
    /// [`LrSchedule::Linear`] decays by.
    #[must_use]
    pub fn budget_spent(
        &self,
        seconds: f64,
        step: usize,
        epoch: usize,
        batch: usize,
        batches: usize,
    ) -> f64 {
        let epochs = (epoch.saturating_sub(1) as f64 + batch as f64 / batches.max(1) as f64)
            / self.epochs as f64;
        let time = self.time_limit_secs.map_or(0.0, |t| seconds / t);
        let steps = self
            .max_steps
            .map_or(0.0, |m| step as f64 / m.max(1) as f64);
        epochs.max(time).max(steps).clamp(0.0, 1.0)
    }
}
