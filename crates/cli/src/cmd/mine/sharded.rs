//! `bitext mine --shards N --work-dir DIR`: the plan of two embedding files or (with
//! `--encoder`) of two texts, its steps run here, resumably, and the output written as the
//! single-process run writes it; and the step options every sharded command shares.

use std::path::Path;

use anyhow::{Context, Result, bail};
use bitext_mine::{MineSpec, ScoredPair};
use bitext_shard::{
    Format, Input, Plan, PlannedSide, Sharding, Side, TextInput, mined_pairs, run_all,
};

use super::{MineArgs, Mode, write_mined};
use crate::input::{TextFormat, sentences_for_rows};
use crate::rows::Unify;
use crate::run::{run_options, run_steps};

/// `--shards N --work-dir DIR`: plan (or reuse the plan), run the steps not done, write the
/// output as the single-process run writes it. With `--encoder`, the plan embeds the text
/// itself (embed steps over byte ranges of each file).
pub(super) fn run_sharded(a: &MineArgs, spec: &MineSpec, shards: usize, dir: &Path) -> Result<()> {
    if a.mode != Mode::Mine || a.skip_zero_rows {
        bail!("--shards mines (--mode mine) without --skip-zero-rows");
    }
    match (a.unify, &a.encoder) {
        (Some(Unify::All), _) => {
            bail!("--shards unifies as --unify first (each pair at its sentences' first lines)")
        }
        (Some(Unify::First), None) => {
            bail!("--unify with --shards deduplicates text before embedding: give --encoder")
        }
        _ => {}
    }
    let sharding = Sharding {
        shards,
        index_shards: a.index_shards.unwrap_or(shards),
    };
    let plan = match (&a.encoder, &a.src_text, &a.trg_text) {
        (Some(encoder), Some(st), Some(tt)) => plan_text(a, spec, encoder, (st, tt), sharding),
        _ => plan_embeddings(a, spec, sharding),
    }
    .with_context(|| format!("planning in {}", dir.display()))?;
    if a.plan_only {
        eprintln!(
            "plan {} ({} steps, {shards} shards per side) in {}",
            plan.id,
            plan.steps.len(),
            dir.join(bitext_shard::PLAN_FILE).display()
        );
        return Ok(());
    }
    // A bad calibration file fails before any step runs.
    let calibration = a.calibration.load()?;
    let opts = run_options();
    run_steps(plan.steps.len(), dir, a.quiet.quiet, &mut |progress| {
        run_all(&plan, dir, &opts, progress).map(|_| ())
    })?;
    let name = |side: Side| match plan.side(side) {
        PlannedSide::Embeddings(p) => p.input.path.clone(),
        PlannedSide::Text(t) => t.path.clone(),
    };
    // The input's rows (lines), and with --unify the line of each mined row.
    let rows = |side: Side| -> Result<(usize, Option<Vec<usize>>)> {
        Ok(match plan.original_lines(dir, side)? {
            Some((lines, of_row)) => {
                eprintln!(
                    "--unify: {} of {lines} sentences of {} repeat an earlier one",
                    lines - of_row.len(),
                    name(side).display()
                );
                (lines, Some(of_row))
            }
            None => (plan.layout(dir, side)?.rows, None),
        })
    };
    let ((src_rows, src_of), (trg_rows, trg_of)) = (rows(Side::Src)?, rows(Side::Trg)?);
    let text = |path: Option<&Path>, rows: usize, side: Side| {
        sentences_for_rows(path, a.text_format, (rows, &name(side)), None)
    };
    let src_text = text(a.src_text.as_deref(), src_rows, Side::Src)?;
    let trg_text = text(a.trg_text.as_deref(), trg_rows, Side::Trg)?;
    let line = |of: &Option<Vec<usize>>, r: usize| of.as_ref().map_or(r, |o| o[r]);
    let pairs = mined_pairs(&plan, dir)?
        .into_iter()
        .map(|p| ScoredPair::new(p.score, line(&src_of, p.src), line(&trg_of, p.tgt)))
        .collect();
    write_mined(a, pairs, (src_text, trg_text), calibration)
}

/// The plan of mining two embedding files (`--index auto` chosen from their sizes).
fn plan_embeddings(a: &MineArgs, spec: &MineSpec, sharding: Sharding) -> Result<Plan> {
    let e = &a.embeddings;
    let input = |p: &Path| Input {
        path: p.to_path_buf(),
        format: Format::of(p, e.fp16),
        dim: e.dim,
    };
    let (sp, tp) = e.paths()?;
    let (src, trg) = (input(sp), input(tp));
    let mut spec = spec.clone();
    if a.search.index == "auto" {
        let ((ns, d), (nt, _)) = (src.shape()?, trg.shape()?);
        spec.index = bitext_shard::auto_index(ns, nt, d);
        if spec.index.is_faiss() && a.search.precision_is_explicit() {
            bail!(
                "--index auto chose {} for {ns} × {nt} sentences: --precision applies to the \
                 exact index only",
                spec.index
            );
        }
        if !spec.index.is_faiss() {
            spec.index = spec
                .index
                .with_threads(a.search.threads)
                .with_precision(a.search.precision);
        }
        eprintln!("--index auto: {}", spec.index);
    }
    let dir = a
        .work_dir
        .as_deref()
        .expect("sharded runs have a work directory");
    Ok(Plan::make(dir, &src, &trg, &spec, sharding)?)
}

/// The plan of embedding two text files with `encoder` and mining them.
fn plan_text(
    a: &MineArgs,
    spec: &MineSpec,
    encoder: &bitext_encode::EncoderSpec,
    (st, tt): (&Path, &Path),
    sharding: Sharding,
) -> Result<Plan> {
    if a.search.index == "auto" {
        bail!(
            "--index auto chooses from the embeddings' sizes, which a plan that embeds text \
             knows only once embedded: name the index (--index exact, or a faiss spec)"
        );
    }
    let bucc = match a.text_format {
        TextFormat::Auto => None,
        TextFormat::Bucc => Some(true),
        TextFormat::Plain => Some(false),
    };
    let text = |p: &Path| TextInput {
        path: p.to_path_buf(),
        bucc,
    };
    let dir = a
        .work_dir
        .as_deref()
        .expect("sharded runs have a work directory");
    Ok(Plan::make_text(
        dir,
        &text(st),
        &text(tt),
        encoder,
        spec,
        sharding,
        bitext_shard::TextOptions {
            unify: a.unify.is_some(),
            fp16: a.embeddings.fp16,
        },
    )?)
}
