//! Running steps: a step whose completion record is present and whose output still has the
//! recorded size and checksum is skipped; any other runs, writes its output through a temporary
//! file and a rename, then its record. A run killed at any point leaves complete outputs with
//! records, complete outputs without (redone), or temporary files (ignored): rerunning redoes
//! exactly what is missing. Each decision is appended to `steps.log` in the work directory.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use bitext_core::io::AtomicFile;
#[cfg(test)]
use bitext_core::io::checksum;
use bitext_mine::ScoredPair;
use serde::{Deserialize, Serialize};

use crate::embed::{Embedded, Encoders};
use crate::error::{Error, Result};
use crate::plan::Side;
use crate::plan::{Plan, Step, StepKind};
use crate::steps::{compute, read_pairs, side_neighbors};

/// The log of step decisions in the work directory.
pub const LOG_FILE: &str = "steps.log";

/// What happened to a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It ran and its output was written.
    Ran,
    /// Its output was already complete.
    Skipped,
}

/// A step's completion record.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    step: String,
    id: String,
    output: String,
    bytes: u64,
    checksum: String,
    /// Embed steps: what they wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    embedded: Option<Embedded>,
}

/// Options of a run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Fail this step on purpose, before it writes anything (to test resumption).
    pub fail_step: Option<String>,
    /// What builds the encoder of embed steps (default: bags of words only).
    pub encoders: Option<Arc<Encoders>>,
    /// What builds the scorers of a filter plan's sentence scorers (default: the scorers
    /// `bitext-mine` builds; a neural model needs a builder from a crate that links it).
    pub line_scorers: Option<Arc<crate::filter::BuildLineScorer>>,
    /// What loads a filter plan's calibration file (none: a plan with one fails its write).
    pub calibrations: Option<Arc<crate::filter::BuildCalibration>>,
    /// What loads a cleaning plan's pair classifier (none: a plan with one fails its judge
    /// steps).
    pub classifiers: Option<Arc<crate::filter::BuildClassifier>>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("fail_step", &self.fail_step)
            .field("encoders", &self.encoders)
            .field(
                "line_scorers",
                &self.line_scorers.as_ref().map(|_| "a builder"),
            )
            .field(
                "calibrations",
                &self.calibrations.as_ref().map(|_| "a builder"),
            )
            .field(
                "classifiers",
                &self.classifiers.as_ref().map(|_| "a builder"),
            )
            .finish()
    }
}

impl RunOptions {
    /// The pair classifier in `dir`, through [`RunOptions::classifiers`].
    pub(crate) fn classifier(&self, dir: &Path) -> Result<crate::filter::LoadedClassifier> {
        let build = self.classifiers.as_ref().ok_or_else(|| {
            Error::Invalid(format!(
                "{}: a classifier is loaded by the caller's builder (RunOptions::classifiers)",
                dir.display()
            ))
        })?;
        build(dir).map_err(Error::Invalid)
    }

    /// The encoder of `spec`, from [`RunOptions::encoders`] or, without one, a bag of words
    /// built here.
    pub(crate) fn encoder(
        &self,
        spec: &bitext_encode::EncoderSpec,
    ) -> Result<Arc<dyn bitext_encode::SentenceEncoder>> {
        match &self.encoders {
            Some(e) => e.get(spec),
            None => Encoders::default().get(spec),
        }
    }
}

/// What the embed step `step` recorded, if it has completed (its output has the recorded
/// size).
///
/// # Errors
/// [`Error::Invalid`] when it has not completed or its record says nothing of its rows.
pub(crate) fn embedded(dir: &Path, step: &Step) -> Result<Embedded> {
    if !is_done(dir, step, false) {
        return Err(Error::Invalid(format!("{} has not completed", step.name)));
    }
    let path = dir.join(step.record());
    std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Record>(&t).ok())
        .and_then(|r| r.embedded)
        .ok_or_else(|| Error::Corrupt {
            path,
            reason: "an embed step's record without its rows".into(),
        })
}

/// Whether `step` has completed: its record is there and names its output, which has the
/// recorded size and (with `deep`, which reads the whole file) checksum. A step checks its own
/// output deeply before skipping itself, and its dependencies' by size (they read them anyway,
/// and each was checked deeply when it ran or was skipped).
pub(crate) fn is_done(dir: &Path, step: &Step, deep: bool) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join(step.record())) else {
        return false;
    };
    let Ok(rec) = serde_json::from_str::<Record>(&text) else {
        return false;
    };
    let out = dir.join(&rec.output);
    if rec.id != step.id || rec.output != step.output() {
        return false;
    }
    if !deep {
        return std::fs::metadata(&out).is_ok_and(|m| m.len() == rec.bytes);
    }
    let Ok((len, sum)) = file_checksum(&out) else {
        return false;
    };
    rec.bytes == len && rec.checksum == format!("{sum:016x}")
}

