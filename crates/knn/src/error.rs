//! The error type of `bitext-knn`.

/// Errors of kNN indexes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// Bad vectors (NaN, ±∞, a norm too large), naming the input and the row.
    #[error("{what}: {source}")]
    Input {
        /// Which input (e.g. "query vectors").
        what: &'static str,
        /// Where and what.
        #[source]
        source: bitext_core::Error,
    },
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
    /// A backend or format this build does not include (e.g. faiss without the `faiss`
    /// feature); the message says how to get it.
    #[error("{0}")]
    Unsupported(String),
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
