//! k-nearest-neighbour search over embeddings: the [`KnnIndex`] trait, the [`Neighbors`] it
//! returns, and its backends.
//!
//! | backend | what | feature |
//! |---|---|---|
//! | [`ExactIndex`] | exact brute force: blocked micro-kernels (AVX-512, AVX2, aarch64 NEON, portable; chosen at run time) with the top-k fused in, multi-threaded; `f32`, or bf16 / int8 scans with a certified `f32` re-rank; owned, zero-copy over a memory map, or over binary16 rows | default |
//! | `FaissIndex` | any faiss `index_factory` string (`Flat`, `IVF1024,Flat`, `IVF4096,PQ64`, `OPQ64,IVF4096,PQ64`, `HNSW32,Flat`), trained, searched with `nprobe` / `efSearch`, saved and loaded | `faiss` |
//!
//! Margin mining searches both ways ([`BidirectionalSearch`]): [`OnePass`] computes both
//! directions from one pass over the similarity tiles of the exact backend; [`TwoIndexes`]
//! searches an index over each side built by any [`IndexFactory`] (faiss); an [`IndexSpec`]
//! picks one of the two.
//!
//! Where things are in the exact backend (the module docs say more):
//!
//! - Kernels: AVX-512, AVX2, aarch64 NEON and portable, chosen at run time or forced by
//!   [`ExactParams::kernel`], all bit-identical ([`dot`]: the sequential fused multiply-add
//!   product every score is). Rayon runs query blocks (and database splits); [`ExactParams`]
//!   holds the thread count.
//! - `exact/topk.rs`: the one top-k of the crate, fused into every scan: sorted lists up to 32,
//!   reservoirs compacted by quickselect beyond (the candidates of reduced-precision scans).
//! - `exact/rows.rs`: the one row source of the scans, the re-rank and the fallbacks: `f32`
//!   rows, or binary16 rows ([`ExactIndex::over_half`], [`ExactIndex::from_half`]) widened a
//!   block of 128 rows or one candidate at a time and normalised with kept factors, never as a
//!   whole matrix.
//! - `exact/quant/`: [`Precision`] bf16 / int8 copies of the distinct rows with per-vector
//!   norms, scanned by `VDPBF16PS` / `VPDPBUSD` (AVX-512), AVX-VNNI, AVX2 `VPMADDUBSW`, aarch64
//!   `SDOT` or portable kernels on the same top-k, then re-ranked in `f32` with a per-query
//!   proof ([`Certification`] counts the outcomes). An explicit bf16 / int8 without a kernel
//!   faster than `f32` runs `f32` and says why.
//! - [`auto`]: `Precision::Auto`, the default, by measurement: every exact path of the CPU
//!   timed on a sample of the search, cached per CPU, flags, dimension, metric and threads
//!   (`~/.cache/bitext/auto-precision.json`), `f32` on near-ties.
//! - `exact/quant/file.rs` and `exact/copies.rs`: the quantised copy saved
//!   ([`ExactIndex::save_quantized`]) and memory-mapped back
//!   ([`ExactIndex::with_quantized_file`]), checked by checksum and by a fingerprint of the
//!   source vectors.
//! - [`Neighbors::merge`]: lists of one batch over disjoint id ranges (e.g. database shards)
//!   merged in the exact search's order, the one merge of sharded mining. [`Neighbors`] holds
//!   ids and scores per query: `f32` kNN results, `f64` scored candidates.
//!
//! [`IndexSpec`] picks a backend from a config (`{"type":"exact","metric":"inner_product"}`,
//! `{"type":"faiss","factory":"IVF1024,Flat","nprobe":8}`) or a CLI string (`exact`,
//! `IVF1024,Flat`); [`load_index`] loads any saved index.
//!
//! Scores: inner products, best (largest) first; or squared Euclidean distances, best
//! (smallest) first. Ids are row indices in the order vectors were added.
//!
//! # Saved exact indexes
//!
//! [`KnnIndex::save`] on an [`ExactIndex`] writes (atomically) a small self-describing header
//! and then the vectors as raw little-endian `f32`, so that numpy reads them in one call:
//!
//! ```text
//! offset 0    8 bytes  magic \x93BTXKNN\x01 (0x93 'B' 'T' 'X' 'K' 'N' 'N' 0x01)
//! offset 8    4 bytes  H, the header length, u32 little-endian
//! offset 12   H bytes  UTF-8 JSON, padded with spaces (and a final newline) so that 12 + H is
//!                      a multiple of 64:
//!                      {"format":"bitext-knn-exact","version":1,"metric":"inner_product",
//!                       "dim":1024,"len":100000,"dtype":"<f4"}
//! offset 12+H          len × dim little-endian f32, row-major; row i is id i
//! ```
//!
//! In Python: `h = json.loads(raw[12:12 + H])` and
//! `np.fromfile(path, "<f4", offset=12 + H).reshape(h["len"], h["dim"])`. A faiss index is saved
//! in faiss's own format (`faiss.read_index` reads it).
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

mod both;
mod check;
mod error;
mod exact;
#[cfg(feature = "faiss")]
mod faiss_index;
mod index;
mod spec;

pub use both::{
    BidirectionalSearch, IndexFactory, NeighborPair, OnePass, Progress, Stage, TwoIndexes,
    check_pair,
};
pub use error::{Error, Result};
pub use exact::auto;
pub use exact::{
    Certification, CertifiedNeighbors, ExactIndex, ExactParams, Kernel, Precision, Resolved, dot,
};
#[cfg(feature = "faiss")]
pub use faiss_index::FaissIndex;
pub use index::{KnnIndex, Metric, Neighbors, Score};
pub use spec::{IndexSpec, load_index};
