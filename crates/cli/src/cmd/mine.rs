//! `bitext mine`: margin-based mining of parallel sentences from two embedding matrices, with
//! LASER's `mine_bitexts.py` options (`--margin`, `-k`, `--retrieval`, `--threshold`, `--mode
//! {mine,score,search}`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use bitext_mine::{MineSpec, Miner, Retrieval, ScoredPair, Threshold};
use bitext_similarity::{MarginFunction, MarginSpec, PairScorer};
use clap::{Args, ValueEnum};

use crate::index::SearchArgs;
use bitext_eval::calibration::Calibration;

use bitext_shard::Format;

use crate::input::{
    CalibrationArgs, EmbeddingArgs, Labels, Sentences, TextFormat, progress_bar, sentences_for,
    sentences_for_rows,
};
use crate::rows::{RowOptions, Rows, Unify};

mod sharded;
use sharded::run_sharded;

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

/// What `--bad-lines` says in `bitext mine --help`.
const BAD_LINES: &str = "A line of --src-text or --tgt-text that cannot be read (not UTF-8, \
    empty; BUCC: not `id<TAB>sentence`, an empty id, a duplicate id): `error` stops, naming the \
    file, line and reason; `skip` (with --encoder only) leaves it out of both the embedding and \
    the output's names, writes it to --rejects (each reason naming its file) and counts it on \
    standard error. `skip` is refused with embeddings made elsewhere (their rows follow every \
    line), with --mode score (row i pairs with row i: a line left out of one side would pair the \
    rest wrongly) and with --shards (the plan's steps read the text themselves)";

/// Arguments of `bitext mine`.
#[derive(Debug, Clone, Args)]
#[command(mut_arg(crate::flags::BadLinesArgs::HELP_ID, |a| a.help(BAD_LINES)))]
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
    /// Raw text to pairs in one command: embed --src-text and --tgt-text with this encoder
    /// (`bow:FILE`, `model:DIR`, `onnx:FILE` or a JSON spec, as `bitext embed --encoder`) into
    /// --src-embeddings and --tgt-embeddings (`.npy`, or raw with --dim), then mine them. Files
    /// made earlier by the same encoder from the same text are reused; a file not named is made
    /// in a temporary directory ($TMPDIR) and removed after the run. With --shards, the plan
    /// embeds the text itself, a byte range per step, into --work-dir.
    #[arg(long, value_name = "SPEC", requires_all = ["src_text", "trg_text"])]
    encoder: Option<bitext_encode::EncoderSpec>,
    // What a line of the text that cannot be read does (with --encoder).
    #[command(flatten)]
    bad: crate::flags::BadLinesArgs,
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
    /// Write only pairs scoring at least X, as `filter --threshold` keeps them (LASER keeps
    /// scores above its default of 0 in `max` retrieval only; bitext applies a threshold in
    /// every retrieval and has none by default).
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
    /// calibrated probability as a fourth column when --calibration is given.
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
    #[command(flatten)]
    quiet: crate::flags::Quiet,
    /// Mine in N row-range shards per side, as resumable steps in --work-dir (exact index,
    /// mode mine): the output is the same as without shards; a rerun skips the steps done.
    #[arg(long, value_name = "N", requires = "work_dir")]
    shards: Option<usize>,
    /// Work directory of --shards: the plan (plan.json), each step's output and completion
    /// record, and steps.log.
    #[arg(long, value_name = "DIR", requires = "shards")]
    work_dir: Option<PathBuf>,
    /// With --shards and a faiss --index: index shards per side (default: --shards), each
    /// with its own index; every query shard is searched in each of them in turn. Fewer, larger
    /// index shards than query shards keep the indexes a query visits few.
    #[arg(long, value_name = "M", requires = "shards")]
    index_shards: Option<usize>,
    /// With --shards: write the plan and stop (an engine such as the Ray driver then runs the
    /// steps with `bitext mine-step`, and the same command without --plan-only writes the
    /// output, skipping every step done).
    #[arg(long, requires = "shards")]
    plan_only: bool,
}

/// The neighbourhood sizes the flags ask for: `(k_src, k_trg)`.
fn ks(a: &MineArgs) -> (usize, usize) {
    (a.src_k.unwrap_or(a.search.k), a.trg_k.unwrap_or(a.search.k))
}

/// The recipe of `a`: margin, retrieval, threshold, one-to-one, top-N and index.
fn mine_spec(a: &MineArgs) -> Result<MineSpec> {
    mine_spec_with(a, ks(a))
}

/// [`mine_spec`] with the neighbourhoods `k` fitted to sides of `n_src` and `n_trg` sentences:
/// a side smaller than its k is searched whole (each neighbourhood is all of it), said once.
fn fitted(a: &MineArgs, n_src: usize, n_trg: usize) -> Result<MineSpec> {
    let (k_src, k_trg) = ks(a);
    let fit = (k_src.min(n_trg).max(1), k_trg.min(n_src).max(1));
    if fit != (k_src, k_trg) {
        eprintln!(
            "-k: the sides have {n_src} and {n_trg} sentences: neighbourhoods of {} targets and \
             {} sources (asked: {k_src} and {k_trg})",
            fit.0, fit.1
        );
    }
    mine_spec_with(a, fit)
}

