//! Score calibration: from a labelled sample of scored pairs, a monotone map from a raw score
//! (a margin, a cosine, a classifier's output) to the estimated probability that a pair is
//! parallel, and the thresholds that reach a requested precision or recall, with confidence
//! intervals from the sample size. It answers the question users of every mining tool ask:
//! *which threshold?*
//!
//! **Method: isotonic regression** (pool-adjacent-violators, Zadrozny & Elkan 2002). The fit is
//! the non-decreasing step function closest (least squares) to the 0/1 labels sorted by score:
//! it assumes only that a higher score never means a lower chance of being parallel, which is
//! what every scorer promises. Platt scaling (a logistic curve in the raw score) assumes a
//! shape that margin scores do not have: their positives and negatives are not two Gaussians
//! of equal variance, and ratio margins pile up near 1; an isotonic map needs no such shape and
//! turns the calibration sample's own precision curve into a monotone one.
//!
//! Two quantities come out, and they answer different questions:
//!
//! - [`Calibration::probability`]: the estimated probability that *one pair* with this score is
//!   parallel, `P(parallel | score)`: the fitted isotonic value (constant within a pooled block,
//!   linear between blocks). It is the calibrated score to write beside the raw one.
//! - [`Calibration::threshold_for_precision`]: the lowest threshold `t` such that the *set*
//!   `{score ≥ t}` has at least the requested precision `P(parallel | score ≥ t)` on the
//!   calibration sample — what "keep pairs at 90% precision" means. Because the fit is
//!   monotone, this precision only falls as `t` falls, so the threshold is unique.
//!
//! Intervals are Wilson score intervals for a binomial proportion at the chosen confidence
//! (default 95%): precision = true positives among the pairs kept, recall = true positives
//! among the relevant pairs. They account for the sample size only, not for a shift between
//! the calibration data and the data the thresholds are applied to: the estimated precision
//! depends on the share of parallel pairs among the candidates, so calibrate on data mined
//! like the data it will be used on (`cargo xtask eval calibrate` measures the transfer).
//!
//! ```
//! use bitext_eval::calibration::{Calibration, FitOptions, LabelledScores};
//! # fn main() -> bitext_eval::Result<()> {
//! let scored = vec![(0.9, true), (0.8, true), (0.7, false), (0.6, true), (0.2, false), (0.1, false)];
//! let cal = Calibration::fit(&LabelledScores::new(scored)?, &FitOptions::default())?;
//! assert_eq!(cal.probability(0.85), 1.0);
//! assert!(cal.probability(0.65) < 1.0 && cal.probability(0.15) == 0.0);
//! let cut = cal.threshold_for_precision(0.75).unwrap();
//! assert_eq!((cut.prf.predicted, cut.prf.true_positives), (4, 3));
//! # Ok(())
//! # }
//! ```

mod figure;
mod file;
pub mod labels;
mod stats;

pub use stats::{Interval, normal_quantile, wilson};

use crate::error::{Error, Result};
use crate::prf::{Prf, best_f1_threshold, pr_curve};

/// The file format's name, written in every calibration file.
pub const FORMAT: &str = "bitext-calibration";
/// The version of the calibration file format this build writes and reads.
pub const VERSION: u32 = 1;

/// Scores of a labelled sample: `(score, is_parallel)` items and the number of parallel pairs
/// that should have been found (`relevant`: at least the positives; more when the sample is a
/// mined list that missed some gold pairs, so that recall is against the gold).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledScores {
    /// `(score, is_parallel)`.
    pub scored: Vec<(f64, bool)>,
    /// Parallel pairs that should have been found (recall's denominator).
    pub relevant: usize,
}

impl LabelledScores {
    /// Labelled scores whose relevant pairs are the positives among them.
    ///
    /// # Errors
    /// As [`LabelledScores::with_relevant`].
    pub fn new(scored: Vec<(f64, bool)>) -> Result<Self> {
        let relevant = scored.iter().filter(|x| x.1).count();
        Self::with_relevant(scored, relevant)
    }

    /// Labelled scores with `relevant` parallel pairs to find.
    ///
    /// # Errors
    /// [`Error::NonFiniteScore`]; [`Error::Invalid`] when `relevant` is below the positives.
    pub fn with_relevant(scored: Vec<(f64, bool)>, relevant: usize) -> Result<Self> {
        if let Some(index) = scored.iter().position(|x| !x.0.is_finite()) {
            let score = scored[index].0;
            return Err(Error::NonFiniteScore { index, score });
        }
        let positives = scored.iter().filter(|x| x.1).count();
        if relevant < positives {
            return Err(Error::Invalid(format!(
                "{positives} pairs are labelled parallel but only {relevant} are relevant"
            )));
        }
        Ok(Self { scored, relevant })
    }

