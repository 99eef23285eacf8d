//! The rule filters: each a named [`Rule`] whose reason is written beside the line it removes,
//! with documented defaults ([`Rules::default`]) and every threshold a field (a flag of
//! `bitext clean`). A pair is checked rule by rule in [`Rule::ALL`]'s order and removed by
//! the first that fails, as bicleaner-hardrules does.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::text::{Kinds, Script, fold, has_markup, key, links, numbers, script, scripts_of};

/// One rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A side with nothing but spaces.
    Empty,
    /// A side longer than [`Rules::max_chars`] characters.
    TooLong,
    /// A side of fewer than [`Rules::min_words`] words.
    TooShort,
    /// Markup: an HTML/XML tag or a character entity (`&amp;`) on either side.
    Markup,
    /// A side whose letters are fewer than [`Rules::min_letters`] of its visible characters
    /// (a line of numbers, codes or symbols).
    Letters,
    /// A side whose punctuation and symbols are more than [`Rules::max_punctuation`] of its
    /// visible characters.
    Punctuation,
    /// Sides whose lengths differ more than [`Rules::max_length_ratio`] times.
    LengthRatio,
    /// Sides equal once folded (case, punctuation, spaces and digits ignored): an
    /// untranslated copy.
    Untranslated,
    /// Sides whose numbers differ (`1,000.5` and `1.000,5` agree).
    Numbers,
    /// Sides whose URLs and e-mail addresses differ.
    Links,
    /// A side with more than [`Rules::max_foreign_script`] of its letters outside the scripts
    /// of its language (with the languages given).
    Script,
    /// A side that occurs (folded) more than [`Rules::max_repeats`] times in the corpus: a
    /// menu item, a footer, a cookie notice.
    Boilerplate,
}

impl Rule {
    /// Every rule, in the order a pair is checked.
    pub const ALL: [Rule; 12] = [
        Rule::Empty,
        Rule::TooLong,
        Rule::TooShort,
        Rule::Markup,
        Rule::Letters,
        Rule::Punctuation,
        Rule::LengthRatio,
        Rule::Untranslated,
        Rule::Numbers,
        Rule::Links,
        Rule::Script,
        Rule::Boilerplate,
    ];

    /// The rule's name, as `--disable-rule`, the removed lines and the report spell it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Rule::Empty => "empty",
            Rule::TooLong => "too_long",
            Rule::TooShort => "too_short",
            Rule::Markup => "markup",
            Rule::Letters => "letters",
            Rule::Punctuation => "punctuation",
            Rule::LengthRatio => "length_ratio",
            Rule::Untranslated => "untranslated",
            Rule::Numbers => "numbers",
            Rule::Links => "links",
            Rule::Script => "script",
            Rule::Boilerplate => "boilerplate",
        }
    }

    /// The rule of a name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// Which side a verdict is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The source column.
    Source,
    /// The target column.
    Target,
    /// The two together.
    Both,
}

/// Why a pair is removed: the rule and, in words, what it saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The rule that failed.
    pub rule: Rule,
    /// What it saw (`"source has 3 letters of 12 characters"`).
    pub reason: String,
}

/// The rules' thresholds and switches (serde: the `rules` step of a cleaning recipe; every
/// field optional, defaulting to [`Rules::default`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// Longest side, in characters (bicleaner-hardrules: 1024).
    pub max_chars: usize,
    /// Fewest words (whitespace-separated) of a side; default 1 (any word; for Chinese and
    /// Japanese, which write no spaces, a line is one word).
    pub min_words: usize,
    /// Least share of letters among a side's visible characters: 0.3 (`1.000,5 km am 3. Mai`
    /// passes with 7 of 16, `Tel. 030 1234567` fails with 3 of 15).
    pub min_letters: f64,
    /// Largest share of punctuation and symbols among a side's visible characters: 0.5.
    pub max_punctuation: f64,
    /// Largest ratio of the longer side's length to the shorter's: 2.0 (bicleaner-hardrules'
    /// `0.5 ≤ ratio ≤ 2`), in characters, or in UTF-8 bytes when one side is written in Han,
    /// kana or Hangul (a character there holds about what a word does); pairs whose longer
    /// side has fewer than [`Rules::ratio_min_chars`] characters pass.
    pub max_length_ratio: f64,
    /// Shortest longer side the length ratio applies to: 10 characters.
    pub ratio_min_chars: usize,
    /// Largest share of a side's letters outside its language's scripts: 0.2 (so that a few
    /// Latin brand names pass in a Russian or Japanese side).
    pub max_foreign_script: f64,
    /// Most times a side may occur (folded) in the corpus: 10.
    pub max_repeats: usize,
    /// The source language (a code of `bitext lid`'s labels: `de`), for the script rule.
    pub src_lang: Option<String>,
    /// The target language, for the script rule.
    pub tgt_lang: Option<String>,
    /// Rules turned off.
    pub disabled: Vec<Rule>,
}

