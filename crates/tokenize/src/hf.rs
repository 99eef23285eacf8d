//! [`HfTokenizer`]: a Hugging Face `tokenizer.json` (the file `transformers` and
//! sentence-transformers export beside a model: normaliser, pre-tokeniser, WordPiece / BPE /
//! Unigram / WordLevel model, post-processor with the model's special tokens) as a
//! [`Tokenizer`], through the `tokenizers` crate (pure Rust; feature `tokenizer-json`).
//!
//! Encoding adds the special tokens the file's post-processor adds (`[CLS] … [SEP]`,
//! `<s> … </s>`) and truncates as the file says; padding in the file is switched off (the
//! caller pads a batch). Decoding skips special tokens.

use std::path::{Path, PathBuf};

use bitext_core::{Error as CoreError, Location};

use crate::error::{Error, Result};
use crate::tokenizer::{Encoding, SpecialIds, Tokenizer};

/// A Hugging Face `tokenizer.json` as a [`Tokenizer`].
pub struct HfTokenizer {
    inner: tokenizers::Tokenizer,
    vocab_size: usize,
    special: SpecialIds,
    path: PathBuf,
}

impl std::fmt::Debug for HfTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HfTokenizer")
            .field("path", &self.path)
            .field("vocab_size", &self.vocab_size)
            .field("special", &self.special)
            .finish_non_exhaustive()
    }
}

impl HfTokenizer {
    /// Load a `tokenizer.json`.
    ///
    /// # Errors
    /// The file cannot be read, is not UTF-8 JSON, or is not a tokenizer the `tokenizers`
    /// crate can build (its reason); a vocabulary with no tokens. Each names the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| CoreError::io(path, e))?;
        Self::load(&bytes, path)
    }

    /// Load from the bytes of a `tokenizer.json`; errors name `name`.
    ///
    /// # Errors
    /// As [`HfTokenizer::open`].
    pub fn from_bytes(bytes: &[u8], name: impl AsRef<Path>) -> Result<Self> {
        Self::load(bytes, name.as_ref())
    }

    fn load(bytes: &[u8], path: &Path) -> Result<Self> {
        let bad = |reason: String| Error::from(CoreError::parse(path, Location::File, reason));
        if bytes.starts_with(b"\xef\xbb\xbf") {
            return Err(bad("starts with a byte-order mark; JSON has none".into()));
        }
        if std::str::from_utf8(bytes).is_err() {
            return Err(bad("not UTF-8 (a tokenizer.json is JSON text)".into()));
        }
        let mut inner = tokenizers::Tokenizer::from_bytes(bytes)
            .map_err(|e| bad(format!("not a Hugging Face tokenizer.json: {e}")))?;
        inner.with_padding(None);
        let vocab = inner.get_vocab(true);
        let Some(&max) = vocab.values().max() else {
            return Err(bad("the tokenizer has no tokens".into()));
        };
        let find = |names: &[&str]| names.iter().find_map(|n| inner.token_to_id(n));
        let special = SpecialIds {
            pad: find(&["<pad>", "[PAD]"]),
            unk: find(&["<unk>", "[UNK]"]),
            bos: find(&["<s>", "[CLS]"]),
            eos: find(&["</s>", "[SEP]"]),
        };
        Ok(HfTokenizer {
            inner,
            vocab_size: max as usize + 1,
            special,
            path: path.to_path_buf(),
        })
    }

    /// The file this tokenizer was loaded from (or the name given to
    /// [`HfTokenizer::from_bytes`]).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn failed(&self, what: &str, e: &dyn std::fmt::Display) -> Error {
        Error::Backend(format!("{}: {what}: {e}", self.path.display()).into())
    }
}

impl Tokenizer for HfTokenizer {
    fn encode(&self, text: &str) -> Result<Encoding> {
        let e = self
            .inner
            .encode(text, true)
            .map_err(|e| self.failed("encoding", &e))?;
        Ok(Encoding {
            ids: e.get_ids().to_vec(),
            pieces: e.get_tokens().to_vec(),
        })
    }

    fn encode_ids(&self, text: &str) -> Result<Vec<u32>> {
        let e = self
            .inner
            .encode_fast(text, true)
            .map_err(|e| self.failed("encoding", &e))?;
        Ok(e.get_ids().to_vec())
    }

    fn decode(&self, ids: &[u32]) -> Result<String> {
        if let Some(&id) = ids.iter().find(|&&id| self.inner.id_to_token(id).is_none()) {
            return Err(Error::UnknownId {
                id,
                vocab_size: self.vocab_size,
            });
        }
        self.inner
            .decode(ids, true)
            .map_err(|e| self.failed("decoding", &e))
    }

    fn vocab_size(&self) -> usize {
        self.vocab_size
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    /// `<pad>`/`[PAD]`, `<unk>`/`[UNK]`, `<s>`/`[CLS]` and `</s>`/`[SEP]`: sentencepiece's
    /// names, else BERT's.
    fn special_ids(&self) -> SpecialIds {
        self.special
    }
}
