//! `bitext score`: score the aligned sentence pairs of a bicleaner-style TSV and append one
//! score column (higher = more parallel). The input/output handling is shared; each scorer
//! (`--scorer`, or `--model DIR` for a trained neural model) only builds a `PairScorer` over a
//! batch of sentences.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext_core::io::text::{EmptyLines, read_lines};
use bitext_core::io::tsv::{BitextRecord, BitextTsvReader, ScoredTsvWriter};
use bitext_core::io::vec::read_vec;
use bitext_similarity::PairScorer;
use bitext_tokenize::WordTokenizer;
use bitext_transport::EmdScorer;
use bitext_transport::sentence::{Idf, OovPolicy, SentenceConfig, SentenceDistance};
use clap::{Args, ValueEnum};

/// Which scorer computes the score column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScorerKind {
    /// Earth Mover's Distance between TF-IDF-weighted bags of bilingual word embeddings
    /// (Zhang et al. 2016); the score is minus the distance.
    Emd,
    /// A neural model trained by `bitext train` (--model): the siamese classifier's
    /// probability, or an MLP similarity over its encoder's vectors.
    Model,
}

/// Arguments of `bitext score`.
#[derive(Debug, Args)]
pub(crate) struct ScoreArgs {
    /// The scorer (`model` when --model is given).
    #[arg(long, value_enum, required_unless_present = "model")]
    scorer: Option<ScorerKind>,
    #[command(flatten)]
    io: IoArgs,
    #[command(flatten)]
    emd: EmdArgs,
    #[command(flatten)]
    neural: NeuralArgs,
}

/// Options of `--scorer model`.
#[derive(Debug, Args)]
// Parsed in every build, so that the flags do not depend on cargo features; read only with the
// feature `neural`.
#[cfg_attr(not(feature = "neural"), allow(dead_code))]
pub(crate) struct NeuralArgs {
    /// Model directory written by `bitext train` (siamese classifier or MLP similarity).
    #[arg(long, value_name = "DIR", required_if_eq("scorer", "model"))]
    #[cfg_attr(
        not(feature = "neural"),
        arg(help = "Neural model directory (not in this build: needs the cargo feature `neural`)")
    )]
    model: Option<PathBuf>,
    /// Backend of the neural model (flex, ndarray, wgpu; the last two need cargo features).
    #[arg(long, default_value = "flex")]
    backend: String,
}

#[cfg(feature = "neural")]
struct NeuralFactory(crate::cmd::neural::NeuralModel);

#[cfg(feature = "neural")]
impl ScorerFactory for NeuralFactory {
    fn build(&self, src: &[&str], tgt: &[&str]) -> Result<Box<dyn PairScorer>> {
        self.0.scorer(src, tgt)
    }
}

/// Input and output, common to every scorer.
#[derive(Debug, Args)]
pub(crate) struct IoArgs {
    /// Input TSV: any columns, two of which hold the source and target sentences.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Output TSV: every input line unchanged, with the score appended as a last column.
    #[arg(long, value_name = "FILE")]
    output: PathBuf,
    /// 0-based column of the source sentence.
    #[arg(long, default_value_t = 0, value_name = "COL")]
    src_col: usize,
    /// 0-based column of the target sentence.
    #[arg(long, default_value_t = 1, value_name = "COL")]
    tgt_col: usize,
    /// Write scores with this many decimals (default: shortest exact form).
    #[arg(long, value_name = "N")]
    decimals: Option<usize>,
    /// Pairs read and scored at a time.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    batch: usize,
}

/// Options of `--scorer emd`.
#[derive(Debug, Args)]
pub(crate) struct EmdArgs {
    /// Source-language word vectors (fastText `.vec`), in one space with the target vectors.
    #[arg(long, value_name = "FILE", required_if_eq("scorer", "emd"))]
    src_vec: Option<PathBuf>,
    /// Target-language word vectors.
    #[arg(long, value_name = "FILE", required_if_eq("scorer", "emd"))]
    tgt_vec: Option<PathBuf>,
    /// Source reference corpus for the IDF (one sentence per line); default: the input's
    /// source column.
    #[arg(long, value_name = "FILE", requires = "tgt_idf")]
    src_idf: Option<PathBuf>,
    /// Target reference corpus for the IDF; default: the input's target column.
    #[arg(long, value_name = "FILE", requires = "src_idf")]
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

/// The OOV policy on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Oov {
    /// Drop unknown words.
    Drop,
    /// Keep unknown words; identical strings match for free.
    Match,
}

/// Builds a scorer over a batch of (source, target) sentences.
trait ScorerFactory {
    fn build(&self, src: &[&str], tgt: &[&str]) -> Result<Box<dyn PairScorer>>;
}

struct EmdFactory {
    distance: SentenceDistance,
    tokenizer: WordTokenizer,
}

impl ScorerFactory for EmdFactory {
    fn build(&self, src: &[&str], tgt: &[&str]) -> Result<Box<dyn PairScorer>> {
        let tok = |s: &[&str]| -> Vec<Vec<String>> {
            s.iter().map(|x| self.tokenizer.tokenize(x)).collect()
        };
        Ok(Box::new(EmdScorer::new(
            self.distance.clone(),
            &tok(src),
            &tok(tgt),
        )?))
    }
}

