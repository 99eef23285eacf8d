//! The shared-decoder autoencoder of Kim et al. (2019), §3: bilingual sentence embeddings
//! learnt by translation and autoencoding at once.
//!
//! - Two one-layer bidirectional RNN encoders, one per language, each with its own parameters
//!   and its own embedding table. A sentence's vector is `s0`, the element-wise maximum of its
//!   encoder's states over its positions (eq. 3; the packed batches hold no padding, so
//!   padding never takes part in a maximum).
//! - One unidirectional RNN decoder shared by both encoders, whose state starts at `s0` (so
//!   its size is the sentence vector's, `2·hidden`), with no attention: the decoder sees the
//!   input sentence only through `s0` (eq. 2). Its input embeddings have one more row than the
//!   decoded vocabulary (the start symbol) and its softmax one more class (the end of the
//!   sentence).
//! - The loss `−Σ_P log p(e|f) − Σ_M log p(e|e)` (eq. 7–8), averaged per decoded token: every
//!   mini-batch holds as many autoencoding examples (the decoded language's side of the pairs
//!   and any monolingual sentences, dealt out in turn) as translation examples.
//!   [`AutoencoderConfig::decoded`] = `Source` builds the reverse model (eq. 9–10).
//! - While training, the softmax over a large vocabulary can be sampled ([`Softmax`]);
//!   validation reports the full-softmax negative log-likelihood of each objective.
//!
//! [`AutoencoderEncoder`] is the trained model on text: a `SentenceEncoder` whose
//! `Side::Source` vectors come from the source encoder and `Side::Target` from the target one.

mod config;
mod model;
mod softmax;
mod text;
mod train;

pub use crate::encoder::EncoderConfig;
pub use config::{AutoencoderConfig, AutoencoderTrainConfig, RankingTerm, Softmax};
pub use model::{Autoencoder, AutoencoderLoss};
pub use softmax::candidates;
pub use text::{
    AutoencoderCounts, AutoencoderDescription, AutoencoderEncoder, AutoencoderTextTraining,
    AutoencoderTrained,
};
pub use train::{AutoRef, AutoencoderBatch, AutoencoderTask, deal_autoencoding};
