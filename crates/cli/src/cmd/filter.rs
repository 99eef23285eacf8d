//! `bitext filter`: score every line of a noisy parallel corpus (bicleaner-style TSV) and keep
//! the best lines within a line or word budget (Kim et al. 2019, §4.2; Artetxe & Schwenk 2019,
//! §4.3), writing the kept lines verbatim with a score column. The scorer reads the lines'
//! sentence embeddings (cosine, margins) or their sentences (IBM-1, Levenshtein, length ratio,
//! EMD, neural models). `--scorer`, `--model` and `-k` make a `bitext_mine::ScorerSpec`, which
//! builds the scorer.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext_knn::IndexSpec;
use bitext_mine::{Budget, ScorerSpec, Threshold, TsvFilter, WordSide};
use bitext_similarity::{MarginFunction, MarginSpec};
use clap::{Args, ValueEnum};

use crate::flags::{EmdArgs, LengthUnitArg, ModelArgs};
use crate::index::SearchArgs;
use crate::input::{CalibrationArgs, ColumnArgs, OptionalEmbeddingArgs};
use crate::run::{RejectSink, read_columns_skipping};
use bitext_core::io::rejects::BadLines;

/// How a line's two sentences are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScorerArg {
    /// Cosine of the two embeddings.
    Cosine,
    /// Ratio margin over the k nearest neighbours within the corpus (Artetxe & Schwenk).
    Ratio,
    /// Distance margin over the k nearest neighbours within the corpus.
    Distance,
    /// IBM Model 1 trained by `bitext train ibm1` (--model DIR), over the sentences (no
    /// embeddings needed).
    Ibm1,
    /// Normalised character Levenshtein similarity, over the sentences.
    Levenshtein,
    /// Shorter length over longer (--length-unit), over the sentences.
    LengthRatio,
    /// A neural model trained by `bitext train` (--model DIR), over the sentences.
    Model,
    /// Earth Mover's Distance between TF-IDF bags of bilingual word embeddings (--src-vec,
    /// --tgt-vec; Zhang et al. 2016), over the sentences; the score is minus the distance.
    Emd,
}

/// Which side's words count towards --budget-words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SideArg {
    /// The source column.
    Source,
    /// The target column.
    Target,
    /// Both columns.
    Both,
}

/// Arguments of `bitext filter`.
#[derive(Debug, Args)]
pub(crate) struct FilterArgs {
    /// Input TSV; line `i` holds the sentences of embedding row `i - 1`.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    #[command(flatten)]
    cols: ColumnArgs,
    /// The embeddings, one row per input line, for the scorers of embeddings (cosine and the
    /// margins).
    #[command(flatten)]
    embeddings: OptionalEmbeddingArgs,
    /// Compute those embeddings instead, from the TSV's two columns, with this encoder
    /// (`bow:FILE`, `model:DIR`, `onnx:FILE` or a JSON spec, as `bitext embed --encoder`), for
    /// the scorers of embeddings. A sentence with nothing to encode (no known word, no token)
    /// is an error naming it, or with `"no_known_word": "zero"` in the spec a zero row: its
    /// cosine is 0; the margins refuse zero rows.
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with_all = ["src_embeddings", "trg_embeddings", "dim", "fp16"]
    )]
    encoder: Option<bitext_encode::EncoderSpec>,
    /// Model directory of `--scorer ibm1` or `--scorer model`.
    #[command(flatten)]
    model: ModelArgs,
    /// What `--scorer length-ratio` counts.
    #[arg(long, value_enum, default_value_t = LengthUnitArg::Chars)]
    length_unit: LengthUnitArg,
    /// Options of `--scorer emd`.
    #[command(flatten)]
    emd: EmdArgs,
    /// Scoring.
    #[arg(long, value_enum, default_value_t = ScorerArg::Cosine)]
    scorer: ScorerArg,
    /// The scorer as a spec instead of --scorer, -k and --index: `cosine`, `dot`,
    /// `neg_euclidean`, a margin (`ratio`: k = 4, exact search), `ibm1:DIR`, `levenshtein`,
    /// `length_ratio`, `model:DIR`, or JSON (`{"type": "margin", "margin": {"type": "ratio",
    /// "k_src": 4, "k_trg": 4}, "index": {"type": "exact"}}`, `{"type": "emd", …}`).
    #[arg(
        long,
        value_name = "SPEC",
        conflicts_with_all = ["scorer", "k", "index", "model", "src_vec", "tgt_vec"]
    )]
    scorer_spec: Option<ScorerSpec>,
    /// Score with a pair classifier (`bitext train classifier`) instead: its score in [0, 1],
    /// then its calibrated P(parallel) as a second column (--min-precision reads its
    /// calibration).
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["scorer", "scorer_spec", "k", "index", "model", "src_vec", "tgt_vec", "encoder", "calibration"]
    )]
    classifier: Option<PathBuf>,
    /// Keep at most N lines (best first).
    #[arg(long, value_name = "N", conflicts_with = "budget_words")]
    budget_lines: Option<usize>,
    /// Keep lines (best first) up to N words, counted by whitespace on --word-side.
    #[arg(long, value_name = "N")]
    budget_words: Option<usize>,
    /// Which side's words count towards --budget-words.
    #[arg(long, value_enum, default_value_t = SideArg::Target)]
    word_side: SideArg,
    /// Keep only lines with score >= X.
    #[arg(
        long = "threshold",
        alias = "min-score",
        value_name = "X",
        allow_negative_numbers = true
    )]
    min_score: Option<f64>,
    /// Write scores with this many decimals (default: the shortest exact form).
    #[arg(long, value_name = "N")]
    decimals: Option<usize>,
    /// Output TSV: the kept input lines, verbatim, in input order, with a score column; `-`
    /// (the default) is standard output, as for `mine` and `align-docs`.
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// The kNN search of the margin scorers.
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    calibration: CalibrationArgs,
    #[command(flatten)]
    bad: crate::flags::BadLinesArgs,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
    /// Sharded, resumable filtering (a scorer that scores a line from that line alone: not
    /// the margins); a new budget or threshold reruns only the selection.
    #[command(flatten)]
    sharded: crate::input::ShardArgs,
}