/// The size and [`checksum`] of the file at `path`, read a block at a time (a step's output
/// may be larger than memory: a cleaned or filtered TSV).
fn file_checksum(path: &Path) -> std::io::Result<(u64, u64)> {
    let f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    Ok((len, read_checksum(f, len)?))
}

/// The [`checksum`] of the `len` bytes `f` reads.
fn read_checksum(mut f: impl std::io::Read, len: u64) -> std::io::Result<u64> {
    // `checksum` starts from the length and mixes 8 bytes at a time, then the last bytes one
    // by one: blocks of a multiple of 8 bytes give the same value.
    let mix = |h: u64, x: u64| (h.rotate_left(29) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let (mut h, mut buf, mut have, mut total) = (len, vec![0u8; 1 << 20], 0usize, 0u64);
    loop {
        let n = f.read(&mut buf[have..])?;
        have += n;
        total += n as u64;
        if n == 0 || have == buf.len() {
            let whole = if n == 0 { have } else { have - have % 8 };
            let mut chunks = buf[..whole].chunks_exact(8);
            for c in &mut chunks {
                h = mix(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
            }
            if n == 0 {
                let rest = chunks.remainder();
                h = rest.iter().fold(h, |h, &b| mix(h, u64::from(b)));
                if total != len {
                    return Err(std::io::Error::other("the file changed while read"));
                }
                return Ok(h);
            }
            buf.copy_within(whole..have, 0);
            have -= whole;
        }
    }
}

fn log(dir: &Path, line: &str) -> Result<()> {
    let path = dir.join(LOG_FILE);
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| bitext_core::Error::io(&path, e))?;
    writeln!(f, "{line}").map_err(|e| bitext_core::Error::io(&path, e))?;
    Ok(())
}

/// Write the final TSV of `plan`'s pairs (`score<TAB>src<TAB>tgt`, row numbers, scores in the
/// shortest form that reads back exactly).
fn write_tsv(path: &Path, pairs: &[ScoredPair]) -> Result<()> {
    let mut out = AtomicFile::create(path)?;
    for p in pairs {
        writeln!(out, "{}\t{}\t{}", p.score, p.src, p.tgt).map_err(|e| out.err(e))?;
    }
    out.commit()?;
    Ok(())
}

/// Run the step named `name` of `plan` in `dir` unless it is done.
///
/// # Errors
/// [`Error::Step`] naming the step: unknown step, a dependency whose output is missing or
/// corrupt, the step's own errors, or the failure asked for by `opts`.
pub fn run_step(plan: &Plan, dir: &Path, name: &str, opts: &RunOptions) -> Result<Outcome> {
    let step = plan.step(name).map_err(|e| wrap(name, e))?;
    let deps = step
        .deps
        .iter()
        .map(|d| plan.step(d))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| wrap(name, e))?;
    run_generic(dir, step, &deps, opts, |out| match step.kind {
        StepKind::Merge => {
            write_tsv(out, &read_pairs(plan, dir)?)?;
            Ok(None)
        }
        StepKind::Embed { side, shard } => Ok(Some(crate::embed::embed(
            plan,
            dir,
            (side, shard),
            out,
            opts,
        )?)),
        StepKind::Dedup { side } => crate::dedup::dedup(plan, side, out).map(|()| None),
        _ => compute(plan, dir, step, out).map(|()| None),
    })
}

/// `e` as the error of the step `name`.
fn wrap(name: &str, e: Error) -> Error {
    Error::Step {
        step: name.to_string(),
        reason: Box::new(e),
    }
}

