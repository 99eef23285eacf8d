//! The error type of `bitext-mine`.

/// Errors of mining and filtering.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// A kNN search failed (dimension mismatch, k larger than the index, a backend error).
    #[error(transparent)]
    Knn(#[from] bitext_knn::Error),
    /// Scoring failed.
    #[error(transparent)]
    Similarity(#[from] bitext_similarity::Error),
    /// An Earth Mover's Distance scorer failed (vectors, IDF, solver).
    #[error(transparent)]
    Transport(#[from] bitext_transport::Error),
    /// A lexical scorer failed (IBM-1 model files, an empty sentence).
    #[error(transparent)]
    Lexical(#[from] bitext_lexical::Error),
    /// Invalid parameters or inputs.
    #[error("invalid input: {0}")]
    Invalid(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
