//! The plan of a sharded mining run: the inputs (identified by path, size and modification
//! time, with each side's "already unit length" flag), the row ranges of the shards, and the
//! steps, each with a content-addressed id (a hash of what it does and of the ids of what it
//! reads), so that its output name changes whenever anything it depends on changes.
//!
//! A side is an embedding file, or a text file that the plan embeds itself (`Plan::make_text`):
//! then its shards are byte ranges of the text, cut at line starts, and their row ranges are
//! known once embedded ([`Plan::layout`]).
//!
//! Steps, in an order that respects their dependencies:
//! - text sides only: `embed-src-s` / `embed-trg-s`, the sentences of one byte range encoded
//!   (raw `f32` rows, the shard's embedding file; its record holds rows, dimension and whether
//!   every row is unit length), the encoder's spec and files and the text's identity in its id;
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
use bitext_encode::{EncoderSpec, Weighting};
use bitext_mine::MineSpec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::input::{Input, Mapped};
pub use crate::sharding::Sharding;
use crate::sharding::cut;
use crate::text::{PlannedText, TextInput};

/// The plan file's name in the work directory.
pub const PLAN_FILE: &str = "plan.json";
const FORMAT: &str = "bitext-mine-plan";
const VERSION: u32 = 2;
/// Most shards per side.
pub const MAX_SHARDS: usize = 4096;

/// A stable 64-bit hash (FNV-1a), the same on every machine and version.
fn hash_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

pub(crate) fn hash_hex(parts: &[&str]) -> String {
    let joined = parts.join("\u{1f}");
    format!("{:016x}", hash_bytes(joined.as_bytes()))
}

pub use crate::step::{Side, Step, StepKind};

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

/// Where a side's rows come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "kebab-case")]
pub enum PlannedSide {
    /// An embedding file.
    Embeddings(PlannedInput),
    /// A text file the plan embeds, shard by shard.
    Text(PlannedText),
}

/// Options of a plan from text ([`Plan::make_text`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextOptions {
    /// Embed and mine each distinct sentence once (LASER's `--unify`, each pair at its
    /// sentences' first lines).
    pub unify: bool,
    /// Store the embedded rows as binary16.
    pub fp16: bool,
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
    /// The source side.
    pub src: PlannedSide,
    /// The target side.
    pub trg: PlannedSide,
    /// The encoder of text sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoder: Option<EncoderSpec>,
    /// The encoder's spec and the identities of the files it names (in embed steps' ids).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoder_identity: Option<String>,
    /// Text plans: each distinct sentence embedded and mined once (LASER's `--unify`), each
    /// pair reported at the first occurrence of its sentences.
    #[serde(default)]
    pub unify: bool,
    /// Text plans: embed steps store binary16 rows (LASER's `--fp16`: half the disk and the
    /// mapped memory), which the mining steps read as `bitext mine --fp16` reads such files.
    #[serde(default)]
    pub fp16: bool,
    /// Row ranges `[start, end)` of the source shards (empty for a text side: see
    /// [`Plan::layout`]).
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

