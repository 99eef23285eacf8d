//! The error type of `bitext-clean`.

/// Errors of the cleaning steps.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A threshold or setting out of range, named.
    #[error("{0}")]
    Invalid(String),
}

/// The result type of `bitext-clean`.
pub type Result<T> = std::result::Result<T, Error>;
