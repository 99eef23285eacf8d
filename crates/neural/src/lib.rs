//! Neural sentence encoders and pair scorers for bitext, on [burn](https://burn.dev): the
//! only crate of bitext that depends on burn.
//!
//! - Infrastructure shared by every model: [`backend`] (the CPU backend by default, wgpu behind
//!   a feature, thread control), [`batch`] (packed, length-bucketed batches under a token
//!   budget), [`rnn`] (padding-correct GRU/LSTM layers, bidirectional), [`layers`] (embedding,
//!   dense, seeded dropout, the logistic loss) and [`train`] (the training loop: Adam/SGD,
//!   global-norm clipping, learning-rate schedules, validation, early stopping, checkpoints,
//!   resumption, progress).
//! - [`siamese`]: the siamese BiGRU classifier of Grégoire & Langlais (2018).
//! - [`autoencoder`]: the shared-decoder autoencoder of Kim et al. (2019): two BiRNN encoders,
//!   max-pooled sentence vectors, one decoder trained on translation and autoencoding.
//! - [`pretrained`]: embedding tables initialised from bilingual word or subword vectors
//!   (`.vec`), with coverage reports and a PCA projection to a smaller width.
//! - [`text`]: the tokenizers saved with a model, word vocabularies built from training text.
//! - [`mlp`]: the MLP similarity of Kim et al. (2019) over any sentence embeddings.
//! - [`spec`]: encoders and scorers from their specs (`bitext_encode::EncoderSpec`, the
//!   `ModelSpec` of a scorer spec): [`spec::build_encoder`] builds every encoder variant,
//!   [`spec::NeuralModel`] loads a model directory as an encoder or a scorer.
//!
//! ```
//! use bitext_encode::Side;
//! use bitext_neural::siamese::{Siamese, SiameseConfig};
//! use burn::tensor::Device;
//! # fn main() -> bitext_neural::Result<()> {
//! let config = SiameseConfig { emb_dim: 8, hidden: 6, ff: 4, ..SiameseConfig::paper(20, 30) };
//! let model = Siamese::new(&config, 7, &Device::flex())?;
//! // Two source sentences as token ids: vectors of 2 × 6 values each.
//! let v = model.encode(&[&[1, 2, 3], &[4]], Side::Source, None)?;
//! assert_eq!(v.dims(), [2, 12]);
//! # Ok(())
//! # }
//! ```

pub mod aligner;
pub mod autoencoder;
pub mod backend;
pub mod batch;
mod encoding;
mod error;
mod init;
pub mod layers;
pub mod mlp;
pub mod pretrained;
pub mod rnn;
pub mod siamese;
pub mod spec;
pub mod text;
pub mod train;

pub use error::{Error, Result};
