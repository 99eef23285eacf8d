//! Errors of sharded mining: each names the file, step or input at fault.

use std::path::PathBuf;

/// Result of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (inputs, plan, step outputs).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// The kNN search.
    #[error(transparent)]
    Knn(#[from] bitext_knn::Error),
    /// Margins, retrieval.
    #[error(transparent)]
    Mine(#[from] bitext_mine::Error),
    /// Encoders (embed steps).
    #[error(transparent)]
    Encode(#[from] bitext_encode::Error),
    /// Margin scores.
    #[error(transparent)]
    Similarity(#[from] bitext_similarity::Error),
    /// A bad request (shard count, unsupported index, unknown step).
    #[error("{0}")]
    Invalid(String),
    /// A step failed; the message names it and says why (the reason is in the message, not
    /// a separate source, so that a printed error chain says it once).
    #[error("step {step}: {reason}")]
    Step {
        /// The step's name.
        step: String,
        /// Why.
        reason: Box<Error>,
    },
    /// A work-directory file that is not what the plan says (corrupt, truncated, foreign).
    #[error("{}: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}
