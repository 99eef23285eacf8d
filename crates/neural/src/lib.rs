//! Neural sentence encoders and pair scorers for bitext, on [burn](https://burn.dev): the
//! only crate of bitext that depends on burn.
//!
//! - Infrastructure shared by every model: [`backend`] (the Flex CPU backend by default, wgpu
//!   behind a feature, thread control, and `backend::tune_allocator`), [`batch`] (packed,
//!   length-bucketed batches under a token budget), [`rnn`] (padding-correct GRU/LSTM layers,
//!   bidirectional, with deferred input-projection gradients; CPU inference runs the recurrence
//!   on the host, `rnn/host.rs`: reused buffers, one `gemm` per step, vectorised cells in
//!   `rnn/cell.rs`, the two directions on two threads; other devices run it as tensor
//!   operations), [`layers`] (embedding, dense, seeded dropout, the logistic loss, `Bag`),
//!   [`ngrams`] (n-gram convolutions over a packed batch, max-pooled per sentence) and
//!   [`train`] (the training loop `Task` + `fit`: Adam/SGD, global-norm clipping, learning-rate
//!   schedules, validation, early stopping, checkpoints, resumption, progress; `train::split`:
//!   sub-graphs cut off a loss, `Cut` and `parallel_stage`, back-propagated on their own
//!   threads, as the aligner's two encoders are and the siamese network's batch pieces, each
//!   on a replica of fresh leaves, `fresh_leaves`).
//! - `host.rs` (private): what inference on the host shares: the `gemm` product and `IdMemo`,
//!   rows computed once per embedding-table id and kept across batches (the recurrence's input
//!   projection, the n-gram convolutions' products).
//! - [`encoder`]: [`encoder::EncoderConfig`], the settings of the sentence encoder the
//!   recurrent families share (tables, cell, hidden size, bag of words, n-gram convolutions),
//!   embedded in each family's network configuration, with its check and the initialisers of
//!   its parts.
//! - `encoding.rs` (private): what every recurrent encoder shares: the id check, the deferred
//!   gradient stage of an embedding + BiRNN pass, the bag of words added to pooled states with
//!   its gradient stage (`with_bag`, `bag_weights`), the in-batch ranking loss
//!   (`in_batch_ranking`), encoding in length-sorted batches, a head over pairs of vector rows.
//! - [`siamese`]: the siamese BiGRU classifier of Grégoire & Langlais (2018), a
//!   `SentenceEncoder` and a `PairScorer`. Beside the paper's network and loss: max pooling, a
//!   bag of words in the sentence vector (`layers::Bag`: the IDF-weighted mean of the input
//!   vectors plus a zero-initialised projection of the pooled states, so that training starts
//!   at the bag of words), n-gram convolutions beside the recurrence (`EncoderConfig::ngrams`)
//!   and the in-batch ranking objective `siamese::Objective::Ranking`, with the matching head
//!   trained on hard in-batch negatives.
//! - [`autoencoder`]: the shared-decoder autoencoder of Kim et al. (2019): two BiRNN encoders
//!   with their own tables, the max-pooled sentence vector `s0` starting one decoder
//!   (`RnnLayer::forward_from_deferred`), translation and autoencoding 1:1 in every batch, full
//!   or sampled softmax. Beside the paper: each encoder's bag of words in `s0` and an auxiliary
//!   ranking term (`RankingTerm`). `AutoencoderEncoder` is a `SentenceEncoder`; its pairs score
//!   the cosine through `spec::CosineScorer`.
//! - [`aligner`]: the word-alignment BiLSTM (divergence detection): a table and a BiLSTM per
//!   language, the alignment matrix `S = H_src·H_tgtᵀ` of each pair with masked log-sum-exp
//!   aggregation per word, the word loss and the `semb` head. `synth.rs` makes seeded paired /
//!   unpaired / replace / insert examples with word labels, word classes standing in for POS
//!   tags, and links from any word aligner passed in (the CLI and xtask pass bitext-lexical's
//!   IBM-1, which this crate cannot depend on); `fix.rs` fixes divergences, the N best span
//!   pairs in O(I·J²). `AlignerModel` is a `SentenceEncoder` with per-word scores, the `wemb`
//!   (`spec::CosineScorer`) and `semb` (`SembScorer`) scorers, and fixing of text.
//! - [`distill`]: training a student from a teacher encoder's sentence vectors (Reimers &
//!   Gurevych 2020; LASER3): the [`distill::Teacher`] rows a job is given, the cosine-distance
//!   loss, spans of the training text for the teacher to label (`distill::spans`);
//!   [`distill::Distilled`], the one `with_teacher` of every family's training task (the
//!   siamese network and the autoencoder take a teacher beside or instead of their own loss,
//!   the aligner beside it).
//! - [`pretrained`]: embedding tables initialised from bilingual word or subword vectors
//!   (`.vec`) through the model's tokenizer, with a coverage report, seeded draws at the
//!   table's scale for the rest, a PCA projection to a smaller width, frozen or trained.
//! - [`text`]: the tokenizers saved with a model (`TextCodec`; sentencepiece models decode HTML
//!   entities first), word vocabularies built from training text, and the one text training of
//!   the families (crate-private `text/driver.rs`: tokenize → initialise → teacher → fit → save,
//!   each family's job a `TextFamily`; [`text::TextTraining::run`] runs any family's job and
//!   returns a [`text::Trained`]).
//! - [`mlp`]: the MLP similarity of Kim et al. (2019), a `PairScorer` over the vectors of any
//!   `spec::ModelEncoder`.
//! - [`spec`]: [`spec::NeuralModel`] loads the model directory a `bitext_encode::ModelSpec`
//!   names as an encoder or a scorer (`bitext::build` calls it for `model:DIR` specs).
//!
//! `backend::tune_allocator` makes glibc reuse freed large blocks instead of returning them:
//! neural training runs about 20% faster, and the process keeps its peak memory until it exits.
//! The `bitext` commands that train or run a neural model, `cargo xtask` and the `speed`
//! example call it first; a program using the library decides for itself.
//!
//! ```
//! use bitext_encode::Side;
//! use bitext_neural::siamese::{Siamese, SiameseConfig};
//! use burn::tensor::Device;
//! # fn main() -> bitext_neural::Result<()> {
//! let mut config = SiameseConfig { ff: 4, ..SiameseConfig::paper(20, 30) };
//! // The encoder's settings (`EncoderConfig`) read and set as the network's own.
//! (config.emb_dim, config.hidden) = (8, 6);
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
pub mod distill;
pub mod encoder;
mod encoding;
mod error;
mod host;
mod init;
pub mod layers;
pub mod mlp;
pub mod ngrams;
pub mod pretrained;
pub mod rnn;
pub mod siamese;
pub mod spec;
pub mod text;
pub mod train;

pub use error::{Error, Result};
