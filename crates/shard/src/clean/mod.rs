//! Sharded, resumable cleaning of a crawled TSV (`bitext clean --shards N --work-dir DIR`): the
//! single-process pipeline of `bitext_clean` (rules → language identification → near-duplicates
//! → the encoder's or the pair classifier's score and its threshold), cut so that every step holds one shard or one
//! bucket of keys, and the output byte-identical to one process's:
//!
//! - `count-S` (with the boilerplate rule): shard S's folded sides counted by key;
//! - `repeats-B`: the counts of key bucket B summed over the shards, the sides seen more than
//!   `max_repeats` times kept (boilerplate is rare: this list is short);
//! - `judge-S`: each pair of shard S through the rules (with those counts) and language
//!   identification ([`Cleaner::screen`], the single-process cleaner's own), and scored by the
//!   encoder or the classifier when it passes;
//! - `dedup-B`: the passing pairs whose near-duplicate key falls in bucket B, in input order:
//!   each copy but the best-scored (the first of equals, [`bitext_clean::BestCopies`], as one
//!   process chooses) is a duplicate of the one kept;
//! - `write` (and `write-removed`): the input read once more, each line kept (with its score
//!   and probability) or removed (with its step, rule and reason).
//!
//! Memory: a `count` step the distinct sides of its shard; a `repeats` or `dedup` step its
//! bucket's keys (16 bytes and a map entry each) and one shard's arrays; a `judge` step one
//! shard's verdicts and a batch of encoded pairs; the writers 16 bytes per near-duplicate. So
//! with shards of fixed size, no step grows with the corpus but the writers' list of
//! duplicates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bitext_clean::{Cleaner, Dedup, Recipe, Removal, Report};
use bitext_core::io::text::EmptyLines;
use bitext_core::io::tsv::{BitextRecord, BitextTsvReader};
use bitext_encode::EncoderSpec;
use serde::{Deserialize, Serialize};

use crate::arrays;
use crate::error::{Error, Result};
use crate::kinds::TsvPlan;
use crate::plan::{Step, StepKind};
use crate::run::RunOptions;
use crate::text::PlannedText;

mod steps;

use steps::{count, dedup, judge, repeats, write_kept, write_removed};
pub use steps::{kept_line, removed_line};

const FORMAT: &str = "bitext-clean-plan";
const VERSION: u32 = 1;

/// Pairs encoded at a time by a `judge` step.
const BATCH: usize = 4096;

/// What a cleaning plan does: the cleaning recipe and what `bitext clean`'s flags add to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CleanRecipe {
    /// The rules, language identification and near-duplicate settings.
    pub recipe: Recipe,
    /// The language-identification model (fastText `.ftz`/`.bin`), when the recipe names
    /// both languages and identifies them.
    pub lid_model: Option<PathBuf>,
    /// Judge each pair with its HTML entities decoded (the lines are written as they are).
    #[serde(default)]
    pub unescape_html: bool,
    /// The encoder whose cosine scores each kept pair.
    pub encoder: Option<EncoderSpec>,
    /// Or the pair classifier (`bitext train classifier`'s directory) that scores each kept
    /// pair, and whose calibration gives the probability (built through
    /// [`RunOptions::classifiers`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classifier: Option<PathBuf>,
    /// Pairs scoring below this are removed (step `score`).
    pub min_score: Option<f64>,
    /// A calibration file (`bitext calibrate`): the probability it gives each kept pair's
    /// score is written after the score (read through [`RunOptions::calibrations`]).
    pub calibration: Option<PathBuf>,
    /// Source column (0-based).
    pub src_col: usize,
    /// Target column (0-based).
    pub tgt_col: usize,
    /// Whether to write the removed lines (step `write-removed`).
    #[serde(default)]
    pub removed: bool,
}

/// A sharded cleaning run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CleanPlan {
    /// `bitext-clean-plan`.
    pub format: String,
    /// Format version.
    pub version: u32,
    /// Hash of the input's identity, the recipe, the files it names and the shard count.
    pub id: String,
    /// The recipe.
    pub recipe: CleanRecipe,
    /// The input TSV and its shards' byte ranges.
    pub input: PlannedText,
    /// The steps, dependencies first.
    pub steps: Vec<Step>,
}

/// The bucket of a key among `n` (the key's high bits: multiply and shift).
fn bucket(key: u64, n: usize) -> usize {
    ((u128::from(key) * n as u128) >> 64) as usize
}

