//! `bitext score`: score the aligned sentence pairs of a bicleaner-style TSV and append one
//! score column (higher = more parallel). The input/output handling is shared; each scorer
//! (`--scorer`, or `--model DIR` for a trained neural model) is a `bitext_mine::ScorerSpec`
//! made from the flags, which builds a `PairScorer` over each batch of sentences.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext_core::io::tsv::{BitextRecord, BitextTsvReader, ScoredTsvWriter};
use bitext_encode::ModelSpec;
use bitext_mine::{EmdSpec, ScorerSpec};
use bitext_similarity::PairScorer;
use bitext_transport::sentence::{OovPolicy, SentenceConfig};
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
    #[arg(long, value_enum, required_unless_present_any = ["model", "scorer_spec"])]
    scorer: Option<ScorerKind>,
    /// The scorer as a spec instead of --scorer/--model and their options: `model:DIR`, or
    /// JSON (`{"type": "emd", "src_vectors": FILE, "tgt_vectors": FILE, "distance": {"oov":
    /// "match_identical", …}}`, `{"type": "model", "dir": DIR, "backend": "flex"}`).
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with_all = [
            "scorer", "model", "src_vec", "tgt_vec", "src_idf", "tgt_idf", "no_idf", "oov",
            "oov_cost", "solver"
        ]
    )]
    scorer_spec: Option<ScorerSpec>,
    #[command(flatten)]
    io: IoArgs,
    #[command(flatten)]
    emd: EmdArgs,
    #[command(flatten)]
    neural: NeuralArgs,
}

/// Options of `--scorer model`.
#[derive(Debug, Args)]
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

/// Builds the scorer of each batch of (source, target) sentences.
type Scorers = Box<dyn Fn(&[&str], &[&str]) -> Result<Box<dyn PairScorer>>>;

/// The scorer spec of the flags.
fn scorer_spec(a: &ScoreArgs) -> Result<ScorerSpec> {
    if let Some(spec) = &a.scorer_spec {
        return Ok(spec.clone());
    }
    Ok(match a.scorer.unwrap_or(ScorerKind::Model) {
        ScorerKind::Emd => {
            let e = &a.emd;
            let (Some(sv), Some(tv)) = (&e.src_vec, &e.tgt_vec) else {
                bail!("--scorer emd needs --src-vec and --tgt-vec");
            };
            let distance = SentenceConfig {
                use_idf: !e.no_idf,
                oov: match e.oov {
                    Oov::Match => OovPolicy::MatchIdentical,
                    Oov::Drop => OovPolicy::Drop,
                },
                oov_cost: e.oov_cost,
                solver: match &e.solver {
                    Some(j) => {
                        serde_json::from_str(j).context("--solver is not a valid solver spec")?
                    }
                    None => Default::default(),
                },
                ..SentenceConfig::default()
            };
            ScorerSpec::Emd(EmdSpec {
                src_idf: e.src_idf.clone(),
                tgt_idf: e.tgt_idf.clone(),
                distance,
                ..EmdSpec::new(sv, tv)
            })
        }
        ScorerKind::Model => ScorerSpec::Model(ModelSpec {
            dir: a
                .neural
                .model
                .clone()
                .context("--scorer model needs --model DIR")?,
            backend: a.neural.backend.clone(),
        }),
    })
}

/// The builder of each batch's scorer: the EMD's word vectors and IDF (counted over the
/// input's own columns unless --src-idf/--tgt-idf name reference files) read once, or the
/// neural model loaded once.
fn scorers(spec: &ScorerSpec, io: &IoArgs) -> Result<Scorers> {
    if let ScorerSpec::Model(m) = spec {
        return neural_scorers(m);
    }
    spec.check()?;
    let reference = if spec.needs_reference() {
        // Two passes: the input's own columns are the reference corpus.
        let (mut s, mut t) = (Vec::new(), Vec::new());
        for rec in BitextTsvReader::open(&io.input, io.src_col, io.tgt_col)? {
            let rec = rec?;
            s.push(rec.src);
            t.push(rec.tgt);
        }
        Some((s, t))
    } else {
        None
    };
    let emd = spec.sentence_scorers(reference.as_ref().map(|(s, t)| (&s[..], &t[..])))?;
    Ok(Box::new(move |src, tgt| {
        Ok(Box::new(emd.build(src, tgt)?) as Box<dyn PairScorer>)
    }))
}

/// The scorers of a trained neural model.
#[cfg(feature = "neural")]
fn neural_scorers(m: &ModelSpec) -> Result<Scorers> {
    crate::cmd::neural::start_neural_command();
    let model = bitext_neural::spec::NeuralModel::load(m)?;
    Ok(Box::new(move |src, tgt| Ok(model.scorer(src, tgt)?)))
}

/// `--model` in a binary without the neural models: the error that says how to get them.
#[cfg(not(feature = "neural"))]
fn neural_scorers(_: &ModelSpec) -> Result<Scorers> {
    Err(crate::cmd::neural_unavailable("`bitext score --model`"))
}

pub(crate) fn run(a: &ScoreArgs) -> Result<()> {
    if a.io.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let build = scorers(&scorer_spec(a)?, &a.io)?;
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
        let scorer = build(&src, &tgt).with_context(lines)?;
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
