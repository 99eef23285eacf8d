//! `bitext clean`: a crawled TSV through the rule filters, language identification and
//! near-duplicate removal of a cleaning recipe (`bitext_clean`), streaming: the kept lines verbatim, the removed ones with
//! their step, rule and reason, and a report of the counts.

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use bitext_clean::{BestCopies, Cleaner, Dedup, Recipe, Removal, Report, Rule};
use bitext_core::io::AtomicFile;
use bitext_core::io::text::EmptyLines;
use bitext_core::io::tsv::{BitextRecord, BitextTsvReader};
use bitext_shard::{kept_line, removed_line};
use clap::{Args, ValueEnum};

use crate::flags::{BadLinesArgs, Quiet};
use crate::input::ColumnArgs;
use crate::run::RejectSink;

/// Arguments of `bitext clean`.
#[derive(Debug, Args)]
pub(crate) struct CleanArgs {
    /// Input TSV: any columns, two of which hold the source and target sentences (`-`:
    /// standard input).
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    #[command(flatten)]
    cols: ColumnArgs,
    /// Output TSV: the kept input lines, verbatim, in input order; `-` (the default) is
    /// standard output.
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// The removed input lines, each followed by three columns: the step (`rules`, `lid`,
    /// `dedup`), the rule (`markup`, `numbers`, …, `wrong_language`, `swapped`, `duplicate`)
    /// and the reason in words.
    #[arg(long, value_name = "FILE")]
    removed: Option<PathBuf>,
    /// The counts of each step and rule, with examples, as JSON.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// The source language (`de`: a code of `bitext lid`'s labels), for the script rule and
    /// language identification.
    #[arg(long, value_name = "LANG", requires = "tgt_lang")]
    src_lang: Option<String>,
    /// The target language.
    #[arg(long, value_name = "LANG", requires = "src_lang")]
    tgt_lang: Option<String>,
    /// Language identification (with --src-lang and --tgt-lang) keeps a side read as its
    /// language; with P, only when that language has at least probability P [default: 0].
    #[arg(long, value_name = "P")]
    min_lang_confidence: Option<f64>,
    /// Leave language identification out (no model needed).
    #[arg(long)]
    no_lid: bool,
    #[command(flatten)]
    lid: crate::flags::LidArgs,
    #[command(flatten)]
    thresholds: Thresholds,
    /// Turn a rule off (repeatable): empty, too_long, too_short, markup, letters,
    /// punctuation, length_ratio, untranslated, numbers, links, script, boilerplate.
    #[arg(long, value_name = "RULE", value_parser = rule_name)]
    disable_rule: Vec<Rule>,
    /// Judge each pair with its HTML entities decoded (`&quot;` → `"`: text escaped as Moses
    /// escapes it); the output keeps the lines as they are.
    #[arg(long)]
    unescape_html: bool,
    /// Near-duplicates (folded: case, punctuation, spaces and digits ignored), of which the
    /// first is kept, or with --encoder the best-scored (the first of equals).
    #[arg(long, value_enum, value_name = "KEY")]
    dedup: Option<DedupArg>,
    /// Score each kept pair by the cosine of this encoder's vectors of its sides (`bow:FILE`,
    /// `model:DIR`, `onnx:FILE` or a JSON spec, as `bitext embed --encoder`; with
    /// `"no_known_word": "zero"` in it, a crawl line with nothing to encode scores −1, the
    /// lowest, instead of stopping the run): the score is appended to each kept line.
    #[arg(long, value_name = "SPEC")]
    encoder: Option<bitext_encode::EncoderSpec>,
    /// Score each kept pair with a pair classifier (`bitext train classifier`) instead of an
    /// encoder: its score in [0, 1] and its calibrated P(parallel) are appended to each kept
    /// line (--min-precision reads its calibration).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["encoder", "calibration"])]
    classifier: Option<PathBuf>,
    /// With --encoder or --classifier: remove the pairs scoring below X (step `score`, rule
    /// `min_score`).
    #[arg(long, value_name = "X", allow_negative_numbers = true)]
    min_score: Option<f64>,
    /// Pairs scored at a time with --encoder.
    #[arg(long, value_name = "N", default_value_t = 2048)]
    batch: usize,
    #[command(flatten)]
    calibration: crate::input::CalibrationArgs,
    /// The report as an SVG figure: the pairs removed by each step and rule, and the
    /// histogram of the kept pairs' scores (with --encoder).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    sharded: crate::input::ShardArgs,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    quiet: Quiet,
}