/// Check what both kinds of plan require of the recipe and the shard counts.
fn check_request(spec: &MineSpec, sharding: Sharding) -> Result<()> {
    for n in [sharding.shards, sharding.index_shards] {
        if !(1..=MAX_SHARDS).contains(&n) {
            return Err(Error::Invalid(format!(
                "the shard count must be in 1..={MAX_SHARDS}, got {n}"
            )));
        }
    }
    if sharding.index_shards != sharding.shards && !spec.index.is_faiss() {
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
    Ok(())
}

/// Read `plan.json` from `work_dir` as a plan of `kind` ("mining", "filter"): its `format`
/// and `version` fields checked first (so that a plan of another kind is named as such), then
/// the whole plan parsed.
pub(crate) fn read_plan_file<T: serde::de::DeserializeOwned>(
    work_dir: &Path,
    kind: &str,
    format: &str,
    version: u32,
) -> Result<T> {
    let path = work_dir.join(PLAN_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| bitext_core::Error::io(&path, e))?;
    let corrupt = |reason: String| Error::Corrupt {
        path: path.clone(),
        reason,
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| corrupt(format!("not a {kind} plan: {e}")))?;
    if value["format"] != format || value["version"] != version {
        return Err(corrupt(format!(
            "format {} version {}, expected {format:?} {version} (a {kind} plan)",
            value["format"], value["version"]
        )));
    }
    serde_json::from_value(value).map_err(|e| corrupt(format!("not a {kind} plan: {e}")))
}

/// Write `json` as `plan.json` in `work_dir` (created if missing), atomically.
pub(crate) fn write_plan_file(work_dir: &Path, json: &str) -> Result<()> {
    std::fs::create_dir_all(work_dir).map_err(|e| bitext_core::Error::io(work_dir, e))?;
    let mut out = AtomicFile::create(work_dir.join(PLAN_FILE))?;
    std::io::Write::write_all(&mut out, json.as_bytes()).map_err(|e| out.err(e))?;
    std::io::Write::write_all(&mut out, b"\n").map_err(|e| out.err(e))?;
    out.commit()?;
    Ok(())
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
        check_request(spec, sharding)?;
        let (src_id, trg_id) = (src.identity()?, trg.identity()?);
        let id = plan_id(&src_id, &trg_id, spec, sharding);
        if let Some(old) = Plan::reusable(work_dir, &id) {
            return Ok(old);
        }
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
        let src = PlannedSide::Embeddings(planned(src, &ms, src_id, src_unit));
        let trg = PlannedSide::Embeddings(planned(trg, &mt, trg_id, trg_unit));
        Plan {
            src_shards,
            trg_shards,
            index_shards,
            src_index_shards: cut(ms.len(), index_shards),
            trg_index_shards: cut(mt.len(), index_shards),
            ..Plan::bare(id, spec, shards, src, trg)
        }
        .with_steps_saved(work_dir)
    }

    /// Plan embedding the text files `src` and `trg` with `encoder`, then mining them with
    /// `spec`, in `shards` byte-range shards per side (cut at line starts, reading only a
    /// window at each boundary), reusing the plan in `work_dir` when the texts, the encoder
    /// (its spec and the files it names) and the recipe are the same. The output is that of
    /// embedding each file whole and mining the two embedding files; with `options.unify`, of
    /// mining each distinct sentence once (`dedup` steps before the embed steps); with
    /// `options.fp16`, of embedding into binary16 files and mining them.
    ///
    /// # Errors
    /// As [`Plan::make`] for the counts and the recipe; index shards other than the shard count;
    /// a TF-IDF bag of words without an `idf_corpus` (its IDF is counted over the whole text,
    /// which no step reads); a text that is standard input, compressed, empty, unreadable, or
    /// has fewer lines than shards.
    pub fn make_text(
        work_dir: &Path,
        src: &TextInput,
        trg: &TextInput,
        encoder: &EncoderSpec,
        spec: &MineSpec,
        sharding: impl Into<Sharding>,
        options: TextOptions,
    ) -> Result<Plan> {
        let TextOptions { unify, fp16 } = options;
        let sharding = sharding.into();
        check_request(spec, sharding)?;
        if sharding.index_shards != sharding.shards {
            return Err(Error::Invalid(
                "a plan that embeds text indexes each embedded shard: index shards must equal \
                 the shard count"
                    .into(),
            ));
        }
        encoder.check()?;
        if let Some(b) = encoder.as_bow()
            && b.weighting == Weighting::TfIdf
            && b.idf_corpus.is_none()
        {
            return Err(Error::Invalid(
                "a TF-IDF bag of words counts its IDF over the whole text, which no step of a \
                 sharded plan reads: give the spec an idf_corpus (the text itself gives the \
                 single-process vectors), or mine without shards"
                    .into(),
            ));
        }
        let shards = sharding.shards;
        let (ps, pt) = (src.plan(shards, "source")?, trg.plan(shards, "target")?);
        let encoder_id = crate::text::encoder_identity(encoder)?;
        let key =
            |t: &PlannedText| format!("text|{}|{}|{encoder_id}|{unify}|{fp16}", t.identity, t.bucc);
        let id = plan_id(&key(&ps), &key(&pt), spec, sharding);
        if let Some(old) = Plan::reusable(work_dir, &id) {
            return Ok(old);
        }
        let (src, trg) = (PlannedSide::Text(ps), PlannedSide::Text(pt));
        Plan {
            encoder: Some(encoder.clone()),
            encoder_identity: Some(encoder_id),
            unify,
            fp16,
            ..Plan::bare(id, spec, shards, src, trg)
        }
        .with_steps_saved(work_dir)
    }

    /// A plan of `src` and `trg` in `shards` shards, with no encoder, no row ranges and no
    /// steps yet: what [`Plan::make`] and [`Plan::make_text`] fill in.
    fn bare(
        id: String,
        spec: &MineSpec,
        shards: usize,
        src: PlannedSide,
        trg: PlannedSide,
    ) -> Plan {
        Plan {
            format: FORMAT.into(),
            version: VERSION,
            id,
            spec: spec.clone(),
            shards,
            src,
            trg,
            encoder: None,
            encoder_identity: None,
            unify: false,
            fp16: false,
            src_shards: Vec::new(),
            trg_shards: Vec::new(),
            index_shards: shards,
            src_index_shards: Vec::new(),
            trg_index_shards: Vec::new(),
            steps: Vec::new(),
        }
    }

    /// The plan with its steps, saved in `work_dir`.
    fn with_steps_saved(mut self, work_dir: &Path) -> Result<Plan> {
        self.steps = crate::graph::steps_of(&self);
        self.save(work_dir)?;
        Ok(self)
    }

    /// Where the rows of `side` come from.
    #[must_use]
    pub fn side(&self, side: Side) -> &PlannedSide {
        match side {
            Side::Src => &self.src,
            Side::Trg => &self.trg,
        }
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
        let json = serde_json::to_string_pretty(self).expect("plan serialises");
        write_plan_file(work_dir, &json)
    }

    /// Read `plan.json` from `work_dir`.
    ///
    /// # Errors
    /// A missing or malformed plan, naming the file.
    pub fn load(work_dir: &Path) -> Result<Plan> {
        read_plan_file(work_dir, "mining", FORMAT, VERSION)
    }

    /// The plan in `work_dir` if it has id `id` (the same inputs, recipe and shards).
    pub(crate) fn reusable(work_dir: &Path, id: &str) -> Option<Plan> {
        Plan::load(work_dir).ok().filter(|p| p.id == id)
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
