//! The error type of `bitext-knn`.

/// Errors of kNN indexes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// Vectors of the wrong dimension.
    #[error("dimension mismatch: the index holds {index}-dimensional vectors, got {got}")]
    Dimension {
        /// The index's dimension.
        index: usize,
        /// The dimension given.
        got: usize,
    },
    /// More neighbours asked for than the index holds.
    #[error("k = {k} is larger than the {len} vectors in the index")]
    KTooLarge {
        /// Neighbours asked for.
        k: usize,
        /// Vectors in the index.
        len: usize,
    },
    /// Invalid parameters or inputs.
    #[error("invalid input: {0}")]
    Invalid(String),
    /// An error of a backend (e.g. faiss).
    #[error("{backend}: {message}")]
    Backend {
        /// Which backend.
        backend: &'static str,
        /// What it said.
        message: String,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
