//! The MLP similarity of Kim et al. (2019, §3.3): `q(a, b) = σ(MLP([a; b]))` with ReLU hidden
//! layers, trained as a binary classifier on parallel pairs (positives) and random or
//! worst-scored pairs of a noisy corpus (negatives). It scores the embeddings of any
//! `SentenceEncoder` through the `PairScorer` interface ([`MlpScorer`]).

mod data;
mod model;
mod train;

pub use data::{PairSet, cosine_rows, random_negatives, worst_of_portion};
pub use model::{Mlp, MlpConfig};
pub use train::{MlpDescription, MlpScorer, MlpTask, load_mlp};
