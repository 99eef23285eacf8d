//! Text in, token ids out, for the models: the tokenizers a model was trained with, saved as
//! [`TokenizerSpec`]s whose vocabulary files live in the model directory (so the directory can
//! be moved), and building word vocabularies from training text. `driver.rs` (crate-private) is
//! the one text training of the families (tokenize → initialise → teacher → fit → save),
//! `tokens.rs` the one tokenization of their training pairs; [`TextModel`] is a trained network
//! loaded from its directory with its tokenizers.

use std::path::{Path, PathBuf};

use bitext_encode::Side;
use bitext_tokenize::{
    SequenceConfig, TokenCounter, Tokenizer, TokenizerSpec, VocabBuilder, WordConfig, WordTokenizer,
};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::pretrained::VectorsInit;

pub(crate) mod driver;
mod loaded;
pub(crate) mod tokens;

pub use driver::{TextTraining, Trained};
pub use loaded::{TextModel, TextNetwork};

/// The tokenizers of a model, as saved in its `model.json`: one shared by both languages, or
/// one per language. Vocabulary paths are relative to the model directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextConfig {
    /// The source language's tokenizer (both languages' when `target` is `None`).
    pub source: TokenizerSpec,
    /// The target language's tokenizer.
    #[serde(default)]
    pub target: Option<TokenizerSpec>,
    /// Decode HTML entities (`&quot;`, `&amp;`, …) before tokenizing
    /// ([`bitext_tokenize::HtmlUnescaped`]), as the bag of words over pieces does; set for
    /// sentencepiece models (the word tokenizer decodes them itself). Default: off.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unescape_html: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `spec` with its files resolved against `dir` (relative paths only).
///
/// # Errors
/// [`Error::Config`] for a tokenizer kind this version cannot relocate.
pub fn resolve_spec(spec: &TokenizerSpec, dir: &Path) -> Result<TokenizerSpec> {
    match spec {
        TokenizerSpec::Word {
            vocab,
            word,
            sequence,
        } => Ok(TokenizerSpec::Word {
            vocab: if vocab.is_relative() {
                dir.join(vocab)
            } else {
                vocab.clone()
            },
            word: *word,
            sequence: *sequence,
        }),
        TokenizerSpec::Sentencepiece { model, sequence } => Ok(TokenizerSpec::Sentencepiece {
            model: if model.is_relative() {
                dir.join(model)
            } else {
                model.clone()
            },
            sequence: *sequence,
        }),
        other => Err(Error::Config(format!(
            "cannot resolve the files of tokenizer {other:?}"
        ))),
    }
}

/// The name of a sentencepiece model copied into a model directory.
pub const SPM_FILE: &str = "spm.model";

/// One sentencepiece model for both languages (a joint subword vocabulary, e.g. the model
/// whose pieces key `usem.spm128k.vec`): `model` is copied into `dir` as [`SPM_FILE`], so
/// that the directory can be moved, and named relative to it.
///
/// # Errors
/// A model that cannot be read or a directory that cannot be written, naming the file.
pub fn sentencepiece_text(
    dir: &Path,
    model: &Path,
    sequence: SequenceConfig,
) -> Result<TextConfig> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Core(bitext_core::Error::io(dir, e)))?;
    let bytes = std::fs::read(model).map_err(|e| Error::Core(bitext_core::Error::io(model, e)))?;
    let out = dir.join(SPM_FILE);
    let mut f = bitext_core::io::AtomicFile::create(&out)?;
    std::io::Write::write_all(&mut f, &bytes)
        .map_err(|e| Error::Core(bitext_core::Error::io(&out, e)))?;
    f.commit()?;
    Ok(TextConfig {
        source: TokenizerSpec::Sentencepiece {
            model: PathBuf::from(SPM_FILE),
            sequence,
        },
        target: None,
        unescape_html: true,
    })
}

/// Loaded tokenizers of a model.
pub struct TextCodec {
    config: TextConfig,
    source: Box<dyn Tokenizer>,
    target: Option<Box<dyn Tokenizer>>,
}

