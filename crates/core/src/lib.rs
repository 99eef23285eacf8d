//! Core types of bitext, shared by every other crate.
//!
//! - [`Embeddings`] / [`EmbeddingsView`] / [`MappedEmbeddings`]: row-major `f32` matrices of
//!   sentence or word embeddings — owned, borrowed (zero-copy row blocks) and memory-mapped
//!   (raw or `.npy`).
//! - [`HalfView`] / [`MappedHalf`]: binary16 rows (LASER's `--fp16` files), widened to `f32` a
//!   row or a block at a time (with F16C where the CPU has it), never as a whole matrix;
//!   [`MappedBytes`]: a whole file mapped, for formats that lay out their own aligned arrays
//!   (e.g. saved quantised copies of a kNN index).
//! - [`normalize_row`] / [`unit_scale`]: the one L2 normalisation of the workspace, and its
//!   factor, kept so that rows read later are scaled bit for bit alike.
//! - [`io`]: the file formats of the field (LASER raw embeddings, `.npy`, BUCC sentence and gold
//!   files, line-parallel text, mined-pair and bicleaner TSV, fastText `.vec`), read streaming
//!   and written through one writer ([`io::output`]: a regular file atomically, a device,
//!   FIFO or socket in place, a link followed); [`io::LineReader`] (`each_line`, the one loop
//!   of the line-based readers, and `fields`); [`io::checksum`], the integrity check of saved
//!   quantised copies and of sharded mining's completion records; [`io::proto`], the protobuf
//!   wire format read and written by hand (sentencepiece models, ONNX graphs);
//!   [`io::writer::EmbeddingsWriter`], raw or `.npy` embedding files written block by block
//!   (the one writer: `write_raw` and `write_npy` go through it, and `bitext embed` streams
//!   into it).
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
mod rows;
pub mod tune;

pub use embeddings::{Blocks, Embeddings, EmbeddingsView, normalize_row, unit_scale};
pub use error::{Error, Location, Result};
pub use half_view::HalfView;
pub use mmap::{MappedBytes, MappedEmbeddings, MappedHalf, MappedRows};
pub use rng::Rng;
pub use rows::{Element, RowsView};
