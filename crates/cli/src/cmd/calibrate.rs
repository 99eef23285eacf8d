//! `bitext calibrate`: fit a calibration (raw score → estimated probability of being parallel,
//! by isotonic regression) on a labelled sample, print its threshold table (precision, recall
//! and their Wilson intervals for requested precisions and recalls and the F1-optimal
//! threshold) and write it as JSON for `--calibration` of `mine`, `filter` and `score`.
//!
//! The labels come from a TSV with a 0/1 column (`--scores`), from mined pairs and a BUCC gold
//! file (`--mined`, `--gold`), or, with no labels at all, from the user's own parallel pairs
//! by the noisy-parallel protocol (`--noisy`, with the scorer to calibrate as `--scorer-spec`).

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext_core::Rng;
use bitext_core::io::bucc::read_bucc_gold;
use bitext_core::io::rejects::BadLines;
use bitext_core::io::tsv::read_mined_pairs;
use bitext_eval::bucc::GoldSet;
use bitext_eval::calibration::labels::{
    NoisyPairs, label_mined_pairs, noisy_labels, read_labelled_tsv,
};
use bitext_eval::calibration::{Calibration, FitOptions, LabelledScores, Target};
use bitext_eval::noisy::NoisyParallel;
use bitext_mine::ScorerSpec;
use clap::Args;

use crate::input::ColumnArgs;

/// What `--bad-lines` says in `bitext calibrate --help`.
const BAD_LINES: &str = "A line of --noisy that cannot be read (not UTF-8, too few columns, an \
    empty source or target field): `error` stops, naming the file, line and reason; `skip` \
    leaves the pair out before the test pairs are drawn, writes it to --rejects and counts it \
    on standard error. `skip` is refused with --scores and --mined: a labelled sample is read \
    whole, since a line left out would change the precision and recall it estimates";