impl std::fmt::Debug for TextCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextCodec")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl TextCodec {
    /// Build the tokenizers of `config`, with files relative to `dir`.
    ///
    /// # Errors
    /// A vocabulary file that cannot be read (naming it); [`Error::Config`].
    pub fn load(config: &TextConfig, dir: &Path) -> Result<Self> {
        let build = |spec: &TokenizerSpec| -> Result<Box<dyn Tokenizer>> {
            let tok = resolve_spec(spec, dir)?.build()?;
            Ok(if config.unescape_html {
                Box::new(bitext_tokenize::HtmlUnescaped(tok))
            } else {
                tok
            })
        };
        Ok(Self {
            source: build(&config.source)?,
            target: config.target.as_ref().map(build).transpose()?,
            config: config.clone(),
        })
    }

    /// [`TextCodec::load`] for a network with `vocab` (source, target) rows, checked: a model
    /// directory whose tokenizers do not fit its network is an error naming `dir`.
    ///
    /// # Errors
    /// As [`TextCodec::load`]; [`Error::Checkpoint`] for other vocabulary sizes.
    pub fn load_for(config: &TextConfig, dir: &Path, vocab: (usize, usize)) -> Result<Self> {
        let codec = Self::load(config, dir)?;
        codec.check_fits(dir, vocab)?;
        Ok(codec)
    }

    /// Whether these tokenizers have `vocab` (source, target) tokens, as the network of the
    /// model directory `dir` has rows.
    ///
    /// # Errors
    /// [`Error::Checkpoint`] naming `dir` for other vocabulary sizes.
    pub(crate) fn check_fits(&self, dir: &Path, vocab: (usize, usize)) -> Result<()> {
        let (s, t) = self.vocab_sizes();
        if (s, t) != vocab {
            return Err(Error::checkpoint(
                dir,
                format!(
                    "tokenizers have {s}/{t} tokens but the network {}/{}",
                    vocab.0, vocab.1
                ),
            ));
        }
        Ok(())
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &TextConfig {
        &self.config
    }

    /// The tokenizer of `side`.
    #[must_use]
    pub fn tokenizer(&self, side: Side) -> &dyn Tokenizer {
        match (side, &self.target) {
            (Side::Target, Some(t)) => t.as_ref(),
            _ => self.source.as_ref(),
        }
    }

    /// Whether both languages share one tokenizer (and so one vocabulary).
    #[must_use]
    pub fn shared(&self) -> bool {
        self.target.is_none()
    }

    /// Vocabulary sizes of the source and target sides.
    #[must_use]
    pub fn vocab_sizes(&self) -> (usize, usize) {
        (
            self.tokenizer(Side::Source).vocab_size(),
            self.tokenizer(Side::Target).vocab_size(),
        )
    }

    /// Token ids of `sentences` of `side` (in parallel on all cores).
    ///
    /// # Errors
    /// The tokenizer's errors; [`Error::Input`] naming the first sentence without tokens.
    pub fn encode(&self, side: Side, sentences: &[&str]) -> Result<Vec<Vec<u32>>> {
        let ids = self.tokenizer(side).encode_batch_ids(sentences)?;
        if let Some(i) = ids.iter().position(Vec::is_empty) {
            return Err(Error::Input(format!(
                "{side:?} sentence {i} ({:?}) has no tokens",
                sentences[i]
            )));
        }
        Ok(ids)
    }
}

/// How to build word vocabularies from training text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WordVocabConfig {
    /// One vocabulary for both languages (shared embeddings) instead of one each.
    pub joint: bool,
    /// Keep tokens seen at least this often.
    pub min_count: u64,
    /// Keep at most this many tokens (the most frequent), special tokens included.
    pub max_size: Option<usize>,
    /// Word tokenizer options.
    pub word: WordConfig,
    /// Framing and truncation.
    pub sequence: SequenceConfig,
}