impl FilterArgs {
    /// The scorer spec: --scorer-spec, or --scorer and -k with the search of the margins'
    /// neighbourhoods.
    fn scorer_spec(&self, index: IndexSpec) -> Result<ScorerSpec> {
        if let Some(spec) = &self.scorer_spec {
            return Ok(spec.clone());
        }
        let margin = |f| ScorerSpec::Margin {
            margin: MarginSpec::new(f, self.search.k),
            index,
        };
        Ok(match self.scorer {
            ScorerArg::Cosine => ScorerSpec::Cosine,
            ScorerArg::Ratio => margin(MarginFunction::Ratio),
            ScorerArg::Distance => margin(MarginFunction::Distance),
            ScorerArg::Ibm1 => self.model.spec(true)?,
            ScorerArg::Model => self.model.spec(false)?,
            ScorerArg::Emd => self.emd.spec()?,
            ScorerArg::Levenshtein => ScorerSpec::Levenshtein,
            ScorerArg::LengthRatio => ScorerSpec::LengthRatio {
                unit: self.length_unit.unit(),
            },
        })
    }
}

pub(crate) fn run(a: &FilterArgs) -> Result<()> {
    crate::run::check_outputs([Some(a.output.as_path())])?;
    if bitext_core::io::is_stdio(&a.input) {
        // Read three times (the columns, the word counts, the kept lines): held in memory.
        bitext_core::io::stream::hold_stdin()?;
    }
    let cols = a.cols.zero_based()?;
    if let Some(t) = a.min_score.filter(|t| !t.is_finite()) {
        bail!("--threshold must be a finite number, got {t}");
    }
    let index = a.search.spec()?;
    let rejects = crate::run::RejectSink::new(&a.bad)?;
    let skip = a.bad.bad_lines() == BadLines::Skip;
    let classifier = a
        .classifier
        .as_deref()
        .map(crate::build::classifier)
        .transpose()?;
    let (cal, min) = a.calibration.load_with(classifier.as_deref())?;
    let mut filter = tsv_filter(a, cols);
    if let Some(value) = min {
        let value = a.min_score.map_or(value, |m| m.max(value));
        filter = filter.threshold(Threshold::AtLeast { value });
    }
    if let Some(c) = classifier {
        if a.sharded.shards.is_some() || a.embeddings.get().is_some() {
            bail!(
                "--classifier reads the TSV's sentences in one process: leave out --shards, \
                 --src-embeddings and --tgt-embeddings"
            );
        }
        let (src, tgt) = read_reporting(a, cols, rejects)?;
        let scorer = bitext_classify::ClassifierScorer::new(c, src, tgt);
        let prob = |s: f64| cal.as_ref().map_or(s, |c| c.probability(s));
        print_report(&filter.run_with(&a.input, &a.output, &scorer, Some(&prob))?);
        return Ok(());
    }
    if let (Some(shards), Some(dir)) = (a.sharded.shards, &a.sharded.work_dir) {
        if skip {
            bail!(
                "--bad-lines skip is not available with --shards: filter in one process, or fix \
                 the lines the error names"
            );
        }
        if a.embeddings.get().is_some() {
            bail!(
                "--shards embeds each shard with --encoder: leave out --src-embeddings and --tgt-embeddings"
            );
        }
        let mut recipe = filter_recipe(a, cols, index)?;
        recipe.calibration.clone_from(&a.calibration.calibration);
        if let Some(value) = min {
            let value = a.min_score.map_or(value, |m| m.max(value));
            recipe.threshold = Some(Threshold::AtLeast { value });
        }
        let files = (a.input.as_path(), a.output.as_path());
        let done = crate::run::filter_sharded(
            files,
            &recipe,
            (shards, dir, a.sharded.plan_only),
            a.quiet.quiet,
        )?;
        if let Some(report) = done {
            print_report(&report);
        }
        return Ok(());
    }
    let prob = |s: f64| cal.as_ref().map_or(s, |c| c.probability(s));
    let extra: Option<&dyn Fn(f64) -> f64> = cal.as_ref().map(|_| &prob as &dyn Fn(f64) -> f64);
    let spec = a.scorer_spec(index)?;
    let embeddings = a.embeddings.get();
    if !spec.scores_embeddings() {
        if embeddings.is_some() || a.encoder.is_some() {
            bail!(
                "this scorer reads the TSV's sentences, not embeddings: leave out \
                 --src-embeddings, --tgt-embeddings and --encoder"
            );
        }
        return filter_sentences(a, &spec, &filter, (cols, rejects), extra);
    }
    if let Some(encoder) = &a.encoder {
        // The TSV's columns, encoded in memory (as the scorers of sentences read them).
        let (src, tgt) = read_reporting(a, cols, rejects)?;
        let enc = crate::build::encoder(encoder, None::<&[&str]>)?;
        let encode = |side: bitext_encode::Side, s: &[String]| -> Result<bitext_core::Embeddings> {
            let refs: Vec<&str> = s.iter().map(String::as_str).collect();
            enc.encode(side, &refs)
                .with_context(|| format!("embedding the {side} column of {}", a.input.display()))
        };
        let (x, y) = (
            encode(bitext_encode::Side::Source, &src)?,
            encode(bitext_encode::Side::Target, &tgt)?,
        );
        if spec.measure() == Some(bitext_similarity::Measure::Cosine) {
            // An encoder's zero rows (its spec's `no_known_word: zero`) score −1, the lowest.
            let scorer = bitext_similarity::Cosines::new(x, y)?;
            print_report(&filter.run_with(&a.input, &a.output, &scorer, extra)?);
            return Ok(());
        }
        let report = spec
            .with_embedding_scorer_searched(
                x.view(),
                y.view(),
                |m, s, t| crate::index::neighbourhoods(m, s, t, a.quiet.quiet),
                |scorer| filter.run_with(&a.input, &a.output, scorer, extra),
            )
            .with_context(|| format!("scoring the columns of {}", a.input.display()))??;
        print_report(&report);
        return Ok(());
    }
    let Some(embeddings) = &embeddings else {
        bail!("scoring with embeddings needs --src-embeddings and --tgt-embeddings");
    };
    if skip {
        bail!(
            "--bad-lines skip would put the TSV's lines out of step with the rows of \
             --src-embeddings and --tgt-embeddings: embed the columns with --encoder instead"
        );
    }
    let (src, trg) = embeddings.open()?;
    let (sv, tv) = (src.view(), trg.view());
    if sv.dim() != tv.dim() || sv.len() != tv.len() {
        bail!(
            "{} holds {} × {} embeddings but {} holds {} × {}: filtering needs one row per line \
             on both sides",
            src.path().display(),
            sv.len(),
            sv.dim(),
            trg.path().display(),
            tv.len(),
            tv.dim()
        );
    }
    let report = spec
        .with_embedding_scorer_searched(
            sv,
            tv,
            |m, s, t| crate::index::neighbourhoods(m, s, t, a.quiet.quiet),
            |scorer| filter.run_with(&a.input, &a.output, scorer, extra),
        )
        .with_context(|| {
            format!(
                "scoring {} against {}",
                src.path().display(),
                trg.path().display()
            )
        })??;
    print_report(&report);
    Ok(())
}

