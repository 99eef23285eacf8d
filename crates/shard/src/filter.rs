//! Sharded, resumable filtering of a large bicleaner-style TSV (`bitext filter --shards N
//! --work-dir DIR`): the file cut into byte-range shards at line starts, one `score-lines-s`
//! step per shard (the shard's pairs scored by any scorer that scores a line from that line
//! alone, with the shard's word counts), then `select` (the budget and threshold over every
//! line's score: [`bitext_mine::filter::select`], the single-process filter's own) and
//! `write` (the kept lines verbatim with their score, in input order, by the single-process
//! filter's writer). The output is byte-identical to `bitext filter`'s; a changed budget or
//! threshold reruns `select` and `write` only.

use std::path::{Path, PathBuf};

use bitext_core::io::text::EmptyLines;
use bitext_core::io::tsv::{BitextTsvReader, ScoredTsvWriter};
use bitext_encode::EncoderSpec;
use bitext_mine::filter::{FilterReport, count_words, score_aligned, select};
use bitext_mine::{Budget, ScorerSpec, Threshold, WordSide};
use bitext_similarity::PairScorer;
use serde::{Deserialize, Serialize};

use crate::arrays::{self, Array};
use crate::error::{Error, Result};
use crate::kinds::TsvPlan;
use crate::plan::{Step, StepKind};
use crate::run::RunOptions;
use crate::text::PlannedText;

const FORMAT: &str = "bitext-filter-plan";
const VERSION: u32 = 1;

/// What a filter plan does: the columns, the scorer (and the encoder of a scorer of
/// embeddings), the budget, the threshold and the score format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilterRecipe {
    /// The scorer: one that scores a line from that line alone (not a margin, not an EMD
    /// whose IDF is counted over the input).
    pub scorer: ScorerSpec,
    /// The encoder of a scorer of embeddings (cosine, dot, negative Euclidean).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoder: Option<EncoderSpec>,
    /// Source column (0-based).
    pub src_col: usize,
    /// Target column (0-based).
    pub tgt_col: usize,
    /// How much to keep.
    pub budget: Option<Budget>,
    /// Which scores to keep.
    pub threshold: Option<Threshold>,
    /// Decimals of the score column (default: the shortest exact form).
    pub decimals: Option<usize>,
    /// A calibration file (`bitext calibrate`): the probability it gives each kept line's score
    /// is written after the score (read through [`crate::RunOptions::calibrations`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<PathBuf>,
}

/// A sharded filtering run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FilterPlan {
    /// `bitext-filter-plan`.
    pub format: String,
    /// Format version.
    pub version: u32,
    /// Hash of the input's identity, the recipe and the shard count.
    pub id: String,
    /// The recipe.
    pub recipe: FilterRecipe,
    /// The input TSV and its shards' byte ranges.
    pub input: PlannedText,
    /// The steps, dependencies first.
    pub steps: Vec<Step>,
}

/// Builds the per-shard scorer of a sentence-scoring spec (e.g. a neural model, which this
/// crate cannot build): from the spec, a function from a shard's two columns to its scorer.
pub type BuildLineScorer =
    dyn Fn(&ScorerSpec) -> std::result::Result<Box<ShardScorer>, String> + Send + Sync;

/// Loads a calibration file into its probability function (bitext-eval's calibration, which
/// this crate does not depend on; the CLI gives the builder).
pub type BuildCalibration =
    dyn Fn(&Path) -> std::result::Result<Box<dyn Fn(f64) -> f64>, String> + Send + Sync;

/// A pair classifier loaded for a cleaning plan's judge steps: the scores of a batch of
/// (source, target) sentences. (Its probability is its directory's `calibration.json`, read
/// by [`BuildCalibration`].)
pub type LoadedClassifier =
    Box<dyn Fn(&[&str], &[&str]) -> std::result::Result<Vec<f64>, String> + Send + Sync>;

/// Loads a pair classifier's directory (`bitext-classify`, which this crate does not depend
/// on; the CLI gives the builder).
pub type BuildClassifier =
    dyn Fn(&Path) -> std::result::Result<LoadedClassifier, String> + Send + Sync;