impl Default for WordVocabConfig {
    fn default() -> Self {
        Self {
            joint: true,
            min_count: 2,
            max_size: Some(32_000),
            word: WordConfig {
                lowercase: true,
                ..WordConfig::default()
            },
            sequence: SequenceConfig {
                add_bos: false,
                add_eos: false,
                max_len: Some(80),
            },
        }
    }
}

/// The tokenizers of a training run into the model directory `out`: those its `model.json`
/// names when `resume` finds one (then `true`), else the sentencepiece model `spm` copied in,
/// else word vocabularies built from `src` and `tgt`. The one start of every text trainer.
///
/// # Errors
/// A saved description that cannot be read; as [`sentencepiece_text`], [`build_word_vocab`]
/// and [`TextCodec::load`].
pub fn training_text<S: AsRef<str> + Sync>(
    out: &Path,
    resume: bool,
    spm: Option<&Path>,
    vocab: &WordVocabConfig,
    src: &[S],
    tgt: &[S],
) -> Result<(TextConfig, TextCodec, bool)> {
    /// The part of any model description that names its tokenizers.
    #[derive(Deserialize)]
    struct Saved {
        text: TextConfig,
    }
    let model_file = out.join(crate::train::checkpoint::MODEL_FILE);
    let resuming = resume && model_file.exists();
    let text = if resuming {
        crate::train::checkpoint::read_json::<Saved>(&model_file)?.text
    } else if let Some(model) = spm {
        sentencepiece_text(out, model, vocab.sequence)?
    } else {
        build_word_vocab(out, src, tgt, vocab)?
    };
    let codec = TextCodec::load(&text, out)?;
    Ok((text, codec, resuming))
}

/// The parallel text a text model trains on and how it becomes tokens: the part of every
/// family's training job ([`crate::siamese::SiameseTextTraining`],
/// [`crate::autoencoder::AutoencoderTextTraining`], [`crate::aligner::AlignerTextTraining`])
/// that is the same for the three, and [`TextCorpus::tokenizers`], where each of their
/// trainings starts.
#[derive(Debug, Clone)]
pub struct TextCorpus<'a> {
    /// Source sentences of the training pairs.
    pub src: &'a [String],
    /// Target sentences of the training pairs, line-parallel with `src`.
    pub tgt: &'a [String],
    /// Held-out pairs for validation (source, target).
    pub valid: Option<(&'a [String], &'a [String])>,
    /// How word vocabularies are built from the training text (with `spm`, only the framing and
    /// truncation apply).
    pub vocab: WordVocabConfig,
    /// Cut both languages into the pieces of this sentencepiece model (copied into the model
    /// directory) instead of building word vocabularies.
    pub spm: Option<PathBuf>,
    /// Initialise the embedding tables from bilingual vectors (a fresh run only; a resumed run
    /// continues from its checkpoint).
    pub init: Option<VectorsInit>,
    /// Cut training and validation sentences to this many tokens.
    pub max_len: Option<usize>,
}

impl<'a> TextCorpus<'a> {
    /// The pairs `src`/`tgt` with word vocabularies of [`WordVocabConfig::default`], no
    /// validation pairs, no initial vectors, no cut.
    #[must_use]
    pub fn new(src: &'a [String], tgt: &'a [String]) -> Self {
        Self {
            src,
            tgt,
            valid: None,
            vocab: WordVocabConfig::default(),
            spm: None,
            init: None,
            max_len: None,
        }
    }

    /// `teacher`'s rows for the pairs training kept ([`crate::distill::Teacher::for_kept`]):
    /// `kept` the indices of this corpus's training pairs, `valid_kept` those of its
    /// validation pairs.
    ///
    /// # Errors
    /// As [`crate::distill::Teacher::for_kept`].
    pub fn teacher_rows(
        &self,
        teacher: Option<crate::distill::Teacher>,
        kept: &[usize],
        valid_kept: Option<&[usize]>,
    ) -> Result<Option<crate::distill::Teacher>> {
        teacher
            .map(|t| {
                t.for_kept(
                    (self.src.len(), kept),
                    self.valid.zip(valid_kept).map(|((s, _), k)| (s.len(), k)),
                )
            })
            .transpose()
    }

