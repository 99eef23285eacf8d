//! Optimisers, learning-rate schedules and global-norm gradient clipping.
//!
//! Clipping: burn's `GradientClippingConfig::Norm` rescales **each parameter's** gradient to
//! the given norm separately. Grégoire & Langlais (and PyTorch's `clip_grad_norm_`, which the
//! speed reference uses) clip the **global** norm: all gradients together, scaled by one factor
//! `min(1, max_norm / ‖g‖₂)`, which keeps the update's direction. [`clip_global_norm`] does the
//! latter; burn's per-parameter clipping is not used.

use burn::module::{Module, ModuleVisitor, Param, ParamId};
use burn::optim::{AdamConfig, GradientsParams, SgdConfig, momentum::MomentumConfig};
use burn::tensor::Tensor;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Which optimiser (serialised as `{"type": "adam", ...}`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
#[non_exhaustive]
pub enum OptimizerSpec {
    /// Adam (Kingma & Ba).
    Adam {
        /// Learning rate.
        lr: f64,
        /// First-moment decay.
        #[serde(default = "beta1")]
        beta1: f32,
        /// Second-moment decay.
        #[serde(default = "beta2")]
        beta2: f32,
        /// Denominator epsilon.
        #[serde(default = "eps")]
        epsilon: f32,
    },
    /// Stochastic gradient descent, with optional momentum.
    Sgd {
        /// Learning rate.
        lr: f64,
        /// Momentum (0 = plain SGD).
        #[serde(default)]
        momentum: f64,
    },
}

fn beta1() -> f32 {
    0.9
}
fn beta2() -> f32 {
    0.999
}
fn eps() -> f32 {
    1e-8
}

impl OptimizerSpec {
    /// Adam with the usual moments and the given learning rate.
    #[must_use]
    pub fn adam(lr: f64) -> Self {
        Self::Adam {
            lr,
            beta1: beta1(),
            beta2: beta2(),
            epsilon: eps(),
        }
    }

    /// The base learning rate.
    #[must_use]
    pub fn lr(&self) -> f64 {
        match *self {
            Self::Adam { lr, .. } | Self::Sgd { lr, .. } => lr,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] for a non-positive learning rate or moments outside `[0, 1)`.
    pub fn check(&self) -> Result<()> {
        let ok = match *self {
            Self::Adam {
                lr,
                beta1,
                beta2,
                epsilon,
            } => {
                lr > 0.0
                    && lr.is_finite()
                    && (0.0..1.0).contains(&beta1)
                    && (0.0..1.0).contains(&beta2)
                    && epsilon > 0.0
            }
            Self::Sgd { lr, momentum } => {
                lr > 0.0 && lr.is_finite() && (0.0..1.0).contains(&momentum)
            }
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Config(format!("invalid optimizer {self:?}")))
        }
    }

    /// burn's optimiser (no clipping: see [`clip_global_norm`]).
    pub(crate) fn build(&self) -> burn::optim::ModuleOptimizer {
        match *self {
            Self::Adam {
                beta1,
                beta2,
                epsilon,
                ..
            } => AdamConfig::new()
                .with_beta_1(beta1)
                .with_beta_2(beta2)
                .with_epsilon(epsilon)
                .init(),
            Self::Sgd { momentum, .. } => {
                let mut c = SgdConfig::new();
                if momentum > 0.0 {
                    c = c.with_momentum(Some(MomentumConfig::new().with_momentum(momentum)));
                }
                c.init()
            }
        }
    }
}

/// How the learning rate evolves (a factor on the optimiser's base rate).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum LrSchedule {
    /// The base rate throughout.
    #[default]
    Constant,
    /// After `start` updates, multiply by `factor` every `every` updates (Kim et al.: start
    /// 100k, every 50k, factor 0.9).
    StepDecay {
        /// Updates before the first decay.
        start: usize,
        /// Updates between decays.
        every: usize,
        /// Multiplier per decay, in `(0, 1]`.
        factor: f64,
    },
    /// Multiply by `factor` whenever an epoch's validation loss does not improve on the best.
    Plateau {
        /// Multiplier per epoch without improvement, in `(0, 1]`.
        factor: f64,
    },
    /// Linear warm-up over `warmup` updates, then constant.
    Warmup {
        /// Updates of warm-up.
        warmup: usize,
    },
    /// Decay linearly from the base rate to zero over the run's budget: whichever of its time
    /// limit, step limit and epochs it is nearest to the end of (the schedule Li, Yumer &
    /// Ramanan 2020 found best when training stops at a budget; a resumed run decays again
    /// over its own budget).
    Linear,
}

