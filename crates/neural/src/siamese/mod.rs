//! The siamese bidirectional-RNN classifier of Grégoire & Langlais (2018): a tied-weight
//! BiGRU encodes both sentences, `h = tanh(W1 (hS ⊙ hT) + W2 |hS − hT| + b)` and
//! `p = σ(W3 h + c)` estimate that they translate each other, trained with cross-entropy on
//! the parallel pairs and `m` random negatives per pair resampled every epoch.

mod config;
mod infer;
mod model;
mod text;
mod train;

pub use config::{SiameseConfig, SiameseTrainConfig};
pub use infer::SiameseScorer;
pub use model::Siamese;
pub use text::{
    SiameseDescription, SiameseEncoder, SiameseTextTraining, SiameseTrained, model_kind,
    split_indices, train_siamese,
};
pub use train::{Describe, Example, ParallelIds, SiameseTask, examples_with_negatives};