    /// Check the pairs and build the tokenizers into `out` (reloaded from it when resuming a
    /// run saved there): `(their description, the tokenizers, resuming)`. The one start of every
    /// text model's training.
    ///
    /// # Errors
    /// Sides of different lengths (training or validation); `max_len` of 0; as
    /// [`training_text`].
    pub fn tokenizers(&self, out: &Path, resume: bool) -> Result<(TextConfig, TextCodec, bool)> {
        let pairs = [(self.src, self.tgt, "training")]
            .into_iter()
            .chain(self.valid.map(|(s, t)| (s, t, "validation")));
        for (s, t, what) in pairs {
            if s.len() != t.len() {
                return Err(Error::Input(format!(
                    "{} source but {} target sentences ({what} pairs)",
                    s.len(),
                    t.len()
                )));
            }
        }
        if self.max_len == Some(0) {
            return Err(Error::Config("max_len must be at least 1".into()));
        }
        training_text(
            out,
            resume,
            self.spm.as_deref(),
            &self.vocab,
            self.src,
            self.tgt,
        )
    }
}

/// Count the words of the training text, build the vocabularies (`vocab.txt`, or
/// `vocab.src.txt` and `vocab.tgt.txt`) into `dir`, and return the text configuration that
/// points at them.
///
/// # Errors
/// Vocabulary building or writing errors, naming the file.
pub fn build_word_vocab<S: AsRef<str> + Sync>(
    dir: &Path,
    src: &[S],
    tgt: &[S],
    config: &WordVocabConfig,
) -> Result<TextConfig> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Core(bitext_core::Error::io(dir, e)))?;
    let words = WordTokenizer::new(config.word);
    let mut builder = VocabBuilder::new().min_count(config.min_count);
    if let Some(m) = config.max_size {
        builder = builder.max_size(m);
    }
    let spec = |file: &str| TokenizerSpec::Word {
        vocab: PathBuf::from(file),
        word: config.word,
        sequence: config.sequence,
    };
    let write = |counts: &TokenCounter, file: &str| -> Result<()> {
        builder.build(counts)?.save(dir.join(file))?;
        Ok(())
    };
    if config.joint {
        let mut counts = TokenCounter::from_texts(&words, src);
        counts.add_texts(&words, tgt);
        write(&counts, "vocab.txt")?;
        Ok(TextConfig {
            source: spec("vocab.txt"),
            target: None,
            unescape_html: false,
        })
    } else {
        write(&TokenCounter::from_texts(&words, src), "vocab.src.txt")?;
        write(&TokenCounter::from_texts(&words, tgt), "vocab.tgt.txt")?;
        Ok(TextConfig {
            source: spec("vocab.src.txt"),
            target: Some(spec("vocab.tgt.txt")),
            unescape_html: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_relocatable_vocabularies() {
        let dir = tempfile::tempdir().unwrap();
        let src = ["der hund bellt .", "der hund schläft ."];
        let tgt = ["the dog barks .", "the dog sleeps ."];
        for joint in [true, false] {
            let config = WordVocabConfig {
                joint,
                min_count: 1,
                ..WordVocabConfig::default()
            };
            let text = build_word_vocab(dir.path(), &src, &tgt, &config).unwrap();
            // Move the directory: relative vocabulary paths still resolve.
            let moved = dir.path().join(format!("moved-{joint}"));
            std::fs::create_dir_all(&moved).unwrap();
            for f in ["vocab.txt", "vocab.src.txt", "vocab.tgt.txt"] {
                let p = dir.path().join(f);
                if p.exists() {
                    std::fs::copy(&p, moved.join(f)).unwrap();
                }
            }
            let codec = TextCodec::load(&text, &moved).unwrap();
            assert_eq!(codec.shared(), joint);
            let ids = codec.encode(Side::Target, &["The dog ."]).unwrap();
            assert_eq!(ids[0].len(), 3);
            assert!(codec.encode(Side::Source, &["ok", "  "]).is_err());
        }
    }
}