/// Arguments of `bitext calibrate`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("labels").required(true).args(["scores", "mined", "noisy"]))]
#[command(mut_arg(crate::flags::BadLinesArgs::HELP_ID, |a| a.help(BAD_LINES)))]
pub(crate) struct CalibrateArgs {
    /// Labelled scores: a TSV with a score column and a 0/1 label column (1 = parallel), e.g.
    /// a sample of `bitext score` output checked by hand.
    #[arg(long, value_name = "FILE")]
    scores: Option<PathBuf>,
    /// With --scores: the score's column, 1-based.
    #[arg(long, default_value_t = 1, value_name = "N")]
    score_col: usize,
    /// With --scores: the label's column, 1-based.
    #[arg(long, default_value_t = 2, value_name = "N")]
    label_col: usize,
    /// Mined pairs `score<TAB>src_id<TAB>tgt_id` (`bitext mine` over BUCC sentence files),
    /// labelled by --gold; recall is against every gold pair.
    #[arg(long, value_name = "FILE", requires = "gold")]
    mined: Option<PathBuf>,
    /// BUCC gold file (`src_id<TAB>tgt_id`) labelling --mined.
    #[arg(long, value_name = "FILE", requires = "mined")]
    gold: Option<PathBuf>,
    /// No labels: a TSV of parallel pairs; half of them (at most --max-pairs) are kept, a
    /// share --noise of their targets replaced by targets of the other half, and the aligned
    /// pairs scored with --scorer-spec (parallel = the targets kept).
    #[arg(long, value_name = "FILE", requires = "scorer_spec")]
    noisy: Option<PathBuf>,
    /// With --noisy: the scorer, as `bitext score --scorer-spec` takes it (`levenshtein`,
    /// `ibm1:DIR`, `model:DIR`, `length_ratio`, or JSON).
    #[arg(long, value_name = "SPEC")]
    scorer_spec: Option<ScorerSpec>,
    #[command(flatten)]
    cols: ColumnArgs,
    /// With --noisy: share of the targets replaced (the noise of the data to filter).
    #[arg(long, default_value_t = 0.5, value_name = "R")]
    noise: f64,
    /// With --noisy: score the whole product of sources and targets (as mining does) instead
    /// of the aligned pairs (as filtering does).
    #[arg(long)]
    product: bool,
    /// With --noisy: at most this many test pairs.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    max_pairs: usize,
    /// With --noisy: seed of the choice of pairs and of the replaced targets.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the calibration here (JSON).
    #[arg(long, short, value_name = "FILE")]
    output: PathBuf,
    /// Add the lowest threshold reaching this precision to the table (repeatable).
    #[arg(long, value_name = "P")]
    target_precision: Vec<f64>,
    /// Add the highest threshold reaching this recall to the table (repeatable).
    #[arg(long, value_name = "R")]
    target_recall: Vec<f64>,
    /// Confidence of the intervals.
    #[arg(long, default_value_t = 0.95, value_name = "C")]
    confidence: f64,
    /// Also draw the score histograms of parallel and non-parallel pairs and the calibration
    /// curve (SVG).
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    bad: crate::flags::BadLinesArgs,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

/// The labelled sample of the flags, and where it came from in words.
fn labels(a: &CalibrateArgs) -> Result<(LabelledScores, String)> {
    if a.noisy.is_none() && a.bad.bad_lines() == BadLines::Skip {
        bail!(
            "--bad-lines skip reads --noisy pairs: a labelled sample (--scores, --mined) is read \
             whole, since a line left out would change the precision and recall it estimates"
        );
    }
    if let Some(path) = &a.scores {
        if a.score_col == 0 || a.label_col == 0 {
            bail!("--score-col and --label-col are 1-based: the first column is 1");
        }
        let l = read_labelled_tsv(path, a.score_col - 1, a.label_col - 1)?;
        return Ok((l, format!("labelled scores {}", path.display())));
    }
    if let (Some(mined), Some(gold)) = (&a.mined, &a.gold) {
        let gold_set = GoldSet::from_bucc(&read_bucc_gold(gold)?)?;
        let pairs = read_mined_pairs(mined)?;
        let l =
            label_mined_pairs(&gold_set, &pairs).with_context(|| mined.display().to_string())?;
        let what = format!("{} labelled by {}", mined.display(), gold.display());
        return Ok((l, what));
    }
    let (Some(path), Some(spec)) = (&a.noisy, &a.scorer_spec) else {
        bail!("give --scores, --mined with --gold, or --noisy with --scorer-spec");
    };
    if !(0.0..=1.0).contains(&a.noise) {
        bail!("--noise must be in [0, 1], got {}", a.noise);
    }
    let mut rejects = crate::run::RejectSink::new(&a.bad)?;
    let (src, tgt, skipped) =
        crate::run::read_columns_skipping(path, a.cols.zero_based()?, a.bad.bad_lines())?;
    rejects.add(&skipped)?;
    rejects.finish(path)?;
    let mut rng = Rng::seed(a.seed);
    let mut order: Vec<usize> = (0..src.len()).collect();
    rng.shuffle(&mut order);
    let n = (src.len() / 2).min(a.max_pairs);
    if n < 2 {
        bail!(
            "{}: {} pairs: --noisy needs at least 4",
            path.display(),
            src.len()
        );
    }
    let (test, rest) = order.split_at(n);
    let test_src: Vec<&str> = test.iter().map(|&i| src[i].as_str()).collect();
    let test_tgt: Vec<&str> = test.iter().map(|&i| tgt[i].as_str()).collect();
    let pool: Vec<&str> = rest.iter().map(|&i| tgt[i].as_str()).collect();
    let noisy = NoisyParallel::build(n, pool.len(), a.noise, &mut rng)?;
    let targets: Vec<&str> = noisy
        .target_items(&test_tgt, &pool)?
        .into_iter()
        .copied()
        .collect();
    let build = crate::build::batch_scorers(spec, || Ok((src.clone(), tgt.clone())))?;
    let scorer = build(&test_src, &targets).with_context(|| path.display().to_string())?;
    let pairs = if a.product {
        NoisyPairs::Product
    } else {
        NoisyPairs::Aligned
    };
    let l = noisy_labels(&noisy, scorer.as_ref(), pairs)?;
    let what = format!(
        "{}: {n} pairs, {:.0}% of the targets replaced, {} pairs scored (seed {})",
        path.display(),
        100.0 * a.noise,
        if a.product { "all" } else { "aligned" },
        a.seed
    );
    Ok((l, what))
}

pub(crate) fn run(a: &CalibrateArgs) -> Result<()> {
    crate::run::check_outputs([Some(a.output.as_path()), a.plot.as_deref()])?;
    let (sample, source) = labels(a)?;
    let mut targets = FitOptions::DEFAULT_TARGETS.to_vec();
    targets.extend(a.target_precision.iter().map(|&p| Target::Precision(p)));
    targets.extend(a.target_recall.iter().map(|&r| Target::Recall(r)));
    let options = FitOptions {
        confidence: a.confidence,
        targets,
        source: source.clone(),
    };
    let cal = Calibration::fit(&sample, &options).with_context(|| source.clone())?;
    cal.save(&a.output)?;
    let s = cal.samples();
    println!(
        "{source}\n{} labelled pairs, {} parallel ({} relevant); {} isotonic blocks; written to {}",
        s.pairs,
        s.positives,
        s.relevant,
        cal.blocks().len(),
        a.output.display()
    );
    print!("{}", cal.table());
    for (asked, what) in a
        .target_precision
        .iter()
        .map(|&p| (Target::Precision(p), "precision"))
        .chain(
            a.target_recall
                .iter()
                .map(|&r| (Target::Recall(r), "recall")),
        )
    {
        if cal.threshold(asked).is_none() {
            eprintln!("note: no threshold reaches {asked} on this sample ({what} too high)");
        }
    }
    if let Some(plot) = &a.plot {
        crate::run::write_svg(plot, &cal.figure(&sample, "calibration"))?;
    }
    Ok(())
}
