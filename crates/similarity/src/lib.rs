//! Similarity of sentence pairs: the [`PairScorer`] trait through which every scorer (cosine,
//! margin, MLP, classifiers, EMD) plugs into the miner.
//!
//! Cosine, dot, negative Euclidean, CSLS and margin scoring over k nearest neighbours arrive with
//! the margin-mining issue.

mod error;
mod scorer;

pub use error::{Error, Result};
pub use scorer::PairScorer;
