//! The error type of `bitext-neural`.

use std::path::PathBuf;

/// Errors of neural models, their training and their checkpoints.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or matrix problem (names the file, line and reason).
    #[error(transparent)]
    Core(#[from] bitext_core::Error),
    /// An invalid configuration value (names the field and why).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// An input the model cannot take: an empty sentence, a token id outside the vocabulary,
    /// mismatched sizes.
    #[error("invalid input: {0}")]
    Input(String),
    /// The requested backend was not compiled in (names the cargo feature to turn on).
    #[error("backend {backend} is not available: build bitext-neural with the `{feature}` feature")]
    BackendUnavailable {
        /// The backend asked for.
        backend: &'static str,
        /// The cargo feature that provides it.
        feature: &'static str,
    },
    /// The backend is compiled in but cannot run here (wgpu without a usable GPU adapter).
    #[error(
        "backend {backend} cannot run on this machine: {reason} (use --backend flex, the CPU \
         backend)"
    )]
    BackendUnusable {
        /// The backend asked for.
        backend: &'static str,
        /// Why, in the backend's words.
        reason: String,
    },
    /// A checkpoint directory or weight file that cannot be read or does not fit the model.
    #[error("{}: {reason}", path.display())]
    Checkpoint {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong, in words.
        reason: String,
    },
    /// Training produced a non-finite loss (names the epoch and step).
    #[error("training diverged at epoch {epoch}, step {step}: loss is {loss}")]
    Diverged {
        /// 1-based epoch.
        epoch: usize,
        /// 1-based step within the epoch.
        step: usize,
        /// The loss value.
        loss: f64,
    },
    /// An error of a tokenizer or vocabulary (names the file and line where there is one).
    #[error(transparent)]
    Tokenize(#[from] bitext_tokenize::Error),
    /// An error of another sentence encoder used by a model (e.g. the one that re-ranks
    /// divergence fixes).
    #[error(transparent)]
    Encoder(#[from] bitext_encode::Error),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// [`Error::Input`] unless the two sides of pairs have as many sentences (`src`, `tgt`).
    ///
    /// # Errors
    /// [`Error::Input`] naming both counts.
    pub(crate) fn check_sides(src: usize, tgt: usize) -> Result<()> {
        if src == tgt {
            return Ok(());
        }
        Err(Error::Input(format!(
            "{src} source but {tgt} target sentences"
        )))
    }

    /// A checkpoint error on `path`.
    pub fn checkpoint(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Error::Checkpoint {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

impl From<Error> for bitext_encode::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Core(c) => bitext_encode::Error::Core(c),
            Error::Input(s) => bitext_encode::Error::Invalid(s),
            Error::Encoder(e) => e,
            other => bitext_encode::Error::Backend(Box::new(other)),
        }
    }
}

impl From<Error> for bitext_similarity::Error {
    fn from(e: Error) -> Self {
        match e {
            Error::Core(c) => bitext_similarity::Error::Core(c),
            Error::Input(s) => bitext_similarity::Error::Invalid(s),
            other => bitext_similarity::Error::Backend(Box::new(other)),
        }
    }
}
