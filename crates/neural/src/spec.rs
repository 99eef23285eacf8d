//! Neural models from their specs: [`NeuralModel::load`] loads the [`ModelSpec`] of an encoder
//! spec or of `bitext_mine::ScorerSpec::Model` as a sentence encoder or a scorer of sentence
//! pairs. Which spec names which model is decided once, by `bitext::build` (the facade), which
//! calls this for `model:DIR`.
//!
//! ```
//! use bitext_encode::ModelSpec;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! // A directory that holds no model is an error naming it.
//! let err = bitext_neural::spec::NeuralModel::load(&ModelSpec::new(dir.path())).err().unwrap();
//! assert!(err.to_string().contains(&dir.path().display().to_string()));
//! # Ok(())
//! # }
//! ```

use std::path::{Path, PathBuf};

use bitext_core::Embeddings;
use bitext_encode::{ModelSpec, NoKnownWord, SentenceEncoder, Side};
use bitext_similarity::{EmbeddingScorer, Measure, PairScorer};

use crate::aligner::AlignerModel;
use crate::autoencoder::AutoencoderEncoder;
use crate::backend::BackendSpec;
use crate::error::{Error, Result};
use crate::mlp::{Mlp, MlpScorer, load_mlp};
use crate::siamese::{SiameseEncoder, SiameseScorer, model_kind};

/// The sentence encoder of a trained model directory: the siamese classifier's encoder or the
/// autoencoder's two encoders.
#[derive(Debug)]
#[non_exhaustive]
pub enum ModelEncoder {
    /// The siamese classifier's shared BiRNN (`[h→; h←]` vectors).
    Siamese(Box<SiameseEncoder>),
    /// The autoencoder's encoders (max-pooled states).
    Autoencoder(Box<AutoencoderEncoder>),
    /// The word-alignment BiLSTMs (`[h→; h←]` vectors, the `wemb` space).
    Aligner(Box<AlignerModel>),
}

impl ModelEncoder {
    /// Load the encoder saved in `dir` (a siamese classifier, an autoencoder or an aligner).
    ///
    /// # Errors
    /// A directory without a model, of another kind, or whose files do not load.
    pub fn load(dir: &Path, backend: BackendSpec) -> Result<Self> {
        match model_kind(dir)?.as_str() {
            "siamese" => Ok(Self::Siamese(Box::new(SiameseEncoder::load(dir, backend)?))),
            "autoencoder" => Ok(Self::Autoencoder(Box::new(AutoencoderEncoder::load(
                dir, backend,
            )?))),
            "aligner" => Ok(Self::Aligner(Box::new(AlignerModel::load(dir, backend)?))),
            other => Err(Error::checkpoint(
                dir,
                format!("a model of kind {other:?} is not a sentence encoder"),
            )),
        }
    }

    /// The encoder with the policy `policy` for a sentence with no token at all
    /// ([`crate::text::TextModel::with_no_known_word`]).
    #[must_use]
    pub fn with_no_known_word(self, policy: NoKnownWord) -> Self {
        match self {
            Self::Siamese(e) => Self::Siamese(Box::new(e.with_no_known_word(policy))),
            Self::Autoencoder(e) => Self::Autoencoder(Box::new(e.with_no_known_word(policy))),
            Self::Aligner(e) => Self::Aligner(Box::new(e.with_no_known_word(policy))),
        }
    }

    /// The policy for a sentence with no token at all.
    #[must_use]
    pub fn no_known_word(&self) -> NoKnownWord {
        match self {
            Self::Siamese(e) => e.no_known_word(),
            Self::Autoencoder(e) => e.no_known_word(),
            Self::Aligner(e) => e.no_known_word(),
        }
    }

    /// Sentence vectors of `sentences` of `side`, rows in input order.
    ///
    /// # Errors
    /// A sentence without tokens (named, unless the policy gives it a zero row); tokenizer
    /// errors.
    pub fn vectors(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        match self {
            Self::Siamese(e) => e.vectors(side, sentences),
            Self::Autoencoder(e) => e.vectors(side, sentences),
            Self::Aligner(e) => e.vectors(side, sentences),
        }
    }

