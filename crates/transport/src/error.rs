//! The error type of `bitext-transport`.

/// Errors of transport problems, solvers, word translation and sentence distances.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// Sizes that do not fit together (weights vs. cost matrix, embedding dimensions).
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A weight that is negative, NaN or infinite.
    #[error("{side} weight {index} is {value}: weights must be finite and non-negative")]
    BadWeight {
        /// `"source"` or `"target"`.
        side: &'static str,
        /// Position of the weight.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A cost that is NaN or infinite.
    #[error("cost ({row}, {col}) is {value}: costs must be finite")]
    BadCost {
        /// Row of the cost matrix.
        row: usize,
        /// Column of the cost matrix.
        col: usize,
        /// The offending value.
        value: f64,
    },
    /// A side whose weights are all zero: there is nothing to transport.
    #[error("all {side} weights are zero: there is no mass to transport")]
    ZeroMass {
        /// `"source"` or `"target"`.
        side: &'static str,
    },
    /// A balanced problem whose two sides carry different mass.
    #[error(
        "the source mass {source_mass} and the target mass {target_mass} differ by more than the \
         relative tolerance {tolerance} (use the partial form to transport the smaller mass)"
    )]
    Unbalanced {
        /// Total source weight.
        source_mass: f64,
        /// Total target weight.
        target_mass: f64,
        /// Relative tolerance that was exceeded.
        tolerance: f64,
    },
    /// The solver stopped at its iteration cap before proving optimality.
    #[error("{solver} stopped after {iterations} iterations without converging (raise the cap)")]
    NotConverged {
        /// Which solver.
        solver: &'static str,
        /// Iterations performed.
        iterations: usize,
    },
    /// A numerical failure (overflow, loss of feasibility beyond the tolerance).
    #[error("numerical failure in {solver}: {reason}")]
    Numerical {
        /// Which solver.
        solver: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// A parameter outside its valid range.
    #[error("invalid parameter: {0}")]
    Param(String),
    /// Invalid input data (an empty sentence, an unknown word policy violation, …).
    #[error("invalid input: {0}")]
    Invalid(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
