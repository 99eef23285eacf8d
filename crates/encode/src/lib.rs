//! Sentence encoders: the [`SentenceEncoder`] trait (a batch of sentences →
//! [`bitext_core::Embeddings`]) and encoders that need no neural network. Neural encoders
//! (`bitext-neural`) implement the same trait, so miners and the CLI take any of them.
//!
//! - [`BowEncoder`]: the (optionally TF-IDF weighted, [`Idf`]) mean of bilingual word
//!   embeddings read from one `.vec` file per language, with an explicit out-of-vocabulary
//!   policy (see [`bow`]).
//! - [`EncoderSpec`]: which encoder to build, from a config file or a CLI flag (serde, tagged by
//!   `"type"`): `bow` is built here, `model` (a neural model directory) by `bitext-neural`.
//! - [`NoKnownWord`]: what every kind does with a sentence it has nothing to encode of (no
//!   known word, no token at all), spelt `"no_known_word": "error" | "zero"` in every spec;
//!   [`NoKnownWord::encode_ids`] applies it for the encoders that read token ids.
//!
//! ```
//! use bitext_core::Embeddings;
//! use bitext_core::io::vec::WordVectors;
//! use bitext_encode::{BowEncoder, SentenceEncoder, Side};
//! # fn main() -> bitext_encode::Result<()> {
//! let words = |w: [&str; 2]| w.map(String::from).to_vec();
//! let rows = Embeddings::from_rows([[1.0, 0.0], [0.0, 1.0]], 2)?;
//! let de = WordVectors::new(words(["haus", "katze"]), rows.clone())?;
//! let en = WordVectors::new(words(["house", "cat"]), rows)?;
//! let enc = BowEncoder::builder(de, en).build()?;
//! let x = enc.encode(Side::Source, &["Das Haus ."])?;
//! let y = enc.encode(Side::Target, &["The house ."])?;
//! assert_eq!(x.row(0), y.row(0));
//! # Ok(())
//! # }
//! ```

pub mod bow;
mod encoder;
mod error;
mod idf;
mod onnx_spec;
mod spec;

pub use bow::{BowEncoder, BowEncoderBuilder, Coverage, NoKnownWord, Weighting};
pub use encoder::{SentenceEncoder, Side};
pub use error::{Error, Result};
pub use idf::Idf;
pub use onnx_spec::{BatchOrder, OnnxSpec, Pooling};
pub use spec::{Backend, BowSpec, EncoderSpec, ModelSpec};
