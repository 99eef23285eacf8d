//! Synthetic negatives for the pair classifier, made from the clean pairs (its positives) as
//! bicleaner and bicleaner-ai make theirs: a clean pair broken the way a crawl breaks pairs
//! ([`NoiseKind`]), so that the classifier learns what a parallel pair is from the difference.
//! Every draw comes from one seeded [`Rng`], so a seed gives the same negatives everywhere.

use bitext_core::Rng;

use crate::error::{Error, Result};

/// Draws of a pair (and of a replacement) before a kind gives way to another.
const TRIES: usize = 20;

/// Random targets that a misaligned pair picks from, by closest length.
const CANDIDATES: usize = 5;

/// A kind of synthetic negative.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum NoiseKind {
    /// A source with the target of another pair, of a length close to its own target's: the
    /// closest by characters among a few random targets that differ from its own.
    Misaligned,
    /// A pair with one side (source or target, at random) cut to a prefix of 1/4 to 2/3 of
    /// its words, at least one word removed. Only sides of 2 words or more are cut.
    Truncated,
    /// A pair with a share of its target words (at least one) replaced by different words of
    /// the target language, drawn from [`Words::tgt`].
    Replaced,
    /// The source on both sides (an untranslated copy); with probability 1/2 the target on
    /// both sides instead.
    Untranslated,
    /// A source with a sentence of another language as its target.
    WrongLanguage,
    /// A side in the other side's language: another pair's source as the target, or another
    /// pair's target as the source (what swapped columns look like, from the pairs alone).
    WrongSide,
}

impl NoiseKind {
    /// Every kind.
    pub const ALL: [NoiseKind; 6] = [
        NoiseKind::Misaligned,
        NoiseKind::Truncated,
        NoiseKind::Replaced,
        NoiseKind::Untranslated,
        NoiseKind::WrongLanguage,
        NoiseKind::WrongSide,
    ];

    /// The kind's name, as in settings files.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            NoiseKind::Misaligned => "misaligned",
            NoiseKind::Truncated => "truncated",
            NoiseKind::Replaced => "replaced",
            NoiseKind::Untranslated => "untranslated",
            NoiseKind::WrongLanguage => "wrong_language",
            NoiseKind::WrongSide => "wrong_side",
        }
    }

    /// The kind of a name, or `None` for an unknown name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Words to draw replacements from, per side. Each list holds a word as often as it occurs,
/// so a uniform draw from it samples words by frequency. Entries that are empty or hold
/// whitespace are not used.
#[derive(Debug, Clone, Default)]
pub struct Words {
    /// Words of the source language (negatives replace target words only).
    pub src: Vec<String>,
    /// Words of the target language.
    pub tgt: Vec<String>,
}

impl Words {
    /// The words of the pairs themselves: the whitespace-separated tokens of each side that
    /// hold at least one letter (numbers and punctuation are not replacements).
    #[must_use]
    pub fn of_pairs<S: AsRef<str>>(pairs: &[(S, S)]) -> Self {
        Self {
            src: word_list(pairs.iter().map(|p| p.0.as_ref())),
            tgt: word_list(pairs.iter().map(|p| p.1.as_ref())),
        }
    }
}

fn word_list<'a>(sides: impl Iterator<Item = &'a str>) -> Vec<String> {
    sides
        .flat_map(str::split_whitespace)
        .filter(|w| w.chars().any(char::is_alphabetic))
        .map(str::to_string)
        .collect()
}

/// How many negatives of which kinds.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NoiseConfig {
    /// The kinds to make, each at most once (default: all). [`NoiseKind::WrongLanguage`] is
    /// skipped without an error when no sentence of another language is given; any other
    /// kind that the pairs cannot give (e.g. misaligned pairs from fewer than 2 distinct
    /// targets) is an error.
    pub kinds: Vec<NoiseKind>,
    /// Negatives per clean pair (default 1.0; may be fractional; finite and above 0).
    pub per_pair: f64,
    /// Share of target words that [`NoiseKind::Replaced`] changes (default 0.3, in `(0, 1]`).
    pub replace_share: f64,
}