impl CleanPlan {
    /// Plan cleaning `input` with `recipe` in `shards` byte-range shards (and as many key
    /// buckets), reusing the plan in `work_dir` when the input (path, size, modification
    /// time), the recipe, the files it names and the shard count are the same.
    ///
    /// # Errors
    /// A recipe [`Cleaner::new`] refuses; equal columns; a threshold without an encoder, or a
    /// non-finite one; a shard count of 0, or more than the file has lines; an unreadable,
    /// compressed or empty input.
    pub fn make(
        work_dir: &Path,
        input: &Path,
        recipe: &CleanRecipe,
        shards: usize,
    ) -> Result<CleanPlan> {
        let r = recipe;
        Cleaner::new(r.recipe.clone()).map_err(|e| Error::Invalid(e.to_string()))?;
        if r.src_col == r.tgt_col {
            return Err(Error::Invalid(format!(
                "source and target are both in column {}",
                r.src_col + 1
            )));
        }
        if r.encoder.is_some() && r.classifier.is_some() {
            return Err(Error::Invalid(
                "an encoder or a classifier scores the pairs, not both".into(),
            ));
        }
        if r.classifier.is_some() && r.calibration.is_some() {
            return Err(Error::Invalid(
                "the classifier holds its own calibration".into(),
            ));
        }
        let scored = r.encoder.is_some() || r.classifier.is_some();
        if !scored && (r.min_score.is_some() || r.calibration.is_some()) {
            return Err(Error::Invalid(
                "a score threshold or a calibration needs an encoder or a classifier".into(),
            ));
        }
        if r.min_score.is_some_and(|m| !m.is_finite()) {
            return Err(Error::Invalid("the score threshold must be finite".into()));
        }
        let text = crate::kinds::plan_input(input, shards)?;
        let recipe_json = serde_json::to_string(r).expect("serialises");
        let mut files = crate::text::named_files(&serde_json::to_value(r).expect("json"))?;
        if let Some(e) = &r.encoder {
            files = format!("{files}\n{}", crate::text::encoder_identity(e)?);
        }
        if let Some(dir) = &r.classifier {
            files = format!("{files}\n{}", crate::text::classifier_identity(dir)?);
        }
        let (id, old) = crate::kinds::plan_id(
            work_dir,
            ("clean", FORMAT, VERSION),
            &text,
            &[&recipe_json, &files],
            |p: &CleanPlan| &p.id,
        );
        if let Some(old) = old {
            return Ok(old);
        }
        let mut g = crate::graph::Graph::default();
        let shard = |s: usize| {
            let (a, b) = text.bytes[s];
            format!("{}|{a}|{b}|{}|{}", text.identity, r.src_col, r.tgt_col)
        };
        let html = r.unescape_html;
        let mut repeats = Vec::new();
        if r.recipe.rules.needs_repeats() {
            let counts: Vec<String> = (0..shards).map(|s| format!("count-{s}")).collect();
            for (s, name) in counts.iter().enumerate() {
                let own = format!("{}|{html}", shard(s));
                g.add(name.clone(), StepKind::CountSides { shard: s }, vec![], own);
            }
            for b in 0..shards {
                let name = format!("repeats-{b}");
                let own = format!("{b}/{shards}|{}", r.recipe.rules.max_repeats);
                g.add(
                    name.clone(),
                    StepKind::Repeats { bucket: b },
                    counts.clone(),
                    own,
                );
                repeats.push(name);
            }
        }
        let mut judged = Vec::new();
        for s in 0..shards {
            let name = format!("judge-{s}");
            let own = format!("{}|{recipe_json}|{files}", shard(s));
            g.add(
                name.clone(),
                StepKind::Judge { shard: s },
                repeats.clone(),
                own,
            );
            judged.push(name);
        }
        let mut deps = judged.clone();
        if r.recipe.dedup != Dedup::None {
            for b in 0..shards {
                let name = format!("dedup-{b}");
                let own = format!("{b}/{shards}");
                g.add(
                    name.clone(),
                    StepKind::DedupKeys { bucket: b },
                    judged.clone(),
                    own,
                );
                deps.push(name);
            }
        }
        let own = format!("{:?}|{files}", r.min_score);
        g.add("write".into(), StepKind::WriteCleaned, deps.clone(), own);
        if r.removed {
            let own = format!("{:?}", r.min_score);
            g.add("write-removed".into(), StepKind::WriteRemoved, deps, own);
        }
        let plan = CleanPlan {
            format: FORMAT.into(),
            version: VERSION,
            id,
            recipe: r.clone(),
            input: text,
            steps: g.into_steps(),
        };
        let json = serde_json::to_string_pretty(&plan).expect("plan serialises");
        crate::plan::write_plan_file(work_dir, &json)?;
        Ok(plan)
    }