fn mine_spec_with(a: &MineArgs, (k_src, k_trg): (usize, usize)) -> Result<MineSpec> {
    let spec = margin_spec(a, k_src, k_trg);
    spec.check()?;
    // `auto` is chosen from the data size once the inputs are mapped (sharded runs only).
    let index = if a.search.index == "auto" {
        if a.shards.is_none() {
            bail!("--index auto chooses the index of a sharded run: give --shards and --work-dir");
        }
        bitext_knn::IndexSpec::default()
    } else {
        a.search.spec()?
    };
    if let Some(t) = a.threshold.filter(|t| !t.is_finite()) {
        bail!("--threshold must be a finite number, got {t}");
    }
    let mut miner = Miner::new(spec)
        .retrieval(retrieval(a.retrieval))
        .one_to_one(a.one_to_one);
    if let Some(value) = a.threshold {
        miner = miner.threshold(Threshold::AtLeast { value });
    }
    if let Some(n) = a.top_n {
        miner = miner.top_n(n);
    }
    Ok(MineSpec::new(miner).index(index))
}

pub(crate) fn run(a: &MineArgs) -> Result<()> {
    let e = &a.embeddings;
    // With --shards, the plan embeds the text itself (embed steps in --work-dir).
    let made = a.encoder.is_some() && a.shards.is_none();
    if made && (e.src_embeddings.is_none() || e.trg_embeddings.is_none()) {
        // Pairs only: the embeddings not named live in a temporary directory for this run.
        let dir = tempfile::Builder::new()
            .prefix("bitext-mine-")
            .tempdir()
            .context("creating a temporary directory for the embeddings")?;
        let mut named = a.clone();
        let e = &mut named.embeddings;
        e.src_embeddings
            .get_or_insert_with(|| dir.path().join("src.npy"));
        e.trg_embeddings
            .get_or_insert_with(|| dir.path().join("tgt.npy"));
        return run(&named);
    }
    crate::run::check_outputs([
        a.output.as_deref(),
        e.src_embeddings.as_deref().filter(|_| made),
        e.trg_embeddings.as_deref().filter(|_| made),
    ])?;
    let spec = mine_spec(a)?;
    if made && e.fp16 {
        bail!("--encoder writes f32 embeddings (binary16 with --shards): drop --fp16");
    }
    check_skip(a)?;
    let mut rejects = crate::run::RejectSink::new(&a.bad)?;
    if let (Some(encoder), Some(st), Some(tt), true) = (&a.encoder, &a.src_text, &a.trg_text, made)
    {
        let (sp, tp) = e.paths()?;
        for (text, side, out) in [
            (st, bitext_encode::Side::Source, sp),
            (tt, bitext_encode::Side::Target, tp),
        ] {
            let (text, quiet) = ((text.as_path(), a.text_format), a.quiet.quiet);
            crate::run::embed_cached(encoder, text, side, out, quiet, a.bad.bad_lines())?;
        }
    }
    match execution(a, &spec) {
        Execution::Sharded { shards, dir } => run_sharded(a, &spec, shards, dir),
        Execution::HalfTarget => run_fp16_target(a),
        Execution::InMemory => run_in_memory(a, &mut rejects),
    }?;
    rejects.finish_inputs()
}

/// `--bad-lines skip` where the rows stay in step with the text: with --encoder, which embeds
/// the text here, skipping the lines the names skip; refused otherwise, saying why.
fn check_skip(a: &MineArgs) -> Result<()> {
    if a.bad.bad_lines() == bitext_core::io::rejects::BadLines::Error {
        return Ok(());
    }
    if a.encoder.is_none() {
        bail!(
            "--bad-lines skip needs --encoder: the rows of embeddings made elsewhere follow every \
             line of --src-text and --tgt-text, so a line left out would put the names out of \
             step with them (embed with `bitext embed --bad-lines skip` and mine without the \
             text, or give --encoder so that the text is embedded here, skipping the same lines)"
        );
    }
    if a.mode == Mode::Score {
        bail!(
            "--bad-lines skip is refused with --mode score: row i is paired with row i, and a line \
             left out of one side would pair the rest wrongly; score aligned pairs with `bitext \
             score --encoder` on a TSV, which leaves out the pair"
        );
    }
    if a.shards.is_some() {
        bail!(
            "--bad-lines skip is not available with --shards: the plan's steps read the text \
             themselves; mine in one process, or fix the lines the error names"
        );
    }
    Ok(())
}

/// How a `bitext mine` run executes one [`MineSpec`]: the one place that chooses.
enum Execution<'a> {
    /// As steps of a plan over shards (`--shards N --work-dir DIR`; resumable).
    Sharded { shards: usize, dir: &'a Path },
    /// In this process, the binary16 target memory-mapped and searched as it is (`--fp16` raw
    /// target, mode mine, exact index; [`MineSpec::mine_half_target`]).
    HalfTarget,
    /// In this process, both matrices in memory (every mode and option).
    InMemory,
}