fn emd_factory(io: &IoArgs, a: &EmdArgs) -> Result<Box<dyn ScorerFactory>> {
    let (Some(sv), Some(tv)) = (&a.src_vec, &a.tgt_vec) else {
        bail!("--scorer emd needs --src-vec and --tgt-vec");
    };
    let tokenizer = WordTokenizer::builder().lowercase(true).build();
    let config = SentenceConfig {
        use_idf: !a.no_idf,
        oov: match a.oov {
            Oov::Match => OovPolicy::MatchIdentical,
            Oov::Drop => OovPolicy::Drop,
        },
        oov_cost: a.oov_cost,
        solver: match &a.solver {
            Some(j) => serde_json::from_str(j).context("--solver is not a valid solver spec")?,
            None => Default::default(),
        },
        ..SentenceConfig::default()
    };
    config.check()?;
    let src = Arc::new(read_vec(sv, None)?);
    let tgt = Arc::new(read_vec(tv, None)?);
    let plain = SentenceDistance::new(src.clone(), tgt.clone(), None, config.clone())?;
    let idf = if a.no_idf {
        None
    } else {
        let count = |lines: Vec<String>| {
            Idf::from_documents(lines.iter().map(|l| plain.words(&tokenizer.tokenize(l))))
        };
        Some(match (&a.src_idf, &a.tgt_idf) {
            (Some(s), Some(t)) => (
                count(read_lines(s, EmptyLines::Keep)?),
                count(read_lines(t, EmptyLines::Keep)?),
            ),
            _ => {
                // Two passes: the input's own columns are the reference corpus.
                let (mut s, mut t) = (Vec::new(), Vec::new());
                for rec in BitextTsvReader::open(&io.input, io.src_col, io.tgt_col)? {
                    let rec = rec?;
                    s.push(rec.src);
                    t.push(rec.tgt);
                }
                (count(s), count(t))
            }
        })
    };
    let distance = SentenceDistance::new(src, tgt, idf, config)?;
    Ok(Box::new(EmdFactory {
        distance,
        tokenizer,
    }))
}

/// The scorer of `--model DIR`.
#[cfg(feature = "neural")]
fn neural_factory(a: &NeuralArgs) -> Result<Box<dyn ScorerFactory>> {
    crate::cmd::neural::start_neural_command();
    let dir = a
        .model
        .as_deref()
        .context("--scorer model needs --model DIR")?;
    let backend = bitext_neural::backend::BackendSpec::parse(&a.backend)?;
    Ok(Box::new(NeuralFactory(crate::cmd::neural::load(
        dir, backend,
    )?)))
}

/// `--model` in a binary without the neural models: the error that says how to get them.
#[cfg(not(feature = "neural"))]
fn neural_factory(_: &NeuralArgs) -> Result<Box<dyn ScorerFactory>> {
    Err(crate::cmd::neural_unavailable("`bitext score --model`"))
}

pub(crate) fn run(a: &ScoreArgs) -> Result<()> {
    if a.io.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let factory: Box<dyn ScorerFactory> = match a.scorer.unwrap_or(ScorerKind::Model) {
        ScorerKind::Emd => emd_factory(&a.io, &a.emd)?,
        ScorerKind::Model => neural_factory(&a.neural)?,
    };
    let start = Instant::now();
    let mut reader = BitextTsvReader::open(&a.io.input, a.io.src_col, a.io.tgt_col)?;
    let mut writer = ScoredTsvWriter::create(&a.io.output)?;
    if let Some(d) = a.io.decimals {
        writer = writer.decimals(d);
    }
    let mut batch: Vec<BitextRecord> = Vec::with_capacity(a.io.batch);
    let mut total = 0usize;
    loop {
        batch.clear();
        while batch.len() < a.io.batch {
            match reader.next_record()? {
                Some(r) => batch.push(r),
                None => break,
            }
        }
        if batch.is_empty() {
            break;
        }
        let src: Vec<&str> = batch.iter().map(|r| r.src.as_str()).collect();
        let tgt: Vec<&str> = batch.iter().map(|r| r.tgt.as_str()).collect();
        let lines = || {
            format!(
                "{}: lines {}–{}",
                a.io.input.display(),
                batch[0].line,
                batch[batch.len() - 1].line
            )
        };
        let scorer = factory.build(&src, &tgt).with_context(lines)?;
        let pairs: Vec<(usize, usize)> = (0..batch.len()).map(|i| (i, i)).collect();
        let scores = scorer.score(&pairs).with_context(lines)?;
        for (rec, s) in batch.iter().zip(scores) {
            writer.write(&rec.raw, s)?;
        }
        total += batch.len();
    }
    if total == 0 {
        bail!("{}: no sentence pairs", a.io.input.display());
    }
    writer.commit()?;
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "scored {total} pairs in {secs:.1} s ({:.0} pairs/s)",
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}