    /// Read `plan.json` from `work_dir`.
    ///
    /// # Errors
    /// A missing or malformed plan, or one of another kind, naming the file.
    pub fn load(work_dir: &Path) -> Result<CleanPlan> {
        crate::plan::read_plan_file(work_dir, "clean", FORMAT, VERSION)
    }

    /// Whether `work_dir`'s plan is a cleaning plan (by its `format` field).
    #[must_use]
    pub fn is_clean_plan(work_dir: &Path) -> bool {
        crate::kinds::has_format(work_dir, FORMAT)
    }

    /// The output of the completed step `name` (`write`: the kept lines; `write-removed`:
    /// the removed ones), in `work_dir`.
    ///
    /// # Errors
    /// No such step, or it has not completed.
    pub fn output(&self, work_dir: &Path, name: &str) -> Result<PathBuf> {
        self.done_output(work_dir, name)
    }

    /// What the run did, as single-process `bitext clean` reports it (read from the steps'
    /// verdicts, not the input).
    ///
    /// # Errors
    /// A step it reads has not completed, or its output is malformed.
    pub fn report(&self, dir: &Path) -> Result<Report> {
        let mut report = Report::default();
        self.verdicts(dir, None, &mut |j| {
            report.add(j.line, j.removal);
            if let (None, Some(s)) = (j.removal, j.score) {
                report.add_score(s);
            }
            Ok(())
        })?;
        Ok(report)
    }

    fn shards(&self) -> usize {
        self.input.bytes.len()
    }

    fn output_of(&self, dir: &Path, name: &str) -> Result<PathBuf> {
        Ok(dir.join(self.find(name)?.output()))
    }

    /// The records of shard `s`.
    fn records(&self, s: usize) -> Result<BitextTsvReader<impl std::io::BufRead>> {
        let r = &self.recipe;
        Ok(
            BitextTsvReader::new(self.input.shard_reader(s)?, r.src_col, r.tgt_col)?
                .empty_fields(EmptyLines::Keep),
        )
    }

    /// The cleaner of the recipe, identifying languages with the recipe's model.
    fn cleaner(&self) -> Result<Cleaner> {
        let invalid = |e: bitext_clean::Error| Error::Invalid(e.to_string());
        let mut c = Cleaner::new(self.recipe.recipe.clone()).map_err(invalid)?;
        if let Some(path) = &self.recipe.lid_model {
            let lid = bitext_lid::FastText::open(path)
                .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
            c = c.with_identifier(Arc::new(lid)).map_err(invalid)?;
        }
        Ok(c)
    }