impl Default for Rules {
    fn default() -> Self {
        Self {
            max_chars: 1024,
            min_words: 1,
            min_letters: 0.3,
            max_punctuation: 0.5,
            max_length_ratio: 2.0,
            ratio_min_chars: 10,
            max_foreign_script: 0.2,
            max_repeats: 10,
            src_lang: None,
            tgt_lang: None,
            disabled: Vec::new(),
        }
    }
}

/// How many times each folded side occurs in a corpus, for [`Rule::Boilerplate`]: counted in
/// a first pass ([`Repeats::add`]), read in the second.
#[derive(Debug, Clone, Default)]
pub struct Repeats {
    src: FxHashMap<u64, u32>,
    tgt: FxHashMap<u64, u32>,
}

impl Repeats {
    /// Count one pair.
    pub fn add(&mut self, src: &str, tgt: &str) {
        let [a, b] = Repeats::keys(src, tgt);
        self.add_keys(a, b, 1);
    }

    /// The keys [`Repeats`] counts a pair's sides by (their folded text's [`key`]).
    #[must_use]
    pub fn keys(src: &str, tgt: &str) -> [u64; 2] {
        [key(&fold(src)), key(&fold(tgt))]
    }

    /// Count `n` more of a source side of key `src` and a target side of key `tgt`.
    pub fn add_keys(&mut self, src: u64, tgt: u64, n: u32) {
        self.add_key(Side::Source, src, n);
        self.add_key(Side::Target, tgt, n);
    }

    /// Count `n` more of a side of key `key` ([`Side::Both`]: nothing).
    pub fn add_key(&mut self, side: Side, key: u64, n: u32) {
        let map = match side {
            Side::Source => &mut self.src,
            Side::Target => &mut self.tgt,
            Side::Both => return,
        };
        let c = map.entry(key).or_insert(0);
        *c = c.saturating_add(n);
    }

    /// Every counted key of `side` and its count, in no particular order ([`Side::Both`]:
    /// none).
    pub fn counts(&self, side: Side) -> impl Iterator<Item = (u64, u32)> + '_ {
        let map = match side {
            Side::Source => Some(&self.src),
            Side::Target => Some(&self.tgt),
            Side::Both => None,
        };
        map.into_iter()
            .flat_map(|m| m.iter().map(|(&k, &c)| (k, c)))
    }

    /// How many times `text` occurs (folded) on `side` (0 for [`Side::Both`]).
    #[must_use]
    pub fn count(&self, side: Side, text: &str) -> u32 {
        self.count_folded(side, &fold(text))
    }

    /// [`Repeats::count`] of a text already folded.
    fn count_folded(&self, side: Side, folded: &str) -> u32 {
        let map = match side {
            Side::Source => &self.src,
            Side::Target => &self.tgt,
            Side::Both => return 0,
        };
        map.get(&key(folded)).copied().unwrap_or(0)
    }
}

/// A pair with its sides' folded forms ([`fold`]), each computed once when a step first asks:
/// the untranslated and boilerplate rules and the near-duplicate key read the same ones.
pub(crate) struct Folded<'a> {
    pub(crate) src: &'a str,
    pub(crate) tgt: &'a str,
    folds: [std::cell::OnceCell<String>; 2],
}

