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
    /// Near-duplicate removal, last (the first copy of a pair is kept).
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

    /// Judge the pair of input line `line`: `None` to keep it, else why it is removed. A kept
    /// pair's key is remembered, so that a later near-duplicate of it is removed.
    pub fn judge(&mut self, line: usize, src: &str, tgt: &str) -> Option<Removal> {
        let pair = Folded::new(src, tgt);
        if let Some(v) = self.recipe.rules.judge_folded(&pair, self.repeats.as_ref()) {
            return Some(Removal {
                step: Step::Rules,
                what: v.rule.name(),
                reason: v.reason,
            });
        }
        if let Some(r) = self.language(src, tgt) {
            return Some(r);
        }
        let folded = match self.recipe.dedup {
            Dedup::None => return None,
            Dedup::Pair => format!("{}\t{}", pair.fold(Side::Source), pair.fold(Side::Target)),
            Dedup::Source => pair.fold(Side::Source).to_string(),
            Dedup::Target => pair.fold(Side::Target).to_string(),
        };
        match self.seen.entry(key(&folded)) {
            std::collections::hash_map::Entry::Occupied(first) => Some(Removal {
                step: Step::Dedup,
                what: "duplicate",
                reason: format!("a near-duplicate of line {}", first.get()),
            }),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(line);
                None
            }
        }
    }

    /// The recipe.
    #[must_use]
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
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

fn order(what: &str) -> usize {
    Rule::from_name(what).map_or(Rule::ALL.len(), |r| r as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_then_near_duplicates_with_the_first_copy_kept() {
        let mut c = Cleaner::new(Recipe::default()).unwrap();
        assert!(c.needs_counts());
        let pairs = [
            ("Das Haus ist rot.", "The house is red."),
            ("das Haus ist rot", "The house is RED!"),
            ("<b>Haus</b>", "house"),
            ("Das Haus ist rot.", "The house is green."),
        ];
        for (s, t) in pairs {
            c.count(s, t);
        }
        let got: Vec<_> = pairs
            .iter()
            .enumerate()
            .map(|(i, (s, t))| c.judge(i + 1, s, t).map(|r| (r.step, r.what, r.reason)))
            .collect();
        assert_eq!(got[0], None);
        assert_eq!(
            got[1],
            Some((
                Step::Dedup,
                "duplicate",
                "a near-duplicate of line 1".into()
            ))
        );
        assert_eq!(got[2].as_ref().map(|g| g.1), Some("markup"));
        assert_eq!(got[3], None);
    }

    #[test]
    fn one_side_keys_and_no_dedup() {
        let pairs = [("Hallo Welt", "Hello world"), ("Hallo, Welt!", "Hi world")];
        for (dedup, removed) in [
            (Dedup::Source, true),
            (Dedup::Target, false),
            (Dedup::None, false),
        ] {
            let recipe = Recipe {
                dedup,
                ..Recipe::default()
            };
            let mut c = Cleaner::new(recipe).unwrap();
            assert_eq!(c.judge(1, pairs[0].0, pairs[0].1), None);
            assert_eq!(
                c.judge(2, pairs[1].0, pairs[1].1).is_some(),
                removed,
                "{dedup:?}"
            );
        }
    }

    /// Cyrillic letters read as Russian, `é` as French, anything else as German or English
    /// by its first word.
    struct Toy(Vec<String>);

    impl LanguageIdentifier for Toy {
        fn languages(&self) -> &[String] {
            &self.0
        }
        fn predict(&self, text: &str, k: usize) -> Vec<bitext_lid::Guess> {
            let lang = if text.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c)) {
                "ru"
            } else if text.contains('é') {
                "fr"
            } else if text.starts_with("Das") || text.starts_with("Der") {
                "de"
            } else {
                "en"
            };
            let mut g: Vec<_> = self
                .0
                .iter()
                .map(|l| bitext_lid::Guess::new(l.clone(), if l == lang { 0.9 } else { 0.025 }))
                .collect();
            g.sort_by(|a, b| b.probability.total_cmp(&a.probability));
            g.truncate(k);
            g
        }
    }

    #[test]
    fn language_identification_removes_wrong_languages_and_swapped_columns() {
        let toy = Arc::new(Toy(["de", "en", "fr", "ru"].map(String::from).to_vec()));
        let mut recipe = Recipe::default();
        recipe.rules.src_lang = Some("de".into());
        recipe.rules.tgt_lang = Some("en".into());
        let mut c = Cleaner::new(recipe.clone())
            .unwrap()
            .with_identifier(toy.clone())
            .unwrap();
        let judge = |c: &mut Cleaner, i, s, t| c.judge(i, s, t).map(|r| (r.step, r.what, r.reason));
        assert_eq!(
            judge(&mut c, 1, "Das Haus ist rot.", "The house is red."),
            None
        );
        let swapped = judge(&mut c, 2, "The house is green.", "Das Haus ist grün.").unwrap();
        assert_eq!((swapped.0, swapped.1), (Step::Lid, "swapped"));
        let wrong = judge(
            &mut c,
            3,
            "Das Haus ist blau.",
            "La maison est bleue, café.",
        )
        .unwrap();
        assert_eq!((wrong.0, wrong.1), (Step::Lid, "wrong_language"));
        assert_eq!(wrong.2, "target reads as fr (0.90), not en");
        // Below the confidence asked for, a side read as its own language fails too.
        recipe.lid.min_confidence = 0.95;
        let mut strict = Cleaner::new(recipe.clone())
            .unwrap()
            .with_identifier(toy.clone())
            .unwrap();
        assert!(
            strict
                .judge(1, "Das Haus ist rot.", "The house is red.")
                .is_some()
        );
        recipe.rules.tgt_lang = Some("ja".into());
        let e = Cleaner::new(recipe)
            .unwrap()
            .with_identifier(toy)
            .unwrap_err();
        assert!(
            e.to_string().contains("does not know the language \"ja\""),
            "{e}"
        );
        let mut bad = Recipe::default();
        bad.lid.min_confidence = 1.5;
        assert!(Cleaner::new(bad).is_err());
    }

    #[test]
    fn the_report_counts_by_step_and_rule_in_order() {
        let mut report = Report::default();
        let removal = |step, what: &'static str| Removal {
            step,
            what,
            reason: format!("{what}!"),
        };
        report.add(1, None);
        report.add(2, Some(&removal(Step::Dedup, "duplicate")));
        report.add(3, Some(&removal(Step::Rules, "numbers")));
        report.add(4, Some(&removal(Step::Rules, "empty")));
        for line in 5..10 {
            report.add(line, Some(&removal(Step::Rules, "numbers")));
        }
        assert_eq!((report.read, report.kept), (9, 1));
        let rows: Vec<_> = report.removed.iter().map(|r| (r.what, r.count)).collect();
        assert_eq!(rows, [("empty", 1), ("numbers", 6), ("duplicate", 1)]);
        assert_eq!(report.removed[1].examples.len(), EXAMPLES);
        assert_eq!(report.removed[1].examples[0], (3, "numbers!".to_string()));
    }

    #[test]
    fn a_recipe_reads_as_json_and_bad_thresholds_are_refused() {
        let r: Recipe =
            serde_json::from_str(r#"{"rules": {"max_repeats": 2}, "dedup": "source"}"#).unwrap();
        assert_eq!((r.rules.max_repeats, r.dedup), (2, Dedup::Source));
        assert!(serde_json::from_str::<Recipe>(r#"{"dedupe": "pair"}"#).is_err());
        let mut bad = Recipe::default();
        bad.rules.max_punctuation = 2.0;
        assert!(Cleaner::new(bad).is_err());
    }
}
