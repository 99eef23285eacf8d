//! k-nearest-neighbour search over embeddings: the [`KnnIndex`] trait and the [`Neighbors`] it
//! returns.
//!
//! The exact blocked-GEMM backend, the faiss backend (feature `faiss`) and the serde-tagged
//! index spec arrive with the margin-mining issue.

mod error;
mod index;

pub use error::{Error, Result};
pub use index::{KnnIndex, Metric, Neighbors};
