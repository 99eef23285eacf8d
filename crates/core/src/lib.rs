//! Core types of bitext, shared by every other crate.
//!
//! - [`Embeddings`] / [`EmbeddingsView`] / [`MappedEmbeddings`]: row-major `f32` matrices of
//!   sentence or word embeddings — owned, borrowed (zero-copy row blocks) and memory-mapped.
//! - [`io`]: the file formats of the field (LASER raw embeddings, `.npy`, BUCC sentence and gold
//!   files, line-parallel text, mined-pair and bicleaner TSV, fastText `.vec`), read streaming
//!   and written atomically.
//! - [`Error`]: every failure names the file, the line (or byte offset) and the reason.
//! - [`Rng`]: a seeded generator so that every random choice in bitext is reproducible.
//!
//! ```
//! use bitext_core::{Embeddings, io::npy};
//! # fn main() -> bitext_core::Result<()> {
//! let mut e = Embeddings::from_rows([[3.0, 4.0], [1.0, 0.0]], 2)?;
//! e.normalize_l2();
//! assert!((e.row(0)[1] - 0.8).abs() < 1e-6);
//! let dir = std::env::temp_dir().join(format!("bitext-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! npy::write_npy(dir.join("e.npy"), e.view())?;
//! assert_eq!(npy::read_npy(dir.join("e.npy"))?, e);
//! # std::fs::remove_dir_all(dir).unwrap();
//! # Ok(())
//! # }
//! ```

mod embeddings;
mod error;
mod half_view;
pub mod io;
mod mmap;
mod rng;

pub use embeddings::{Blocks, Embeddings, EmbeddingsView, normalize_row, unit_scale};
pub use error::{Error, Location, Result};
pub use half_view::HalfView;
pub use mmap::{MappedBytes, MappedEmbeddings, MappedHalf};
pub use rng::Rng;
