//! `bitext mine-step`: run steps of a sharded plan (`bitext mine --shards N --work-dir DIR
//! --plan-only` or `bitext filter --shards N --work-dir DIR --plan-only` writes it), one process
//! per call, for an engine that schedules the steps itself (the Ray driver in
//! `python/bitext-ray`). A step already done is skipped; a step whose dependencies are not done
//! is an error naming them.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bitext_shard::{Outcome, Plan, run_step};

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
}

pub(crate) fn run(a: &MineStepArgs) -> Result<()> {
    let filter = bitext_shard::FilterPlan::is_filter_plan(&a.work_dir);
    let (mine, filter) = if filter {
        (None, Some(bitext_shard::FilterPlan::load(&a.work_dir)?))
    } else {
        (Some(Plan::load(&a.work_dir)?), None)
    };
    let steps = match (&mine, &filter) {
        (Some(p), _) => &p.steps,
        (_, Some(p)) => &p.steps,
        _ => unreachable!("one plan was loaded"),
    };
    if a.list {
        for s in steps {
            println!(
                "{}",
                serde_json::json!({"name": s.name, "deps": s.deps, "id": s.id})
            );
        }
        return Ok(());
    }
    let opts = crate::cmd::mine::run_options();
    for name in &a.steps {
        let o = match (&mine, &filter) {
            (Some(p), _) => run_step(p, &a.work_dir, name, &opts),
            (_, Some(p)) => bitext_shard::run_filter_step(p, &a.work_dir, name, &opts),
            _ => unreachable!("one plan was loaded"),
        }
        .with_context(|| format!("in {}", a.work_dir.display()))?;
        eprintln!(
            "{name}: {}",
            match o {
                Outcome::Ran => "ran",
                Outcome::Skipped => "already done",
            }
        );
    }
    Ok(())
}
