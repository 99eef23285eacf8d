//! The error type of `bitext-similarity`.

/// Errors of similarity measures and pair scorers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// A kNN problem (e.g. malformed neighbour lists).
    #[error(transparent)]
    Knn(#[from] bitext_knn::Error),
    /// A pair index outside the corpora the scorer was built on.
    #[error(
        "pair {index} = ({src}, {tgt}) is out of range: {n_src} source and {n_tgt} target items"
    )]
    PairOutOfRange {
        /// Position of the pair in the batch.
        index: usize,
        /// Its source index.
        src: usize,
        /// Its target index.
        tgt: usize,
        /// Source items the scorer holds.
        n_src: usize,
        /// Target items the scorer holds.
        n_tgt: usize,
    },
    /// Invalid parameters or inputs.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// An error of a scorer implemented in another crate (EMD, a neural classifier, …).
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
