//! The commands' door to `bitext::build`, the one builder of specs: the process settings a
//! neural model wants ([`crate::neural::start_neural_command`]) applied first, then the
//! facade's builder. No command dispatches on a spec's variants itself.

use anyhow::Result;
use bitext_encode::{EncoderSpec, ModelSpec, SentenceEncoder};
use bitext_mine::ScorerSpec;

pub(crate) use bitext::build::{BatchScorers, ClassifierBackends};

/// Tune the process for a neural model when `model` is one (a no-op otherwise, and in a build
/// without the models, whose builder says what is missing).
fn before(model: Option<&ModelSpec>) {
    #[cfg(feature = "neural")]
    if model.is_some() {
        crate::neural::start_neural_command();
    }
    #[cfg(not(feature = "neural"))]
    let _ = model;
}

/// The builder's error, with how to get what this binary lacks.
fn said(e: bitext::build::Error) -> anyhow::Error {
    match e {
        bitext::build::Error::Unavailable { .. } => anyhow::anyhow!(
            "{e}; install the default build, which has it: `cargo install --path crates/cli` \
             (without `--no-default-features`)"
        ),
        other => other.into(),
    }
}

/// The encoder of `spec` (a bag of words counts its IDF over `idf_reference` when its spec
/// names no corpus).
pub(crate) fn encoder<S: AsRef<str>>(
    spec: &EncoderSpec,
    idf_reference: Option<&[S]>,
) -> Result<Box<dyn SentenceEncoder>> {
    before(spec.as_model());
    bitext::build::encoder(spec, idf_reference).map_err(said)
}

/// The pair classifier saved in `dir` (`bitext train classifier`), shared by the batches it
/// scores.
pub(crate) fn classifier(
    dir: &std::path::Path,
) -> Result<std::sync::Arc<bitext_classify::Classifier>> {
    let c = bitext::build::classifier(dir).map_err(said)?;
    before(
        c.description()
            .features
            .iter()
            .find_map(|f| f.neural_model()),
    );
    Ok(std::sync::Arc::new(c))
}

/// The scorer of each batch of sentence pairs for a spec that scores sentences
/// (`bitext::build::batch_scorers`; `reference` is read only when the spec needs it).
pub(crate) fn batch_scorers(
    spec: &ScorerSpec,
    reference: impl FnOnce() -> Result<(Vec<String>, Vec<String>)>,
) -> Result<BatchScorers> {
    before(spec.as_model());
    bitext::build::batch_scorers(spec, || reference().map_err(Wrapped)).map_err(|e| match e {
        Wrapped(e) => e,
    })
}

/// A caller's error passed through the builder unchanged, or the builder's own, said as
/// [`said`] says it.
struct Wrapped(anyhow::Error);

impl From<bitext::build::Error> for Wrapped {
    fn from(e: bitext::build::Error) -> Self {
        Wrapped(said(e))
    }
}

/// The scorer of each batch for an encoder: the cosine of each pair's two vectors, −1 for a
/// zero row (`bitext_similarity::Cosines`).
pub(crate) fn encoder_scorers(encoder: Box<dyn SentenceEncoder>) -> BatchScorers {
    bitext::build::encoder_scorers(encoder)
}

/// The neural model `spec` names.
#[cfg(feature = "neural")]
pub(crate) fn neural_model(spec: &ModelSpec) -> Result<bitext_neural::spec::NeuralModel> {
    before(Some(spec));
    bitext::build::neural_model(spec).map_err(said)
}