/// Filter with a scorer of sentences (the TSV's two columns, read once into memory).
fn filter_sentences(
    a: &FilterArgs,
    spec: &ScorerSpec,
    filter: &TsvFilter,
    (cols, rejects): ((usize, usize), RejectSink),
    extra: Option<&dyn Fn(f64) -> f64>,
) -> Result<()> {
    let (src, tgt) = read_reporting(a, cols, rejects)?;
    let (s, t) = (src.clone(), tgt.clone());
    let build = crate::build::batch_scorers(spec, move || Ok((s, t)))?;
    let src: Vec<&str> = src.iter().map(String::as_str).collect();
    let tgt: Vec<&str> = tgt.iter().map(String::as_str).collect();
    let scorer = build(&src, &tgt).with_context(|| format!("scoring {}", a.input.display()))?;
    let report = filter.run_with(&a.input, &a.output, scorer.as_ref(), extra)?;
    print_report(&report);
    Ok(())
}

/// The TSV's columns under --bad-lines, the lines skipped written to `rejects` and counted
/// (the filter's own pass skips the same lines).
fn read_reporting(
    a: &FilterArgs,
    cols: (usize, usize),
    mut rejects: RejectSink,
) -> Result<(Vec<String>, Vec<String>)> {
    let (src, tgt, skipped) = read_columns_skipping(&a.input, cols, a.bad.bad_lines())?;
    rejects.add(&skipped)?;
    rejects.finish(&a.input)?;
    Ok((src, tgt))
}