impl Default for NoiseConfig {
    fn default() -> Self {
        Self {
            kinds: NoiseKind::ALL.to_vec(),
            per_pair: 1.0,
            replace_share: 0.3,
        }
    }
}

impl NoiseConfig {
    /// Whether the settings are usable.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the setting: no kinds, a kind listed twice, `per_pair` not
    /// finite and above 0, `replace_share` outside `(0, 1]`.
    pub fn check(&self) -> Result<()> {
        if self.kinds.is_empty() {
            return Err(invalid("kinds is empty: name at least one kind"));
        }
        for (i, k) in self.kinds.iter().enumerate() {
            if self.kinds[..i].contains(k) {
                return Err(invalid(format!("kinds lists {} twice", k.name())));
            }
        }
        let (p, r) = (self.per_pair, self.replace_share);
        if !(p.is_finite() && p > 0.0) {
            return Err(invalid(format!("per_pair must be finite and > 0, got {p}")));
        }
        if !(r > 0.0 && r <= 1.0) {
            return Err(invalid(format!("replace_share must be in (0, 1], got {r}")));
        }
        Ok(())
    }
}

fn invalid(message: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("synthetic negatives: {message}"))
}

/// One synthetic negative.
#[derive(Debug, Clone, PartialEq)]
pub struct Negative {
    /// Source side.
    pub src: String,
    /// Target side.
    pub tgt: String,
    /// How it was made.
    pub kind: NoiseKind,
    /// The clean pair it was made from (0-based index into `pairs`).
    pub from: usize,
}

/// `round(per_pair * pairs.len())` synthetic negatives (at least 1) of the clean `pairs`
/// (source, target), each from a random pair. The kinds take turns in a shuffled order, so
/// each gets an equal share ±1. Replacements come from `words.tgt` (the pairs' own target
/// words when it is empty); `other` holds sentences of another language. Text is kept as
/// given; a rebuilt side (truncated, replaced) has its words joined by single spaces. A
/// negative always differs from its clean pair: a draw that gives the pair back is made again
/// from another pair, a bounded number of times, then another kind takes the turn. The same
/// `rng` state gives the same negatives.
///
/// # Errors
/// [`Error::Invalid`] for no pairs, settings that [`NoiseConfig::check`] refuses, or a kind
/// that the pairs cannot give, named with the reason.
pub fn negatives<S: AsRef<str>>(
    pairs: &[(S, S)],
    words: &Words,
    other: &[String],
    config: &NoiseConfig,
    rng: &mut Rng,
) -> Result<Vec<Negative>> {
    config.check()?;
    if pairs.is_empty() {
        return Err(invalid("no clean pairs to make negatives from"));
    }
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(s, t)| (s.as_ref(), t.as_ref()))
        .collect();
    let one_word = |w: &&str| !w.is_empty() && !w.contains(char::is_whitespace);
    let given = words.tgt.iter().map(String::as_str);
    let mut list: Vec<&str> = given.filter(one_word).collect();
    let own;
    if list.is_empty() && config.kinds.contains(&NoiseKind::Replaced) {
        own = word_list(pairs.iter().map(|p| p.1));
        list = own.iter().map(String::as_str).collect();
    }
    // A list of one word repeated keeps one entry: `words == [w]` means only `w` is drawn.
    if list.iter().all(|w| Some(w) == list.first()) {
        list.truncate(1);
    }
    let maker = Maker {
        pairs,
        words: list,
        other,
        share: config.replace_share,
    };
    let usable =
        (config.kinds.iter()).filter(|&&k| k != NoiseKind::WrongLanguage || !other.is_empty());
    let mut kinds: Vec<_> = usable
        .map(|&k| Ok((k, maker.pool(k)?)))
        .collect::<Result<_>>()?;
    if kinds.is_empty() {
        return Err(invalid("wrong_language needs text in another language"));
    }
    rng.shuffle(&mut kinds);
    let total = ((config.per_pair * maker.pairs.len() as f64).round() as usize).max(1);
    let mut out = Vec::with_capacity(total.min(1 << 16));
    for k in 0..total {
        let made = (0..kinds.len()).find_map(|step| {
            let (kind, pool) = &kinds[(k + step) % kinds.len()];
            maker.try_kind(*kind, pool, rng)
        });
        out.extend(made);
    }
    Ok(out)
}

