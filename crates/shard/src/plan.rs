//! The plan of a sharded mining run: the inputs (identified by path, size and modification
//! time, with each side's "already unit length" flag), the row ranges of the shards, and the
//! steps, each with a content-addressed id (a hash of what it does and of the ids of what it
//! reads), so that its output name changes whenever anything it depends on changes.
//!
//! Steps, in an order that respects their dependencies:
//! - faiss mode only: `train-index-src` / `train-index-trg` (the index of the spec trained on a
//!   seeded sample of the side's rows: `train_size` of them, or all) and `add-src-s` /
//!   `add-trg-s` (the trained index filled with one shard). There is no merged index: a shard's
//!   search in each shard index of the other side, merged by `merge-knn`, is the search of the
//!   merged index (every shard index has the same trained quantisers, so a query probes the
//!   same inverted lists in each), and a step then holds one shard's index, not all of them;
//! - exact mode: `knn-i-j` for every source shard `i` and target shard `j`, the exact
//!   both-ways search of the two shards in one pass (partial lists: the best targets of shard
//!   `j` for every source of shard `i`, and the best sources of shard `i` for every target of
//!   shard `j`), then `merge-knn-src-i` / `merge-knn-trg-j`, the partial lists merged (k-way,
//!   by score, ties to the lower id) into the exact global top-k of every sentence of the
//!   shard;
//! - faiss mode: `merge-knn-src-i` / `merge-knn-trg-j` search the shard in every shard index
//!   of the other side in turn and merge the lists as they come (one shard index in memory at
//!   a time, and one output per query shard rather than one per pair of shards);
//! - `means-src` / `means-trg`: the global arrays of kNN means;
//! - `score-src-i` / `score-trg-j`: the margin of every candidate of the shard, reading both
//!   sides' means;
//! - `retrieve`: fwd / bwd / intersect / max over all shards' candidates, threshold, one-to-one
//!   and top-N (the single-process miner's own `select`);
//! - `merge`: the final TSV (`score<TAB>src<TAB>tgt`, row numbers, deduplicated).

use std::path::Path;

use bitext_core::io::AtomicFile;
use bitext_mine::MineSpec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::input::{Input, Mapped};
pub use crate::sharding::Sharding;
use crate::sharding::cut;

/// The plan file's name in the work directory.
pub const PLAN_FILE: &str = "plan.json";
const FORMAT: &str = "bitext-mine-plan";
const VERSION: u32 = 1;
/// Most shards per side.
pub const MAX_SHARDS: usize = 4096;

/// A stable 64-bit hash (FNV-1a), the same on every machine and version.
fn hash_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn hash_hex(parts: &[&str]) -> String {
    let joined = parts.join("\u{1f}");
    format!("{:016x}", hash_bytes(joined.as_bytes()))
}

/// A side of the mining.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The source sentences (the queries of the forward direction).
    Src,
    /// The target sentences.
    Trg,
}

