//! One place builds every spec: an [`EncoderSpec`] into its sentence encoder ([`encoder`]), a
//! [`ScorerSpec`] into the scorer of each batch of sentence pairs ([`batch_scorers`]), a
//! neural [`ModelSpec`] into its model ([`neural_model`], feature `neural`), and the encoders
//! of sharded runs ([`shard_encoders`]). The CLI, the Python module and xtask's evaluations
//! call these; nothing else dispatches on the specs' variants (xtask's tidy checks it), so a
//! new kind of encoder or scorer is added here once.
//!
//! Each spec crate builds what it can without the heavy backends (`EncoderSpec::build_bow`,
//! `ScorerSpec::sentence_scorers`, `IndexSpec::build`); what needs burn (`model:DIR`) or ONNX
//! Runtime (`onnx:FILE`) is built here behind the features `neural` and `onnx`. A build without
//! one gives [`Error::Unavailable`], naming the feature: the feature stubs of the workspace are
//! the functions at the end of this file.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let vec = dir.path().join("w.vec");
//! std::fs::write(&vec, "2 2\nhaus 1 0\nkatze 0 1\n")?;
//! let spec: bitext::encode::EncoderSpec = format!("bow:{}", vec.display()).parse()?;
//! let enc = bitext::build::encoder(&spec, None::<&[&str]>)?;
//! assert_eq!(enc.encode(bitext::encode::Side::Source, &["Haus"])?.row(0), [1.0, 0.0]);
//! # Ok(())
//! # }
//! ```

use bitext_encode::{EncoderSpec, ModelSpec, OnnxSpec, SentenceEncoder, Side};
use bitext_mine::ScorerSpec;
use bitext_similarity::PairScorer;