/// The rules' thresholds.
#[derive(Debug, Args)]
struct Thresholds {
    /// Longest side in characters [default: 1024].
    #[arg(long, value_name = "N")]
    max_chars: Option<usize>,
    /// Fewest words of a side [default: 1].
    #[arg(long, value_name = "N")]
    min_words: Option<usize>,
    /// Least share of letters among a side's characters [default: 0.3].
    #[arg(long, value_name = "X")]
    min_letters: Option<f64>,
    /// Largest share of punctuation and symbols among a side's characters [default: 0.5].
    #[arg(long, value_name = "X")]
    max_punctuation: Option<f64>,
    /// Largest ratio of the sides' lengths (characters; bytes for Han, kana and Hangul)
    /// [default: 2].
    #[arg(long, value_name = "X")]
    max_length_ratio: Option<f64>,
    /// Largest share of a side's letters outside its language's scripts [default: 0.2].
    #[arg(long, value_name = "X")]
    max_foreign_script: Option<f64>,
    /// Most times a side may occur in the corpus before it counts as boilerplate
    /// [default: 10].
    #[arg(long, value_name = "N")]
    max_repeats: Option<usize>,
}

/// What makes two pairs near-duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DedupArg {
    /// Both sides alike.
    Pair,
    /// The source sides alike.
    Source,
    /// The target sides alike.
    Target,
    /// No deduplication.
    None,
}

fn rule_name(name: &str) -> Result<Rule, String> {
    Rule::from_name(name).ok_or_else(|| {
        let names: Vec<_> = Rule::ALL.iter().map(|r| r.name()).collect();
        format!("no rule {name:?}: the rules are {}", names.join(", "))
    })
}

impl CleanArgs {
    /// The two sides as the steps judge them (entities decoded with --unescape-html).
    fn sides<'r>(&self, rec: &'r BitextRecord) -> (Cow<'r, str>, Cow<'r, str>) {
        bitext_clean::judged_sides(&rec.src, &rec.tgt, self.unescape_html)
    }

    /// The recipe of the flags (`bitext --recipe FILE` reads them from JSON, as for every
    /// command: `{"command": "clean", "rules": {"max-repeats": 5, "disable-rule":
    /// ["numbers"]}, "dedup": "source"}`).
    fn recipe(&self) -> Recipe {
        let mut recipe = Recipe::default();
        let (r, t) = (&mut recipe.rules, &self.thresholds);
        macro_rules! set {
            ($($field:ident),*) => { $(if let Some(v) = t.$field { r.$field = v; })* };
        }
        set!(
            max_chars,
            min_words,
            min_letters,
            max_punctuation,
            max_length_ratio
        );
        set!(max_foreign_script, max_repeats);
        if self.src_lang.is_some() {
            r.src_lang.clone_from(&self.src_lang);
        }
        if self.tgt_lang.is_some() {
            r.tgt_lang.clone_from(&self.tgt_lang);
        }
        r.disabled.extend(self.disable_rule.iter().copied());
        if let Some(p) = self.min_lang_confidence {
            recipe.lid.min_confidence = p;
        }
        if let Some(d) = self.dedup {
            recipe.dedup = match d {
                DedupArg::Pair => Dedup::Pair,
                DedupArg::Source => Dedup::Source,
                DedupArg::Target => Dedup::Target,
                DedupArg::None => Dedup::None,
            };
        }
        recipe
    }
}

