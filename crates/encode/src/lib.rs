//! Sentence encoders: the [`SentenceEncoder`] trait (a batch of sentences →
//! [`bitext_core::Embeddings`]) and encoders that need no neural network. Neural encoders
//! (`bitext-neural`) implement the same trait, so miners and the CLI take any of them.
//!
//! The bag-of-words encoder averaging bilingual word embeddings arrives with the margin-mining
//! issue.

mod encoder;
mod error;

pub use encoder::{SentenceEncoder, Side};
pub use error::{Error, Result};
