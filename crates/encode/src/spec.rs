//! [`EncoderSpec`]: which sentence encoder to build, from a config file (serde, tagged by
//! `"type"`) or a CLI flag (`bow:FILE`, `model:DIR`, `onnx:FILE`, `hf:ORG/NAME[@REVISION]`
//! (resolved by the resolver bitext-onnx installs), or the JSON itself).
//!
//! ```text
//! {"type": "bow", "vectors": "de.vec"}
//! {"type": "bow", "vectors": "de.vec", "target_vectors": "en.vec", "max_words": 200000}
//! {"type": "bow", "vectors": "de.vec", "weighting": "tf_idf", "idf_corpus": "de.txt",
//!  "lowercase": false, "no_known_word": "zero"}
//! {"type": "bow", "vectors": "usem.spm128k.vec", "weighting": "tf_idf",
//!  "pieces": {"type": "sentencepiece", "model": "use-multilingual-v3-128k.model"}}
//! {"type": "model", "dir": "runs/siamese", "backend": "flex"}
//! {"type": "model", "dir": "runs/siamese", "no_known_word": "zero"}
//! {"type": "onnx", "model": "usem.onnx", "threads": 2}
//! ```
//!
//! Every kind spells the policy for a sentence it has nothing to encode of the same way,
//! `"no_known_word": "error"` (the default) or `"zero"` ([`NoKnownWord`]): no known word for the
//! bag of words, no token at all for a `model` or an `onnx` graph.
//!
//! This crate builds the bag-of-words encoder ([`EncoderSpec::build_bow`],
//! [`EncoderSpec::build`]); a `model` spec names a neural model directory, which only
//! `bitext-neural` can load (its `spec` module builds every variant), so that this crate never
//! depends on burn; an `onnx` spec names a pretrained graph, which only `bitext-onnx` runs.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use bitext_core::io::LineReader;
use bitext_core::io::bucc::read_bucc_sentences;
use bitext_core::io::text::{EmptyLines, read_lines};
use bitext_core::io::vec::read_vec;
use bitext_tokenize::{Segmenter, TokenizerSpec, WordConfig};
use serde::{Deserialize, Serialize};

use crate::bow::{BowEncoder, NoKnownWord, Weighting};
use crate::encoder::SentenceEncoder;
use crate::error::{Error, Result};
use crate::idf::Idf;
use crate::onnx_spec::OnnxSpec;

/// The burn backend a neural model runs on, serialised by name (`"flex"`); `cpu` and `gpu` are
/// read as `flex` and `wgpu`. Which of them a build can run is `bitext-neural`'s features'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Backend {
    /// burn's Flex CPU backend (the default).
    #[default]
    #[serde(alias = "cpu")]
    Flex,
    /// burn-ndarray (CPU).
    Ndarray,
    /// wgpu (Vulkan, Metal, DX12, GL).
    #[serde(alias = "gpu")]
    Wgpu,
    /// CUDA (NVIDIA GPUs).
    Cuda,
}

impl Backend {
    /// Every backend, in this order.
    pub const ALL: [Backend; 4] = [
        Backend::Flex,
        Backend::Ndarray,
        Backend::Wgpu,
        Backend::Cuda,
    ];

    /// The backend's name (`flex`, `ndarray`, `wgpu`, `cuda`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Backend::Flex => "flex",
            Backend::Ndarray => "ndarray",
            Backend::Wgpu => "wgpu",
            Backend::Cuda => "cuda",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = Error;

    /// A backend by name (case-insensitive; `cpu` is `flex`, `gpu` is `wgpu`).
    fn from_str(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "flex" | "cpu" => Ok(Backend::Flex),
            "ndarray" => Ok(Backend::Ndarray),
            "wgpu" | "gpu" => Ok(Backend::Wgpu),
            "cuda" => Ok(Backend::Cuda),
            other => Err(Error::Invalid(format!(
                "unknown backend {other:?} (expected flex, ndarray, wgpu or cuda)"
            ))),
        }
    }
}