/// Run `step` (whose dependencies are `deps`) in `dir` unless it is done: `compute` writes its
/// output (atomically) and says what an embed step embedded; then the completion record. The
/// one runner of every kind of plan.
pub(crate) fn run_generic(
    dir: &Path,
    step: &Step,
    deps: &[&Step],
    opts: &RunOptions,
    compute: impl FnOnce(&Path) -> Result<Option<Embedded>>,
) -> Result<Outcome> {
    let name = step.name.as_str();
    if is_done(dir, step, true) {
        log(dir, &format!("skipped {name} {}", step.id))?;
        return Ok(Outcome::Skipped);
    }
    for dep in deps {
        if !is_done(dir, dep, false) {
            let why = format!("its dependency {} has not completed", dep.name);
            return Err(wrap(name, Error::Invalid(why)));
        }
    }
    if opts.fail_step.as_deref() == Some(name) {
        log(dir, &format!("failed {name} {} (on purpose)", step.id))?;
        let why = Error::Invalid("failed on purpose (--fail-step)".into());
        return Err(wrap(name, why));
    }
    let out = dir.join(step.output());
    let embedded = compute(&out).map_err(|e| wrap(name, e))?;
    let (bytes, sum) =
        file_checksum(&out).map_err(|e| wrap(name, bitext_core::Error::io(&out, e).into()))?;
    let rec = Record {
        step: name.into(),
        id: step.id.clone(),
        output: step.output(),
        bytes,
        checksum: format!("{sum:016x}"),
        embedded,
    };
    let path = dir.join(step.record());
    let mut f = AtomicFile::create(&path)?;
    let json = serde_json::to_string(&rec).expect("record serialises");
    f.write_all(json.as_bytes()).map_err(|e| f.err(e))?;
    f.commit()?;
    log(dir, &format!("ran {name} {}", step.id))?;
    Ok(Outcome::Ran)
}

/// Run every step of `plan` in `dir` that is not done, in order; `progress` gets each step's
/// name, outcome, and the count done so far and in all.
///
/// # Errors
/// The first failing step's error (the steps before it stay done).
pub fn run_all(
    plan: &Plan,
    dir: &Path,
    opts: &RunOptions,
    progress: &mut dyn FnMut(&str, Outcome, usize, usize),
) -> Result<Vec<(String, Outcome)>> {
    let mut report = Vec::with_capacity(plan.steps.len());
    for (i, s) in plan.steps.iter().enumerate() {
        let o = run_step(plan, dir, &s.name, opts)?;
        progress(&s.name, o, i + 1, plan.steps.len());
        report.push((s.name.clone(), o));
    }
    Ok(report)
}

/// The global neighbour lists of `side` (the `k` nearest sentences of the other side, best
/// first) of a plan whose `merge-knn` steps are done.
///
/// # Errors
/// A `merge-knn` step of the side has not completed, or its output is malformed.
pub fn neighbours(plan: &Plan, dir: &Path, side: Side) -> Result<bitext_knn::Neighbors> {
    for s in 0..plan.shards {
        let step = plan.step(&format!("merge-knn-{}-{s}", side.name()))?;
        if !is_done(dir, step, false) {
            return Err(Error::Invalid(format!("{} has not completed", step.name)));
        }
    }
    side_neighbors(plan, dir, side)
}

/// The mined pairs of a completed plan (from its final TSV).
///
/// # Errors
/// The `merge` step has not completed, or its file is malformed.
pub fn mined_pairs(plan: &Plan, dir: &Path) -> Result<Vec<ScoredPair>> {
    let step = plan.step("merge")?;
    if !is_done(dir, step, true) {
        return Err(Error::Invalid(
            "the plan's merge step has not completed".into(),
        ));
    }
    let path = dir.join(step.output());
    let text = std::fs::read_to_string(&path).map_err(|e| bitext_core::Error::io(&path, e))?;
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let f: Vec<&str> = line.split('\t').collect();
            let bad = || Error::Corrupt {
                path: path.clone(),
                reason: format!("line {}: expected score<TAB>src<TAB>tgt", i + 1),
            };
            if f.len() != 3 {
                return Err(bad());
            }
            Ok(ScoredPair::new(
                f[0].parse().map_err(|_| bad())?,
                f[1].parse().map_err(|_| bad())?,
                f[2].parse().map_err(|_| bad())?,
            ))
        })
        .collect()
}

#[cfg(test)]
#[test]
fn blocks_of_a_reader_have_the_checksum_of_its_bytes() {
    let mut rng = bitext_core::Rng::seed(7);
    for len in [0, 1, 7, 8, 9, 1 << 20, (1 << 20) + 3, 3 * (1 << 20) - 5] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        let got = read_checksum(&bytes[..], len as u64).unwrap();
        assert_eq!(got, checksum(&bytes), "{len}");
    }
    let short = read_checksum(&[1u8, 2, 3][..], 4);
    assert!(
        short
            .unwrap_err()
            .to_string()
            .contains("changed while read")
    );
}