/// The pairs that a kind can break: the listed ones, or all (`None`).
type Pool = Option<Vec<usize>>;

/// The inputs of the draws.
struct Maker<'a> {
    pairs: Vec<(&'a str, &'a str)>,
    /// Replacement words of the target language (one entry when they are one word).
    words: Vec<&'a str>,
    other: &'a [String],
    share: f64,
}

impl<'a> Maker<'a> {
    /// The pairs that `kind` can break, or why it can break none.
    fn pool(&self, kind: NoiseKind) -> Result<Pool> {
        let only = |keep: &dyn Fn(&str, &str) -> bool, why: &str| {
            let v: Vec<usize> = (0..self.pairs.len())
                .filter(|&i| keep(self.pairs[i].0, self.pairs[i].1))
                .collect();
            let none = || invalid(format!("{} needs {why}", kind.name()));
            (!v.is_empty()).then_some(Some(v)).ok_or_else(none)
        };
        match kind {
            NoiseKind::Misaligned if self.pairs.iter().any(|p| p.1 != self.pairs[0].1) => Ok(None),
            NoiseKind::Misaligned => Err(invalid("misaligned needs at least 2 different targets")),
            NoiseKind::Truncated => only(
                &|s, t| [s, t].iter().any(|x| x.split_whitespace().nth(1).is_some()),
                "a pair with a side of at least 2 words",
            ),
            NoiseKind::Replaced if self.words.is_empty() => Err(invalid(
                "replaced needs target words to draw from, and the pairs' targets hold none",
            )),
            NoiseKind::Replaced => only(
                &|_, t| t.split_whitespace().any(|w| self.words != [w]),
                "a target word that differs from the replacement words",
            ),
            NoiseKind::Untranslated => only(&|s, t| s != t, "a pair whose sides differ"),
            NoiseKind::WrongLanguage if self.other.iter().any(|o| *o != self.other[0]) => Ok(None),
            NoiseKind::WrongLanguage => only(
                &|_, t| t != self.other[0],
                "a sentence of the other language that differs from a target",
            ),
            NoiseKind::WrongSide if self.pairs.iter().any(|p| p.0 != self.pairs[0].0) => Ok(None),
            NoiseKind::WrongSide => Err(invalid("wrong_side needs at least 2 different sources")),
        }
    }

    /// A negative of `kind` from a pair of `pool`, or `None` after [`TRIES`] draws that give
    /// the clean pair back.
    fn try_kind(&self, kind: NoiseKind, pool: &Pool, rng: &mut Rng) -> Option<Negative> {
        for _ in 0..TRIES {
            let from = match pool {
                Some(v) => v[rng.below(v.len())],
                None => rng.below(self.pairs.len()),
            };
            let (s, t) = self.pairs[from];
            if let Some((src, tgt)) = self.make(kind, from, rng)
                && (src != s || tgt != t)
            {
                return Some(Negative {
                    src,
                    tgt,
                    kind,
                    from,
                });
            }
        }
        None
    }