/// Which sentence encoder to use, with its parameters.
///
/// Parsed from a CLI string by [`FromStr`]: a string starting with `{` is read as JSON;
/// `bow:FILE` is the bag-of-words encoder over the word vectors `FILE` with default settings;
/// `model:DIR` is the neural model in `DIR` on the default backend; `onnx:FILE` the ONNX graph
/// `FILE` with default settings ([`OnnxSpec::new`]).
///
/// ```
/// use bitext_encode::{EncoderSpec, NoKnownWord, Weighting};
/// let s: EncoderSpec = "bow:de.vec".parse().unwrap();
/// assert_eq!(s, EncoderSpec::bow("de.vec"));
/// let j: EncoderSpec =
///     r#"{"type":"bow","vectors":"de.vec","weighting":"tf_idf","no_known_word":"zero"}"#
///         .parse()
///         .unwrap();
/// let EncoderSpec::Bow(b) = &j else { panic!("not bow") };
/// assert_eq!((b.weighting, b.no_known_word, b.lowercase), (Weighting::TfIdf, NoKnownWord::Zero, true));
/// assert_eq!(j.to_string().parse::<EncoderSpec>().unwrap(), j);
/// // Neural models are loaded by bitext-neural, not here.
/// let m: EncoderSpec = "model:runs/siamese".parse().unwrap();
/// assert!(m.build(None::<&[&str]>).err().unwrap().to_string().contains("bitext-neural"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum EncoderSpec {
    /// [`BowEncoder`]: the (optionally TF-IDF weighted) mean of bilingual word vectors.
    Bow(BowSpec),
    /// A trained neural model (siamese classifier, or an MLP whose encoder is used), built
    /// only by `bitext-neural`.
    Model(ModelSpec),
    /// A pretrained encoder as an ONNX graph, run only by `bitext-onnx`.
    Onnx(OnnxSpec),
}

/// A trained neural model directory and the backend to run it on: the `model` variant of
/// [`EncoderSpec`] and of `bitext_mine::ScorerSpec`, loaded only by `bitext-neural` (which
/// this crate and the miner never depend on).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    /// The model directory (written by `bitext train`).
    pub dir: PathBuf,
    /// The burn backend (`ndarray`, `wgpu` and `cuda` need cargo features of
    /// `bitext-neural`).
    #[serde(default)]
    pub backend: Backend,
    /// What a sentence with no token at all becomes where the model encodes sentences
    /// ([`NoKnownWord`]; a word vocabulary gives unknown words its `<unk>` token, so only a
    /// sentence its tokenizer drops whole, such as an empty line or `&nbsp;`, has none).
    #[serde(default, skip_serializing_if = "is_error")]
    pub no_known_word: NoKnownWord,
}

impl ModelSpec {
    /// The model in `dir` on the default backend (`flex`).
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ModelSpec {
            dir: dir.into(),
            backend: Backend::Flex,
            no_known_word: NoKnownWord::Error,
        }
    }

    /// Check that the directory is named.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an empty directory.
    pub fn check(&self) -> Result<()> {
        if self.dir.as_os_str().is_empty() {
            return Err(Error::Invalid(
                "a model spec needs a directory, got an empty path".into(),
            ));
        }
        Ok(())
    }

    /// The error of building this model in a crate that cannot: neural models are loaded by
    /// `bitext-neural`. `what` names the spec ("encoder", "scorer").
    #[must_use]
    pub fn neural_only(&self, what: &str) -> String {
        format!(
            "the {what} spec names the neural model {}: neural models are built by \
             bitext-neural (bitext_neural::spec), which this crate does not depend on",
            self.dir.display()
        )
    }
}

