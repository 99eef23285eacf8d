//! The [`TransportSolver`] trait, through which the exact network simplex and the entropic
//! Sinkhorn solver are used interchangeably, and [`SolverSpec`], which picks one from a config.

use crate::error::{Error, Result};
use crate::problem::{Problem, Transport};
use crate::simplex::{NetworkSimplex, SimplexParams};
use crate::sinkhorn::{Sinkhorn, SinkhornParams};

/// Builder-style setters of a solver's parameter struct: `params.field(value)`, one per named
/// field.
macro_rules! setters {
    ($ty:ident { $($field:ident: $t:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("Set [`", stringify!($ty), "::", stringify!($field), "`].")]
                #[must_use]
                pub fn $field(mut self, v: $t) -> Self {
                    self.$field = v;
                    self
                }
            )*
        }
    };
}
pub(crate) use setters;

/// The checks every solver's parameters share: an iteration cap of at least 1 and a mass
/// tolerance in `[0, 0.1]`.
pub(crate) fn check_common(max_iterations: usize, mass_tolerance: f64) -> Result<()> {
    if max_iterations == 0 {
        return Err(Error::Param("max_iterations must be at least 1".into()));
    }
    if !(0.0..=0.1).contains(&mass_tolerance) {
        return Err(Error::Param(format!(
            "mass_tolerance must be in [0, 0.1], got {mass_tolerance}"
        )));
    }
    Ok(())
}

/// Solves transport problems. Solvers keep scratch buffers between calls (hence `&mut self`):
/// give each thread its own (e.g. with [`SolverSpec::build`] in rayon's `map_init`).
pub trait TransportSolver: Send {
    /// Solve `problem`: the cost and the sparse plan.
    ///
    /// # Errors
    /// Bad costs, unbalanced masses for a balanced problem, no convergence within the
    /// iteration cap, or a numerical failure.
    fn solve(&mut self, problem: &Problem<'_>) -> Result<Transport>;

    /// Only the optimal cost (may skip building the plan).
    ///
    /// # Errors
    /// As [`TransportSolver::solve`].
    fn solve_cost(&mut self, problem: &Problem<'_>) -> Result<f64> {
        Ok(self.solve(problem)?.cost)
    }

    /// A short name for reports.
    fn name(&self) -> &'static str;
}

impl<T: TransportSolver + ?Sized> TransportSolver for Box<T> {
    fn solve(&mut self, problem: &Problem<'_>) -> Result<Transport> {
        (**self).solve(problem)
    }
    fn solve_cost(&mut self, problem: &Problem<'_>) -> Result<f64> {
        (**self).solve_cost(problem)
    }
    fn name(&self) -> &'static str {
        (**self).name()
    }
}

/// Which solver, with its parameters, as read from a config file or a flag:
/// `{"type": "network_simplex", "tolerance": 1e-12}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum SolverSpec {
    /// The exact network simplex.
    NetworkSimplex(SimplexParams),
    /// Entropic Sinkhorn (approximate).
    Sinkhorn(SinkhornParams),
}

impl Default for SolverSpec {
    fn default() -> Self {
        SolverSpec::NetworkSimplex(SimplexParams::default())
    }
}

impl SolverSpec {
    /// Check the parameters and build the solver.
    ///
    /// # Errors
    /// [`crate::Error::Param`] for invalid parameters.
    pub fn build(&self) -> Result<Box<dyn TransportSolver>> {
        Ok(match self {
            SolverSpec::NetworkSimplex(p) => Box::new(p.check()?) as Box<dyn TransportSolver>,
            SolverSpec::Sinkhorn(p) => Box::new(p.check()?),
        })
    }

    /// Whether the solver is exact.
    #[must_use]
    pub fn is_exact(&self) -> bool {
        matches!(self, SolverSpec::NetworkSimplex(_))
    }
}

impl From<&NetworkSimplex> for SolverSpec {
    fn from(s: &NetworkSimplex) -> Self {
        SolverSpec::NetworkSimplex(*s.params())
    }
}

impl From<&Sinkhorn> for SolverSpec {
    fn from(s: &Sinkhorn) -> Self {
        SolverSpec::Sinkhorn(*s.params())
    }
}
