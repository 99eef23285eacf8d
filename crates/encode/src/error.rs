//! The error type of `bitext-encode`.

/// Errors of sentence encoders.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// A tokenizer error (a subword model that cannot be read, text it cannot encode).
    #[error(transparent)]
    Tokenize(#[from] bitext_tokenize::Error),
    /// An input the encoder cannot encode (empty sentence, wrong side, …).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A sentence none of whose words is in the vocabulary of its side: it has no embedding.
    #[error("{side} sentence {index} has no word in the {side} vocabulary: {sentence:?}")]
    NoKnownWord {
        /// The side.
        side: crate::Side,
        /// Its position (0-based) among the sentences encoded.
        index: usize,
        /// The sentence.
        sentence: String,
    },
    /// A sentence with no token at all (an empty line, a line of markup its tokenizer drops):
    /// an encoder that reads token ids has nothing to encode (see [`crate::NoKnownWord`]).
    #[error("{side} sentence {index} has no token: {sentence:?}")]
    NoToken {
        /// The side.
        side: crate::Side,
        /// Its position (0-based) among the sentences encoded.
        index: usize,
        /// The sentence.
        sentence: String,
    },
    /// An error of an encoder implemented in another crate (e.g. a neural backend).
    #[error(transparent)]
    Backend(Box<dyn std::error::Error + Send + Sync>),
}

impl Error {
    /// The same error with its sentence position shifted by `offset`: what a batch starting at
    /// sentence `offset` reports, renumbered among all the sentences encoded.
    #[must_use]
    pub fn shifted(self, offset: usize) -> Self {
        self.renumbered(|i| i + offset)
    }

    /// The same error with its sentence position `i` made `at(i)`: what a batch of sentences
    /// taken out of input order reports, renumbered among all the sentences encoded.
    #[must_use]
    pub fn renumbered(mut self, at: impl FnOnce(usize) -> usize) -> Self {
        if let Error::NoKnownWord { index, .. } | Error::NoToken { index, .. } = &mut self {
            *index = at(*index);
        }
        self
    }

    /// The position (0-based, among the sentences encoded) of the sentence this error is
    /// about, when it is about one ([`Error::NoKnownWord`], [`Error::NoToken`]).
    #[must_use]
    pub fn sentence_index(&self) -> Option<usize> {
        match self {
            Error::NoKnownWord { index, .. } | Error::NoToken { index, .. } => Some(*index),
            _ => None,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
