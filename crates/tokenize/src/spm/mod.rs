//! Sentencepiece models (feature `sentencepiece`): [`Sentencepiece`] loads a `.model` file and
//! encodes with the SentencePiece 0.2.1 C++ library (through the `sentencepiece` crate, which
//! vendors and builds it); [`SubwordTrainer`] trains a joint subword model for two (or more)
//! languages from Rust through the same library's trainer.
//!
//! Output is the same as Debian's `spm_encode` gives for the same model (checked by
//! `cargo xtask eval tokenize` on real text and models, and by the CLI tests).
//!
//! ```
//! use bitext_tokenize::{ModelType, Sentencepiece, SubwordTrainer, Tokenizer};
//! # fn main() -> bitext_tokenize::Result<()> {
//! let de: Vec<String> = (0..300).map(|i| format!("Der Hund {i} schläft im Haus.")).collect();
//! let en: Vec<String> = (0..300).map(|i| format!("The dog {i} sleeps in the house.")).collect();
//! let trained = SubwordTrainer::new()
//!     .model_type(ModelType::Bpe)
//!     .vocab_size(100)
//!     .lang_tags(["de", "en"])
//!     .train_corpora(&[("de", &de[..]), ("en", &en[..])])?;
//! let spm: &Sentencepiece = trained.tokenizer();
//! assert_eq!(spm.special_ids().pad, Some(0)); // <pad> <unk> <s> </s> <de> <en>, as in Vocab
//! assert_eq!(spm.lang_id("en"), Some(5));
//! let enc = spm.encode("Der Hund schläft.")?;
//! assert_eq!(enc.pieces.concat().replace('▁', " ").trim(), "Der Hund schläft.");
//! assert_eq!(spm.decode(&enc.ids)?, "Der Hund schläft.");
//! # Ok(())
//! # }
//! ```

mod ffi;
mod proto;
mod sample;
mod train;

use std::fmt;
use std::path::Path;

use bitext_core::io::AtomicFile;
use bitext_core::{Error as CoreError, Location};
use rustc_hash::FxHashMap;
use sentencepiece::SentencePieceProcessor;

use crate::error::{Error, Result};
use crate::sequence::SequenceConfig;
use crate::tokenizer::{Encoding, SpecialIds, Tokenizer};

pub use proto::{ModelType, Piece, PieceType};
pub use train::{InputReport, Normalization, SubwordTrainer, TrainReport, TrainedModel};

/// How errors name a model given as bytes rather than as a file.
const IN_MEMORY: &str = "<in-memory sentencepiece model>";

/// A sentencepiece model as a [`Tokenizer`].
///
/// [`Tokenizer::encode`] gives the ids and pieces `spm_encode --output_format=id|piece` gives,
/// then applies the [`SequenceConfig`] (language tag, bos/eos, truncation; none by default).
/// Pieces carry sentencepiece's `▁` for a space; an unknown character keeps its text with the
/// unknown id. [`Tokenizer::decode`] is sentencepiece's: pieces joined, `▁` turned back into
/// spaces, control symbols (`<s>`, `</s>`, `<pad>`) dropped, the unknown piece shown as ` ⁇ `.
///
/// Empty input (or input that normalizes to nothing, such as only whitespace) encodes to no
/// tokens, as with `spm_encode`, which writes an empty line for it; rejecting empty lines is
/// the caller's choice (the `bitext tokenize` CLI has `--empty error`).
///
/// Encoding is thread-safe; [`Tokenizer::encode_batch`] uses all cores.
pub struct Sentencepiece {
    processor: SentencePieceProcessor,
    model: proto::ModelProto,
    index: FxHashMap<String, u32>,
    bytes: Vec<u8>,
    specials: SpecialIds,
    sequence: SequenceConfig,
}

impl fmt::Debug for Sentencepiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sentencepiece")
            .field("pieces", &self.model.pieces.len())
            .field("model_type", &self.model.model_type)
            .field("normalizer", &self.model.normalizer)
            .field("specials", &self.specials)
            .field("sequence", &self.sequence)
            .finish_non_exhaustive()
    }
}