    /// The number of items labelled parallel.
    #[must_use]
    pub fn positives(&self) -> usize {
        self.scored.iter().filter(|x| x.1).count()
    }
}

/// What a row of the threshold table asks for.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Target {
    /// The lowest threshold whose kept set has at least this precision.
    Precision(f64),
    /// The highest threshold whose kept set has at least this recall.
    Recall(f64),
    /// The F1-optimal threshold ([`best_f1_threshold`]).
    BestF1,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Precision(p) => write!(f, "precision >= {p}"),
            Target::Recall(r) => write!(f, "recall >= {r}"),
            Target::BestF1 => write!(f, "best F1"),
        }
    }
}

/// A threshold and what it gives on the calibration sample, with intervals.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Cut {
    /// What was asked.
    pub target: Target,
    /// Keep pairs with `score >= threshold`.
    pub threshold: f64,
    /// Precision, recall and F1 of the kept set, with its counts.
    pub prf: Prf,
    /// Wilson interval of the precision (true positives among `prf.predicted`).
    pub precision_interval: Interval,
    /// Wilson interval of the recall (true positives among `prf.relevant`).
    pub recall_interval: Interval,
}

impl Cut {
    fn new(target: Target, threshold: f64, prf: Prf, z: f64) -> Self {
        Self {
            target,
            threshold,
            prf,
            precision_interval: wilson(prf.true_positives, prf.predicted, z),
            recall_interval: wilson(prf.true_positives, prf.relevant, z),
        }
    }
}

/// One block of the isotonic fit: the sample's pairs with scores in `[lo, hi]`, pooled; every
/// score in it is calibrated to `positives / count`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Block {
    /// Lowest score in the block.
    pub lo: f64,
    /// Highest score in the block.
    pub hi: f64,
    /// Pairs in the block.
    pub count: usize,
    /// Parallel pairs in the block.
    pub positives: usize,
    /// `positives / count`: the calibrated probability (written for readers of the file;
    /// checked against the counts when loading).
    pub probability: f64,
}

/// Sample sizes of a calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Samples {
    /// Labelled pairs.
    pub pairs: usize,
    /// Of which parallel.
    pub positives: usize,
    /// Parallel pairs that should have been found (recall's denominator, `>= positives`).
    pub relevant: usize,
}

/// Options of [`Calibration::fit`].
#[derive(Debug, Clone, PartialEq)]
pub struct FitOptions {
    /// Confidence of the intervals, in `(0, 1)` (default 0.95).
    pub confidence: f64,
    /// Rows of the threshold table (default: [`FitOptions::DEFAULT_TARGETS`]); the F1-optimal
    /// row is always there.
    pub targets: Vec<Target>,
    /// Where the labels came from, in words (stored in the file).
    pub source: String,
}

impl FitOptions {
    /// The threshold table's rows by default.
    pub const DEFAULT_TARGETS: [Target; 10] = [
        Target::Precision(0.5),
        Target::Precision(0.7),
        Target::Precision(0.8),
        Target::Precision(0.9),
        Target::Precision(0.95),
        Target::Precision(0.99),
        Target::Recall(0.5),
        Target::Recall(0.8),
        Target::Recall(0.9),
        Target::Recall(0.95),
    ];
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            confidence: 0.95,
            targets: Self::DEFAULT_TARGETS.to_vec(),
            source: String::new(),
        }
    }
}

/// A fitted calibration: the isotonic blocks, the sample sizes and the threshold table. Saved
/// and loaded as JSON ([`Calibration::save`], [`Calibration::load`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Calibration {
    format: String,
    version: u32,
    method: String,
    interval: String,
    confidence: f64,
    source: String,
    samples: Samples,
    blocks: Vec<Block>,
    thresholds: Vec<Cut>,
}

