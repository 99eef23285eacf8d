//! The argument groups of the scorers of sentence pairs, shared by `score`, `filter` and
//! `extract`: the EMD's options, a model directory (neural or IBM-1), the length ratio's unit.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext_encode::ModelSpec;
use bitext_lexical::LengthUnit;
use bitext_mine::{EmdSpec, ScorerSpec};
use bitext_transport::sentence::{OovPolicy, SentenceConfig};
use clap::{Args, ValueEnum};

/// What the length ratio counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LengthUnitArg {
    /// Characters (Unicode scalar values).
    Chars,
    /// Word tokens (punctuation included).
    Tokens,
}

impl LengthUnitArg {
    pub(crate) fn unit(self) -> LengthUnit {
        match self {
            LengthUnitArg::Chars => LengthUnit::Chars,
            LengthUnitArg::Tokens => LengthUnit::Tokens,
        }
    }
}

/// Options of `--scorer model` and `--scorer ibm1`.
#[derive(Debug, Args)]
pub(crate) struct ModelArgs {
    /// Model directory written by `bitext train`: a neural model (siamese classifier,
    /// autoencoder, aligner or MLP similarity; needs the cargo feature `neural`) or IBM Model 1
    /// (`--scorer ibm1`).
    #[arg(long, value_name = "DIR", required_if_eq_any([("scorer", "model"), ("scorer", "ibm1")]))]
    pub(crate) model: Option<PathBuf>,
    /// Backend of the neural model (flex, ndarray, wgpu, cuda; the last three need cargo features).
    #[arg(long, value_enum, default_value_t = crate::flags::Backend::Flex)]
    pub(crate) backend: crate::flags::Backend,
}

impl ModelArgs {
    /// The spec of `--scorer model` or `--scorer ibm1` (`ibm1`) with --model.
    pub(crate) fn spec(&self, ibm1: bool) -> Result<ScorerSpec> {
        let name = if ibm1 { "ibm1" } else { "model" };
        let dir = self
            .model
            .clone()
            .with_context(|| format!("--scorer {name} needs --model DIR"))?;
        Ok(if ibm1 {
            ScorerSpec::Ibm1 { model: dir }
        } else {
            ScorerSpec::Model(ModelSpec {
                backend: self.backend.spec(),
                ..ModelSpec::new(dir)
            })
        })
    }
}

/// Options of `--scorer emd`.
#[derive(Debug, Args)]
pub(crate) struct EmdArgs {
    /// Source-language word vectors (fastText `.vec`), in one space with the target vectors.
    #[arg(long, value_name = "FILE", required_if_eq("scorer", "emd"))]
    src_vec: Option<PathBuf>,
    /// Target-language word vectors.
    #[arg(
        long,
        visible_alias = "trg-vec",
        value_name = "FILE",
        required_if_eq("scorer", "emd")
    )]
    tgt_vec: Option<PathBuf>,
    /// Source reference corpus for the IDF (one sentence per line); default: the input's
    /// source column.
    #[arg(long, value_name = "FILE", requires = "tgt_idf")]
    src_idf: Option<PathBuf>,
    /// Target reference corpus for the IDF; default: the input's target column.
    #[arg(
        long,
        visible_alias = "trg-idf",
        value_name = "FILE",
        requires = "src_idf"
    )]
    tgt_idf: Option<PathBuf>,
    /// Weight words by term frequency alone (no IDF).
    #[arg(long)]
    no_idf: bool,
    /// Words without a vector: `drop` them, or `match` (keep them; free to match the
    /// identical word on the other side, `--oov-cost` to any other).
    #[arg(long, value_enum, default_value_t = Oov::Drop)]
    oov: Oov,
    /// With `--oov match`: cost of moving mass from an unknown word to a different word; also
    /// the distance of a sentence with no known word.
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "COST",
        allow_negative_numbers = true
    )]
    oov_cost: f64,
    /// Transport solver as JSON (default: the exact network simplex).
    #[arg(long, value_name = "JSON")]
    solver: Option<String>,
}

impl EmdArgs {
    /// The spec of `--scorer emd` with these options.
    pub(crate) fn spec(&self) -> Result<ScorerSpec> {
        let (Some(sv), Some(tv)) = (&self.src_vec, &self.tgt_vec) else {
            bail!("--scorer emd needs --src-vec and --tgt-vec");
        };
        let distance = SentenceConfig {
            use_idf: !self.no_idf,
            oov: match self.oov {
                Oov::Match => OovPolicy::MatchIdentical,
                Oov::Drop => OovPolicy::Drop,
            },
            oov_cost: self.oov_cost,
            solver: match &self.solver {
                Some(j) => {
                    serde_json::from_str(j).context("--solver is not a valid solver spec")?
                }
                None => Default::default(),
            },
            ..SentenceConfig::default()
        };
        Ok(ScorerSpec::Emd(EmdSpec {
            src_idf: self.src_idf.clone(),
            tgt_idf: self.tgt_idf.clone(),
            distance,
            ..EmdSpec::new(sv, tv)
        }))
    }
}

/// The OOV policy on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Oov {
    /// Drop unknown words.
    Drop,
    /// Keep unknown words; identical strings match for free.
    Match,
}