impl LrSchedule {
    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] for a factor outside `(0, 1]` or a zero period.
    pub fn check(&self) -> Result<()> {
        let ok = match *self {
            Self::Constant => true,
            Self::StepDecay { every, factor, .. } => every > 0 && factor > 0.0 && factor <= 1.0,
            Self::Plateau { factor } => factor > 0.0 && factor <= 1.0,
            Self::Warmup { warmup } => warmup > 0,
            Self::Linear => true,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Config(format!(
                "invalid learning-rate schedule {self:?}"
            )))
        }
    }

    /// The factor for update number `step` (0-based), given the plateau factor accumulated so
    /// far (`plateau_scale`, 1 unless the schedule is [`LrSchedule::Plateau`]) and the share of
    /// the run's budget spent before this update (`spent`, in `[0, 1]`; only
    /// [`LrSchedule::Linear`] reads it).
    #[must_use]
    pub fn factor(&self, step: usize, plateau_scale: f64, spent: f64) -> f64 {
        match *self {
            Self::Constant => 1.0,
            Self::StepDecay {
                start,
                every,
                factor,
            } => {
                if step < start {
                    1.0
                } else {
                    factor.powi(((step - start) / every + 1) as i32)
                }
            }
            Self::Plateau { .. } => plateau_scale,
            Self::Warmup { warmup } => ((step + 1) as f64 / warmup as f64).min(1.0),
            Self::Linear => (1.0 - spent).clamp(0.0, 1.0),
        }
    }
}

/// Visits every float parameter, collecting its gradient's squared norm or rescaling it.
struct GradVisitor<'a> {
    grads: &'a mut GradientsParams,
    squares: Vec<Tensor<1>>,
    scale: Option<f32>,
    missing: Vec<ParamId>,
}

impl ModuleVisitor for GradVisitor<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        match self.scale {
            None => match self.grads.get::<D>(param.id) {
                Some(g) => self.squares.push((g.clone() * g).sum().reshape([1])),
                None => self.missing.push(param.id),
            },
            Some(s) => {
                if let Some(g) = self.grads.remove::<D>(param.id) {
                    self.grads.register(param.id, g * s);
                }
            }
        }
    }
}

/// The global L2 norm of all gradients of `model`, and the number of its float parameters that
/// received no gradient.
///
/// # Errors
/// [`Error::Input`] when the norm cannot be read back.
pub fn grad_norm<M: Module>(model: &M, grads: &mut GradientsParams) -> Result<(f64, usize)> {
    let mut v = GradVisitor {
        grads,
        squares: Vec::new(),
        scale: None,
        missing: Vec::new(),
    };
    model.visit(&mut v);
    let missing = v.missing.len();
    if v.squares.is_empty() {
        return Ok((0.0, missing));
    }
    let total = Tensor::cat(v.squares, 0).sum();
    let sq = crate::init::to_host1(total)?[0];
    Ok((f64::from(sq).sqrt(), missing))
}

/// Rescale all gradients of `model` together so that their global L2 norm is at most
/// `max_norm`; returns the norm before clipping.
///
/// # Errors
/// As [`grad_norm`].
pub fn clip_global_norm<M: Module>(
    model: &M,
    grads: &mut GradientsParams,
    max_norm: f64,
) -> Result<f64> {
    let (norm, _) = grad_norm(model, grads)?;
    if norm.is_finite() && norm > max_norm {
        let mut v = GradVisitor {
            grads,
            squares: Vec::new(),
            scale: Some((max_norm / (norm + 1e-6)) as f32),
            missing: Vec::new(),
        };
        model.visit(&mut v);
    }
    Ok(norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_by_hand() {
        let s = LrSchedule::StepDecay {
            start: 10,
            every: 5,
            factor: 0.5,
        };
        assert_eq!(s.factor(9, 1.0, 0.0), 1.0);
        assert_eq!(s.factor(10, 1.0, 0.0), 0.5);
        assert_eq!(s.factor(14, 1.0, 0.0), 0.5);
        assert_eq!(s.factor(15, 1.0, 0.0), 0.25);
        assert_eq!(LrSchedule::Warmup { warmup: 4 }.factor(1, 1.0, 0.0), 0.5);
        assert_eq!(LrSchedule::Warmup { warmup: 4 }.factor(9, 1.0, 0.0), 1.0);
        assert_eq!(
            LrSchedule::Plateau { factor: 0.5 }.factor(3, 0.25, 0.0),
            0.25
        );
        assert!(LrSchedule::Plateau { factor: 1.5 }.check().is_err());
        // Linear: the share of the budget left, never below zero or above one.
        assert_eq!(LrSchedule::Linear.factor(7, 1.0, 0.0), 1.0);
        assert_eq!(LrSchedule::Linear.factor(7, 1.0, 0.25), 0.75);
        assert_eq!(LrSchedule::Linear.factor(7, 1.0, 1.5), 0.0);
        assert_eq!(LrSchedule::Linear.factor(7, 0.5, -1.0), 1.0);
        assert!(OptimizerSpec::adam(0.0).check().is_err());
        assert!(OptimizerSpec::adam(1e-3).check().is_ok());
    }

    #[test]
    fn specs_are_tagged() {
        let j = serde_json::to_string(&OptimizerSpec::adam(2e-4)).unwrap();
        assert!(j.starts_with(r#"{"type":"adam","lr":0.0002"#), "{j}");
        let s: OptimizerSpec = serde_json::from_str(r#"{"type":"sgd","lr":1.0}"#).unwrap();
        assert_eq!(
            s,
            OptimizerSpec::Sgd {
                lr: 1.0,
                momentum: 0.0
            }
        );
    }
}
