//! The cleaning of a stream of pairs: the rules, then language identification, then
//! near-duplicates ([`Cleaner`]), from a recipe of steps as data ([`Recipe`]). The caller reads and writes the lines; a cleaner sees
//! each pair once (twice with the boilerplate rule: a counting pass, [`Cleaner::count`], then
//! the judging pass) and keeps only the keys of the pairs it kept.

use std::sync::Arc;

use bitext_lid::LanguageIdentifier;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::rules::{Folded, Repeats, Rule, Rules, Side};
use crate::text::key;

/// What makes two pairs near-duplicates: their folded text ([`crate::fold`]: case,
/// punctuation, spaces and digits ignored, as bifixer's aggressive mode) on both sides, or on
/// one side only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dedup {
    /// Both sides folded alike (the default).
    #[default]
    Pair,
    /// The source sides folded alike (one translation per source sentence).
    Source,
    /// The target sides folded alike.
    Target,
    /// No deduplication.
    None,
}

/// A cleaning recipe: the steps and their settings, as `bitext clean --recipe FILE` reads it
/// (JSON; every field optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Recipe {
    /// The rule filters.
    pub rules: Rules,
    /// Language identification, after the rules (with an identifier given to
    /// [`Cleaner::with_identifier`] and both languages in [`Rules::src_lang`] and
    /// [`Rules::tgt_lang`]).
    pub lid: Lid,
    /// Near-duplicate removal, last: the first copy of a pair is kept, or, when the pairs are
    /// scored ([`BestCopies`]), the best-scored one.
    pub dedup: Dedup,
}

/// The language-identification step: a side is kept when the identifier's most likely
/// language for it is its expected one, with a probability of at least `min_confidence`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Lid {
    /// Least probability of the expected language as the most likely one (default 0: the
    /// most likely language alone decides; chosen on the noisy crawl of `cargo xtask eval
    /// clean`, where 0.5 lost 2% of the parallel pairs for no more noise removed).
    pub min_confidence: f64,
}

impl Default for Lid {
    fn default() -> Self {
        Self {
            min_confidence: 0.0,
        }
    }
}

/// The step that removed a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// A rule filter.
    Rules,
    /// Language identification.
    Lid,
    /// Near-duplicate removal.
    Dedup,
    /// A sentence scorer's threshold (the caller's: `bitext clean --encoder … --min-score`).
    Score,
}

impl Step {
    /// The step's name, as the removed lines and the report spell it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Step::Rules => "rules",
            Step::Lid => "lid",
            Step::Dedup => "dedup",
            Step::Score => "score",
        }
    }

    /// The step named `name` ([`Step::name`]).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Step> {
        [Step::Rules, Step::Lid, Step::Dedup, Step::Score]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// Why a pair was removed.
#[derive(Debug, Clone, PartialEq)]
pub struct Removal {
    /// The step.
    pub step: Step,
    /// The rule (`rules`), `"wrong_language"` or `"swapped"` (`lid`), or `"duplicate"`
    /// (`dedup`).
    pub what: &'static str,
    /// In words.
    pub reason: String,
}

/// What removes a pair besides the rules (whose names are [`Rule::name`]'s).
const OTHER_REASONS: [&str; 4] = ["wrong_language", "swapped", "duplicate", "min_score"];

impl Removal {
    /// The removal of a pair scoring `score`, below `min` (step `score`, `min_score`).
    #[must_use]
    pub fn min_score(score: f64, min: f64) -> Removal {
        Removal {
            step: Step::Score,
            what: "min_score",
            reason: format!("score {score:.4} below {min}"),
        }
    }

    /// A removal read back from its step's and rule's names ([`Step::name`], `what`) and its
    /// reason; `None` when a name is not one of a removal.
    #[must_use]
    pub fn from_names(step: &str, what: &str, reason: String) -> Option<Removal> {
        let step = Step::from_name(step)?;
        let what = match Rule::from_name(what) {
            Some(rule) => rule.name(),
            None => OTHER_REASONS.into_iter().find(|&w| w == what)?,
        };
        Some(Removal { step, what, reason })
    }
}

/// Runs a [`Recipe`] over a stream of pairs.
pub struct Cleaner {
    recipe: Recipe,
    repeats: Option<Repeats>,
    seen: FxHashMap<u64, usize>,
    lid: Option<Arc<dyn LanguageIdentifier>>,
}

impl std::fmt::Debug for Cleaner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cleaner")
            .field("recipe", &self.recipe)
            .field("kept_keys", &self.seen.len())
            .field("lid", &self.lid.is_some())
            .finish_non_exhaustive()
    }
}

impl Cleaner {
    /// A cleaner of `recipe`.
    ///
    /// # Errors
    /// [`crate::Error::Invalid`]: a threshold out of range, named.
    pub fn new(recipe: Recipe) -> crate::Result<Self> {
        recipe.rules.check()?;
        let repeats = recipe.rules.needs_repeats().then(Repeats::default);
        let c = recipe.lid.min_confidence;
        if !(0.0..=1.0).contains(&c) {
            return Err(crate::Error::Invalid(format!(
                "min_confidence is a probability between 0 and 1, got {c}"
            )));
        }
        Ok(Self {
            recipe,
            repeats,
            seen: FxHashMap::default(),
            lid: None,
        })
    }