    /// Call `f` with every line of the input in order, its text read when `input` is
    /// `Some(())`.
    fn verdicts(
        &self,
        dir: &Path,
        input: Option<()>,
        f: &mut dyn FnMut(Judgement<'_>) -> Result<()>,
    ) -> Result<()> {
        let dups = self.duplicates(dir)?;
        let mut dups = dups.iter().peekable();
        let mut line = 0usize;
        for s in 0..self.shards() {
            let path = self.output_of(dir, &format!("judge-{s}"))?;
            let judged = Judged::read(&path)?;
            let mut records = match input {
                Some(()) => Some(self.records(s)?),
                None => None,
            };
            let mut removals = judged.removals(&path);
            for i in 0..judged.verdicts.len() {
                line += 1;
                let rec = match records.as_mut() {
                    Some(r) => Some(r.next_record()?.ok_or_else(|| Error::Corrupt {
                        path: path.clone(),
                        reason: format!("more verdicts than shard {s} has lines"),
                    })?),
                    None => None,
                };
                let score = judged.scores[i];
                let score = (!score.is_nan()).then_some(score);
                let removal = if judged.verdicts[i] != 0 {
                    Some(removals.next().ok_or_else(|| Error::Corrupt {
                        path: path.clone(),
                        reason: "fewer removals than verdicts".into(),
                    })??)
                } else if dups.peek().is_some_and(|d| d.0 == line) {
                    let first = dups.next().map_or(0, |d| d.1);
                    Some(bitext_clean::duplicate_of(first))
                } else {
                    match (score, self.recipe.min_score) {
                        (Some(x), Some(m)) if x < m => Some(Removal::min_score(x, m)),
                        _ => None,
                    }
                };
                f(Judgement {
                    line,
                    rec: rec.as_ref(),
                    removal: removal.as_ref(),
                    score,
                })?;
            }
        }
        Ok(())
    }

    /// Every near-duplicate's line and the line of its first copy (1-based), by line.
    fn duplicates(&self, dir: &Path) -> Result<Vec<(usize, usize)>> {
        if self.recipe.recipe.dedup == Dedup::None {
            return Ok(Vec::new());
        }
        let mut all = Vec::new();
        for b in 0..self.shards() {
            let path = self.output_of(dir, &format!("dedup-{b}"))?;
            let r = arrays::read(&path, "duplicates", &[8, 8])?;
            let lines = r.usizes(0, &path, usize::MAX)?;
            let firsts = r.usizes(1, &path, usize::MAX)?;
            all.extend(lines.into_iter().zip(firsts));
        }
        all.sort_unstable();
        Ok(all)
    }
}

/// One input line's fate.
struct Judgement<'a> {
    /// Its 1-based number.
    line: usize,
    /// Its text, when read.
    rec: Option<&'a BitextRecord>,
    /// Why it is removed (`None`: kept).
    removal: Option<&'a Removal>,
    /// Its score, when scored.
    score: Option<f64>,
}

/// A `judge` step's output: per line, 0 (passed) or 1 (removed), its near-duplicate key and its
/// score (NaN: none); and the removals, in line order, as `step\0what\0reason\0`.
struct Judged {
    verdicts: Vec<u64>,
    keys: Vec<u64>,
    scores: Vec<f64>,
    text: Vec<u8>,
}

impl Judged {
    fn read(path: &Path) -> Result<Judged> {
        let r = arrays::read(path, "judged", &[8, 8, 8, 1])?;
        let judged = Judged {
            verdicts: r.u64s(0),
            keys: r.u64s(1),
            scores: r.f64s(2),
            text: r.bytes(3),
        };
        let n = judged.verdicts.len();
        if judged.keys.len() != n || judged.scores.len() != n {
            return Err(Error::Corrupt {
                path: path.into(),
                reason: "arrays of different lengths".into(),
            });
        }
        Ok(judged)
    }

    /// The removals, in line order.
    fn removals<'a>(&'a self, path: &'a Path) -> impl Iterator<Item = Result<Removal>> + 'a {
        let mut fields = self.text.split(|&b| b == 0);
        std::iter::from_fn(move || {
            let step = fields.next().filter(|s| !s.is_empty())?;
            let (what, reason) = (fields.next(), fields.next());
            let parsed = (|| {
                let s = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_string);
                Removal::from_names(&s(step)?, &s(what?)?, s(reason?)?)
            })();
            Some(parsed.ok_or_else(|| Error::Corrupt {
                path: path.into(),
                reason: "a malformed removal".into(),
            }))
        })
    }
}

impl TsvPlan for CleanPlan {
    const NAME: &'static str = "cleaning";
    const STEP_NAMES: &'static str =
        "count-0, repeats-0, judge-0, dedup-0, …, write, write-removed";

    fn steps(&self) -> &[Step] {
        &self.steps
    }

    fn compute(&self, dir: &Path, step: &Step, out: &Path, opts: &RunOptions) -> Result<()> {
        match step.kind {
            StepKind::CountSides { shard } => count(self, shard, out),
            StepKind::Repeats { bucket } => repeats(self, dir, bucket, out),
            StepKind::Judge { shard } => judge(self, dir, shard, out, opts),
            StepKind::DedupKeys { bucket } => dedup(self, dir, bucket, out),
            StepKind::WriteCleaned => write_kept(self, dir, out, opts),
            StepKind::WriteRemoved => write_removed(self, dir, out),
            _ => Err(Error::Invalid(format!(
                "{} is not a cleaning step",
                step.name
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::bucket;

    #[test]
    fn buckets_cover_the_range_evenly() {
        let n = 7;
        let mut counts = vec![0usize; n];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..70_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            counts[bucket(x, n)] += 1;
        }
        assert_eq!(bucket(u64::MAX, n), n - 1);
        assert_eq!(bucket(0, n), 0);
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{c}");
        }
    }
}