    /// The model directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        match self {
            Self::Siamese(e) => e.dir(),
            Self::Autoencoder(e) => e.dir(),
            Self::Aligner(e) => e.dir(),
        }
    }
}

impl SentenceEncoder for ModelEncoder {
    fn dim(&self) -> usize {
        match self {
            Self::Siamese(e) => e.dim(),
            Self::Autoencoder(e) => e.dim(),
            Self::Aligner(e) => e.dim(),
        }
    }

    fn encode_batch(&self, side: Side, sentences: &[&str]) -> bitext_encode::Result<Embeddings> {
        Ok(self.vectors(side, sentences)?)
    }

    fn batch_size(&self) -> usize {
        4096
    }
}

/// A trained neural model, loaded from its directory.
#[derive(Debug)]
#[non_exhaustive]
pub enum NeuralModel {
    /// The siamese classifier: encodes sentences and classifies pairs.
    Siamese(Box<SiameseEncoder>),
    /// The shared-decoder autoencoder: encodes sentences; pairs score the cosine of their
    /// vectors (Kim et al.'s predefined similarity).
    Autoencoder(Box<AutoencoderEncoder>),
    /// The word-alignment BiLSTM: encodes sentences; pairs score `semb` when its head was
    /// trained, else the `wemb` cosine.
    Aligner(Box<AlignerModel>),
    /// An MLP similarity over the vectors of an encoder.
    Mlp {
        /// The network.
        mlp: Box<Mlp>,
        /// The encoder it was trained on.
        encoder: Box<ModelEncoder>,
    },
}

impl NeuralModel {
    /// Load the model that `spec` names (`model.json` says which kind; an MLP's encoder is the
    /// directory its description names, absolute or relative to the MLP's), its encoder with
    /// the spec's `no_known_word`.
    ///
    /// # Errors
    /// An unknown backend; a directory without a model, of an unknown kind, or whose files do
    /// not load (naming the directory); an MLP that names no encoder or one of another
    /// dimension.
    pub fn load(spec: &ModelSpec) -> Result<Self> {
        spec.check()
            .map_err(|e| Error::Config(format!("model spec: {e}")))?;
        let backend = BackendSpec::from(spec.backend);
        let dir = spec.dir.as_path();
        let load = |dir: &Path| {
            ModelEncoder::load(dir, backend).map(|e| e.with_no_known_word(spec.no_known_word))
        };
        match model_kind(dir)?.as_str() {
            "siamese" | "autoencoder" | "aligner" => Ok(match load(dir)? {
                ModelEncoder::Siamese(e) => NeuralModel::Siamese(e),
                ModelEncoder::Autoencoder(e) => NeuralModel::Autoencoder(e),
                ModelEncoder::Aligner(e) => NeuralModel::Aligner(e),
            }),
            "mlp" => {
                let (mlp, desc) = load_mlp(dir, backend)?;
                let edir = encoder_dir(dir, desc.encoder.as_deref())?;
                let encoder = load(&edir).map_err(|e| {
                    Error::checkpoint(dir, format!("loading the MLP's encoder: {e}"))
                })?;
                if encoder.dim() != mlp.dim() {
                    return Err(Error::checkpoint(
                        dir,
                        format!(
                            "the MLP compares {}-dimensional vectors but its encoder {} makes {}",
                            mlp.dim(),
                            edir.display(),
                            encoder.dim()
                        ),
                    ));
                }
                Ok(NeuralModel::Mlp {
                    mlp: Box::new(mlp),
                    encoder: Box::new(encoder),
                })
            }
            other => Err(Error::checkpoint(
                dir,
                format!("unknown model kind {other:?}"),
            )),
        }
    }

    /// The sentence encoder, owned (the MLP's encoder for an MLP).
    #[must_use]
    pub fn into_encoder(self) -> ModelEncoder {
        match self {
            NeuralModel::Siamese(e) => ModelEncoder::Siamese(e),
            NeuralModel::Autoencoder(e) => ModelEncoder::Autoencoder(e),
            NeuralModel::Aligner(e) => ModelEncoder::Aligner(e),
            NeuralModel::Mlp { encoder, .. } => *encoder,
        }
    }

