//! `bitext mine-step`: run steps of a sharded plan (`bitext mine`, `filter` or `clean` with
//! `--shards N --work-dir DIR --plan-only` writes it), one process
//! per call, for an engine that schedules the steps itself (the Ray driver in
//! `python/bitext-ray`). A step already done is skipped; a step whose dependencies are not done
//! is an error naming them.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bitext_shard::{Outcome, Plan, TsvPlan, run_step};

/// Arguments of `bitext mine-step`.
#[derive(Debug, clap::Args)]
pub(crate) struct MineStepArgs {
    /// The work directory holding plan.json.
    #[arg(long, value_name = "DIR")]
    work_dir: PathBuf,
    /// Print the plan's steps (name and dependencies, one JSON object per line) and stop.
    #[arg(long)]
    list: bool,
    /// Steps to run, in order (names from the plan: embed-src-0, knn-0-1, merge-knn-src-0,
    /// means-src, score-trg-2, retrieve, merge, …).
    #[arg(value_name = "STEP", required_unless_present = "list")]
    steps: Vec<String>,
    #[command(flatten)]
    pub(crate) quiet: crate::flags::Quiet,
}

/// The plan in a work directory: mining, filtering or cleaning.
enum AnyPlan {
    Mine(Plan),
    Filter(bitext_shard::FilterPlan),
    Clean(bitext_shard::CleanPlan),
}

impl AnyPlan {
    fn load(dir: &std::path::Path) -> Result<Self> {
        Ok(if bitext_shard::FilterPlan::is_filter_plan(dir) {
            AnyPlan::Filter(bitext_shard::FilterPlan::load(dir)?)
        } else if bitext_shard::CleanPlan::is_clean_plan(dir) {
            AnyPlan::Clean(bitext_shard::CleanPlan::load(dir)?)
        } else {
            AnyPlan::Mine(Plan::load(dir)?)
        })
    }

    fn steps(&self) -> &[bitext_shard::Step] {
        match self {
            AnyPlan::Mine(p) => &p.steps,
            AnyPlan::Filter(p) => &p.steps,
            AnyPlan::Clean(p) => &p.steps,
        }
    }

    fn run(
        &self,
        dir: &std::path::Path,
        name: &str,
        opts: &bitext_shard::RunOptions,
    ) -> bitext_shard::Result<Outcome> {
        match self {
            AnyPlan::Mine(p) => run_step(p, dir, name, opts),
            AnyPlan::Filter(p) => p.run_step(dir, name, opts),
            AnyPlan::Clean(p) => p.run_step(dir, name, opts),
        }
    }
}

pub(crate) fn run(a: &MineStepArgs) -> Result<()> {
    let plan = AnyPlan::load(&a.work_dir)?;
    if a.list {
        for s in plan.steps() {
            println!(
                "{}",
                serde_json::json!({"name": s.name, "deps": s.deps, "id": s.id})
            );
        }
        return Ok(());
    }
    let opts = crate::run::run_options();
    for name in &a.steps {
        let o = plan
            .run(&a.work_dir, name, &opts)
            .with_context(|| format!("in {}", a.work_dir.display()))?;
        if !a.quiet.quiet {
            eprintln!(
                "{name}: {}",
                match o {
                    Outcome::Ran => "ran",
                    Outcome::Skipped => "already done",
                }
            );
        }
    }
    Ok(())
}