/// The parameters of the bag-of-words encoder (the `bow` variant of [`EncoderSpec`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BowSpec {
    /// Word vectors (fastText/MUSE `.vec`) of the source side, and of the target side too
    /// when `target_vectors` is absent (one file holding both languages, or a run that
    /// encodes one language).
    pub vectors: PathBuf,
    /// Word vectors of the target side, in the same space as `vectors`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_vectors: Option<PathBuf>,
    /// Read only the first `max_words` words of each vector file (the most frequent, in
    /// fastText/MUSE files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_words: Option<usize>,
    /// Lowercase tokens before lookup (default: on, as `.vec` vocabularies usually are; words
    /// only, `pieces` keep the tokenizer's own normalisation).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub lowercase: bool,
    /// Look up the pieces of this tokenizer (a sentencepiece model whose pieces key the
    /// `.vec` file, HTML entities unescaped first as the word tokenizer does) instead of words.
    /// Building it needs `bitext-tokenize`'s `sentencepiece` feature (the CLI has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pieces: Option<TokenizerSpec>,
    /// The plain mean, or TF-IDF weights.
    #[serde(default, skip_serializing_if = "is_mean")]
    pub weighting: Weighting,
    /// Reference corpus of the IDF (`tf_idf` only): BUCC `id<TAB>sentence` when its first
    /// line holds a tab, else one sentence per line. Absent: the sentences the caller
    /// passes to [`EncoderSpec::build_bow`] (the CLI passes its input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idf_corpus: Option<PathBuf>,
    /// Reference corpus of the target side's IDF (same layouts), so that each language is
    /// weighed by a corpus of its own; absent: the target side uses the source side's IDF
    /// (right for a run that encodes one language, or one vocabulary holding both).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_idf_corpus: Option<PathBuf>,
    /// What a sentence without a known word becomes.
    #[serde(default, skip_serializing_if = "is_error")]
    pub no_known_word: NoKnownWord,
    /// L2-normalise sentence vectors (default: on).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub normalize: bool,
}

impl BowSpec {
    /// Default settings over one vector file: lowercase, plain mean, an error for a sentence
    /// without a known word, normalised rows.
    #[must_use]
    pub fn new(vectors: impl Into<PathBuf>) -> Self {
        BowSpec {
            vectors: vectors.into(),
            target_vectors: None,
            max_words: None,
            lowercase: true,
            pieces: None,
            weighting: Weighting::Mean,
            idf_corpus: None,
            target_idf_corpus: None,
            no_known_word: NoKnownWord::Error,
            normalize: true,
        }
    }
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_mean(w: &Weighting) -> bool {
    *w == Weighting::Mean
}

pub(crate) fn is_error(p: &NoKnownWord) -> bool {
    *p == NoKnownWord::Error
}

impl From<BowSpec> for EncoderSpec {
    fn from(b: BowSpec) -> Self {
        EncoderSpec::Bow(b)
    }
}

impl From<ModelSpec> for EncoderSpec {
    fn from(m: ModelSpec) -> Self {
        EncoderSpec::Model(m)
    }
}

impl From<OnnxSpec> for EncoderSpec {
    fn from(o: OnnxSpec) -> Self {
        EncoderSpec::Onnx(o)
    }
}

impl EncoderSpec {
    /// The bag-of-words encoder over one vector file, with default settings (lowercase, plain
    /// mean, an error for a sentence without a known word, normalised rows).
    #[must_use]
    pub fn bow(vectors: impl Into<PathBuf>) -> Self {
        EncoderSpec::Bow(BowSpec::new(vectors))
    }

    /// The neural model in `dir` on the default backend (`flex`).
    #[must_use]
    pub fn model(dir: impl Into<PathBuf>) -> Self {
        EncoderSpec::Model(ModelSpec::new(dir))
    }

    /// The bag-of-words settings, when the spec is one.
    #[must_use]
    pub fn as_bow(&self) -> Option<&BowSpec> {
        match self {
            EncoderSpec::Bow(b) => Some(b),
            _ => None,
        }
    }

    /// The neural model, when the spec names one.
    #[must_use]
    pub fn as_model(&self) -> Option<&ModelSpec> {
        match self {
            EncoderSpec::Model(m) => Some(m),
            _ => None,
        }
    }

    /// The ONNX graph, when the spec names one.
    #[must_use]
    pub fn as_onnx(&self) -> Option<&OnnxSpec> {
        match self {
            EncoderSpec::Onnx(o) => Some(o),
            _ => None,
        }
    }

    /// What a sentence the encoder has nothing to encode of becomes (see [`NoKnownWord`]).
    #[must_use]
    pub fn no_known_word(&self) -> NoKnownWord {
        match self {
            EncoderSpec::Bow(b) => b.no_known_word,
            EncoderSpec::Model(m) => m.no_known_word,
            EncoderSpec::Onnx(o) => o.no_known_word,
        }
    }

    /// The same spec with the policy `policy` (`bitext embed --zero-unknown`, whatever the
    /// kind).
    #[must_use]
    pub fn with_no_known_word(mut self, policy: NoKnownWord) -> Self {
        match &mut self {
            EncoderSpec::Bow(b) => b.no_known_word = policy,
            EncoderSpec::Model(m) => m.no_known_word = policy,
            EncoderSpec::Onnx(o) => o.no_known_word = policy,
        }
        self
    }