impl<'a> Folded<'a> {
    pub(crate) fn new(src: &'a str, tgt: &'a str) -> Self {
        Self {
            src,
            tgt,
            folds: Default::default(),
        }
    }

    /// The folded source (`side` [`Side::Source`]) or target.
    pub(crate) fn fold(&self, side: Side) -> &str {
        let (i, text) = match side {
            Side::Source => (0, self.src),
            _ => (1, self.tgt),
        };
        self.folds[i].get_or_init(|| fold(text))
    }
}

impl Rules {
    /// Check the thresholds.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        let share = |x: f64| (0.0..=1.0).contains(&x);
        if !share(self.min_letters) || !share(self.max_punctuation) {
            return Err(Error::Invalid(
                "min_letters and max_punctuation are shares between 0 and 1".into(),
            ));
        }
        if !share(self.max_foreign_script) {
            return Err(Error::Invalid(
                "max_foreign_script is a share between 0 and 1".into(),
            ));
        }
        if !(self.max_length_ratio.is_finite() && self.max_length_ratio >= 1.0) {
            return Err(Error::Invalid(format!(
                "max_length_ratio must be at least 1, got {}",
                self.max_length_ratio
            )));
        }
        if self.max_chars == 0 {
            return Err(Error::Invalid("max_chars must be at least 1".into()));
        }
        Ok(())
    }

    /// Whether `rule` is on.
    #[must_use]
    pub fn enabled(&self, rule: Rule) -> bool {
        !self.disabled.contains(&rule)
    }

    /// Whether the boilerplate rule needs [`Repeats`] counted over the corpus first.
    #[must_use]
    pub fn needs_repeats(&self) -> bool {
        self.enabled(Rule::Boilerplate)
    }

    /// The first rule `(src, tgt)` fails, or `None` when it passes every rule that is on
    /// (`repeats`: the corpus' counts; without them the boilerplate rule passes).
    #[must_use]
    pub fn judge(&self, src: &str, tgt: &str, repeats: Option<&Repeats>) -> Option<Verdict> {
        self.judge_folded(&Folded::new(src, tgt), repeats)
    }

    /// Whether `(src, tgt)` fails `rule`, on or off, and what the rule saw (`repeats`: the
    /// corpus' counts; without them the boilerplate rule passes): one flag of a pair
    /// classifier's features, where [`Rules::judge`] stops at the first rule that fails.
    #[must_use]
    pub fn check_rule(
        &self,
        rule: Rule,
        src: &str,
        tgt: &str,
        repeats: Option<&Repeats>,
    ) -> Option<Verdict> {
        self.reason(rule, &Folded::new(src, tgt), repeats)
            .map(|reason| Verdict { rule, reason })
    }

    /// Whether `(src, tgt)` fails each of `rules` ([`Rules::check_rule`] of each, the pair's
    /// sides folded once).
    #[must_use]
    pub fn failures(
        &self,
        rules: &[Rule],
        src: &str,
        tgt: &str,
        repeats: Option<&Repeats>,
    ) -> Vec<bool> {
        let pair = Folded::new(src, tgt);
        rules
            .iter()
            .map(|&rule| self.reason(rule, &pair, repeats).is_some())
            .collect()
    }

    /// [`Rules::judge`] of a pair whose folded sides the caller reads too.
    pub(crate) fn judge_folded(
        &self,
        pair: &Folded<'_>,
        repeats: Option<&Repeats>,
    ) -> Option<Verdict> {
        Rule::ALL
            .into_iter()
            .filter(|&r| self.enabled(r))
            .find_map(|rule| {
                self.reason(rule, pair, repeats)
                    .map(|reason| Verdict { rule, reason })
            })
    }

    fn reason(&self, rule: Rule, pair: &Folded<'_>, repeats: Option<&Repeats>) -> Option<String> {
        let (src, tgt) = (pair.src, pair.tgt);
        let sides = [(Side::Source, "source", src), (Side::Target, "target", tgt)];
        let each = |f: &dyn Fn(&str) -> Option<String>| {
            sides
                .iter()
                .find_map(|&(_, name, text)| f(text).map(|r| format!("{name} {r}")))
        };
        match rule {
            Rule::Empty => each(&|t| t.trim().is_empty().then(|| "is empty".into())),
            Rule::TooLong => each(&|t| {
                let n = t.chars().count();
                (n > self.max_chars)
                    .then(|| format!("has {n} characters (most {})", self.max_chars))
            }),
            Rule::TooShort => each(&|t| {
                let n = t.split_whitespace().count();
                (n < self.min_words).then(|| format!("has {n} words (fewest {})", self.min_words))
            }),
            Rule::Markup => {
                each(&|t| has_markup(t).then(|| "holds markup or an HTML entity".into()))
            }
            Rule::Letters => each(&|t| {
                let k = Kinds::of(t);
                ((k.letters as f64) < self.min_letters * k.visible() as f64)
                    .then(|| format!("has {} letters of {} characters", k.letters, k.visible()))
            }),
            Rule::Punctuation => each(&|t| {
                let k = Kinds::of(t);
                ((k.other as f64) > self.max_punctuation * k.visible() as f64).then(|| {
                    format!(
                        "has {} punctuation marks or symbols of {} characters",
                        k.other,
                        k.visible()
                    )
                })
            }),
            Rule::LengthRatio => self.length_ratio(src, tgt),
            Rule::Untranslated => {
                let (a, b) = (pair.fold(Side::Source), pair.fold(Side::Target));
                (!a.is_empty() && a == b).then(|| "the sides are the same text".into())
            }
            Rule::Numbers => {
                let (a, b) = (numbers(src), numbers(tgt));
                (a != b).then(|| format!("numbers differ: {a:?} and {b:?}"))
            }
            Rule::Links => {
                let (a, b) = (links(src), links(tgt));
                (a != b).then(|| format!("links differ: {a:?} and {b:?}"))
            }
            Rule::Script => {
                let langs = [&self.src_lang, &self.tgt_lang];
                sides
                    .iter()
                    .zip(langs)
                    .find_map(|(&(_, name, text), lang)| {
                        let lang = lang.as_deref()?;
                        let expected = scripts_of(lang)?;
                        self.foreign(text, expected)
                            .map(|r| format!("{name} has {r} outside the scripts of {lang}"))
                    })
            }
            Rule::Boilerplate => {
                let repeats = repeats?;
                sides.iter().find_map(|&(side, name, _)| {
                    let folded = pair.fold(side);
                    let n = repeats.count_folded(side, folded);
                    (n as usize > self.max_repeats && !folded.is_empty()).then(|| {
                        format!(
                            "{name} occurs {n} times in the corpus (most {})",
                            self.max_repeats
                        )
                    })
                })
            }
        }
    }

    fn length_ratio(&self, src: &str, tgt: &str) -> Option<String> {
        let dense = |t: &str| {
            t.chars()
                .any(|c| matches!(script(c), Script::Han | Script::Kana | Script::Hangul))
        };
        let (a, b) = (src.chars().count(), tgt.chars().count());
        if a.max(b) < self.ratio_min_chars {
            return None;
        }
        let (a, b, unit) = if dense(src) || dense(tgt) {
            (src.len(), tgt.len(), "bytes")
        } else {
            (a, b, "characters")
        };
        let ratio = a.max(b) as f64 / a.min(b).max(1) as f64;
        (ratio > self.max_length_ratio).then(|| {
            format!(
                "lengths {a} and {b} {unit} differ {ratio:.2} times (most {})",
                self.max_length_ratio
            )
        })
    }

    /// `letters outside` in words when more than the allowed share of `text`'s letters are
    /// outside `expected`.
    fn foreign(&self, text: &str, expected: &[Script]) -> Option<String> {
        let (mut all, mut out) = (0usize, 0usize);
        for c in text.chars().filter(|c| c.is_alphabetic()) {
            all += 1;
            if !expected.contains(&script(c)) {
                out += 1;
            }
        }
        (all > 0 && out as f64 > self.max_foreign_script * all as f64)
            .then(|| format!("{out} of {all} letters"))
    }
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
