//! Tokenization for bitext: text in, token ids out.
//!
//! - [`Tokenizer`]: the trait every tokenizer implements (encode to ids and pieces, decode,
//!   batch encoding on all cores — [`set_parallelism`] or `BITEXT_PARALLELISM=false` turns
//!   that off), with [`TokenizerSpec`] to choose one from a config file.
//! - [`WordTokenizer`]: a Unicode-aware, deterministic word tokenizer for word-level methods
//!   (EMD sentence distance, IBM-1, word alignment, bag-of-words encoders): punctuation split
//!   off, numbers kept whole, HTML entities of Moses-tokenized corpora unescaped, optional
//!   lowercasing. Its rules are listed in [`word`].
//! - [`Vocab`]: token ↔ id with special tokens (pad, unk, bos, eos, language tags), built from
//!   [`TokenCounter`] counts by [`VocabBuilder`] (frequency cut-off, size limit), saved and
//!   loaded in a small text format ([`vocab::file`]).
//! - [`SequenceConfig`]: bos/eos and truncation to a maximum length.
//! - [`WordLevel`]: word tokenizer + vocabulary as a [`Tokenizer`].
//! - With the feature `sentencepiece` (off by default; builds SentencePiece's C++ with `cc`):
//!   `Sentencepiece`, real sentencepiece `.model` files as a [`Tokenizer`] (the same ids and
//!   pieces as `spm_encode`), and `SubwordTrainer`, joint unigram/BPE training for two
//!   languages from Rust, writing a `.model` (module `spm`).
//! - With the feature `tokenizer-json` (off by default; pure Rust): `HfTokenizer`, a Hugging
//!   Face `tokenizer.json` as a [`Tokenizer`] (module `hf`), for transformer encoders exported
//!   with one.
//!
//! ```
//! use bitext_tokenize::{SequenceConfig, TokenCounter, Tokenizer, VocabBuilder, WordLevel, WordTokenizer};
//! # fn main() -> bitext_tokenize::Result<()> {
//! let words = WordTokenizer::default();
//! assert_eq!(
//!     words.tokenize("Ich soll Miranda Kerr &quot; anziehen &quot; , sagte er am 13. November ."),
//!     ["Ich", "soll", "Miranda", "Kerr", "\"", "anziehen", "\"", ",", "sagte", "er", "am", "13.",
//!      "November", "."]
//! );
//!
//! let corpus = ["Der Hund bellt .", "Die Katze schläft .", "Der Hund schläft ."];
//! let counts = TokenCounter::from_texts(&words, &corpus);
//! let vocab = VocabBuilder::new().lang_tags(["de", "en"]).min_count(2).build(&counts)?;
//! let seq = SequenceConfig { add_bos: true, add_eos: true, max_len: Some(60) };
//! let tok = WordLevel::new(words, vocab, seq)?;
//! let ids = tok.encode_batch_ids(&["Der Hund schläft .", "Die Maus"])?;
//! assert_eq!(tok.decode(&ids[0])?, "Der Hund schläft .");
//! assert_eq!(tok.decode(&ids[1])?, "<unk> <unk>");
//! # Ok(())
//! # }
//! ```

mod error;
#[cfg(feature = "tokenizer-json")]
pub mod hf;
mod segment;
mod sequence;
mod spec;
#[cfg(feature = "sentencepiece")]
pub mod spm;
mod tokenizer;
pub mod vocab;
pub mod word;
mod word_level;

pub use error::{Error, Result};
#[cfg(feature = "tokenizer-json")]
pub use hf::HfTokenizer;
pub use segment::{HtmlUnescaped, Segment, Segmenter};
pub use sequence::SequenceConfig;
pub use spec::TokenizerSpec;
#[cfg(feature = "sentencepiece")]
pub use spm::{
    InputReport, ModelType, Normalization, Piece, PieceType, Sentencepiece, SubwordTrainer,
    TrainReport, TrainedModel,
};
pub use tokenizer::{Encoding, SpecialIds, Tokenizer, parallelism, set_parallelism};
pub use vocab::{Role, SpecialTokens, TokenCounter, Vocab, VocabBuilder, lang_tag};
pub use word::entities::unescape_html;
pub use word::{WordConfig, WordTokenizer, WordTokenizerBuilder};
pub use word_level::WordLevel;