/// Why a spec could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An encoder spec that does not build (missing files, bad settings, an ONNX graph that
    /// does not load).
    #[error(transparent)]
    Encode(#[from] bitext_encode::Error),
    /// A scorer spec that does not build.
    #[error(transparent)]
    Mine(#[from] bitext_mine::Error),
    /// A scorer that failed on a batch.
    #[error(transparent)]
    Similarity(#[from] bitext_similarity::Error),
    /// A pair classifier that does not load.
    #[error(transparent)]
    Classify(#[from] bitext_classify::Error),
    /// A neural model that does not load.
    #[cfg(feature = "neural")]
    #[error(transparent)]
    Neural(#[from] bitext_neural::Error),
    /// What this build lacks: `what` needs the cargo feature `feature`.
    #[error(
        "{what} is not available: this bitext was built without the cargo feature `{feature}` \
         ({why})"
    )]
    Unavailable {
        /// What was asked for.
        what: String,
        /// The feature it needs.
        feature: &'static str,
        /// What the feature brings.
        why: &'static str,
    },
}

/// The result of building a spec.
pub type Result<T> = std::result::Result<T, Error>;

/// Builds the scorer of each batch of (source, target) sentences.
pub type BatchScorers = Box<dyn Fn(&[&str], &[&str]) -> Result<Box<dyn PairScorer>> + Send + Sync>;

/// The sentence encoder of `spec`: a bag of words (its IDF counted over `idf_reference` when the
/// spec names no corpus), a trained neural model, or a pretrained ONNX graph.
///
/// # Errors
/// As the spec's builder; [`Error::Unavailable`] for a kind this build lacks.
pub fn encoder<S: AsRef<str>>(
    spec: &EncoderSpec,
    idf_reference: Option<&[S]>,
) -> Result<Box<dyn SentenceEncoder>> {
    match spec {
        EncoderSpec::Model(m) => neural_encoder(m),
        EncoderSpec::Onnx(o) => onnx_encoder(o),
        _ => Ok(Box::new(spec.build_bow(idf_reference)?)),
    }
}

/// The scorer of each batch of sentence pairs for a spec that scores sentences: the EMD over
/// word vectors (its IDF counted over `reference()`, the caller's own input, unless the spec
/// names reference files), IBM Model 1, Levenshtein, the length ratio, or a trained neural
/// model; each loaded once. Embedding scorers (cosine, margins) score vectors, not sentences:
/// pair them with an encoder ([`encoder_scorers`]) or mine their embeddings.
///
/// # Errors
/// As [`ScorerSpec::check`] and [`ScorerSpec::sentence_scorers`], `reference`'s error, a model
/// that does not load; [`Error::Unavailable`] for a neural model in a build without it.
pub fn batch_scorers<E>(
    spec: &ScorerSpec,
    reference: impl FnOnce() -> std::result::Result<(Vec<String>, Vec<String>), E>,
) -> std::result::Result<BatchScorers, E>
where
    E: From<Error>,
{
    if let ScorerSpec::Model(m) = spec {
        return Ok(neural_scorers(m)?);
    }
    spec.check().map_err(Error::from)?;
    let reference = if spec.needs_reference() {
        Some(reference()?)
    } else {
        None
    };
    let built = spec
        .sentence_scorers(reference.as_ref().map(|(s, t)| (&s[..], &t[..])))
        .map_err(Error::from)?;
    Ok(Box::new(move |src, tgt| Ok(built.build(src, tgt)?)))
}

/// The scorer of each batch for an encoder: both sides encoded, each pair scored by the cosine
/// of its two vectors (`bitext_similarity::Cosines`: a sentence the encoder made a zero row of
/// scores −1, the lowest).
#[must_use]
pub fn encoder_scorers(encoder: Box<dyn SentenceEncoder>) -> BatchScorers {
    Box::new(move |src: &[&str], tgt: &[&str]| {
        Ok(Box::new(bitext_similarity::Cosines::new(
            encoder.encode(Side::Source, src)?,
            encoder.encode(Side::Target, tgt)?,
        )?) as Box<dyn PairScorer>)
    })
}

/// What builds a pair classifier's features that `bitext-classify` cannot build itself: the
/// scorers of [`batch_scorers`] (neural models included; an EMD must name its IDF files) and
/// the encoders of [`encoder`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassifierBackends;

impl bitext_classify::Backends for ClassifierBackends {
    fn scorers(
        &self,
        spec: &ScorerSpec,
    ) -> std::result::Result<bitext_classify::BatchScorers, String> {
        let built = batch_scorers(spec, || {
            Err::<(Vec<String>, Vec<String>), Error>(Error::Mine(bitext_mine::Error::Invalid(
                "a classifier's EMD names its IDF files".into(),
            )))
        })
        .map_err(|e| e.to_string())?;
        Ok(Box::new(move |s, t| built(s, t).map_err(|e| e.to_string())))
    }

    fn encoder(&self, spec: &EncoderSpec) -> std::result::Result<Box<dyn SentenceEncoder>, String> {
        encoder(spec, None::<&[&str]>).map_err(|e| e.to_string())
    }
}

/// The pair classifier saved in `dir` (`bitext train classifier`), its features built here.
///
/// # Errors
/// As `bitext_classify::Classifier::load`.
pub fn classifier(dir: &std::path::Path) -> Result<bitext_classify::Classifier> {
    Ok(bitext_classify::Classifier::load(dir, &ClassifierBackends)?)
}

/// The scorer of each batch for a classifier: its score of each pair, in `[0, 1]`.
#[must_use]
pub fn classifier_scorers(classifier: std::sync::Arc<bitext_classify::Classifier>) -> BatchScorers {
    Box::new(move |src: &[&str], tgt: &[&str]| {
        let own = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect();
        Ok(Box::new(bitext_classify::ClassifierScorer::new(
            std::sync::Arc::clone(&classifier),
            own(src),
            own(tgt),
        )) as Box<dyn PairScorer>)
    })
}

/// The encoders of a sharded run's embed steps, built by [`encoder`] (once per process).
#[must_use]
pub fn shard_encoders() -> bitext_shard::Encoders {
    bitext_shard::Encoders::new(Box::new(|spec| {
        encoder(spec, None::<&[&str]>).map_err(|e| e.to_string())
    }))
}

/// The neural model that `spec` names (a siamese classifier, an autoencoder, an aligner or an
/// MLP over one of them), for what a caller does with one kind: the aligner's word labels,
/// for instance.
///
/// # Errors
/// As `bitext_neural::spec::NeuralModel::load`.
#[cfg(feature = "neural")]
pub fn neural_model(spec: &ModelSpec) -> Result<bitext_neural::spec::NeuralModel> {
    Ok(bitext_neural::spec::NeuralModel::load(spec)?)
}

#[cfg(feature = "neural")]
fn neural_encoder(m: &ModelSpec) -> Result<Box<dyn SentenceEncoder>> {
    Ok(Box::new(neural_model(m)?.into_encoder()))
}

#[cfg(feature = "neural")]
fn neural_scorers(m: &ModelSpec) -> Result<BatchScorers> {
    let model = neural_model(m)?;
    Ok(Box::new(move |src, tgt| Ok(model.scorer(src, tgt)?)))
}

#[cfg(feature = "onnx")]
fn onnx_encoder(o: &OnnxSpec) -> Result<Box<dyn SentenceEncoder>> {
    Ok(Box::new(bitext_onnx::OnnxEncoder::load(o)?))
}

/// The neural model `m` in a build without burn.
#[cfg(not(feature = "neural"))]
fn neural_unavailable<T>(m: &ModelSpec) -> Result<T> {
    Err(Error::Unavailable {
        what: format!("the neural model {}", m.dir.display()),
        feature: "neural",
        why: "the burn models: siamese, autoencoder, aligner, MLP",
    })
}

#[cfg(not(feature = "neural"))]
fn neural_encoder(m: &ModelSpec) -> Result<Box<dyn SentenceEncoder>> {
    neural_unavailable(m)
}

#[cfg(not(feature = "neural"))]
fn neural_scorers(m: &ModelSpec) -> Result<BatchScorers> {
    neural_unavailable(m)
}

/// The ONNX graph `o` in a build without ONNX Runtime.
#[cfg(not(feature = "onnx"))]
fn onnx_encoder(o: &OnnxSpec) -> Result<Box<dyn SentenceEncoder>> {
    Err(Error::Unavailable {
        what: format!("the ONNX graph {}", o.model.display()),
        feature: "onnx",
        why: "pretrained encoders run by ONNX Runtime",
    })
}