    /// The cleaner with language identification by `lid` (a step only when the recipe names
    /// both languages).
    ///
    /// # Errors
    /// [`crate::Error::Invalid`] when `lid` does not name a language of the recipe.
    pub fn with_identifier(mut self, lid: Arc<dyn LanguageIdentifier>) -> crate::Result<Self> {
        let rules = &self.recipe.rules;
        for lang in [&rules.src_lang, &rules.tgt_lang].into_iter().flatten() {
            if !lid.languages().iter().any(|l| l == lang) {
                return Err(crate::Error::Invalid(format!(
                    "the language identifier does not know the language {lang:?}"
                )));
            }
        }
        self.lid = Some(lid);
        Ok(self)
    }

    /// The language-identification verdict of a pair: swapped columns when each side reads
    /// as the other's language, else the first side that does not read as its language (with
    /// at least the confidence asked for).
    fn language(&self, src: &str, tgt: &str) -> Option<Removal> {
        let lid = self.lid.as_ref()?;
        let rules = &self.recipe.rules;
        let (Some(sl), Some(tl)) = (rules.src_lang.as_deref(), rules.tgt_lang.as_deref()) else {
            return None;
        };
        let min = self.recipe.lid.min_confidence as f32;
        let (s, t) = (lid.identify(src), lid.identify(tgt));
        if s.lang == tl && t.lang == sl && sl != tl {
            return Some(Removal {
                step: Step::Lid,
                what: "swapped",
                reason: format!(
                    "the source reads as {tl} ({:.2}) and the target as {sl} ({:.2})",
                    s.probability, t.probability
                ),
            });
        }
        for (name, guess, want) in [("source", &s, sl), ("target", &t, tl)] {
            if guess.lang != want || guess.probability < min {
                return Some(Removal {
                    step: Step::Lid,
                    what: "wrong_language",
                    reason: format!(
                        "{name} reads as {} ({:.2}), not {want}{}",
                        guess.lang,
                        guess.probability,
                        if guess.lang == want {
                            format!(" with probability {min} or more")
                        } else {
                            String::new()
                        }
                    ),
                });
            }
        }
        None
    }

    /// Whether [`Cleaner::count`] must see every pair before [`Cleaner::judge`] sees the
    /// first (the boilerplate rule counts each side over the corpus).
    #[must_use]
    pub fn needs_counts(&self) -> bool {
        self.repeats.is_some()
    }

    /// Count one pair (the first pass).
    pub fn count(&mut self, src: &str, tgt: &str) {
        if let Some(r) = &mut self.repeats {
            r.add(src, tgt);
        }
    }

    /// The boilerplate counts of a corpus counted elsewhere (a sharded run's merged counts:
    /// only the sides that occur more than [`Rules::max_repeats`] times need be in them),
    /// instead of [`Cleaner::count`]'s.
    pub fn set_repeats(&mut self, repeats: Repeats) {
        if self.repeats.is_some() {
            self.repeats = Some(repeats);
        }
    }

    /// The rules and language identification of one pair, without the near-duplicate step:
    /// `Err` with why it is removed, else its near-duplicate key (`None` without
    /// deduplication). Pure: the same pair gets the same answer in any process.
    ///
    /// # Errors
    /// The pair's [`Removal`] by a rule or by language identification.
    pub fn screen(&self, src: &str, tgt: &str) -> Result<Option<u64>, Removal> {
        let pair = Folded::new(src, tgt);
        if let Some(v) = self.recipe.rules.judge_folded(&pair, self.repeats.as_ref()) {
            return Err(Removal {
                step: Step::Rules,
                what: v.rule.name(),
                reason: v.reason,
            });
        }
        if let Some(r) = self.language(src, tgt) {
            return Err(r);
        }
        let folded = match self.recipe.dedup {
            Dedup::None => return Ok(None),
            Dedup::Pair => format!("{}\t{}", pair.fold(Side::Source), pair.fold(Side::Target)),
            Dedup::Source => pair.fold(Side::Source).to_string(),
            Dedup::Target => pair.fold(Side::Target).to_string(),
        };
        Ok(Some(key(&folded)))
    }

    /// Judge the pair of input line `line`: `None` to keep it, else why it is removed. A kept
    /// pair's key is remembered, so that a later near-duplicate of it is removed.
    pub fn judge(&mut self, line: usize, src: &str, tgt: &str) -> Option<Removal> {
        match self.screen(src, tgt) {
            Err(r) => Some(r),
            Ok(None) => None,
            Ok(Some(k)) => match self.seen.entry(k) {
                std::collections::hash_map::Entry::Occupied(first) => {
                    Some(duplicate_of(*first.get()))
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(line);
                    None
                }
            },
        }
    }

    /// The recipe.
    #[must_use]
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
    }
}