/// The recipe of a sharded filter: the flags' scorer, encoder, columns, budget, threshold and
/// decimals (what [`tsv_filter`] makes for the single-process filter).
fn filter_recipe(
    a: &FilterArgs,
    (src_col, tgt_col): (usize, usize),
    index: IndexSpec,
) -> Result<bitext_shard::FilterRecipe> {
    let budget = match (a.budget_lines, a.budget_words) {
        (Some(lines), _) => Some(Budget::Lines { lines }),
        (None, Some(words)) => Some(Budget::Words {
            words,
            side: match a.word_side {
                SideArg::Source => WordSide::Source,
                SideArg::Target => WordSide::Target,
                SideArg::Both => WordSide::Both,
            },
        }),
        (None, None) => None,
    };
    Ok(bitext_shard::FilterRecipe {
        scorer: a.scorer_spec(index)?,
        encoder: a.encoder.clone(),
        src_col,
        tgt_col,
        budget,
        threshold: a.min_score.map(|value| Threshold::AtLeast { value }),
        decimals: a.decimals,
        calibration: None,
    })
}

fn print_report(report: &bitext_mine::filter::FilterReport) {
    eprintln!(
        "kept {} of {} lines ({} words{})",
        report.kept,
        report.lines,
        report.words,
        report
            .min_score
            .map_or(String::new(), |s| format!(", lowest score {s}"))
    );
}

/// The filter of the flags: columns, budget, threshold, decimals.
fn tsv_filter(a: &FilterArgs, (src_col, tgt_col): (usize, usize)) -> TsvFilter {
    let mut filter = TsvFilter::new(src_col, tgt_col).bad_lines(a.bad.bad_lines());
    if let Some(lines) = a.budget_lines {
        filter = filter.budget(Budget::Lines { lines });
    }
    if let Some(words) = a.budget_words {
        let side = match a.word_side {
            SideArg::Source => WordSide::Source,
            SideArg::Target => WordSide::Target,
            SideArg::Both => WordSide::Both,
        };
        filter = filter.budget(Budget::Words { words, side });
    }
    if let Some(value) = a.min_score {
        filter = filter.threshold(Threshold::AtLeast { value });
    }
    if let Some(d) = a.decimals {
        filter = filter.decimals(d);
    }
    filter
}