/// Pool-adjacent-violators over `(score, positive)` items: the blocks of the non-decreasing
/// least-squares fit, ascending by score. Equal scores always share a block, and adjacent
/// blocks of equal value are pooled too, so the blocks' values strictly increase.
fn isotonic(scored: &[(f64, bool)]) -> Vec<Block> {
    let mut items = scored.to_vec();
    items.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut stack: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let s = items[i].0;
        let mut b = Block {
            lo: s,
            hi: s,
            count: 0,
            positives: 0,
            probability: 0.0,
        };
        while i < items.len() && items[i].0 == s {
            b.count += 1;
            b.positives += usize::from(items[i].1);
            i += 1;
        }
        // Pool while the block below is not lower: exact comparison of the two fractions.
        while let Some(prev) = stack.pop() {
            let lhs = prev.positives as u128 * b.count as u128;
            let rhs = b.positives as u128 * prev.count as u128;
            if lhs < rhs {
                stack.push(prev);
                break;
            }
            b = Block {
                lo: prev.lo,
                hi: b.hi,
                count: prev.count + b.count,
                positives: prev.positives + b.positives,
                probability: 0.0,
            };
        }
        stack.push(b);
    }
    for b in &mut stack {
        b.probability = b.positives as f64 / b.count as f64;
    }
    stack
}

impl Calibration {
    /// Fit the isotonic calibration of a labelled sample and compute its threshold table.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an empty sample, a sample of one class only (calibration needs
    /// parallel and non-parallel pairs), a confidence outside `(0, 1)` or a target outside
    /// `(0, 1]`.
    pub fn fit(sample: &LabelledScores, options: &FitOptions) -> Result<Self> {
        let LabelledScores { scored, relevant } = sample;
        let positives = sample.positives();
        if scored.is_empty() {
            return Err(Error::Invalid("no labelled pairs to calibrate on".into()));
        }
        if positives == 0 || positives == scored.len() {
            let class = if positives == 0 {
                "non-parallel (0)"
            } else {
                "parallel (1)"
            };
            return Err(Error::Invalid(format!(
                "all {} labelled pairs are {class}: calibration needs both parallel and \
                 non-parallel examples",
                scored.len()
            )));
        }
        if !(options.confidence > 0.0 && options.confidence < 1.0) {
            return Err(Error::Invalid(format!(
                "confidence must be in (0, 1), got {}",
                options.confidence
            )));
        }
        for t in &options.targets {
            if let Target::Precision(v) | Target::Recall(v) = t
                && !(*v > 0.0 && *v <= 1.0)
            {
                return Err(Error::Invalid(format!("target {t}: must be in (0, 1]")));
            }
        }
        let mut cal = Self {
            format: FORMAT.into(),
            version: VERSION,
            method: "isotonic".into(),
            interval: "wilson".into(),
            confidence: options.confidence,
            source: options.source.clone(),
            samples: Samples {
                pairs: scored.len(),
                positives,
                relevant: *relevant,
            },
            blocks: isotonic(scored),
            thresholds: Vec::new(),
        };
        let z = cal.z();
        let curve = pr_curve(scored, *relevant)?;
        let mut rows = Vec::new();
        for &target in &options.targets {
            let cut = match target {
                Target::Precision(p) => cal.threshold_for_precision(p),
                Target::Recall(r) => curve
                    .iter()
                    .position(|c| c.prf.recall >= r)
                    .map(|i| Cut::new(target, midpoint(&curve, i), curve[i].prf, z)),
                Target::BestF1 => None,
            };
            if let Some(c) = cut
                && !rows.iter().any(|x: &Cut| x.target == target)
            {
                rows.push(c);
            }
        }
        if let Some(b) = best_f1_threshold(scored, *relevant)? {
            rows.push(Cut::new(Target::BestF1, b.threshold, b.prf, z));
        }
        cal.thresholds = rows;
        Ok(cal)
    }

    /// The normal quantile of the intervals' confidence.
    fn z(&self) -> f64 {
        normal_quantile(0.5 + self.confidence / 2.0)
    }

    /// The estimated probability that a pair with this raw score is parallel: the isotonic
    /// value of its block, linear between two blocks, the first or last block's value beyond
    /// the sample's scores. Non-decreasing in `score`; NaN for a NaN score.
    #[must_use]
    pub fn probability(&self, score: f64) -> f64 {
        if score.is_nan() {
            return f64::NAN;
        }
        // The first block whose top is at least the score.
        let k = self.blocks.partition_point(|b| b.hi < score);
        match (k.checked_sub(1), self.blocks.get(k)) {
            (_, Some(b)) if score >= b.lo => b.probability,
            (None, Some(b)) => b.probability,
            (Some(j), Some(b)) => {
                let a = &self.blocks[j];
                let w = (score - a.hi) / (b.lo - a.hi);
                a.probability + w * (b.probability - a.probability)
            }
            (_, None) => self.blocks.last().map_or(f64::NAN, |b| b.probability),
        }
    }

