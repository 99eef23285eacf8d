//! The error type of `bitext-lexical`.

/// Errors of the lexical models and scorers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file problem (names the file, the line or byte offset, and the reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// A tokenizer that cannot be built or fails on a sentence.
    #[error(transparent)]
    Tokenize(#[from] bitext_tokenize::Error),
    /// Invalid parameters or input (an empty sentence, a corpus without pairs, …).
    #[error("{0}")]
    Invalid(String),
}

/// The result type of `bitext-lexical`.
pub type Result<T> = std::result::Result<T, Error>;

impl From<Error> for bitext_similarity::Error {
    fn from(e: Error) -> Self {
        bitext_similarity::Error::Backend(Box::new(e))
    }
}