pub(crate) fn run(a: &CleanArgs) -> Result<()> {
    crate::run::check_outputs([
        Some(a.output.as_path()),
        a.removed.as_deref(),
        a.report.as_deref(),
        a.plot.as_deref(),
    ])?;
    let (src_col, tgt_col) = a.cols.zero_based()?;
    let classifier = a
        .classifier
        .as_deref()
        .map(crate::build::classifier)
        .transpose()?;
    let (cal, from_precision) = a.calibration.load_with(classifier.as_deref())?;
    if cal.is_some() && a.encoder.is_none() && classifier.is_none() {
        bail!("--calibration gives the probability of the encoder's score: give --encoder");
    }
    if a.min_score.is_some() && a.encoder.is_none() && classifier.is_none() {
        bail!("--min-score thresholds a score: give --encoder or --classifier");
    }
    if a.min_score.is_some_and(|x| !x.is_finite()) {
        bail!("--min-score must be a finite number");
    }
    let min_score = match (a.min_score, from_precision) {
        (Some(m), Some(p)) => Some(m.max(p)),
        (m, p) => m.or(p),
    };
    let lid_model = if a.src_lang.is_some() && !a.no_lid {
        Some(a.lid.model_path().map_err(|e| {
            e.context(
                "`bitext clean --src-lang … --tgt-lang …` identifies languages (--no-lid: without)",
            )
        })?)
    } else {
        None
    };
    let recipe = bitext_shard::CleanRecipe {
        recipe: a.recipe(),
        lid_model,
        unescape_html: a.unescape_html,
        encoder: a.encoder.clone(),
        classifier: a.classifier.clone(),
        min_score,
        calibration: a.calibration.calibration.clone(),
        src_col,
        tgt_col,
        removed: a.removed.is_some(),
    };
    if let (Some(shards), Some(dir)) = (a.sharded.shards, &a.sharded.work_dir) {
        return run_sharded(a, &recipe, shards, dir);
    }
    let mut cleaner = Cleaner::new(recipe.recipe.clone())?;
    if let Some(path) = &recipe.lid_model {
        cleaner =
            cleaner.with_identifier(std::sync::Arc::new(bitext_lid::FastText::open(path)?))?;
    }
    let mut rejects = RejectSink::new(&a.bad)?;
    let open = || -> Result<BitextTsvReader> {
        Ok(BitextTsvReader::open(&a.input, src_col, tgt_col)?
            .empty_fields(EmptyLines::Keep)
            .bad_lines(a.bad.bad_lines()))
    };
    let scorer = match (&a.encoder, classifier) {
        (Some(spec), _) => Some(crate::build::encoder_scorers(crate::build::encoder(
            spec,
            None::<&[&str]>,
        )?)),
        (None, Some(c)) => Some(bitext::build::classifier_scorers(c)),
        (None, None) => None,
    };
    // With a scorer, near-duplicates keep their best-scored copy: a first pass finds it.
    let best_pass = scorer.is_some() && recipe.recipe.dedup != Dedup::None;
    if (cleaner.needs_counts() || best_pass) && bitext_core::io::is_stdio(&a.input) {
        bitext_core::io::stream::hold_stdin()?;
    }
    // Pairs in the input, when a first pass counts them: the progress bar's total.
    let mut pairs = None;
    if cleaner.needs_counts() {
        let mut n = 0;
        for rec in open()? {
            let rec = rec?;
            let (src, tgt) = a.sides(&rec);
            cleaner.count(&src, &tgt);
            n += 1;
        }
        pairs = Some(n);
    }
    let bar = match pairs {
        Some(n) => crate::input::progress_bar(n, "cleaning", a.quiet.quiet),
        None => crate::input::progress_count("cleaning", a.quiet.quiet),
    };
    let mut kept = AtomicFile::create_text(&a.output)?;
    let mut removed = a
        .removed
        .as_ref()
        .map(AtomicFile::create_text)
        .transpose()?;
    let best = match &scorer {
        Some(build) if best_pass => Some(a.best_copies(&cleaner, build, open()?)?),
        _ => None,
    };
    let mut report = Report::default();
    let mut reader = open()?;
    let prob = |s: f64| cal.as_ref().map_or(s, |c| c.probability(s));
    let mut out = Outputs {
        kept: &mut kept,
        removed: removed.as_mut(),
        report: &mut report,
        min_score,
        probability: cal.as_ref().map(|_| &prob as &dyn Fn(f64) -> f64),
    };
    // Scored here, batch by batch, unless the first pass scored them.
    let scorer = if best.is_some() { None } else { scorer };
    let mut batch: Vec<Judged> = Vec::new();
    while let Some(rec) = reader.next_record()? {
        let (src, tgt) = a.sides(&rec);
        let (removal, score) = match &best {
            Some(best) => match cleaner.screen(&src, &tgt) {
                Err(r) => (Some(r), None),
                Ok(None) => (None, None),
                Ok(Some(key)) => match best.verdict(key, rec.line) {
                    Ok(s) => (None, Some(s)),
                    Err(r) => (Some(r), None),
                },
            },
            None => (cleaner.judge(rec.line, &src, &tgt), None),
        };
        batch.push((rec, removal, score));
        if batch.len() >= a.batch.max(1) {
            a.flush(&mut batch, scorer.as_ref(), &mut out)?;
            bar.set_position(out.report.read as u64);
        }
        rejects.add(&reader.take_rejected())?;
    }
    a.flush(&mut batch, scorer.as_ref(), &mut out)?;
    bar.finish_and_clear();
    rejects.add(&reader.take_rejected())?;
    if report.read == 0 {
        bail!("{}: no sentence pairs", a.input.display());
    }
    kept.commit()?;
    if let Some(out) = removed {
        out.commit()?;
    }
    rejects.finish(&a.input)?;
    a.finish(&report)
}