    /// The lowest threshold whose kept set `{score >= t}` has at least `precision` on the
    /// calibration sample (the cut keeps whole isotonic blocks and lies half-way between the
    /// lowest kept score and the next lower one), with its intervals; `None` when even the
    /// top block falls short (or `precision` is not a number). Apply it as
    /// `score >= cut.threshold`.
    #[must_use]
    pub fn threshold_for_precision(&self, precision: f64) -> Option<Cut> {
        let (mut kept, mut tp) = (0, 0);
        let mut best = None;
        for k in (0..self.blocks.len()).rev() {
            kept += self.blocks[k].count;
            tp += self.blocks[k].positives;
            // Cumulative precision only falls as blocks are added (the values increase).
            if (tp as f64) < precision * kept as f64 || precision.is_nan() {
                break;
            }
            best = Some((k, Prf::from_counts(tp, kept, self.samples.relevant)));
        }
        let (k, prf) = best?;
        let threshold = match k.checked_sub(1) {
            Some(j) => (self.blocks[j].hi + self.blocks[k].lo) / 2.0,
            None => self.blocks[k].lo,
        };
        Some(Cut::new(
            Target::Precision(precision),
            threshold,
            prf,
            self.z(),
        ))
    }

    /// The threshold of `--min-precision P`: the minimum raw score of the pairs to keep so that
    /// the kept set reaches precision `precision` ([`Calibration::threshold_for_precision`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a precision outside `(0, 1]` or one the calibration sample does
    /// not reach at any threshold.
    pub fn min_score(&self, precision: f64) -> Result<f64> {
        if !(precision > 0.0 && precision <= 1.0) {
            return Err(Error::Invalid(format!(
                "minimum precision must be in (0, 1], got {precision}"
            )));
        }
        self.threshold_for_precision(precision)
            .map(|c| c.threshold)
            .ok_or_else(|| {
                let top = self.blocks.last().map_or(0.0, |b| b.probability);
                Error::Invalid(format!(
                    "no threshold reaches precision {precision} on the calibration sample \
                     (its best-scoring block has precision {top:.3})"
                ))
            })
    }

    /// The threshold table: one row per reachable target, the F1-optimal row last.
    #[must_use]
    pub fn thresholds(&self) -> &[Cut] {
        &self.thresholds
    }

    /// The row of a target, when it is in the table.
    #[must_use]
    pub fn threshold(&self, target: Target) -> Option<&Cut> {
        self.thresholds.iter().find(|c| c.target == target)
    }

    /// The isotonic blocks, ascending by score (the fitted breakpoints).
    #[must_use]
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The sample sizes.
    #[must_use]
    pub fn samples(&self) -> Samples {
        self.samples
    }

    /// The confidence of the intervals.
    #[must_use]
    pub fn confidence(&self) -> f64 {
        self.confidence
    }

    /// Where the labels came from, as given at fit time.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The threshold table as aligned text, one row per cut (what `bitext calibrate` prints).
    #[must_use]
    pub fn table(&self) -> String {
        let pct = self.confidence * 100.0;
        let mut out = format!(
            "{:<18} {:>12} {:>8} {:>17} {:>8} {:>17} {:>8}\n",
            "target",
            "threshold",
            "P",
            format!("P {pct:.0}% CI"),
            "R",
            format!("R {pct:.0}% CI"),
            "kept"
        );
        for c in &self.thresholds {
            out.push_str(&format!(
                "{:<18} {:>12.6} {:>8.4} {:>17} {:>8.4} {:>17} {:>8}\n",
                c.target.to_string(),
                c.threshold,
                c.prf.precision,
                c.precision_interval.to_string(),
                c.prf.recall,
                c.recall_interval.to_string(),
                c.prf.predicted
            ));
        }
        out
    }
}

/// The threshold of keeping curve points `0..=i`: half-way to the next lower score, or the
/// lowest score at the bottom (as [`best_f1_threshold`]).
fn midpoint(curve: &[crate::prf::PrPoint], i: usize) -> f64 {
    match curve.get(i + 1) {
        Some(next) => (curve[i].threshold + next.threshold) / 2.0,
        None => curve[i].threshold,
    }
}

#[cfg(test)]
mod tests;
