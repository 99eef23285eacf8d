//! k-nearest-neighbour search over embeddings: the [`KnnIndex`] trait, the [`Neighbors`] it
//! returns, and its backends.
//!
//! | backend | what | feature |
//! |---|---|---|
//! | [`ExactIndex`] | exact brute force: blocked matrix products (AVX-512 / AVX2 / portable kernels chosen at run time) with the top-k selection fused in, multi-threaded (rayon); owns its vectors or borrows them zero-copy (e.g. from a memory map) | default |
//! | `FaissIndex` | any faiss `index_factory` string (`Flat`, `IVF1024,Flat`, `IVF4096,PQ64`, `OPQ64,IVF4096,PQ64`, `HNSW32,Flat`), trained, searched with `nprobe` / `efSearch`, saved and loaded | `faiss` |
//!
//! [`IndexSpec`] picks a backend from a config (`{"type":"exact","metric":"inner_product"}`,
//! `{"type":"faiss","factory":"IVF1024,Flat","nprobe":8}`) or a CLI string (`exact`,
//! `IVF1024,Flat`); [`load_index`] loads any saved index.
//!
//! Scores: inner products, best (largest) first; or squared Euclidean distances, best
//! (smallest) first. Ids are row indices in the order vectors were added.
//!
//! ```
//! use bitext_core::Embeddings;
//! use bitext_knn::{IndexSpec, KnnIndex, Metric};
//! # fn main() -> bitext_knn::Result<()> {
//! let tgt = Embeddings::from_rows([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]], 2)?;
//! let src = Embeddings::from_rows([[0.6, 0.8], [1.0, 0.0]], 2)?;
//! let spec: IndexSpec = "exact".parse()?;
//! let index = spec.build_over(tgt.view())?; // borrows tgt: no copy
//! let nn = index.search(src.view(), 2)?;
//! assert_eq!(nn.ids(0), &[1, 2]);
//! assert!((nn.scores(0)[0] - 0.96).abs() < 1e-6);
//! assert_eq!(nn.ids(1), &[0, 1]);
//! # Ok(())
//! # }
//! ```

mod check;
mod error;
mod exact;
#[cfg(feature = "faiss")]
mod faiss_index;
mod index;
mod spec;

pub use error::{Error, Result};
pub use exact::{ExactIndex, ExactParams, Kernel, dot};
#[cfg(feature = "faiss")]
pub use faiss_index::FaissIndex;
pub use index::{KnnIndex, Metric, Neighbors};
pub use spec::{IndexSpec, load_index};