/// The copy of each near-duplicate key a run keeps when its pairs are scored: the best-scored
/// one, the first of equals (so that without scores, or with equal ones, it is the first copy,
/// as [`Cleaner::judge`] keeps). Offered every screened pair's key, line and score in input
/// order ([`BestCopies::offer`]), then asked for each pair's verdict ([`BestCopies::verdict`]).
#[derive(Debug, Clone, Default)]
pub struct BestCopies(FxHashMap<u64, (f64, usize)>);

impl BestCopies {
    /// Offer the pair of input line `line`, near-duplicate key `key`, scoring `score` (NaN: not
    /// scored, never better than another copy). Offers come in input order.
    pub fn offer(&mut self, key: u64, line: usize, score: f64) {
        match self.0.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut best) => {
                if score > best.get().0 || best.get().0.is_nan() && !score.is_nan() {
                    best.insert((score, line));
                }
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert((score, line));
            }
        }
    }

    /// The kept copy of key `key`: its score and line (`None`: a key never offered).
    #[must_use]
    pub fn kept(&self, key: u64) -> Option<(f64, usize)> {
        self.0.get(&key).copied()
    }

    /// The pair of line `line` and key `key` kept, with its score (NaN: a key never offered,
    /// kept unscored), or removed as a near-duplicate of the copy kept.
    ///
    /// # Errors
    /// The [`Removal`] of a copy that is not the kept one.
    pub fn verdict(&self, key: u64, line: usize) -> Result<f64, Removal> {
        match self.kept(key) {
            Some((score, best)) if best == line => Ok(score),
            Some((_, best)) => Err(duplicate_of(best)),
            None => Ok(f64::NAN),
        }
    }
}

/// The [`Removal`] of a near-duplicate of input line `first` (the copy kept).
#[must_use]
pub fn duplicate_of(first: usize) -> Removal {
    Removal {
        step: Step::Dedup,
        what: "duplicate",
        reason: format!("a near-duplicate of line {first}"),
    }
}

/// What a cleaning run did: pairs read and kept, and the pairs removed by each step and rule
/// (`"rules"/"markup"`, `"dedup"/"duplicate"`), with the first few examples of each.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Pairs read.
    pub read: usize,
    /// Pairs kept.
    pub kept: usize,
    /// Pairs removed by each step and rule, in [`Rule::ALL`]'s order within the rules.
    pub removed: Vec<Removed>,
    /// The kept pairs' scores (with a scorer), in [`SCORE_BINS`] bins of `[-1, 1]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Histogram>,
}

/// Bins of a [`Report`]'s histogram of scores.
pub const SCORE_BINS: usize = 40;

/// Counts of values in equal bins of `[lo, hi]` (values outside go to the first or last bin).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// The count in each bin.
    pub counts: Vec<usize>,
}

impl Histogram {
    /// Empty, with `bins` bins of `[lo, hi]` (`lo < hi`).
    #[must_use]
    pub fn new(lo: f64, hi: f64, bins: usize) -> Self {
        Self {
            lo,
            hi,
            counts: vec![0; bins.max(1)],
        }
    }

    /// Count `x` (a finite value).
    pub fn add(&mut self, x: f64) {
        let n = self.counts.len();
        let at = ((x - self.lo) / (self.hi - self.lo) * n as f64).floor();
        self.counts[(at.max(0.0) as usize).min(n - 1)] += 1;
    }
}

/// The pairs one step and rule removed.
#[derive(Debug, Clone, Serialize)]
pub struct Removed {
    /// The step.
    pub step: Step,
    /// The rule, or `"duplicate"`.
    pub what: &'static str,
    /// How many pairs.
    pub count: usize,
    /// The first few: input line number and reason.
    pub examples: Vec<(usize, String)>,
}

/// Examples kept for each step and rule in a [`Report`].
pub const EXAMPLES: usize = 3;

impl Report {
    /// Count one pair read and, when removed, why.
    pub fn add(&mut self, line: usize, removal: Option<&Removal>) {
        self.read += 1;
        let Some(r) = removal else {
            self.kept += 1;
            return;
        };
        let at = match self
            .removed
            .iter()
            .position(|x| x.step == r.step && x.what == r.what)
        {
            Some(i) => i,
            None => {
                self.removed.push(Removed {
                    step: r.step,
                    what: r.what,
                    count: 0,
                    examples: Vec::new(),
                });
                self.removed.sort_by_key(|x| (x.step, order(x.what)));
                self.removed
                    .iter()
                    .position(|x| x.step == r.step && x.what == r.what)
                    .unwrap_or(0)
            }
        };
        let entry = &mut self.removed[at];
        entry.count += 1;
        if entry.examples.len() < EXAMPLES {
            entry.examples.push((line, r.reason.clone()));
        }
    }
}

impl Report {
    /// Count the score of a kept pair in the histogram.
    pub fn add_score(&mut self, score: f64) {
        self.scores
            .get_or_insert_with(|| Histogram::new(-1.0, 1.0, SCORE_BINS))
            .add(score);
    }
}

fn order(what: &str) -> usize {
    Rule::from_name(what).map_or(Rule::ALL.len(), |r| r as usize)
}

#[cfg(test)]
#[path = "pipeline_tests.rs"]
mod tests;
