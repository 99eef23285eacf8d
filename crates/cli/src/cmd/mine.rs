//! `bitext mine`: margin-based mining of parallel sentences from two embedding matrices, with
//! LASER's `mine_bitexts.py` options (`--margin`, `-k`, `--retrieval`, `--threshold`, `--mode
//! {mine,score,search}`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext_core::io::AtomicFile;
use bitext_mine::{MineSpec, Miner, Retrieval, ScoredPair, Threshold};
use bitext_similarity::{MarginFunction, MarginSpec, PairScorer};
use clap::{Args, ValueEnum};

use crate::index::SearchArgs;
use bitext_eval::calibration::Calibration;

use crate::input::{CalibrationArgs, EmbeddingArgs, Labels, TextFormat, sentences_for};
use crate::rows::{RowOptions, Rows, Unify};

/// What `bitext mine` does with the neighbourhoods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Mode {
    /// Mine translation pairs (retrieval over both directions' candidates).
    Mine,
    /// Score the aligned pairs (row i with row i), in input order.
    Score,
    /// Retrieve the best target of every source and print the 1-NN error (row i ↔ row i).
    Search,
}

/// LASER's margin names (and CSLS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MarginArg {
    /// Cosine of the candidate.
    Absolute,
    /// Cosine minus the mean neighbourhood similarity.
    Distance,
    /// Cosine over the mean neighbourhood similarity.
    Ratio,
    /// CSLS: twice the distance margin.
    Csls,
}

/// LASER's retrieval names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum RetrievalArg {
    /// Each source with its best target.
    Fwd,
    /// Each target with its best source.
    Bwd,
    /// Pairs best in both directions.
    Intersect,
    /// Both directions' pairs, best first, greedy one-to-one.
    Max,
}

/// Arguments of `bitext mine`.
#[derive(Debug, Args)]
pub(crate) struct MineArgs {
    #[command(flatten)]
    embeddings: EmbeddingArgs,
    /// Source sentences (BUCC `id<TAB>sentence` or plain text, one per embedding row): output
    /// names sources by BUCC id or by sentence instead of by row number.
    #[arg(long, value_name = "FILE")]
    src_text: Option<PathBuf>,
    /// Target sentences, as --src-text.
    #[arg(long = "tgt-text", visible_alias = "trg-text", value_name = "FILE")]
    trg_text: Option<PathBuf>,
    /// Layout of --src-text/--tgt-text (auto: BUCC when the first line holds a tab).
    #[arg(long, value_enum, default_value_t = TextFormat::Auto)]
    text_format: TextFormat,
    /// Margin function.
    #[arg(long, value_enum, default_value_t = MarginArg::Ratio)]
    margin: MarginArg,
    /// Neighbours of each source sentence (overrides -k).
    #[arg(long, value_name = "K")]
    src_k: Option<usize>,
    /// Neighbours of each target sentence (overrides -k).
    #[arg(long = "tgt-k", visible_alias = "trg-k", value_name = "K")]
    trg_k: Option<usize>,
    /// Candidate retrieval (mode mine).
    #[arg(long, value_enum, default_value_t = RetrievalArg::Max)]
    retrieval: RetrievalArg,
    /// Write only pairs with score > X (LASER applies its default of 0 in `max` retrieval
    /// only; bitext applies a threshold in every retrieval and has none by default).
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    threshold: Option<f64>,
    /// Keep at most the N best pairs (mode mine).
    #[arg(long, value_name = "N")]
    top_n: Option<usize>,
    /// Make fwd/bwd output one-to-one, greedily by score (max and intersect already are).
    #[arg(long)]
    one_to_one: bool,
    /// What to do.
    #[arg(long, value_enum, default_value_t = Mode::Mine)]
    mode: Mode,
    /// Write scores with this many decimals (default: the shortest exact form).
    #[arg(long, value_name = "N")]
    decimals: Option<usize>,
    /// Output file (default: standard output). Lines are `score<TAB>src<TAB>tgt`, with the
    /// calibrated probability after the score when --calibration is given.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    search: SearchArgs,
    /// Leave all-zero rows (`bitext embed --zero-unknown`: sentences without a known word) out
    /// of the candidates instead of refusing the file; a notice says how many and which. In
    /// `--mode score`, a pair with a zero row on either side is left out.
    #[arg(long)]
    skip_zero_rows: bool,
    /// Mine each distinct sentence once (LASER's --unify; needs --src-text and --tgt-text):
    /// repeated sentences are left out of the search, and each mined pair is written at the
    /// `first` occurrence of its sentences, or for `all` combinations of their occurrences.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "first", value_name = "HOW")]
    unify: Option<Unify>,
    #[command(flatten)]
    calibration: CalibrationArgs,
    /// No progress bars.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub(crate) fn run(a: &MineArgs) -> Result<()> {
    let spec = margin_spec(a);
    spec.check()?;
    let index = a.search.spec()?;
    if let Some(t) = a.threshold.filter(|t| !t.is_finite()) {
        bail!("--threshold must be a finite number, got {t}");
    }
    let (src, trg) = a.embeddings.open()?;
    let src_text = sentences_for(a.src_text.as_deref(), a.text_format, &src)?;
    let trg_text = sentences_for(a.trg_text.as_deref(), a.text_format, &trg)?;
    let options = RowOptions {
        skip_zero_rows: a.skip_zero_rows,
        unify: a.unify,
        aligned: a.mode == Mode::Score,
    };
    let kept = Rows::new(
        &options,
        (&src, &trg),
        (src_text.as_ref(), trg_text.as_ref()),
    )?;
    let (sv, tv) = kept.views(&src, &trg);
    let (src_labels, trg_labels) = (Labels::of(src_text), Labels::of(trg_text));
    if a.mode == Mode::Score && sv.len() != tv.len() {
        bail!(
            "--mode score scores aligned pairs, but {} has {} rows and {} has {}",
            src.path().display(),
            sv.len(),
            trg.path().display(),
            tv.len()
        );
    }
    let mut miner = Miner::new(spec)
        .retrieval(retrieval(a.retrieval))
        .one_to_one(a.one_to_one);
    if let Some(value) = a.threshold {
        miner = miner.threshold(Threshold::Above { value });
    }
    if let Some(n) = a.top_n {
        miner = miner.top_n(n);
    }
    let spec = MineSpec::new(miner).index(index);
    let hoods = crate::index::neighbourhoods(&spec, sv, tv, a.quiet).with_context(|| {
        format!(
            "mining {} against {}",
            src.path().display(),
            trg.path().display()
        )
    })?;
    let (cal, min) = a.calibration.load()?;
    let out = Output {
        src: &src_labels,
        trg: &trg_labels,
        decimals: a.decimals,
        calibration: cal.as_ref(),
    };
    let at_least = |mut pairs: Vec<ScoredPair>| {
        if let Some(m) = min {
            pairs.retain(|p| p.score >= m);
        }
        pairs
    };
    match a.mode {
        Mode::Mine => {
            let pairs = at_least(kept.expand(hoods.pairs()?));
            eprintln!("mined {} pairs", pairs.len());
            out.write(a.output.as_ref(), &pairs)
        }
        Mode::Score => {
            let scorer = hoods.scorer()?;
            let pairs: Vec<(usize, usize)> = (0..sv.len()).map(|i| (i, i)).collect();
            let scores = scorer.score(&pairs)?;
            let mut scored: Vec<ScoredPair> = pairs
                .iter()
                .zip(scores)
                .map(|(&(i, j), s)| kept.original(ScoredPair::new(s, i, j)))
                .collect();
            if let Some(value) = a.threshold {
                scored.retain(|p| p.score > value);
            }
            out.write(a.output.as_ref(), &at_least(scored))
        }
        Mode::Search => {
            let (fwd, _) = hoods.candidates()?;
            let best: Vec<ScoredPair> = fwd
                .best()
                .into_iter()
                .enumerate()
                .map(|(i, (j, s))| ScoredPair::new(s, i, j))
                .collect();
            let best = kept.expand(best);
            if src.view().len() == trg.view().len() {
                // Rows i and i are translations (left-out rows are not counted).
                let err = best.iter().filter(|p| p.src != p.tgt).count();
                println!(
                    " - errors: {err}={:.2}%",
                    100.0 * err as f64 / best.len() as f64
                );
            } else {
                println!(
                    " - no 1-NN error: the sides differ in size ({} and {})",
                    sv.len(),
                    tv.len()
                );
            }
            out.write(a.output.as_ref(), &best)
        }
    }
}