/// A function from a shard's source and target sentences to their scorer.
pub type ShardScorer = dyn Fn(&[&str], &[&str]) -> std::result::Result<Box<dyn PairScorer>, String>;

impl FilterPlan {
    /// Plan filtering `input` with `recipe` in `shards` byte-range shards, reusing the plan in
    /// `work_dir` when the input (path, size, modification time), the recipe, the files the
    /// scorer and encoder name and the shard count are the same.
    ///
    /// # Errors
    /// A scorer that needs the whole corpus (margins; an EMD without reference IDF files);
    /// a scorer of embeddings without an encoder, or an encoder without one; equal columns; a
    /// shard count of 0, or more than the file has lines; an unreadable, compressed or empty
    /// input.
    pub fn make(
        work_dir: &Path,
        input: &Path,
        recipe: &FilterRecipe,
        shards: usize,
    ) -> Result<FilterPlan> {
        let r = recipe;
        r.scorer.check()?;
        if r.scorer.is_margin() || r.scorer.needs_reference() {
            return Err(Error::Invalid(
                "a sharded filter scores each line from that line alone: margins (which search \
                 the whole corpus) and an EMD whose IDF is counted over the input (give it IDF \
                 reference files) are for the single-process filter"
                    .into(),
            ));
        }
        if r.scorer.scores_embeddings() != r.encoder.is_some() {
            return Err(Error::Invalid(
                "a scorer of embeddings needs an encoder, and only it can use one".into(),
            ));
        }
        if r.src_col == r.tgt_col {
            return Err(Error::Invalid(format!(
                "source and target are both in column {}",
                r.src_col + 1
            )));
        }
        let text = crate::kinds::plan_input(input, shards)?;
        let mut scorer_id = serde_json::to_string(&r.scorer).expect("serialises");
        if let Some(e) = &r.encoder {
            scorer_id = format!("{scorer_id}|{}", crate::text::encoder_identity(e)?);
        }
        let files = crate::text::named_files(&serde_json::to_value(&r.scorer).expect("json"))?;
        let recipe_json = serde_json::to_string(r).expect("serialises");
        let cal_id = match &r.calibration {
            Some(p) => crate::text::identity(p)?,
            None => String::new(),
        };
        let (id, old) = crate::kinds::plan_id(
            work_dir,
            ("filter", FORMAT, VERSION),
            &text,
            &[&recipe_json, &files, &cal_id],
            |p: &FilterPlan| &p.id,
        );
        if let Some(old) = old {
            return Ok(old);
        }
        let mut steps = crate::graph::Graph::default();
        let side = match r.budget {
            Some(Budget::Words { side, .. }) => side,
            _ => WordSide::Both,
        };
        let mut scored = Vec::new();
        for (s, &(a, b)) in text.bytes.iter().enumerate() {
            let own = format!(
                "{}|{a}|{b}|{}|{}|{scorer_id}|{files}|{side:?}",
                text.identity, r.src_col, r.tgt_col
            );
            let name = format!("score-lines-{s}");
            steps.add(name.clone(), StepKind::ScoreLines { shard: s }, vec![], own);
            scored.push(name);
        }
        // "2": the output's layout (kept lines; line and word counts; the lowest kept score).
        let selection = serde_json::to_string(&(2, r.budget, r.threshold)).expect("serialises");
        steps.add("select".into(), StepKind::Select, scored.clone(), selection);
        let mut deps = scored;
        deps.push("select".into());
        let own = format!("{:?}|{cal_id}", r.decimals);
        steps.add("write".into(), StepKind::WriteKept, deps, own);
        let plan = FilterPlan {
            format: FORMAT.into(),
            version: VERSION,
            id,
            recipe: r.clone(),
            input: text,
            steps: steps.into_steps(),
        };
        plan.save(work_dir)?;
        Ok(plan)
    }

    /// The step named `name`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there is none.
    pub fn step(&self, name: &str) -> Result<&Step> {
        self.find(name)
    }

    fn save(&self, work_dir: &Path) -> Result<()> {
        let json = serde_json::to_string_pretty(self).expect("plan serialises");
        crate::plan::write_plan_file(work_dir, &json)
    }

