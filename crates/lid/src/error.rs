//! The error type of `bitext-lid`.

/// Errors of language identifiers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A model file could not be read or is malformed: names the file, the byte offset and the
    /// reason (`lid.176.ftz (byte offset 0): not a fastText model (magic 1234, expected
    /// 793712314)`).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
