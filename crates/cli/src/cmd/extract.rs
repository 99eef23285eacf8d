//! `bitext extract`: Grégoire & Langlais' extraction (2018, §4.3 eq. 9 and §5.2): score candidate
//! pairs with a classifier (or any scorer of sentences), keep those whose score is at least ρ,
//! then make the result one-to-one greedily, best score first. Candidates are every pair of two
//! small inputs (two aligned documents), or the k nearest neighbours of each sentence in both
//! directions over sentence embeddings.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext_core::io::rejects::BadLines;
use bitext_mine::{MineSpec, Miner, ScoredPair, ScorerSpec, all_pairs, extract};
use bitext_similarity::{MarginFunction, MarginSpec};
use clap::{Args, ValueEnum};

use crate::flags::{BadLinesArgs, LengthUnitArg, ModelArgs};
use crate::index::SearchArgs;
use crate::input::{Labels, OptionalEmbeddingArgs, Sentences, TextFormat};
use crate::run::{Output, RejectSink};

/// What `--bad-lines` says in `bitext extract --help`.
const BAD_LINES: &str = "A line of --src-text or --tgt-text that cannot be read (not UTF-8, \
    empty; BUCC: not `id<TAB>sentence`, an empty id, a duplicate id): `error` stops, naming the \
    file, line and reason; `skip` leaves it out of the candidates, writes it to --rejects (each \
    reason naming its file) and counts it on standard error. `skip` is refused with --pairs knn: \
    the rows of the embeddings follow every line, so a line left out would put them out of step";

/// Where the candidate pairs come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Candidates {
    /// Every (source, target) pair: for small inputs, such as two aligned documents.
    All,
    /// Each sentence's k nearest neighbours on the other side, both directions (needs
    /// --src-embeddings and --tgt-embeddings, one row per sentence).
    Knn,
}

/// The scorer of `bitext extract`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExtractScorer {
    /// A classifier or similarity trained by `bitext train` (--model DIR): the siamese
    /// classifier's probability, as in the paper.
    Model,
    /// IBM Model 1 (--model DIR from `bitext train ibm1`).
    Ibm1,
    /// Normalised character Levenshtein similarity.
    Levenshtein,
    /// Length ratio (--length-unit).
    LengthRatio,
}

/// Arguments of `bitext extract`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(BAD_LINES)))]
pub(crate) struct ExtractArgs {
    /// Source sentences: BUCC `id<TAB>sentence` or one sentence per line.
    #[arg(long = "src-text", alias = "src", value_name = "FILE")]
    src: PathBuf,
    /// Target sentences, as --src-text.
    #[arg(long = "tgt-text", aliases = ["tgt", "trg", "trg-text"], value_name = "FILE")]
    tgt: PathBuf,
    /// Layout of --src-text/--tgt-text (auto: BUCC when the first line holds a tab).
    #[arg(long, value_enum, default_value_t = TextFormat::Auto)]
    text_format: TextFormat,
    /// The scorer (with --model for `model` and `ibm1`).
    #[arg(long, value_enum, default_value_t = ExtractScorer::Model)]
    scorer: ExtractScorer,
    /// The scorer as a spec instead of --scorer/--model: `model:DIR`, `ibm1:DIR`,
    /// `levenshtein`, `length_ratio` or JSON (`{"type": "emd", …}`).
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["scorer", "model"])]
    scorer_spec: Option<ScorerSpec>,
    #[command(flatten)]
    model: ModelArgs,
    /// What `--scorer length-ratio` counts.
    #[arg(long, value_enum, default_value_t = LengthUnitArg::Chars)]
    length_unit: LengthUnitArg,
    /// Decision threshold ρ: keep pairs scoring at least this (classifier probabilities: the
    /// paper tunes ρ on held-out data; 0.5 is the classifier's own boundary).
    #[arg(
        long = "threshold",
        alias = "rho",
        default_value_t = 0.5,
        allow_negative_numbers = true,
        value_name = "RHO"
    )]
    rho: f64,
    /// Candidate pairs.
    #[arg(long = "pairs", alias = "candidates", value_enum, default_value_t = Candidates::All)]
    candidates: Candidates,
    /// Most candidate pairs `--pairs all` scores (n_src × n_tgt).
    #[arg(long, default_value_t = 10_000_000, value_name = "N")]
    max_pairs: usize,
    /// Sentence embeddings for `--pairs knn`.
    #[command(flatten)]
    embeddings: OptionalEmbeddingArgs,
    #[command(flatten)]
    search: SearchArgs,
    /// Write scores with this many decimals (default: the shortest exact form).
    #[arg(long, value_name = "N")]
    decimals: Option<usize>,
    /// Output file (default: standard output). Lines are `score<TAB>src<TAB>tgt` (BUCC ids, or
    /// the sentences of plain-text inputs), best first.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
}

