//! The error type of `bitext-encode`.

/// Errors of sentence encoders.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// An input the encoder cannot encode (empty sentence, wrong side, …).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// An error of an encoder implemented in another crate (e.g. a neural backend).
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