impl Sentencepiece {
    /// Load a `.model` file.
    ///
    /// # Errors
    /// [`Error::Core`] naming the file when it cannot be read, or is not a sentencepiece model
    /// (with the byte offset and the reason), or the library rejects it.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| CoreError::io(path, e))?;
        Self::load(bytes, path)
    }

    /// Load a model from the bytes of a `.model` file.
    ///
    /// # Errors
    /// As [`Sentencepiece::open`]; errors name the model `<in-memory sentencepiece model>`.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Result<Self> {
        Self::load(bytes.into(), Path::new(IN_MEMORY))
    }

    fn load(bytes: Vec<u8>, path: &Path) -> Result<Self> {
        let model = proto::parse(&bytes)
            .map_err(|e| CoreError::parse(path, Location::Byte(e.offset as u64), e.reason))?;
        let processor = SentencePieceProcessor::from_serialized_proto(&bytes).map_err(|e| {
            CoreError::parse(
                path,
                Location::File,
                format!("the sentencepiece library rejects the model ({e})"),
            )
        })?;
        if processor.len() != model.pieces.len() {
            return Err(CoreError::parse(
                path,
                Location::File,
                format!(
                    "the library reads {} pieces, bitext reads {}",
                    processor.len(),
                    model.pieces.len()
                ),
            )
            .into());
        }
        let mut index = FxHashMap::default();
        index.reserve(model.pieces.len());
        for (id, p) in model.pieces.iter().enumerate() {
            let id = u32::try_from(id)
                .map_err(|_| CoreError::parse(path, Location::File, "more than 2^32 pieces"))?;
            if index.insert(p.piece.clone(), id).is_some() {
                return Err(CoreError::parse(
                    path,
                    Location::File,
                    format!("piece {:?} occurs twice", p.piece),
                )
                .into());
            }
        }
        // The unknown piece as bitext reads it (exactly one, checked by the proto reader):
        // the library's `unk_id` asserts on models it failed to set up instead of saying so.
        let unk = model
            .pieces
            .iter()
            .position(|p| p.kind == PieceType::Unknown)
            .map(|i| i as u32);
        // A model the library accepted but cannot use fails here, not at the first sentence.
        if let Err(e) = processor.encode("a") {
            return Err(CoreError::parse(
                path,
                Location::File,
                format!("the sentencepiece library cannot use the model ({e})"),
            )
            .into());
        }
        let specials = SpecialIds {
            pad: processor.pad_id(),
            unk,
            bos: processor.bos_id(),
            eos: processor.eos_id(),
        };
        Ok(Self {
            processor,
            model,
            index,
            bytes,
            specials,
            sequence: SequenceConfig::default(),
        })
    }

    /// Frame encodings with a language tag, bos/eos and truncation.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `sequence` fails [`SequenceConfig::check`], or asks for
    /// bos/eos that the model lacks.
    pub fn with_sequence(mut self, sequence: SequenceConfig) -> Result<Self> {
        sequence.check()?;
        let mut probe = Vec::new();
        sequence.apply_ids(&mut probe, &self.specials, None)?;
        self.sequence = sequence;
        Ok(self)
    }

    /// The framing.
    #[must_use]
    pub fn sequence(&self) -> &SequenceConfig {
        &self.sequence
    }

    /// The piece table, indexed by id.
    #[must_use]
    pub fn pieces(&self) -> &[Piece] {
        &self.model.pieces
    }

    /// The piece of an id.
    #[must_use]
    pub fn id_to_piece(&self, id: u32) -> Option<&str> {
        self.model.pieces.get(id as usize).map(|p| p.piece.as_str())
    }

    /// The segmentation algorithm.
    #[must_use]
    pub fn model_type(&self) -> ModelType {
        self.model.model_type
    }

    /// The name of the normalization rule (`nmt_nfkc`, `identity`, …; empty when the model
    /// does not name one).
    #[must_use]
    pub fn normalizer(&self) -> &str {
        &self.model.normalizer
    }

    /// Whether unknown characters fall back to byte pieces (`<0xE4>`) instead of `<unk>`.
    #[must_use]
    pub fn byte_fallback(&self) -> bool {
        self.model.byte_fallback
    }

    /// The bytes of the `.model` file.
    #[must_use]
    pub fn to_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Write the `.model` file (atomically).
    ///
    /// # Errors
    /// [`Error::Core`] naming `path`.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        write_model(path.as_ref(), &self.bytes)
    }

    fn raw(&self, text: &str) -> Result<Vec<sentencepiece::PieceWithId>> {
        self.processor
            .encode(text)
            .map_err(|e| Error::Sentencepiece(format!("cannot encode {text:?}: {e}")))
    }

    fn lang(&self, lang: Option<&str>) -> Result<Option<u32>> {
        lang.map(|l| {
            self.lang_id(l).ok_or_else(|| {
                Error::InvalidArgument(format!("the model has no language tag <{l}>"))
            })
        })
        .transpose()
    }

    fn encode_opt(&self, text: &str, lang: Option<&str>) -> Result<Encoding> {
        let lang = self.lang(lang)?;
        let raw = self.raw(text)?;
        let mut enc = Encoding {
            ids: Vec::with_capacity(raw.len() + 3),
            pieces: Vec::with_capacity(raw.len() + 3),
        };
        for p in raw {
            enc.ids.push(p.id);
            enc.pieces.push(p.piece);
        }
        self.sequence.apply(&mut enc, &self.specials, lang, |id| {
            self.id_to_piece(id).unwrap_or_default().to_owned()
        })?;
        Ok(enc)
    }

    fn encode_ids_opt(&self, text: &str, lang: Option<&str>) -> Result<Vec<u32>> {
        let lang = self.lang(lang)?;
        let mut ids: Vec<u32> = self.raw(text)?.into_iter().map(|p| p.id).collect();
        self.sequence.apply_ids(&mut ids, &self.specials, lang)?;
        Ok(ids)
    }

    /// Turn pieces back into text (as `spm_decode --input_format=piece`): pieces outside the
    /// table (an unknown character that [`Tokenizer::encode`] kept as its text) are kept as
    /// they are.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a piece with a NUL byte; [`Error::Sentencepiece`] when
    /// the library fails.
    pub fn decode_pieces<S: AsRef<str>>(&self, pieces: &[S]) -> Result<String> {
        self.processor.decode_pieces(pieces).map_err(|e| match e {
            sentencepiece::SentencePieceError::PieceContainsNul => {
                Error::InvalidArgument("a piece contains a NUL byte".into())
            }
            e => Error::Sentencepiece(format!("cannot decode: {e}")),
        })
    }

    /// Encode `text` with the language tag of `lang` (`<de>`) first.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the model has no piece `<lang>`.
    pub fn encode_lang(&self, text: &str, lang: &str) -> Result<Encoding> {
        self.encode_opt(text, Some(lang))
    }

    /// Encode `text` to ids with the language tag of `lang` first.
    ///
    /// # Errors
    /// As [`Sentencepiece::encode_lang`].
    pub fn encode_ids_lang(&self, text: &str, lang: &str) -> Result<Vec<u32>> {
        self.encode_ids_opt(text, Some(lang))
    }
}

/// Write model bytes to `path` through [`AtomicFile`].
fn write_model(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write as _;
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| f.err(e))?;
    f.commit()?;
    Ok(())
}

impl Tokenizer for Sentencepiece {
    fn encode(&self, text: &str) -> Result<Encoding> {
        self.encode_opt(text, None)
    }

    fn encode_ids(&self, text: &str) -> Result<Vec<u32>> {
        self.encode_ids_opt(text, None)
    }

    fn decode(&self, ids: &[u32]) -> Result<String> {
        let vocab_size = self.vocab_size();
        if let Some(&id) = ids.iter().find(|&&id| id as usize >= vocab_size) {
            return Err(Error::UnknownId { id, vocab_size });
        }
        self.processor
            .decode_piece_ids(ids)
            .map_err(|e| Error::Sentencepiece(format!("cannot decode: {e}")))
    }

    fn vocab_size(&self) -> usize {
        self.model.pieces.len()
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.index.get(token).copied()
    }

    fn special_ids(&self) -> SpecialIds {
        self.specials
    }
}
