//! Sharded runs' steps, as every sharded command runs them (`mine`, `filter`, `score` with
//! `--shards N --work-dir DIR`, and `mine-step`): the options that build this binary's encoders,
//! scorers, calibrations and classifiers for the steps, the loop with its progress bar, and the sharded
//! filter (of `filter` and `score`).

use std::path::Path;

use anyhow::{Context, Result, bail};
use bitext_shard::{Outcome, RunOptions};

use crate::input::progress_bar;

/// How a sharded run's steps run: the failure asked for by `BITEXT_FAIL_STEP` (tests), and
/// builders of every encoder and sentence scorer this binary can build (neural and ONNX
/// included).
pub(crate) fn run_options() -> RunOptions {
    RunOptions {
        fail_step: std::env::var("BITEXT_FAIL_STEP").ok(),
        encoders: Some(std::sync::Arc::new(bitext::build::shard_encoders())),
        line_scorers: Some(std::sync::Arc::new(|spec| {
            let no_reference = || bail!("a sharded filter's scorer has no reference corpus");
            let build =
                crate::build::batch_scorers(spec, no_reference).map_err(|e| format!("{e:#}"))?;
            let scorer: Box<bitext_shard::ShardScorer> =
                Box::new(move |src, tgt| build(src, tgt).map_err(|e| format!("{e:#}")));
            Ok(scorer)
        })),
        calibrations: Some(std::sync::Arc::new(|path| {
            let cal =
                bitext_eval::calibration::Calibration::load(path).map_err(|e| format!("{e:#}"))?;
            let probability: Box<dyn Fn(f64) -> f64> = Box::new(move |s| cal.probability(s));
            Ok(probability)
        })),
        classifiers: Some(std::sync::Arc::new(|dir| {
            let c = crate::build::classifier(dir).map_err(|e| format!("{e:#}"))?;
            let loaded: bitext_shard::LoadedClassifier =
                Box::new(move |src, tgt| c.score(src, tgt).map_err(|e| e.to_string()));
            Ok(loaded)
        })),
    }
}

/// A step's name, outcome, and the count done and in all (what the runners report).
type Progress<'a> = &'a mut dyn FnMut(&str, Outcome, usize, usize);

/// Run a plan's `total` steps in `dir` through `run` with a progress bar, then say how many ran
/// and how many were done already (every sharded command's loop).
pub(crate) fn run_steps(
    total: usize,
    dir: &Path,
    quiet: bool,
    run: &mut dyn FnMut(Progress<'_>) -> bitext_shard::Result<()>,
) -> Result<()> {
    let bar = progress_bar(total, "steps", quiet);
    let (mut ran, mut skipped) = (0, 0);
    run(&mut |_, outcome, done, _| {
        match outcome {
            Outcome::Ran => ran += 1,
            Outcome::Skipped => skipped += 1,
        }
        bar.set_position(done as u64);
    })
    .with_context(|| format!("in {} (rerun to resume)", dir.display()))?;
    bar.finish_and_clear();
    eprintln!(
        "steps: {ran} ran, {skipped} already done ({})",
        dir.display()
    );
    Ok(())
}

/// `--shards N --work-dir DIR` of `filter` and `score`: plan (or reuse the plan), run the steps
/// not done, copy the filtered TSV to `output`; the report of what was kept (`None` with
/// `--plan-only`, which stops after planning).
pub(crate) fn filter_sharded(
    (input, output): (&std::path::Path, &std::path::Path),
    recipe: &bitext_shard::FilterRecipe,
    (shards, dir, plan_only): (usize, &std::path::Path, bool),
    quiet: bool,
) -> Result<Option<bitext_mine::filter::FilterReport>> {
    use bitext_shard::{FilterPlan, TsvPlan};
    let plan = FilterPlan::make(dir, input, recipe, shards)
        .with_context(|| format!("planning in {}", dir.display()))?;
    if plan_only {
        planned(&plan.id, plan.steps.len(), shards, dir);
        return Ok(None);
    }
    let opts = run_options();
    run_steps(plan.steps.len(), dir, quiet, &mut |progress| {
        plan.run_all(dir, &opts, progress)
    })?;
    copy_output(&plan.output(dir)?, output)?;
    Ok(Some(plan.report(dir)?))
}

/// Say where `--plan-only` left the plan `id` of `steps` steps over `shards` shards.
pub(crate) fn planned(id: &str, steps: usize, shards: usize, dir: &Path) {
    let file = dir.join(bitext_shard::PLAN_FILE);
    eprintln!(
        "plan {id} ({steps} steps, {shards} shards) in {}",
        file.display()
    );
}

/// Copy a plan's output file `from` to the user's `to` (written as every output is).
pub(crate) fn copy_output(from: &Path, to: &Path) -> Result<()> {
    let mut out = bitext_core::io::AtomicFile::create_text(to)?;
    let mut src = std::fs::File::open(from).map_err(|e| bitext_core::Error::io(from, e))?;
    std::io::copy(&mut src, &mut out).map_err(|e| out.err(e))?;
    out.commit()?;
    Ok(())
}