    /// Read `plan.json` from `work_dir`.
    ///
    /// # Errors
    /// A missing or malformed plan, or one of another kind, naming the file.
    pub fn load(work_dir: &Path) -> Result<FilterPlan> {
        crate::plan::read_plan_file(work_dir, "filter", FORMAT, VERSION)
    }

    /// Whether `work_dir`'s plan is a filter plan (by its `format` field).
    #[must_use]
    pub fn is_filter_plan(work_dir: &Path) -> bool {
        crate::kinds::has_format(work_dir, FORMAT)
    }

    /// The filtered TSV of a completed plan, in `work_dir`.
    ///
    /// # Errors
    /// The `write` step has not completed.
    pub fn output(&self, work_dir: &Path) -> Result<PathBuf> {
        self.done_output(work_dir, "write")
    }

    /// What the filter kept (lines, kept, words, lowest score), as `bitext filter` reports it.
    ///
    /// # Errors
    /// The `select` step has not completed, or its output is malformed.
    pub fn report(&self, work_dir: &Path) -> Result<FilterReport> {
        let path = work_dir.join(self.step("select")?.output());
        let r = arrays::read(&path, "selection", &[8, 8, 8])?;
        let totals = r.usizes(1, &path, usize::MAX)?;
        let (&[lines, words], min) = (totals.as_slice(), r.f64s(2)) else {
            return Err(Error::Corrupt {
                path,
                reason: "a selection without its line and word counts".into(),
            });
        };
        Ok(FilterReport {
            lines,
            kept: r.header.shape[0],
            words,
            min_score: min.first().copied(),
        })
    }

    /// The lines the `select` step kept, best score first.
    fn kept(&self, dir: &Path, lines: usize) -> Result<Vec<usize>> {
        let path = dir.join(self.step("select")?.output());
        arrays::read(&path, "selection", &[8, 8, 8])?.usizes(0, &path, lines)
    }

    /// Every line's score and word count, from the `score-lines` steps.
    fn scores(&self, dir: &Path) -> Result<(Vec<f64>, Vec<usize>)> {
        let (mut scores, mut words) = (Vec::new(), Vec::new());
        for s in 0..self.input.bytes.len() {
            let path = dir.join(self.step(&format!("score-lines-{s}"))?.output());
            let r = arrays::read(&path, "line-scores", &[8, 8])?;
            scores.extend(r.f64s(0));
            words.extend(r.usizes(1, &path, usize::MAX)?);
        }
        Ok((scores, words))
    }
}

impl TsvPlan for FilterPlan {
    const NAME: &'static str = "filter";
    const STEP_NAMES: &'static str = "score-lines-0, …, select, write";

    fn steps(&self) -> &[Step] {
        &self.steps
    }

    fn compute(&self, dir: &Path, step: &Step, out: &Path, opts: &RunOptions) -> Result<()> {
        match step.kind {
            StepKind::ScoreLines { shard } => score_lines(self, shard, out, opts),
            StepKind::Select => {
                let (scores, words) = self.scores(dir)?;
                let r = &self.recipe;
                let sel = select(&scores, Some(&words), r.budget, r.threshold)?;
                let kept: Vec<u64> = sel.kept.iter().map(|&i| i as u64).collect();
                let arrays = [
                    Array::u64s(kept),
                    Array::u64s([scores.len() as u64, sel.words as u64]),
                    Array::f64s(&sel.min_score.into_iter().collect::<Vec<_>>()),
                ];
                arrays::write(out, "selection", vec![sel.kept.len()], &arrays)
            }
            StepKind::WriteKept => write_kept(self, dir, out, opts),
            _ => Err(Error::Invalid(format!(
                "{} is not a filter step",
                step.name
            ))),
        }
    }
}

/// The records of shard `s` of the input.
fn records(
    plan: &FilterPlan,
    s: usize,
) -> Result<impl Iterator<Item = Result<bitext_core::io::tsv::BitextRecord>>> {
    let r = &plan.recipe;
    let reader = BitextTsvReader::new(plan.input.shard_reader(s)?, r.src_col, r.tgt_col)?
        .empty_fields(EmptyLines::Reject);
    Ok(reader.map(|x| x.map_err(Error::from)))
}

