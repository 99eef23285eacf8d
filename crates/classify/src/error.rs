//! The error type of `bitext-classify`.

/// Errors of the pair classifier.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting, a feature list or an input out of range, named.
    #[error("{0}")]
    Invalid(String),
    /// A classifier directory that cannot be read: the file and why.
    #[error("{path}: {reason}")]
    Model {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A feature's scorer failed (a spec that does not load, a batch it cannot score).
    #[error("feature {feature}: {reason}")]
    Feature {
        /// The feature's name.
        feature: String,
        /// Why.
        reason: String,
    },
    /// Reading or writing a file.
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// The calibration of the classifier's output.
    #[error(transparent)]
    Eval(#[from] bitext_eval::Error),
    /// IBM Model 1 (training the default table, or loading one).
    #[error(transparent)]
    Lexical(#[from] bitext_lexical::Error),
    /// A scorer of pairs.
    #[error(transparent)]
    Similarity(#[from] bitext_similarity::Error),
    /// A rule setting.
    #[error(transparent)]
    Clean(#[from] bitext_clean::Error),
}

/// The result type of `bitext-classify`.
pub type Result<T> = std::result::Result<T, Error>;
