//! The error type of `bitext-eval`.

/// Errors of `bitext-eval`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A score is NaN or infinite.
    #[error("score {score} of item {index} is not a finite number")]
    NonFiniteScore {
        /// 0-based position in the input list.
        index: usize,
        /// The offending value.
        score: f64,
    },
    /// The same pair occurs twice in a list that must hold each pair once.
    #[error("pair {pair} occurs twice in the {what} (items {first} and {second}, 0-based)")]
    DuplicatePair {
        /// Which list.
        what: &'static str,
        /// The pair, formatted.
        pair: String,
        /// First position.
        first: usize,
        /// Second position.
        second: usize,
    },
    /// Inputs that must agree in size or content do not.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A pair scorer failed.
    #[error(transparent)]
    Scorer(#[from] bitext_similarity::Error),
    /// A file could not be read (see the core error for file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
