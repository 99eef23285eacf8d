//! The error type of `bitext-tokenize`.

/// Errors of tokenizers and vocabularies.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file problem: the file could not be read or written, or its content is malformed
    /// (names the file, the line and the reason, e.g. `vocab.txt:17: duplicate token "der"`).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// A parameter or an argument is out of its valid range.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A token id outside the vocabulary.
    #[error("token id {id} is outside the vocabulary (size {vocab_size})")]
    UnknownId {
        /// The id.
        id: u32,
        /// The vocabulary size.
        vocab_size: usize,
    },
    /// Encoding one text of a batch failed.
    #[error("text {index} of the batch: {source}")]
    Item {
        /// 0-based index of the text in the batch.
        index: usize,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
    /// The sentencepiece library (C++) failed: it rejected a model or a training run, or could
    /// not encode or decode; the message is its own.
    #[error("sentencepiece: {0}")]
    Sentencepiece(String),
    /// A tokenizer that needs a feature this build of bitext-tokenize lacks.
    #[error("{what} needs the `{feature}` feature of bitext-tokenize, which this build lacks")]
    MissingFeature {
        /// What was asked for.
        what: String,
        /// The cargo feature.
        feature: &'static str,
    },
    /// An error of a tokenizer implemented in another crate.
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