fn margin_spec(a: &MineArgs) -> MarginSpec {
    let f = match a.margin {
        MarginArg::Absolute => MarginFunction::Absolute,
        MarginArg::Distance => MarginFunction::Distance,
        MarginArg::Ratio => MarginFunction::Ratio,
        MarginArg::Csls => MarginFunction::Csls,
    };
    MarginSpec::with_k(
        f,
        a.src_k.unwrap_or(a.search.k),
        a.trg_k.unwrap_or(a.search.k),
    )
}

fn retrieval(r: RetrievalArg) -> Retrieval {
    match r {
        RetrievalArg::Fwd => Retrieval::Forward,
        RetrievalArg::Bwd => Retrieval::Backward,
        RetrievalArg::Intersect => Retrieval::Intersection,
        RetrievalArg::Max => Retrieval::Max,
    }
}

/// Writes `score<TAB>src<TAB>tgt` lines (`score<TAB>probability<TAB>src<TAB>tgt` with a
/// calibration).
pub(crate) struct Output<'a> {
    pub(crate) src: &'a Labels,
    pub(crate) trg: &'a Labels,
    pub(crate) decimals: Option<usize>,
    pub(crate) calibration: Option<&'a Calibration>,
}

impl Output<'_> {
    pub(crate) fn write(&self, path: Option<&PathBuf>, pairs: &[ScoredPair]) -> Result<()> {
        let mut line = String::new();
        let mut emit = |w: &mut dyn Write, p: &ScoredPair| -> std::io::Result<()> {
            use std::fmt::Write as _;
            line.clear();
            let _ = match self.decimals {
                Some(d) => write!(line, "{:.d$}", p.score),
                None => write!(line, "{}", p.score),
            };
            if let Some(c) = self.calibration {
                let prob = c.probability(p.score);
                let _ = match self.decimals {
                    Some(d) => write!(line, "\t{prob:.d$}"),
                    None => write!(line, "\t{prob}"),
                };
            }
            for label in [self.src.get(p.src), self.trg.get(p.tgt)] {
                if label.contains(['\t', '\n', '\r']) {
                    return Err(std::io::Error::other(format!(
                        "sentence {label:?} holds a tab or line break and cannot be written \
                         to a TSV field"
                    )));
                }
                line.push('\t');
                line.push_str(&label);
            }
            line.push('\n');
            w.write_all(line.as_bytes())
        };
        match path {
            Some(p) => {
                let mut f = AtomicFile::create(p)?;
                for pair in pairs {
                    emit(&mut f, pair).with_context(|| format!("writing {}", p.display()))?;
                }
                f.commit()?;
            }
            None => {
                let stdout = std::io::stdout();
                let mut w = std::io::BufWriter::new(stdout.lock());
                for pair in pairs {
                    emit(&mut w, pair)?;
                }
                w.flush()?;
            }
        }
        Ok(())
    }
}