    /// Whether the encoder's vectors can depend on the side a sentence is read as: a neural
    /// model's (a network per language) and a bag of words' (vectors per side) can; an ONNX
    /// graph reads both sides alike.
    #[must_use]
    pub fn reads_sides(&self) -> bool {
        self.as_onnx().is_none()
    }

    /// Whether a sentence's vector depends on that sentence alone, not on the others encoded
    /// with it: not for a TF-IDF bag of words that counts its IDF over its input.
    #[must_use]
    pub fn encodes_each_alone(&self) -> bool {
        !self
            .as_bow()
            .is_some_and(|b| b.weighting == Weighting::TfIdf && b.idf_corpus.is_none())
    }

    /// Whether building the encoder reads the sentences it will encode: a bag of words counts
    /// its IDF over them (unless its spec names a corpus) and reports its coverage of them, so
    /// a caller builds it over the whole input; the other encoders stream.
    #[must_use]
    pub fn reads_input(&self) -> bool {
        self.as_bow().is_some()
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Invalid`] for `max_words: 0`, an `idf_corpus` without TF-IDF weighting, or an
    /// empty path or backend name.
    pub fn check(&self) -> Result<()> {
        let empty = |p: &Path, what: &str| {
            if p.as_os_str().is_empty() {
                Err(Error::Invalid(format!(
                    "the encoder spec's {what} is empty"
                )))
            } else {
                Ok(())
            }
        };
        match self {
            EncoderSpec::Bow(BowSpec {
                vectors,
                target_vectors,
                max_words,
                weighting,
                idf_corpus,
                target_idf_corpus,
                ..
            }) => {
                empty(vectors, "vectors")?;
                if let Some(t) = target_vectors {
                    empty(t, "target_vectors")?;
                }
                if *max_words == Some(0) {
                    return Err(Error::Invalid("max_words must be at least 1".into()));
                }
                for (c, name) in [
                    (idf_corpus, "idf_corpus"),
                    (target_idf_corpus, "target_idf_corpus"),
                ] {
                    let Some(c) = c else { continue };
                    empty(c, name)?;
                    if *weighting != Weighting::TfIdf {
                        return Err(Error::Invalid(format!(
                            "{name} {} is given but the weighting is not tf_idf",
                            c.display()
                        )));
                    }
                }
                Ok(())
            }
            EncoderSpec::Model(m) => m.check(),
            EncoderSpec::Onnx(o) => o.check(),
        }
    }

    /// Whether the spec names a neural model (built only by `bitext-neural`).
    #[must_use]
    pub fn is_neural(&self) -> bool {
        matches!(self, EncoderSpec::Model(_))
    }

    /// Build the bag-of-words encoder: read the vector file(s), and with TF-IDF weighting count
    /// the IDF over `idf_corpus`, or over `idf_reference` when the spec names no corpus (and
    /// the target side's over `target_idf_corpus` when given).
    ///
    /// # Errors
    /// As [`EncoderSpec::check`]; a vector or corpus file that is missing or malformed (naming
    /// the file and line); [`Error::Invalid`] for TF-IDF weighting with neither a corpus nor
    /// reference sentences, for vector files of different dimensions, and for a `model` spec
    /// (which `bitext-neural` builds).
    pub fn build_bow<S: AsRef<str>>(&self, idf_reference: Option<&[S]>) -> Result<BowEncoder> {
        self.check()?;
        let bow = match self {
            EncoderSpec::Bow(b) => b,
            EncoderSpec::Model(m) => return Err(Error::Invalid(m.neural_only("encoder"))),
            EncoderSpec::Onnx(o) => return Err(Error::Invalid(o.onnx_only("encoder"))),
        };
        let BowSpec {
            vectors,
            target_vectors,
            max_words,
            lowercase,
            pieces,
            weighting,
            idf_corpus,
            target_idf_corpus,
            no_known_word,
            normalize,
        } = bow;
        let segment = match pieces {
            Some(tokenizer) => Segmenter::Pieces {
                tokenizer: tokenizer.clone(),
                unescape_html: true,
            },
            None => Segmenter::Words {
                word: WordConfig {
                    lowercase: *lowercase,
                    ..WordConfig::default()
                },
            },
        }
        .build()?;
        let src = read_vec(vectors, *max_words)?;
        let builder = match target_vectors {
            Some(t) => BowEncoder::builder(src, read_vec(t, *max_words)?),
            None => BowEncoder::builder_shared(src),
        };
        let mut builder = builder
            .segment(segment.clone())
            .no_known_word(*no_known_word)
            .normalize(*normalize);
        if *weighting == Weighting::TfIdf {
            let read = |p: &Path| {
                Idf::from_segmented(&segment, &read_sentences(p)?)
                    .map_err(|e| Error::Invalid(format!("{}: {e}", p.display())))
            };
            let idf = match (idf_corpus, idf_reference) {
                (Some(p), _) => read(p)?,
                (None, Some(r)) => Idf::from_segmented(&segment, r)?,
                (None, None) => {
                    return Err(Error::Invalid(
                        "TF-IDF weighting needs an idf_corpus or reference sentences".into(),
                    ));
                }
            };
            let target = match target_idf_corpus {
                Some(p) => read(p)?,
                None => idf.clone(),
            };
            builder = builder.tfidf_from(idf, target);
        }
        builder.build()
    }

    /// Build the encoder as a trait object: [`EncoderSpec::build_bow`] for `bow`.
    ///
    /// # Errors
    /// As [`EncoderSpec::build_bow`]; for a `model` spec, [`Error::Invalid`] saying that
    /// neural models are built by `bitext-neural`.
    pub fn build<S: AsRef<str>>(
        &self,
        idf_reference: Option<&[S]>,
    ) -> Result<Box<dyn SentenceEncoder>> {
        Ok(Box::new(self.build_bow(idf_reference)?))
    }
}

/// Sentences of a reference corpus: BUCC `id<TAB>sentence` when the first line holds a tab,
/// else one sentence per line (empty lines are errors naming the line).
fn read_sentences(path: &Path) -> Result<Vec<String>> {
    let mut r = LineReader::open(path)?;
    let bucc = r.advance()? && r.line().contains('\t');
    Ok(if bucc {
        read_bucc_sentences(path)?.sentences().to_vec()
    } else {
        read_lines(path, EmptyLines::Reject)?
    })
}

/// The resolver of `hf:ORG/NAME[@REVISION]` names ([`EncoderSpec::set_hub_resolver`]).
static HUB_RESOLVER: std::sync::OnceLock<fn(&str) -> Result<OnnxSpec>> = std::sync::OnceLock::new();

impl EncoderSpec {
    /// Install the resolver of `hf:ORG/NAME[@REVISION]` (the text after `hf:`) into an ONNX
    /// spec, which this crate cannot do itself: `bitext_onnx::hub::install` installs the
    /// Hugging Face cache's. The first one installed stays.
    pub fn set_hub_resolver(resolve: fn(&str) -> Result<OnnxSpec>) {
        let _ = HUB_RESOLVER.set(resolve);
    }
}

impl FromStr for EncoderSpec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let spec = if t.starts_with('{') {
            serde_json::from_str(t)
                .map_err(|e| Error::Invalid(format!("encoder spec {t:?}: {e}")))?
        } else if let Some(p) = t.strip_prefix("bow:") {
            EncoderSpec::bow(p)
        } else if let Some(p) = t.strip_prefix("model:") {
            EncoderSpec::model(p)
        } else if let Some(p) = t.strip_prefix("onnx:") {
            EncoderSpec::Onnx(OnnxSpec::new(p))
        } else if let Some(name) = t.strip_prefix("hf:") {
            let resolve = HUB_RESOLVER.get().ok_or_else(|| {
                Error::Invalid(format!(
                    "encoder spec {t:?}: Hugging Face names are resolved by bitext-onnx \
                     (bitext_onnx::hub::install), which this program has not installed"
                ))
            })?;
            EncoderSpec::Onnx(resolve(name)?)
        } else {
            return Err(Error::Invalid(format!(
                "encoder spec {t:?}: expected bow:FILE, model:DIR, onnx:FILE, hf:ORG/NAME or \
                 JSON ({{\"type\": \"bow\", \"vectors\": FILE, …}})"
            )));
        };
        spec.check()?;
        Ok(spec)
    }
}

impl fmt::Display for EncoderSpec {
    /// The spec as JSON (what [`FromStr`] reads back).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&json)
    }
}
