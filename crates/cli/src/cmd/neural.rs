//! Neural model directories in the CLI: loading a trained model (`bitext train` writes them)
//! as a sentence encoder (`bitext embed --model`) or as a scorer of aligned pairs (`bitext
//! score --model`), reading sentence inputs, and the process settings of neural commands.
//!
//! Compiled only with the cargo feature `neural` (on by default); without it the neural
//! commands fail with the error of `neural_unavailable` in `cmd/mod.rs`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_core::io::text::{EmptyLines, read_parallel};
use bitext_core::io::tsv::BitextTsvReader;
use bitext_encode::{SentenceEncoder, Side};
use bitext_neural::backend::BackendSpec;
use bitext_neural::mlp::{Mlp, MlpScorer, load_mlp};
use bitext_neural::siamese::{SiameseEncoder, SiameseScorer, model_kind};
use bitext_similarity::PairScorer;

/// Process-wide settings of a command that trains or runs a neural model: call it first thing
/// in that command, before threads start and before heavy allocation.
///
/// It makes glibc reuse large freed blocks (`bitext_neural::backend::tune_allocator`): about
/// 20% faster training, but the process keeps its peak heap until it exits, which is why the
/// commands that run no neural model (mine, filter, tokenize, emd, eval, bag-of-words embed)
/// never call it.
pub(crate) fn start_neural_command() {
    bitext_neural::backend::tune_allocator();
}

/// A trained neural model.
pub(crate) enum NeuralModel {
    /// The siamese classifier: encodes sentences and classifies pairs.
    Siamese(Box<SiameseEncoder>),
    /// An MLP similarity over the vectors of an encoder.
    Mlp {
        /// The network.
        mlp: Box<Mlp>,
        /// The encoder it was trained on.
        encoder: Box<SiameseEncoder>,
    },
}

/// The encoder directory an MLP names: absolute, or relative to the MLP's directory.
fn encoder_dir(mlp_dir: &Path, named: Option<&str>) -> Result<PathBuf> {
    let named = named.with_context(|| {
        format!(
            "{}: the MLP names no encoder (field \"encoder\" of model.json)",
            mlp_dir.display()
        )
    })?;
    let p = PathBuf::from(named);
    Ok(if p.is_absolute() { p } else { mlp_dir.join(p) })
}

/// Load the model saved in `dir`.
pub(crate) fn load(dir: &Path, backend: BackendSpec) -> Result<NeuralModel> {
    match model_kind(dir)?.as_str() {
        "siamese" => Ok(NeuralModel::Siamese(Box::new(SiameseEncoder::load(
            dir, backend,
        )?))),
        "mlp" => {
            let (mlp, desc) = load_mlp(dir, backend)?;
            let edir = encoder_dir(dir, desc.encoder.as_deref())?;
            let encoder = SiameseEncoder::load(&edir, backend)
                .with_context(|| format!("loading the MLP's encoder {}", edir.display()))?;
            if encoder.dim() != mlp.dim() {
                bail!(
                    "{}: the MLP compares {}-dimensional vectors but its encoder {} makes {}",
                    dir.display(),
                    mlp.dim(),
                    edir.display(),
                    encoder.dim()
                );
            }
            Ok(NeuralModel::Mlp {
                mlp: Box::new(mlp),
                encoder: Box::new(encoder),
            })
        }
        other => bail!("{}: unknown model kind {other:?}", dir.display()),
    }
}

impl NeuralModel {
    /// The sentence encoder (the MLP's encoder for an MLP).
    pub(crate) fn encoder(&self) -> &SiameseEncoder {
        match self {
            NeuralModel::Siamese(e) | NeuralModel::Mlp { encoder: e, .. } => e,
        }
    }

    /// A scorer over `src × tgt`: the probability that a pair translates each other.
    pub(crate) fn scorer(&self, src: &[&str], tgt: &[&str]) -> Result<Box<dyn PairScorer>> {
        let enc = self.encoder();
        let (a, b) = (
            enc.vectors(Side::Source, src)?,
            enc.vectors(Side::Target, tgt)?,
        );
        Ok(match self {
            NeuralModel::Siamese(e) => Box::new(SiameseScorer::from_vectors(e.model(), a, b)),
            NeuralModel::Mlp { mlp, .. } => Box::new(MlpScorer::new(mlp, a, b)?),
        })
    }
}

/// Parallel sentences from a TSV (two columns) or two line-parallel files.
pub(crate) fn read_pairs(
    tsv: Option<&Path>,
    cols: (usize, usize),
    files: (Option<&Path>, Option<&Path>),
) -> Result<(Vec<String>, Vec<String>)> {
    match (tsv, files) {
        (Some(t), (None, None)) => {
            let (mut s, mut g) = (Vec::new(), Vec::new());
            for rec in BitextTsvReader::open(t, cols.0, cols.1)? {
                let r = rec?;
                s.push(r.src);
                g.push(r.tgt);
            }
            Ok((s, g))
        }
        (None, (Some(a), Some(b))) => Ok(read_parallel(a, b, EmptyLines::Reject)?),
        _ => bail!("give either a TSV or both line-parallel files"),
    }
}