    fn vectors(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        match self {
            NeuralModel::Siamese(e) => e.vectors(side, sentences),
            NeuralModel::Autoencoder(e) => e.vectors(side, sentences),
            NeuralModel::Aligner(e) => e.vectors(side, sentences),
            NeuralModel::Mlp { encoder, .. } => encoder.vectors(side, sentences),
        }
    }

    /// A scorer over `src × tgt`: the probability that a pair translates each other (the
    /// siamese classifier's, or the MLP's over its encoder's vectors), or the cosine of the
    /// autoencoder's vectors; for an aligner, `semb` when its head was trained, else `wemb`.
    ///
    /// # Errors
    /// An encoding error (a sentence without tokens, named, …); a model loaded with
    /// `"no_known_word": "zero"`, which only its encoder takes (its classifier, `semb` and MLP
    /// have no score for a zero vector).
    pub fn scorer(&self, src: &[&str], tgt: &[&str]) -> Result<Box<dyn PairScorer>> {
        let encoder = match self {
            NeuralModel::Siamese(e) => e.no_known_word(),
            NeuralModel::Autoencoder(e) => e.no_known_word(),
            NeuralModel::Aligner(e) => e.no_known_word(),
            NeuralModel::Mlp { encoder, .. } => encoder.no_known_word(),
        };
        if encoder != NoKnownWord::Error {
            return Err(Error::Config(
                "\"no_known_word\": \"zero\" is for the model as an encoder (an encoder \
                 spec: `score --encoder`, `embed`, `filter --encoder`): as a scorer it has no \
                 score for a sentence without tokens, so leave it out of the scorer spec"
                    .into(),
            ));
        }
        if let NeuralModel::Aligner(e) = self {
            let semb = e.description().network.objective.sentence();
            return e.scorer(src, tgt, semb);
        }
        let (a, b) = (
            self.vectors(Side::Source, src)?,
            self.vectors(Side::Target, tgt)?,
        );
        Ok(match self {
            NeuralModel::Siamese(e) => Box::new(SiameseScorer::from_vectors(e.model(), a, b)),
            NeuralModel::Autoencoder(_) | NeuralModel::Aligner(_) => {
                Box::new(CosineScorer::new(a, b)?)
            }
            NeuralModel::Mlp { mlp, .. } => Box::new(MlpScorer::new(mlp, a, b)?),
        })
    }
}

/// The cosine of two owned embedding matrices' rows as a [`PairScorer`]: the checks of
/// bitext-similarity's [`EmbeddingScorer`] once, then [`Measure::Cosine`] per pair (a model's
/// scorer outlives the sentences it encoded, so it owns them).
#[derive(Debug)]
pub struct CosineScorer {
    src: Embeddings,
    tgt: Embeddings,
}

impl CosineScorer {
    /// A scorer of `src.row(i)` against `tgt.row(j)`.
    ///
    /// # Errors
    /// [`Error::Input`] naming what [`EmbeddingScorer::new`] rejects: dimensions that differ,
    /// a value that is not finite, an all-zero row.
    pub fn new(src: Embeddings, tgt: Embeddings) -> Result<Self> {
        EmbeddingScorer::new(src.view(), tgt.view(), Measure::Cosine)
            .map_err(|e| Error::Input(e.to_string()))?;
        Ok(Self { src, tgt })
    }
}

impl PairScorer for CosineScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        Ok(pairs
            .iter()
            .map(|&(i, j)| f64::from(Measure::Cosine.apply(self.src.row(i), self.tgt.row(j))))
            .collect())
    }
}

/// The encoder directory an MLP names: absolute, or relative to the MLP's directory.
fn encoder_dir(mlp_dir: &Path, named: Option<&str>) -> Result<PathBuf> {
    let named = named.ok_or_else(|| {
        Error::checkpoint(
            mlp_dir,
            "the MLP names no encoder (field \"encoder\" of model.json)",
        )
    })?;
    let p = PathBuf::from(named);
    Ok(if p.is_absolute() { p } else { mlp_dir.join(p) })
}
