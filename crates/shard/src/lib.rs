//! Sharded, resumable margin mining (issue "scale out"): the mining of two embedding files cut
//! into row-range shards and done as content-addressed steps, each a pure function of its
//! inputs that writes one file atomically with a completion record, so a rerun skips what is
//! done and redoes only what is missing or stale. The same plan runs in one process
//! ([`run_all`], `bitext mine --shards N --work-dir DIR`) or step by step under an engine
//! (`bitext mine-step`, e.g. from the Ray driver in `python/bitext-ray`).
//!
//! In exact mode the output is byte-identical to single-process mining: every shard pair is
//! searched exactly (the scores are the same `f32` dot products whatever the blocking), the
//! partial lists are merged by score with ties to the lower id (the search's own order), the
//! means and margins are computed by the same functions row by row, and retrieval is the
//! miner's own `select` over all candidates.
//!
//! In faiss mode (an approximate index: `--index auto` above [`AUTO_EXACT_PAIRS`], or any faiss
//! spec) each side's index is trained once on a seeded sample, filled shard by shard (index
//! shards may differ from query shards: [`Sharding`]), and every query shard is searched in
//! each index shard of the other side. `src/plan.rs` lists the steps of both modes.
//!
//! Memory of a step: `knn` holds one source shard (a normalised copy when the side is not unit
//! length) and one target shard (mapped in place when it can be) plus their lists; the merge,
//! means and score steps hold lists and the means arrays (8 bytes per sentence and side);
//! `retrieve` holds every candidate (`n_src·k_src + n_trg·k_trg` of them, 16 bytes each).

mod arrays;
mod clean;
mod dedup;
mod embed;
mod error;
mod filter;
mod graph;
mod input;
mod kinds;
mod layout;
mod plan;
mod preset;
mod run;
mod sharding;
mod step;
mod steps;
mod text;

pub use clean::{CleanPlan, CleanRecipe, kept_line, removed_line};
pub use embed::{BuildEncoder, Embedded, Encoders};
pub use error::{Error, Result};
pub use filter::{
    BuildCalibration, BuildClassifier, BuildLineScorer, FilterPlan, FilterRecipe, LoadedClassifier,
    ShardScorer,
};
pub use input::{Format, Input};
pub use kinds::TsvPlan;
pub use layout::Layout;
pub use plan::{
    MAX_SHARDS, PLAN_FILE, Plan, PlannedInput, PlannedSide, Sharding, Side, Step, StepKind,
    TextOptions,
};
pub use preset::{AUTO_EXACT_PAIRS, AUTO_NPROBE, auto_index};
pub use run::{LOG_FILE, Outcome, RunOptions, mined_pairs, neighbours, run_all, run_step};
pub use text::{PlannedText, TextInput};