fn execution<'a>(a: &'a MineArgs, spec: &MineSpec) -> Execution<'a> {
    if let (Some(shards), Some(dir)) = (a.shards, &a.work_dir) {
        return Execution::Sharded { shards, dir };
    }
    let e = &a.embeddings;
    let half_target = e.fp16
        && e.trg_embeddings
            .as_deref()
            .is_some_and(|t| Format::of(t, true) == Format::RawF16);
    let plain_mining = a.mode == Mode::Mine && !a.skip_zero_rows && a.unify.is_none();
    if half_target && plain_mining && spec.index.exact_search().is_some() {
        Execution::HalfTarget
    } else {
        Execution::InMemory
    }
}

/// Both matrices in memory: every mode (mine, score, search) and row option; the text read
/// under --bad-lines, its skipped lines kept in `rejects`.
fn run_in_memory(a: &MineArgs, rejects: &mut crate::run::RejectSink) -> Result<()> {
    let (src, trg) = a.embeddings.open()?;
    let src_text = sentences_for(a.src_text.as_deref(), a.text_format, &src, Some(rejects))?;
    let trg_text = sentences_for(a.trg_text.as_deref(), a.text_format, &trg, Some(rejects))?;
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
    let spec = &fitted(a, sv.len(), tv.len())?;
    let hoods = crate::index::neighbourhoods(spec, sv, tv, a.quiet.quiet).with_context(|| {
        format!(
            "mining {} against {}",
            src.path().display(),
            trg.path().display()
        )
    })?;
    let (cal, min) = a.calibration.load()?;
    let out = crate::run::Output {
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
                scored.retain(|p| p.score >= value);
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

/// `--fp16` mining (mode mine, exact index): the target file is memory-mapped and searched as
/// binary16 rows (`ExactIndex::over_half`), never widened as a whole; the sources are widened
/// (they are the queries). The output is the widened matrices' (the property tests of
/// `over_half` and `crates/cli/tests/mine_shards.rs` check it).
fn run_fp16_target(a: &MineArgs) -> Result<()> {
    use bitext_core::io::raw::{RawDtype, read_raw};
    let e = &a.embeddings;
    let (sp, tp) = e.paths()?;
    let Some(dim) = e.dim else {
        bail!(
            "{}: raw embedding files have no header; give --dim",
            sp.display()
        );
    };
    let src = read_raw(sp, dim, RawDtype::F16)?;
    let trg = bitext_core::MappedHalf::open(tp, dim)?;
    let text = |path: Option<&Path>, rows| sentences_for_rows(path, a.text_format, rows, None);
    let src_text = text(a.src_text.as_deref(), (src.len(), sp))?;
    let trg_text = text(a.trg_text.as_deref(), (trg.len(), tp))?;
    let spec = &fitted(a, src.len(), trg.len())?;
    let bar = progress_bar(src.len(), "searching both ways", a.quiet.quiet);
    let (pairs, nb) = spec
        .mine_half_target(src.view(), trg.view(), &mut |_, done, _| {
            bar.set_position(done as u64);
        })
        .with_context(|| format!("mining {} against {}", sp.display(), tp.display()))?;
    bar.finish_and_clear();
    if let (Some([f, b]), false) = (nb.certification, a.quiet.quiet) {
        eprintln!("kNN source → target: {f}");
        eprintln!("kNN target → source: {}", b.without_note());
    }
    write_mined(a, pairs, (src_text, trg_text), a.calibration.load()?)
}

/// Write mined pairs as the single-process `--mode mine` does: `--min-precision` applied, the
/// count on stderr, the calibrated probability as a fourth column with `--calibration`.
fn write_mined(
    a: &MineArgs,
    mut pairs: Vec<ScoredPair>,
    (src_text, trg_text): (Option<Sentences>, Option<Sentences>),
    (cal, min): (Option<Calibration>, Option<f64>),
) -> Result<()> {
    if let Some(m) = min {
        pairs.retain(|p| p.score >= m);
    }
    eprintln!("mined {} pairs", pairs.len());
    let (src_labels, trg_labels) = (Labels::of(src_text), Labels::of(trg_text));
    crate::run::Output {
        src: &src_labels,
        trg: &trg_labels,
        decimals: a.decimals,
        calibration: cal.as_ref(),
    }
    .write(a.output.as_ref(), &pairs)
}

fn margin_spec(a: &MineArgs, k_src: usize, k_trg: usize) -> MarginSpec {
    let f = match a.margin {
        MarginArg::Absolute => MarginFunction::Absolute,
        MarginArg::Distance => MarginFunction::Distance,
        MarginArg::Ratio => MarginFunction::Ratio,
        MarginArg::Csls => MarginFunction::Csls,
    };
    MarginSpec::with_k(f, k_src, k_trg)
}

fn retrieval(r: RetrievalArg) -> Retrieval {
    match r {
        RetrievalArg::Fwd => Retrieval::Forward,
        RetrievalArg::Bwd => Retrieval::Backward,
        RetrievalArg::Intersect => Retrieval::Intersection,
        RetrievalArg::Max => Retrieval::Max,
    }
}
