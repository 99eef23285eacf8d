//! The siamese bidirectional-RNN classifier of Grégoire & Langlais (2018): a tied-weight
//! BiGRU encodes both sentences, `h = tanh(W1 (hS ⊙ hT) + W2 |hS − hT| + b)` and
//! `p = σ(W3 h + c)` estimate that they translate each other, trained with cross-entropy on
//! the parallel pairs and `m` random negatives per pair resampled every epoch.
//!
//! Departures from the paper, each a switch that is off by default:
//!
//! - **A bag of words in the sentence vector** ([`SiameseConfig::bag`](crate::encoder::EncoderConfig::bag)):
//!   `v = bag(x) + P·pool(h)`, `bag` the IDF-weighted mean of the sentence's input embeddings
//!   and `P` starting at zero. The paper's vector is the recurrent state alone, and a network
//!   trained for minutes on a CPU from bilingual word or subword vectors gives vectors that mine
//!   worse than the plain bag of those vectors (`docs/notes/evaluation-log.md`): the recurrent layer
//!   scrambles what the vectors already align. With the bag, training starts *at* the bag of
//!   words and can only move from there where the loss says so: the network learns a residual
//!   (what word order and context add), as residual connections do in deeper encoders.
//! - **A ranking objective** ([`Objective::Ranking`]): the classifier's loss never asks a
//!   sentence's vector to be nearer its translation than other sentences, which is what margin
//!   mining needs. The ranking loss does, with every other sentence of the batch as a negative
//!   (in-batch softmax with an additive margin, as the dual encoders of Yang et al. 2019 and
//!   LaBSE train). The matching head is trained beside it, so the classifier stays usable.
//! - **A teacher** ([`Distilled::with_teacher`](crate::distill::Distilled::with_teacher), [`crate::distill`]): both sentences of a
//!   pair pulled towards a pretrained encoder's vector of one of them, beside the loss or
//!   alone; with fixed input vectors, a trained linear map of the bag
//!   ([`SiameseConfig::bag_map`](crate::encoder::EncoderConfig::bag_map)) lets the bag itself move into the teacher's space.

mod config;
mod infer;
mod model;
mod pieces;
mod text;
mod train;

pub use crate::encoder::EncoderConfig;
pub use crate::train::checkpoint::Describe;
pub use config::{Objective, Pooling, SiameseConfig, SiameseTrainConfig};
pub use infer::SiameseScorer;
pub use model::Siamese;
pub use text::{
    SiameseDescription, SiameseEncoder, SiameseTextTraining, SiameseTrained, model_kind,
    split_indices,
};
pub use train::{Example, ParallelIds, SiameseTask, examples_with_negatives};