/// `--shards N --work-dir DIR`: plan (or reuse the plan), run the steps not done, copy the
/// kept (and removed) lines to the outputs, and report.
fn run_sharded(
    a: &CleanArgs,
    recipe: &bitext_shard::CleanRecipe,
    shards: usize,
    dir: &std::path::Path,
) -> Result<()> {
    use bitext_shard::{CleanPlan, TsvPlan};
    if a.bad.bad_lines() == bitext_core::io::rejects::BadLines::Skip {
        bail!(
            "--bad-lines skip is not available with --shards: clean in one process, or fix the \
             lines the error names"
        );
    }
    let plan = CleanPlan::make(dir, &a.input, recipe, shards)
        .with_context(|| format!("planning in {}", dir.display()))?;
    if a.sharded.plan_only {
        crate::run::planned(&plan.id, plan.steps.len(), shards, dir);
        return Ok(());
    }
    let opts = crate::run::run_options();
    crate::run::run_steps(plan.steps.len(), dir, a.quiet.quiet, &mut |progress| {
        plan.run_all(dir, &opts, progress)
    })?;
    crate::run::copy_output(&plan.output(dir, "write")?, &a.output)?;
    if let Some(path) = &a.removed {
        crate::run::copy_output(&plan.output(dir, "write-removed")?, path)?;
    }
    a.finish(&plan.report(dir)?)
}

impl CleanArgs {
    /// The report: as JSON (--report), as SVG (--plot), and on standard error.
    fn finish(&self, report: &Report) -> Result<()> {
        if let Some(path) = &self.report {
            let mut out = AtomicFile::create_text(path)?;
            serde_json::to_writer_pretty(&mut out, report)?;
            writeln!(out).map_err(|e| out.err(e))?;
            out.commit()?;
        }
        if let Some(path) = &self.plot {
            crate::run::write_svg(path, &report_svg(report))?;
        }
        if !self.quiet.quiet {
            print_report(report);
        }
        Ok(())
    }
}

/// The report as a figure: the pairs removed by each step and rule (one bar each), and the
/// histogram of the kept pairs' scores when they were scored.
fn report_svg(report: &Report) -> String {
    use bitext_eval::plot::{Chart, render};
    let title = format!("kept {} of {} pairs", report.kept, report.read);
    let mut removed = Chart::new(&title, "step and rule", "pairs removed")
        .x_range(0.0, report.removed.len().max(1) as f64);
    for (i, r) in report.removed.iter().enumerate() {
        let name = format!("{}/{}: {}", r.step.name(), r.what, r.count);
        removed = removed.bars(&name, i as f64 + 0.1, 0.8, &[r.count as f64]);
    }
    let mut charts = vec![removed];
    if let Some(h) = &report.scores {
        let width = (h.hi - h.lo) / h.counts.len() as f64;
        let heights: Vec<f64> = h.counts.iter().map(|&c| c as f64).collect();
        let kept = Chart::new("scores of the kept pairs", "score", "pairs")
            .x_range(h.lo, h.hi)
            .bars("kept", h.lo, width, &heights);
        charts.push(kept);
    }
    render(&charts)
}

/// Where judged lines go, and what decides on their scores.
struct Outputs<'a> {
    kept: &'a mut AtomicFile,
    removed: Option<&'a mut AtomicFile>,
    report: &'a mut Report,
    /// Pairs scoring below this are removed.
    min_score: Option<f64>,
    /// The calibration's probability of a score (--calibration).
    probability: Option<&'a dyn Fn(f64) -> f64>,
}

