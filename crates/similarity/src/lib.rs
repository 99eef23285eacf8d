//! Similarity of sentence pairs, and the [`PairScorer`] trait through which every scorer
//! (cosine, margin, MLP, classifiers, EMD) plugs into the miner.
//!
//! - [`measure`]: dot product, cosine, negative Euclidean distance (Kim et al. 2019, eq. 13–14)
//!   and [`EmbeddingScorer`], a [`PairScorer`] over two embedding matrices. The dot product is
//!   [`bitext_knn::dot`], so a pair scores bit for bit what the exact kNN search found;
//!   [`Cosines`], the cosines of an encoder's vectors, a zero row scoring [`UNENCODABLE`].
//! - [`margin`]: margin-based scoring (Artetxe & Schwenk 2019; LASER's `absolute`, `distance`,
//!   `ratio`) and CSLS (Kim et al. eq. 16–18) over the mean similarity of the `k` nearest
//!   neighbours in each direction, reusing the similarities of the kNN search
//!   ([`bitext_knn::Neighbors`]); [`MarginSpec`] picks one from a config.
//!
//! ```
//! use bitext_knn::Neighbors;
//! use bitext_similarity::{Margin, MarginFunction, MarginSpec};
//! # fn main() -> bitext_similarity::Result<()> {
//! // One source sentence, two targets, k = 2 on both sides.
//! let fwd = Neighbors::new(2, vec![0, 1], vec![0.9, 0.5])?;
//! let bwd = Neighbors::new(1, vec![0, 0], vec![0.9, 0.5])?;
//! let spec = MarginSpec::with_k(MarginFunction::Ratio, 2, 1);
//! let m = Margin::from_neighbors(&spec, &fwd, &bwd)?;
//! // ratio(x0, y0) = 0.9 / ((0.7 + 0.9) / 2) = 1.125
//! assert!((m.forward_scores(&fwd)?[0] - 1.125).abs() < 1e-6);
//! # Ok(())
//! # }
//! ```

mod encoded;
mod error;
pub mod margin;
pub mod measure;
mod scorer;

pub use encoded::{Cosines, UNENCODABLE};
pub use error::{Error, Result};
pub use margin::{
    Margin, MarginFunction, MarginScorer, MarginSpec, Neighborhood, neighbourhood_means,
};
pub use measure::{EmbeddingScorer, Measure, cosine, dot, neg_euclidean};
pub use scorer::PairScorer;