/// Score the lines of shard `s` and count their words as the budget counts them.
fn score_lines(plan: &FilterPlan, s: usize, out: &Path, opts: &RunOptions) -> Result<()> {
    let r = &plan.recipe;
    let side = match r.budget {
        Some(Budget::Words { side, .. }) => side,
        _ => WordSide::Both,
    };
    let (mut src, mut tgt, mut words) = (Vec::new(), Vec::new(), Vec::new());
    for rec in records(plan, s)? {
        let rec = rec?;
        words.push(match side {
            WordSide::Source => count_words(&rec.src),
            WordSide::Target => count_words(&rec.tgt),
            _ => count_words(&rec.src) + count_words(&rec.tgt),
        } as u64);
        src.push(rec.src);
        tgt.push(rec.tgt);
    }
    let (sr, tr): (Vec<&str>, Vec<&str>) = (
        src.iter().map(String::as_str).collect(),
        tgt.iter().map(String::as_str).collect(),
    );
    let scores = score_shard(plan, &sr, &tr, opts).map_err(|e| {
        let start = plan.input.bytes[s].0;
        Error::Invalid(format!(
            "{} (shard {s}, from byte {start}; lines and rows counted from there): {e}",
            plan.input.path.display()
        ))
    })?;
    let arrays = [Array::f64s(&scores), Array::u64s(words)];
    arrays::write(out, "line-scores", vec![scores.len()], &arrays)
}

/// The scores of a shard's pairs: encoded and compared (a scorer of embeddings), or scored as
/// sentences.
fn score_shard(plan: &FilterPlan, sr: &[&str], tr: &[&str], opts: &RunOptions) -> Result<Vec<f64>> {
    let r = &plan.recipe;
    if let Some(spec) = &r.encoder {
        let enc = opts.encoder(spec)?;
        let x = enc.encode(bitext_encode::Side::Source, sr)?;
        let y = enc.encode(bitext_encode::Side::Target, tr)?;
        let scorer = &r.scorer;
        if scorer.measure() == Some(bitext_similarity::Measure::Cosine) {
            // As the single-process filter: a zero row (`no_known_word: zero`) scores −1.
            let cosines = bitext_similarity::Cosines::new(x, y)?;
            return Ok(score_aligned(&cosines, &mut |_| {})?);
        }
        return scorer
            .with_embedding_scorer(x.view(), y.view(), &mut |_, _, _| {}, |sc| {
                score_aligned(sc, &mut |_| {})
            })?
            .map_err(Error::from);
    }
    let scorer = match &opts.line_scorers {
        Some(build) => build(&r.scorer).map_err(Error::Invalid)?(sr, tr).map_err(Error::Invalid)?,
        None => r
            .scorer
            .sentence_scorers(None::<(&[&str], &[&str])>)?
            .build(sr, tr)?,
    };
    Ok(score_aligned(scorer.as_ref(), &mut |_| {})?)
}

/// The kept lines, verbatim with their score, in input order.
fn write_kept(plan: &FilterPlan, dir: &Path, out: &Path, opts: &RunOptions) -> Result<()> {
    let probability = match &plan.recipe.calibration {
        Some(path) => Some(crate::kinds::calibration(opts, path)?),
        None => None,
    };
    let (scores, _) = plan.scores(dir)?;
    let kept = plan.kept(dir, scores.len())?;
    let mut keep = vec![false; scores.len()];
    for i in kept {
        keep[i] = true;
    }
    let mut w = ScoredTsvWriter::create(out)?;
    if let Some(d) = plan.recipe.decimals {
        w = w.decimals(d);
    }
    let mut i = 0;
    for s in 0..plan.input.bytes.len() {
        for rec in records(plan, s)? {
            let rec = rec?;
            if keep.get(i).copied().unwrap_or(false) {
                match &probability {
                    Some(p) => w.write_scores(&rec.raw, &[scores[i], p(scores[i])])?,
                    None => w.write(&rec.raw, scores[i])?,
                }
            }
            i += 1;
        }
    }
    w.commit()?;
    Ok(())
}
