//! Filtering a noisy parallel corpus (Kim et al. 2019, §4.2; Artetxe & Schwenk 2019, §4.3):
//! score every aligned pair `(i, i)` with any [`PairScorer`] (LASER `--mode score`), then keep
//! the best lines until a budget of lines or words is spent, writing bicleaner-style TSV (each
//! input line verbatim with a score column appended).
//!
//! Budget rule: lines are taken by descending score (ties in input order) and the selection
//! stops at the first line that would overrun the budget, so the output never exceeds it. Words
//! are whitespace-separated tokens ([`count_words`]) of the chosen side(s), as the WMT 2018
//! filtering task counted them with its `subselect` script (English side).

use std::path::Path;

use bitext_core::io::rejects::BadLines;
use bitext_core::io::text::EmptyLines;
use bitext_core::io::tsv::{BitextTsvReader, ScoredTsvWriter};
use bitext_similarity::PairScorer;

use crate::error::{Error, Result};
use crate::pairs::Threshold;

/// Which side's words count towards a word budget.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WordSide {
    /// The source column.
    Source,
    /// The target column (the WMT 2018 task counted English words, its target side).
    #[default]
    Target,
    /// Both columns added.
    Both,
}

/// How much of the corpus to keep: `{"type": "words", "words": 10000000, "side": "target"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Budget {
    /// At most this many lines.
    Lines {
        /// The limit.
        lines: usize,
    },
    /// At most this many words.
    Words {
        /// The limit.
        words: usize,
        /// Which side's words count.
        #[serde(default)]
        side: WordSide,
    },
}

/// Whitespace-separated tokens of `s`.
#[must_use]
pub fn count_words(s: &str) -> usize {
    s.split_whitespace().count()
}

/// Score the aligned pairs `(0, 0), (1, 1), …` of a scorer built over two line-parallel
/// corpora, in batches, calling `progress` with the pairs done.
///
/// # Errors
/// [`Error::Invalid`] when the two sides differ in size; the scorer's errors.
pub fn score_aligned(scorer: &dyn PairScorer, progress: &mut dyn FnMut(usize)) -> Result<Vec<f64>> {
    let (n, m) = scorer.sizes();
    if n != m {
        return Err(Error::Invalid(format!(
            "aligned pairs need as many source as target sentences, got {n} and {m}"
        )));
    }
    let mut out = Vec::with_capacity(n);
    let pairs: Vec<(usize, usize)> = (0..n).map(|i| (i, i)).collect();
    for chunk in pairs.chunks(4096) {
        out.extend(scorer.score(chunk)?);
        progress(out.len());
    }
    Ok(out)
}

/// The lines a budget keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Kept line indices (0-based), best score first.
    pub kept: Vec<usize>,
    /// Words of the kept lines (as the budget counts them; 0 for a line budget without sizes).
    pub words: usize,
    /// The lowest kept score.
    pub min_score: Option<f64>,
}

/// Keep the best-scoring lines: those passing `threshold` (if any), then within `budget` (if
/// any). `words[i]` is the size of line `i` as the budget counts it (needed for word budgets).
///
/// # Errors
/// [`Error::Invalid`] for a non-finite score, a NaN threshold, or a word budget without word
/// counts of every line.
pub fn select(
    scores: &[f64],
    words: Option<&[usize]>,
    budget: Option<Budget>,
    threshold: Option<Threshold>,
) -> Result<Selection> {
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(Error::Invalid(format!(
            "the score of line {} is {}, not a finite number",
            i + 1,
            scores[i]
        )));
    }
    if let Some(t) = threshold {
        t.check()?;
    }
    if let Some(w) = words.filter(|w| w.len() != scores.len()) {
        return Err(Error::Invalid(format!(
            "{} word counts for {} lines",
            w.len(),
            scores.len()
        )));
    }
    let size = |i: usize| words.map_or(0, |w| w[i]);
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut sel = Selection {
        kept: Vec::new(),
        words: 0,
        min_score: None,
    };
    for i in order {
        if threshold.is_some_and(|t| !t.keeps(scores[i])) {
            break;
        }
        match budget {
            Some(Budget::Lines { lines }) if sel.kept.len() >= lines => break,
            Some(Budget::Words { words: limit, .. }) => {
                if words.is_none() {
                    return Err(Error::Invalid(
                        "a word budget needs the word count of every line".into(),
                    ));
                }
                if sel.words + size(i) > limit {
                    break;
                }
            }
            _ => {}
        }
        sel.words += size(i);
        sel.min_score = Some(scores[i]);
        sel.kept.push(i);
    }
    Ok(sel)
}

/// What [`TsvFilter::run`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterReport {
    /// Lines read.
    pub lines: usize,
    /// Lines written.
    pub kept: usize,
    /// Words of the kept lines, counted as the budget counts them (both sides without a word
    /// budget).
    pub words: usize,
    /// The lowest kept score.
    pub min_score: Option<f64>,
}