impl Side {
    /// "src" or "trg".
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Side::Src => "src",
            Side::Trg => "trg",
        }
    }
}

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StepKind {
    /// An approximate index (faiss mode) trained on a seeded sample of `side`, saved empty.
    TrainIndex {
        /// The side.
        side: Side,
    },
    /// The trained index of `side` filled with one shard's rows (ids local to the shard).
    Add {
        /// The side.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// Faiss mode: one shard of `side` searched in every shard index of the other side, the
    /// lists merged as they come (its output is that of a `merge-knn` step).
    SearchIndexes {
        /// The side of the queries.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// Source shard `src` against target shard `trg`, both ways, in one exact pass.
    Knn {
        /// Source shard.
        src: usize,
        /// Target shard.
        trg: usize,
    },
    /// The partial lists of one shard of `side` merged.
    MergeKnn {
        /// The side.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// The kNN means of every sentence of `side`.
    Means {
        /// The side.
        side: Side,
    },
    /// Margin scores of one shard's candidates.
    Score {
        /// The side.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// Retrieval over all candidates.
    Retrieve,
    /// The final TSV.
    Merge,
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Its name (`knn-0-2`, `merge-knn-src-1`, `retrieve`, …).
    pub name: String,
    /// What it does.
    #[serde(flatten)]
    pub kind: StepKind,
    /// The steps whose outputs it reads.
    pub deps: Vec<String>,
    /// Content address: a hash of what it does and of its inputs' ids.
    pub id: String,
}

impl Step {
    /// Its output file in the work directory.
    #[must_use]
    pub fn output(&self) -> String {
        if self.kind == StepKind::Merge {
            format!("mined-{}.tsv", self.id)
        } else {
            format!("{}-{}.bin", self.name, self.id)
        }
    }

    /// Its completion record in the work directory.
    #[must_use]
    pub fn record(&self) -> String {
        format!("{}-{}.done", self.name, self.id)
    }
}

/// An input as planned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedInput {
    /// The file, its format and the dimension given.
    pub input: Input,
    /// Rows.
    pub rows: usize,
    /// Dimension.
    pub dim: usize,
    /// Path, size and modification time.
    pub identity: String,
    /// Whether every row is unit length already (then no row is normalised, as in the
    /// single-process run).
    pub unit: bool,
}

/// A sharded mining run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `bitext-mine-plan`.
    pub format: String,
    /// Format version.
    pub version: u32,
    /// Hash of the inputs' identities, the recipe and the shard count.
    pub id: String,
    /// The recipe (margin, retrieval, threshold, one-to-one, top-N, exact index and precision).
    pub spec: MineSpec,
    /// Shards per side.
    pub shards: usize,
    /// The source embeddings.
    pub src: PlannedInput,
    /// The target embeddings.
    pub trg: PlannedInput,
    /// Row ranges `[start, end)` of the source shards.
    pub src_shards: Vec<(usize, usize)>,
    /// Row ranges of the target shards.
    pub trg_shards: Vec<(usize, usize)>,
    /// Faiss mode: index shards per side (each query shard is searched in every index shard
    /// of the other side, one at a time); the query shards' count otherwise.
    pub index_shards: usize,
    /// Row ranges of the source index shards.
    pub src_index_shards: Vec<(usize, usize)>,
    /// Row ranges of the target index shards.
    pub trg_index_shards: Vec<(usize, usize)>,
    /// The steps, dependencies first.
    pub steps: Vec<Step>,
}

fn plan_id(src: &str, trg: &str, spec: &MineSpec, shards: Sharding) -> String {
    let spec = serde_json::to_string(spec).expect("spec serialises");
    hash_hex(&[
        FORMAT,
        &VERSION.to_string(),
        src,
        trg,
        &spec,
        &format!("{}|{}", shards.shards, shards.index_shards),
    ])
}

impl Plan {
    /// Plan mining `src` against `trg` with `spec` in `shards` shards per side, reusing the
    /// plan in `work_dir` when it is for the same inputs (same identities), recipe and shard
    /// count; otherwise the inputs are checked (finite values, no zero rows, whether already
    /// unit length: one sequential pass over each file) and a new plan is written.
    ///
    /// # Errors
    /// A shard or index-shard count of 0 or above [`MAX_SHARDS`], or more shards than a side
    /// has rows; index shards other than the shard count with the exact search (they apply to
    /// a faiss index); an index spec that fails its check (a faiss spec in a build without the
    /// `faiss` feature) or whose metric is not the inner product; a miner that fails its check;
    /// inputs that cannot be opened, differ in dimension, hold bad rows (naming the side and
    /// global row), or are smaller than the other side's `k`.
    pub fn make(
        work_dir: &Path,
        src: &Input,
        trg: &Input,
        spec: &MineSpec,
        sharding: impl Into<Sharding>,
    ) -> Result<Plan> {
        let sharding = sharding.into();
        let (shards, index_shards) = (sharding.shards, sharding.index_shards);
        for n in [shards, index_shards] {
            if !(1..=MAX_SHARDS).contains(&n) {
                return Err(Error::Invalid(format!(
                    "the shard count must be in 1..={MAX_SHARDS}, got {n}"
                )));
            }
        }
        if index_shards != shards && !spec.index.is_faiss() {
            return Err(Error::Invalid(
                "index shards apply to a faiss index; the exact search pairs query shards".into(),
            ));
        }
        spec.index.check()?;
        if spec.index.metric() != bitext_knn::Metric::InnerProduct {
            return Err(Error::Invalid(
                "margin mining needs an inner-product index".into(),
            ));
        }
        spec.miner.check()?;
        let (src_id, trg_id) = (src.identity()?, trg.identity()?);
        let id = plan_id(&src_id, &trg_id, spec, sharding);
        let path = work_dir.join(PLAN_FILE);
        if let Ok(old) = Plan::load(work_dir)
            && old.id == id
        {
            return Ok(old);
        }
        let _ = path;
        let (ms, mt) = (src.open()?, trg.open()?);
        if ms.dim() != mt.dim() {
            return Err(Error::Invalid(format!(
                "{} has dimension {} but {} has {}",
                src.path.display(),
                ms.dim(),
                trg.path.display(),
                mt.dim()
            )));
        }
        let n = spec.miner.margin_spec().neighborhood();
        for (m, k, other) in [(&mt, n.k_src, "source"), (&ms, n.k_trg, "target")] {
            if m.len() < k {
                return Err(Error::Invalid(format!(
                    "the {other} sentences need {k} neighbours but the other side has only {} \
                     sentences",
                    m.len()
                )));
            }
        }
        let most = shards.max(index_shards);
        if most > ms.len().min(mt.len()) {
            return Err(Error::Invalid(format!(
                "{most} shards but a side has only {} sentences",
                ms.len().min(mt.len())
            )));
        }
        let (src_shards, trg_shards) = (cut(ms.len(), shards), cut(mt.len(), shards));
        let planned = |input: &Input, m: &Mapped, identity: String, unit: bool| PlannedInput {
            input: input.clone(),
            rows: m.len(),
            dim: m.dim(),
            identity,
            unit,
        };
        let src_unit = src.check_unit(ms.dim(), "source")?;
        let trg_unit = trg.check_unit(mt.dim(), "target")?;
        let mut plan = Plan {
            format: FORMAT.into(),
            version: VERSION,
            id,
            spec: spec.clone(),
            shards,
            src: planned(src, &ms, src_id, src_unit),
            trg: planned(trg, &mt, trg_id, trg_unit),
            src_shards,
            trg_shards,
            index_shards,
            src_index_shards: cut(ms.len(), index_shards),
            trg_index_shards: cut(mt.len(), index_shards),
            steps: Vec::new(),
        };
        plan.steps = plan.steps_of();
        plan.save(work_dir)?;
        Ok(plan)
    }

    /// The steps of this plan, with their ids.
    fn steps_of(&self) -> Vec<Step> {
        let spec = &self.spec;
        let index = serde_json::to_string(&spec.index).expect("serialises");
        let margin = serde_json::to_string(spec.miner.margin_spec()).expect("serialises");
        let miner = serde_json::to_string(&spec.miner).expect("serialises");
        let mut steps: Vec<Step> = Vec::new();
        let id_of = |steps: &[Step], name: &str| {
            steps
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.id.clone())
                .expect("dependencies come first")
        };
        let add = |steps: &mut Vec<Step>,
                   name: String,
                   kind: StepKind,
                   deps: Vec<String>,
                   own: String| {
            let mut parts = vec![name.clone(), own];
            parts.extend(deps.iter().map(|d| id_of(steps, d)));
            let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
            let id = hash_hex(&refs);
            steps.push(Step {
                name,
                kind,
                deps,
                id,
            });
        };
        let side_key = |p: &PlannedInput, r: (usize, usize)| {
            format!("{}|{}|{}|{}", p.identity, p.unit, r.0, r.1)
        };
        let k = spec.miner.margin_spec().neighborhood();
        let faiss = spec.index.is_faiss();
        if faiss {
            for (side, p, shards) in [
                (Side::Src, &self.src, &self.src_index_shards),
                (Side::Trg, &self.trg, &self.trg_index_shards),
            ] {
                let own = format!("{index}|{}|{}|{}", p.identity, p.unit, p.rows);
                let train = format!("train-index-{}", side.name());
                add(
                    &mut steps,
                    train.clone(),
                    StepKind::TrainIndex { side },
                    vec![],
                    own,
                );
                for (s, &r) in shards.iter().enumerate() {
                    let name = format!("add-{}-{s}", side.name());
                    let kind = StepKind::Add { side, shard: s };
                    add(&mut steps, name, kind, vec![train.clone()], side_key(p, r));
                }
            }
        }
        for (i, &rs) in self.src_shards.iter().enumerate() {
            if faiss {
                break;
            }
            for (j, &rt) in self.trg_shards.iter().enumerate() {
                let own = format!(
                    "{}|{}|{index}|{}|{}",
                    side_key(&self.src, rs),
                    side_key(&self.trg, rt),
                    k.k_src,
                    k.k_trg
                );
                let kind = StepKind::Knn { src: i, trg: j };
                add(&mut steps, format!("knn-{i}-{j}"), kind, vec![], own);
            }
        }
        for side in [Side::Src, Side::Trg] {
            let (p, ranges) = match side {
                Side::Src => (&self.src, &self.src_shards),
                Side::Trg => (&self.trg, &self.trg_shards),
            };
            for (s, &range) in ranges.iter().enumerate() {
                let name = format!("merge-knn-{}-{s}", side.name());
                let own = format!("{}|{}", k.k_src, k.k_trg);
                if faiss {
                    let other = match side {
                        Side::Src => "trg",
                        Side::Trg => "src",
                    };
                    let deps = (0..self.index_shards)
                        .map(|o| format!("add-{other}-{o}"))
                        .collect();
                    let own = format!("{own}|{}", side_key(p, range));
                    let kind = StepKind::SearchIndexes { side, shard: s };
                    add(&mut steps, name, kind, deps, own);
                    continue;
                }
                let deps = (0..self.shards)
                    .map(|o| match side {
                        Side::Src => format!("knn-{s}-{o}"),
                        Side::Trg => format!("knn-{o}-{s}"),
                    })
                    .collect();
                add(
                    &mut steps,
                    name,
                    StepKind::MergeKnn { side, shard: s },
                    deps,
                    own,
                );
            }
        }
        for side in [Side::Src, Side::Trg] {
            let deps = (0..self.shards)
                .map(|s| format!("merge-knn-{}-{s}", side.name()))
                .collect();
            add(
                &mut steps,
                format!("means-{}", side.name()),
                StepKind::Means { side },
                deps,
                margin.clone(),
            );
        }
        for side in [Side::Src, Side::Trg] {
            for s in 0..self.shards {
                let deps = vec![
                    format!("merge-knn-{}-{s}", side.name()),
                    "means-src".into(),
                    "means-trg".into(),
                ];
                let name = format!("score-{}-{s}", side.name());
                add(
                    &mut steps,
                    name,
                    StepKind::Score { side, shard: s },
                    deps,
                    margin.clone(),
                );
            }
        }
        let deps = [Side::Src, Side::Trg]
            .iter()
            .flat_map(|side| (0..self.shards).map(move |s| format!("score-{}-{s}", side.name())))
            .collect();
        add(
            &mut steps,
            "retrieve".into(),
            StepKind::Retrieve,
            deps,
            miner,
        );
        add(
            &mut steps,
            "merge".into(),
            StepKind::Merge,
            vec!["retrieve".into()],
            String::new(),
        );
        steps
    }

    /// The step named `name`.
    ///
    /// # Errors
    /// [`Error::Invalid`] listing a few step names when there is none.
    pub fn step(&self, name: &str) -> Result<&Step> {
        self.steps.iter().find(|s| s.name == name).ok_or_else(|| {
            let some: Vec<&str> = self.steps.iter().take(4).map(|s| s.name.as_str()).collect();
            Error::Invalid(format!(
                "no step {name:?} in the plan (steps are named like {}, …, retrieve, merge)",
                some.join(", ")
            ))
        })
    }

    /// Write `plan.json` into `work_dir` (created if missing), atomically.
    ///
    /// # Errors
    /// I/O errors naming the path.
    pub fn save(&self, work_dir: &Path) -> Result<()> {
        std::fs::create_dir_all(work_dir).map_err(|e| bitext_core::Error::io(work_dir, e))?;
        let path = work_dir.join(PLAN_FILE);
        let json = serde_json::to_string_pretty(self).expect("plan serialises");
        let mut out = AtomicFile::create(&path)?;
        std::io::Write::write_all(&mut out, json.as_bytes()).map_err(|e| out.err(e))?;
        std::io::Write::write_all(&mut out, b"\n").map_err(|e| out.err(e))?;
        out.commit()?;
        Ok(())
    }

    /// Read `plan.json` from `work_dir`.
    ///
    /// # Errors
    /// A missing or malformed plan, naming the file.
    pub fn load(work_dir: &Path) -> Result<Plan> {
        let path = work_dir.join(PLAN_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| bitext_core::Error::io(&path, e))?;
        let plan: Plan = serde_json::from_str(&text).map_err(|e| Error::Corrupt {
            path: path.clone(),
            reason: format!("not a mining plan: {e}"),
        })?;
        if plan.format != FORMAT || plan.version != VERSION {
            return Err(Error::Corrupt {
                path,
                reason: format!(
                    "format {:?} version {}, expected {FORMAT:?} {VERSION}",
                    plan.format, plan.version
                ),
            });
        }
        Ok(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_stable() {
        // FNV-1a of "a": a fixed value on every machine, so plans and step ids are portable.
        assert_eq!(hash_bytes(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
