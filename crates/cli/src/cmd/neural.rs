//! Neural model directories in the CLI: loading a trained model (`bitext train` writes them)
//! as a sentence encoder (`bitext embed --model`) or as a scorer of aligned pairs (`bitext
//! score --model`), and reading sentence inputs.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_core::io::text::{EmptyLines, read_parallel};
use bitext_core::io::tsv::BitextTsvReader;
use bitext_encode::{SentenceEncoder, Side};
use bitext_neural::backend::BackendSpec;
use bitext_neural::mlp::{Mlp, MlpScorer, load_mlp};
use bitext_neural::siamese::{SiameseEncoder, SiameseScorer, model_kind};
use bitext_similarity::PairScorer;
use clap::ValueEnum;

/// A side on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SideArg {
    /// The source language (the first language of the training pairs).
    Source,
    /// The target language.
    Target,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::Source => Side::Source,
            SideArg::Target => Side::Target,
        }
    }
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