/// Scores a bicleaner-style TSV line by line and writes the lines to keep, verbatim with a
/// score column appended, in input order.
#[derive(Debug, Clone, Copy, PartialEq)]
#[must_use]
pub struct TsvFilter {
    src_col: usize,
    tgt_col: usize,
    budget: Option<Budget>,
    threshold: Option<Threshold>,
    decimals: Option<usize>,
    bad: BadLines,
}

impl TsvFilter {
    /// Source sentences in column `src_col`, targets in `tgt_col` (0-based). Without a budget
    /// or threshold every line is written with its score.
    pub fn new(src_col: usize, tgt_col: usize) -> Self {
        Self {
            src_col,
            tgt_col,
            budget: None,
            threshold: None,
            decimals: None,
            bad: BadLines::Error,
        }
    }

    /// Choose what an input line that cannot be read does (default: error): under
    /// [`BadLines::Skip`] it is left out, and the scorer's pairs are the lines read (the
    /// caller reads the skipped lines with the same policy to report them).
    pub fn bad_lines(mut self, bad: BadLines) -> Self {
        self.bad = bad;
        self
    }

    /// Keep the best lines within `budget`.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Keep only lines passing `threshold`.
    pub fn threshold(mut self, threshold: Threshold) -> Self {
        self.threshold = Some(threshold);
        self
    }

    /// Write scores with this many decimals (default: the shortest exact form).
    pub fn decimals(mut self, decimals: usize) -> Self {
        self.decimals = Some(decimals);
        self
    }

    /// Filter `input` into `output` (atomically). `scorer` is built over the input's lines:
    /// source and target item `i` are the two sentences of line `i + 1`.
    ///
    /// # Errors
    /// Reading errors naming the file and line (too few columns, an empty sentence, invalid
    /// UTF-8, no line at all); [`Error::Invalid`] when the scorer's sizes differ from the line
    /// count; scoring and writing errors.
    pub fn run(
        &self,
        input: &Path,
        output: &Path,
        scorer: &dyn PairScorer,
    ) -> Result<FilterReport> {
        self.run_with(input, output, scorer, None)
    }

    /// [`TsvFilter::run`], writing a second column `extra(score)` after the score when given
    /// (e.g. the calibrated probability that the pair is parallel).
    ///
    /// # Errors
    /// As [`TsvFilter::run`]; a non-finite extra value.
    pub fn run_with(
        &self,
        input: &Path,
        output: &Path,
        scorer: &dyn PairScorer,
        extra: Option<&dyn Fn(f64) -> f64>,
    ) -> Result<FilterReport> {
        let side = match self.budget {
            Some(Budget::Words { side, .. }) => side,
            _ => WordSide::Both,
        };
        let mut words = Vec::new();
        for rec in self.reader(input)? {
            let rec = rec?;
            words.push(match side {
                WordSide::Source => count_words(&rec.src),
                WordSide::Target => count_words(&rec.tgt),
                WordSide::Both => count_words(&rec.src) + count_words(&rec.tgt),
            });
        }
        if words.is_empty() {
            return Err(bitext_core::Error::parse(
                input,
                bitext_core::Location::File,
                "no sentence pairs",
            )
            .into());
        }
        if scorer.sizes() != (words.len(), words.len()) {
            return Err(Error::Invalid(format!(
                "{} has {} lines but the scorer holds {} source and {} target sentences",
                input.display(),
                words.len(),
                scorer.sizes().0,
                scorer.sizes().1
            )));
        }
        let scores = score_aligned(scorer, &mut |_| {})?;
        let sel = select(&scores, Some(&words), self.budget, self.threshold)?;
        let mut keep = vec![false; scores.len()];
        for &i in &sel.kept {
            keep[i] = true;
        }
        let mut w = ScoredTsvWriter::create(output)?;
        if let Some(d) = self.decimals {
            w = w.decimals(d);
        }
        for (i, rec) in self.reader(input)?.enumerate() {
            let rec = rec?;
            if keep.get(i).copied().unwrap_or(false) {
                match extra {
                    Some(f) => w.write_scores(&rec.raw, &[scores[i], f(scores[i])])?,
                    None => w.write(&rec.raw, scores[i])?,
                }
            }
        }
        w.commit()?;
        Ok(FilterReport {
            lines: scores.len(),
            kept: sel.kept.len(),
            words: sel.words,
            min_score: sel.min_score,
        })
    }

    fn reader(&self, input: &Path) -> Result<BitextTsvReader> {
        Ok(BitextTsvReader::open(input, self.src_col, self.tgt_col)?
            .empty_fields(EmptyLines::Reject)
            .bad_lines(self.bad))
    }
}

#[cfg(test)]
#[path = "filter_tests.rs"]
mod tests;