    fn make(&self, kind: NoiseKind, i: usize, rng: &mut Rng) -> Option<(String, String)> {
        let (s, t) = self.pairs[i];
        match kind {
            NoiseKind::Misaligned => Some((s.to_string(), self.misaligned(t, rng)?.to_string())),
            NoiseKind::Truncated => truncated(s, t, rng),
            NoiseKind::Replaced => Some((s.to_string(), self.replaced(t, rng)?)),
            NoiseKind::Untranslated => {
                let side = if rng.bernoulli(0.5) { t } else { s };
                (s != t).then(|| (side.to_string(), side.to_string()))
            }
            NoiseKind::WrongLanguage => {
                let j = pick(self.other.len(), |j| &self.other[j], t, rng)?;
                Some((s.to_string(), self.other[j].clone()))
            }
            NoiseKind::WrongSide if rng.bernoulli(0.5) => {
                let j = pick(self.pairs.len(), |j| self.pairs[j].0, s, rng)?;
                Some((s.to_string(), self.pairs[j].0.to_string()))
            }
            NoiseKind::WrongSide => {
                let j = pick(self.pairs.len(), |j| self.pairs[j].1, t, rng)?;
                Some((self.pairs[j].1.to_string(), t.to_string()))
            }
        }
    }

    /// Another pair's target of a length close to `t`'s: the closest in characters among
    /// [`CANDIDATES`] random targets that differ from `t`.
    fn misaligned(&self, t: &str, rng: &mut Rng) -> Option<&'a str> {
        let want = t.chars().count();
        let target = |j: usize| self.pairs[j].1;
        (0..CANDIDATES)
            .filter_map(|_| pick(self.pairs.len(), target, t, rng))
            .map(target)
            .min_by_key(|u| u.chars().count().abs_diff(want))
    }

    /// `t` with a share of its words (at least one) replaced by different words of the list,
    /// or `None` when no word of it can be replaced.
    fn replaced(&self, t: &str, rng: &mut Rng) -> Option<String> {
        let mut ws: Vec<&str> = t.split_whitespace().collect();
        let open: Vec<usize> = (0..ws.len()).filter(|&p| self.words != [ws[p]]).collect();
        if open.is_empty() || self.words.is_empty() {
            return None;
        }
        let k = ((self.share * ws.len() as f64).round() as usize).clamp(1, open.len());
        for p in rng.sample_indices(open.len(), k) {
            let at = open[p];
            ws[at] = self.words[pick(self.words.len(), |j| self.words[j], ws[at], rng)?];
        }
        Some(ws.join(" "))
    }
}

/// The pair with one of its sides of 2 words or more (at random when both are) cut to a
/// prefix of 1/4 to 2/3 of its words, at least one word removed.
fn truncated(s: &str, t: &str, rng: &mut Rng) -> Option<(String, String)> {
    let sw: Vec<&str> = s.split_whitespace().collect();
    let tw: Vec<&str> = t.split_whitespace().collect();
    let cut_src = match (sw.len() >= 2, tw.len() >= 2) {
        (true, true) => rng.bernoulli(0.5),
        (true, false) => true,
        (false, true) => false,
        (false, false) => return None,
    };
    let words = if cut_src { &sw } else { &tw };
    let n = words.len();
    let lo = n.div_ceil(4);
    let hi = (2 * n / 3).clamp(lo, n - 1);
    let (mut a, mut b) = (s.to_string(), t.to_string());
    *(if cut_src { &mut a } else { &mut b }) = words[..lo + rng.below(hi - lo + 1)].join(" ");
    Some((a, b))
}

/// An index below `n` whose text `at(j)` is not `not`: [`TRIES`] uniform draws, then the
/// first from a random start; `None` when every text is `not`.
fn pick<'b>(n: usize, at: impl Fn(usize) -> &'b str, not: &str, rng: &mut Rng) -> Option<usize> {
    if n == 0 {
        return None;
    }
    for _ in 0..TRIES {
        let j = rng.below(n);
        if at(j) != not {
            return Some(j);
        }
    }
    let start = rng.below(n);
    (0..n).map(|k| (start + k) % n).find(|&j| at(j) != not)
}

#[cfg(test)]
#[path = "noise_tests.rs"]
mod tests;