fn scorer_spec(a: &ExtractArgs) -> Result<ScorerSpec> {
    if let Some(s) = &a.scorer_spec {
        return Ok(s.clone());
    }
    Ok(match a.scorer {
        ExtractScorer::Model => a.model.spec(false)?,
        ExtractScorer::Ibm1 => a.model.spec(true)?,
        ExtractScorer::Levenshtein => ScorerSpec::Levenshtein,
        ExtractScorer::LengthRatio => ScorerSpec::LengthRatio {
            unit: a.length_unit.unit(),
        },
    })
}

pub(crate) fn run(a: &ExtractArgs) -> Result<()> {
    crate::run::check_outputs([a.output.as_deref()])?;
    if !a.rho.is_finite() {
        bail!("--threshold must be a finite number, got {}", a.rho);
    }
    let spec = scorer_spec(a)?;
    if spec.scores_embeddings() {
        bail!("extract scores sentences: give a classifier (--model DIR) or a scorer of sentences");
    }
    if a.candidates == Candidates::Knn && a.bad.bad_lines() == BadLines::Skip {
        bail!(
            "--bad-lines skip is refused with --pairs knn: the rows of --src-embeddings and \
             --tgt-embeddings follow every line of the text, so a line left out would put the \
             sentences out of step with them (use --pairs all, or embed with `bitext embed \
             --bad-lines skip` and extract from the kept lines)"
        );
    }
    let mut rejects = RejectSink::new(&a.bad)?;
    let mut read = |path| -> Result<Sentences> {
        if rejects.bad_lines() == BadLines::Error {
            return Sentences::read(path, a.text_format);
        }
        let (s, rejected) = Sentences::read_skipping(path, a.text_format, BadLines::Skip)?;
        rejects.add_named(path, rejected)?;
        Ok(s)
    };
    let (src, tgt) = (read(&a.src)?, read(&a.tgt)?);
    rejects.finish_inputs()?;
    let candidates = candidates(a, &src, &tgt)?;
    let (s, t) = (src.sentences.clone(), tgt.sentences.clone());
    let build = crate::build::batch_scorers(&spec, move || Ok((s, t)))?;
    let ss: Vec<&str> = src.sentences.iter().map(String::as_str).collect();
    let ts: Vec<&str> = tgt.sentences.iter().map(String::as_str).collect();
    let scorer = build(&ss, &ts)
        .with_context(|| format!("scoring {} against {}", a.src.display(), a.tgt.display()))?;
    let n = candidates.len();
    let pairs: Vec<ScoredPair> = extract(scorer.as_ref(), candidates, a.rho)?;
    eprintln!(
        "extracted {} one-to-one pairs scoring at least {} from {n} candidates",
        pairs.len(),
        a.rho
    );
    let (src, tgt) = (Labels::of(Some(src)), Labels::of(Some(tgt)));
    Output {
        src: &src,
        trg: &tgt,
        decimals: a.decimals,
        calibration: None,
    }
    .write(a.output.as_ref(), &pairs)
}

/// The candidate pairs, source-major and without duplicates.
fn candidates(a: &ExtractArgs, src: &Sentences, tgt: &Sentences) -> Result<Vec<(usize, usize)>> {
    match a.candidates {
        Candidates::All => {
            let n = src.len().saturating_mul(tgt.len());
            if n > a.max_pairs {
                bail!(
                    "{} × {} = {n} candidate pairs is more than --max-pairs {}: use \
                     --pairs knn with sentence embeddings, or raise --max-pairs",
                    src.len(),
                    tgt.len(),
                    a.max_pairs
                );
            }
            if a.embeddings.get().is_some() {
                bail!("--pairs all reads no embeddings: leave them out or use --pairs knn");
            }
            Ok(all_pairs(src.len(), tgt.len()).collect())
        }
        Candidates::Knn => {
            let Some(e) = a.embeddings.get() else {
                bail!("--pairs knn needs --src-embeddings and --tgt-embeddings");
            };
            let (x, y) = e.open()?;
            src.check_rows(&x)?;
            tgt.check_rows(&y)?;
            let spec = MineSpec::new(Miner::new(MarginSpec::new(
                MarginFunction::Absolute,
                a.search.k,
            )))
            .index(a.search.spec()?);
            let hoods = crate::index::neighbourhoods(&spec, x.view(), y.view(), a.quiet.quiet)?;
            let (fwd, bwd) = hoods.candidates()?;
            let mut pairs: Vec<(usize, usize)> = (0..fwd.len())
                .flat_map(|i| fwd.ids(i).iter().map(move |&j| (i, j)))
                .chain((0..bwd.len()).flat_map(|j| bwd.ids(j).iter().map(move |&i| (i, j))))
                .collect();
            pairs.sort_unstable();
            pairs.dedup();
            Ok(pairs)
        }
    }
}