impl CleanArgs {
    /// Score the kept pairs of `batch` not scored yet (with an encoder), then write every
    /// line of it in input order: kept ones (with their score) to the output, removed ones with
    /// their step, rule and reason; and count them.
    fn flush(
        &self,
        batch: &mut Vec<Judged>,
        scorer: Option<&bitext::build::BatchScorers>,
        out: &mut Outputs<'_>,
    ) -> Result<()> {
        if let Some(build) = scorer {
            let at: Vec<usize> = (0..batch.len())
                .filter(|&i| batch[i].1.is_none() && batch[i].2.is_none())
                .collect();
            let sides: Vec<(Cow<'_, str>, Cow<'_, str>)> =
                at.iter().map(|&i| self.sides(&batch[i].0)).collect();
            let items: Vec<(usize, &str, &str)> = at
                .iter()
                .zip(&sides)
                .map(|(&i, s)| (batch[i].0.line, s.0.as_ref(), s.1.as_ref()))
                .collect();
            let got = self.cosines(build, &items)?;
            for (&i, s) in at.iter().zip(got) {
                batch[i].2 = Some(s);
            }
        }
        for (rec, mut removal, score) in batch.drain(..) {
            if let Some(s) = score
                && let Some(m) = out.min_score.filter(|&m| s < m)
            {
                removal = Some(Removal::min_score(s, m));
            }
            out.report.add(rec.line, removal.as_ref());
            match (&removal, out.removed.as_deref_mut()) {
                (None, _) => {
                    if let Some(s) = score {
                        out.report.add_score(s);
                    }
                    let line = kept_line(&rec.raw, score, out.probability);
                    let kept = &mut *out.kept;
                    kept.write_all(line.as_bytes()).map_err(|e| kept.err(e))?;
                }
                (Some(r), Some(file)) => {
                    file.write_all(removed_line(&rec.raw, r).as_bytes())
                        .map_err(|e| file.err(e))?;
                }
                (Some(_), None) => {}
            }
        }
        Ok(())
    }
}

/// A judged line: the record, why it is removed (`None`: kept so far) and its score.
type Judged = (BitextRecord, Option<Removal>, Option<f64>);

impl CleanArgs {
    /// The scores of `(line, source, target)` pairs by the encoder's cosine; a score that is
    /// not finite is an error naming its line.
    fn cosines(
        &self,
        build: &bitext::build::BatchScorers,
        items: &[(usize, &str, &str)],
    ) -> Result<Vec<f64>> {
        let (Some(first), Some(last)) = (items.first(), items.last()) else {
            return Ok(Vec::new());
        };
        let src: Vec<&str> = items.iter().map(|x| x.1).collect();
        let tgt: Vec<&str> = items.iter().map(|x| x.2).collect();
        let pairs: Vec<(usize, usize)> = (0..items.len()).map(|k| (k, k)).collect();
        let got = build(&src, &tgt)
            .and_then(|s| Ok(s.score(&pairs)?))
            .with_context(|| format!("scoring lines {}–{}", first.0, last.0))?;
        if let Some((x, s)) = items.iter().zip(&got).find(|(_, s)| !s.is_finite()) {
            bail!(
                "{}: line {}: score {s} is not finite",
                self.input.display(),
                x.0
            );
        }
        Ok(got)
    }

    /// The first pass with a scorer: every pair through the rules and language
    /// identification, scored, so that each near-duplicate key keeps its best-scored copy.
    fn best_copies(
        &self,
        cleaner: &Cleaner,
        build: &bitext::build::BatchScorers,
        reader: BitextTsvReader,
    ) -> Result<BestCopies> {
        let mut best = BestCopies::default();
        let mut pending: Vec<(usize, u64, String, String)> = Vec::new();
        let mut offer = |pending: &mut Vec<(usize, u64, String, String)>| -> Result<()> {
            let items: Vec<(usize, &str, &str)> = pending
                .iter()
                .map(|p| (p.0, p.2.as_str(), p.3.as_str()))
                .collect();
            for (p, s) in pending.iter().zip(self.cosines(build, &items)?) {
                best.offer(p.1, p.0, s);
            }
            pending.clear();
            Ok(())
        };
        for rec in reader {
            let rec = rec?;
            let (src, tgt) = self.sides(&rec);
            if let Ok(Some(key)) = cleaner.screen(&src, &tgt) {
                pending.push((rec.line, key, src.into_owned(), tgt.into_owned()));
                if pending.len() >= self.batch.max(1) {
                    offer(&mut pending)?;
                }
            }
        }
        offer(&mut pending)?;
        Ok(best)
    }
}

/// The counts on standard error: pairs read and kept, then each step and rule.
fn print_report(report: &Report) {
    let share = |n: usize| 100.0 * n as f64 / report.read.max(1) as f64;
    eprintln!(
        "kept {} of {} pairs ({:.1}%)",
        report.kept,
        report.read,
        share(report.kept)
    );
    for r in &report.removed {
        eprintln!(
            "  removed by {:<5} {:<13} {:>9} ({:.1}%)",
            r.step.name(),
            r.what,
            r.count,
            share(r.count)
        );
    }
}
