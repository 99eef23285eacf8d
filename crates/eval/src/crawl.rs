//! A labelled noisy crawl: real parallel pairs with the noise of a web crawl mixed in, each
//! line labelled with its kind, for measuring a cleaning pipeline per noise kind (removal
//! rate) and overall (precision and recall of the parallel pairs kept).
//!
//! The noise is made from the clean pairs themselves and from sentences of a third language:
//! misaligned pairs (another pair's target), untranslated copies, swapped columns, a side in
//! another language, a changed number, a truncated side, markup, a link on one side, a
//! near-duplicate of a parallel pair (after it in the file), boilerplate (one menu line
//! repeated), and lines without text.
//! Every draw comes from one seeded [`Rng`], so a seed gives the same file on every machine.
//!
//! ```
//! use bitext_core::Rng;
//! use bitext_eval::crawl::{CrawlConfig, Kind, noisy_crawl};
//! # fn main() -> bitext_eval::Result<()> {
//! let pairs: Vec<(String, String)> = (0..40)
//!     .map(|i| (format!("Satz {i} ist hier."), format!("Sentence {i} is here.")))
//!     .collect();
//! let other: Vec<String> = (0..10).map(|i| format!("Phrase numéro {i}.")).collect();
//! let lines = noisy_crawl(&pairs, &other, &CrawlConfig::default(), &mut Rng::seed(1))?;
//! let parallel = lines.iter().filter(|l| l.kind == Kind::Parallel).count();
//! assert!(parallel > 0 && parallel < lines.len());
//! # Ok(())
//! # }
//! ```

use bitext_core::Rng;

use crate::error::{Error, Result};

/// What a line of the noisy crawl is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A real parallel pair, unchanged.
    Parallel,
    /// A source with the target of another pair.
    Misaligned,
    /// The source on both sides (an untranslated copy).
    Untranslated,
    /// A real pair with its columns swapped.
    Swapped,
    /// A source with a sentence of a third language as its target.
    WrongLanguage,
    /// A real pair with one number changed on the target side.
    Numbers,
    /// A real pair with its target cut to its first third.
    Truncated,
    /// A real pair wrapped in HTML tags and entities.
    Markup,
    /// A real pair with a URL on the target side only.
    Link,
    /// A copy of a parallel pair with its case, punctuation and spacing changed.
    Duplicate,
    /// A menu line (`Startseite | Kontakt` ↔ `Home | Contact`), repeated.
    Boilerplate,
    /// A line of numbers and codes without words.
    NonText,
}

impl Kind {
    /// Every kind, parallel first.
    pub const ALL: [Kind; 12] = [
        Kind::Parallel,
        Kind::Misaligned,
        Kind::Untranslated,
        Kind::Swapped,
        Kind::WrongLanguage,
        Kind::Numbers,
        Kind::Truncated,
        Kind::Markup,
        Kind::Link,
        Kind::Duplicate,
        Kind::Boilerplate,
        Kind::NonText,
    ];

    /// The label written in the file.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kind::Parallel => "parallel",
            Kind::Misaligned => "misaligned",
            Kind::Untranslated => "untranslated",
            Kind::Swapped => "swapped",
            Kind::WrongLanguage => "wrong_language",
            Kind::Numbers => "numbers",
            Kind::Truncated => "truncated",
            Kind::Markup => "markup",
            Kind::Link => "link",
            Kind::Duplicate => "duplicate",
            Kind::Boilerplate => "boilerplate",
            Kind::NonText => "non_text",
        }
    }

    /// The kind of a label.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One line of the noisy crawl.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrawlLine {
    /// What it is.
    pub kind: Kind,
    /// Source side.
    pub src: String,
    /// Target side.
    pub tgt: String,
}

/// How much of each kind of noise: `per_kind` lines of each noise kind (fewer where the
/// clean pairs cannot give them: [`Kind::Numbers`] needs pairs with a number on both sides),
/// and the rest of the clean pairs parallel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrawlConfig {
    /// Lines of each noise kind, as a share of the clean pairs (0.03: 3% each).
    pub per_kind: f64,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        Self { per_kind: 0.03 }
    }
}

/// The labelled noisy crawl of the clean `pairs` (source, target) and `other`, sentences of a
/// third language, in a seeded random order. Each clean pair is used once, as a parallel line
/// or as the base of one noise line; duplicates copy parallel lines.
///
/// # Errors
/// [`Error::Invalid`] for fewer than 20 pairs, no sentence of the third language, or a share
/// outside `(0, 0.08]`.
pub fn noisy_crawl(
    pairs: &[(String, String)],
    other: &[String],
    config: &CrawlConfig,
    rng: &mut Rng,
) -> Result<Vec<CrawlLine>> {
    if pairs.len() < 20 || other.is_empty() {
        return Err(Error::Invalid(
            "a noisy crawl needs at least 20 clean pairs and a sentence of a third language".into(),
        ));
    }
    if !(config.per_kind > 0.0 && config.per_kind <= 0.08) {
        return Err(Error::Invalid(format!(
            "per_kind is a share in (0, 0.08], got {}",
            config.per_kind
        )));
    }
    let n = pairs.len();
    let per_kind = ((n as f64 * config.per_kind).round() as usize).max(1);
    let mut order: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut order);
    let mut next = order.into_iter();
    let mut out = Vec::new();
    let line = |kind, src: &str, tgt: &str| CrawlLine {
        kind,
        src: src.to_string(),
        tgt: tgt.to_string(),
    };
    // Noise built from one pair each.
    for kind in [
        Kind::Misaligned,
        Kind::Untranslated,
        Kind::Swapped,
        Kind::WrongLanguage,
        Kind::Truncated,
        Kind::Markup,
        Kind::Link,
    ] {
        for i in next.by_ref().take(per_kind) {
            let (s, t) = (&pairs[i].0, &pairs[i].1);
            out.push(match kind {
                Kind::Misaligned => {
                    let j = (i + 1 + rng.below(n - 1)) % n;
                    line(kind, s, &pairs[j].1)
                }
                Kind::Untranslated => line(kind, s, s),
                Kind::Swapped => line(kind, t, s),
                Kind::WrongLanguage => line(kind, s, &other[rng.below(other.len())]),
                Kind::Truncated => line(kind, s, &truncated(t)),
                Kind::Markup => line(kind, &format!("<p><b>{s}</b></p>"), &format!("{t}&nbsp;")),
                _ => line(
                    kind,
                    s,
                    &format!("{t} https://example.com/{}", rng.below(1000)),
                ),
            });
        }
    }
    // A changed number needs a pair with numbers; pairs without one stay parallel.
    let rest: Vec<usize> = next.collect();
    let mut changed = 0;
    for &i in &rest {
        let (s, t) = (&pairs[i].0, &pairs[i].1);
        match (changed < per_kind && has_digit(s))
            .then(|| change_number(t, rng))
            .flatten()
        {
            Some(t2) => {
                out.push(line(Kind::Numbers, s, &t2));
                changed += 1;
            }
            None => out.push(line(Kind::Parallel, s, t)),
        }
    }
    // Menu lines and lines without words; copies of parallel lines come last, after their
    // originals (a crawl that meets a page again).
    let menus = [
        (
            "Startseite | Kontakt | Impressum",
            "Home | Contact | Imprint",
        ),
        ("Alle Rechte vorbehalten.", "All rights reserved."),
        ("Zum Warenkorb hinzufügen", "Add to cart"),
    ];
    for k in 0..per_kind.max(12) {
        let (s, t) = menus[k % menus.len()];
        out.push(line(Kind::Boilerplate, s, t));
    }
    for _ in 0..per_kind {
        let code = format!(
            "{}-{:04} / {}",
            rng.below(900) + 100,
            rng.below(10_000),
            rng.below(100)
        );
        out.push(line(Kind::NonText, &code, &code));
    }
    rng.shuffle(&mut out);
    let originals: Vec<usize> = (0..out.len())
        .filter(|&i| out[i].kind == Kind::Parallel)
        .collect();
    let mut copies: Vec<(usize, CrawlLine)> = (0..per_kind)
        .map(|_| {
            let i = originals[rng.below(originals.len())];
            let at = i + 1 + rng.below(out.len() - i);
            let o = &out[i];
            (
                at,
                line(Kind::Duplicate, &restyled(&o.src), &restyled(&o.tgt)),
            )
        })
        .collect();
    // From the last position back, so that each insertion leaves the earlier ones in place.
    copies.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (at, copy) in copies {
        out.insert(at, copy);
    }
    Ok(out)
}

fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
}

/// The first third of `t`'s words (at least one), with its final punctuation.
fn truncated(t: &str) -> String {
    let words: Vec<&str> = t.split_whitespace().collect();
    let keep = (words.len() / 3).max(1);
    words[..keep].join(" ")
}

/// `t` with the first digit of its first number changed, or `None` without a number.
fn change_number(t: &str, rng: &mut Rng) -> Option<String> {
    let at = t.find(|c: char| c.is_ascii_digit())?;
    let d = t.as_bytes()[at] - b'0';
    let new = (d + 1 + rng.below(9) as u8) % 10;
    let mut out = t.to_string();
    out.replace_range(at..=at, &new.to_string());
    Some(out)
}

/// `s` in upper case first letters, punctuation dropped, spaces doubled: the same text once
/// case, punctuation and spacing are ignored.
fn restyled(s: &str) -> String {
    s.split_whitespace()
        .map(|w| {
            let w: String = w.chars().filter(|c| c.is_alphanumeric()).collect();
            let mut c = w.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(n: usize) -> Vec<(String, String)> {
        (0..n)
            .map(|i| {
                (
                    format!("Der Zug fährt um {} Uhr ab, sagt Anna.", i % 24),
                    format!("The train leaves at {} o'clock, says Anna.", i % 24),
                )
            })
            .collect()
    }

    #[test]
    fn every_kind_is_made_and_the_seed_gives_the_same_file() {
        let other = vec!["Le train part à midi.".to_string()];
        let config = CrawlConfig { per_kind: 0.05 };
        let a = noisy_crawl(&pairs(200), &other, &config, &mut Rng::seed(7)).unwrap();
        let b = noisy_crawl(&pairs(200), &other, &config, &mut Rng::seed(7)).unwrap();
        assert_eq!(a, b);
        for kind in Kind::ALL {
            let n = a.iter().filter(|l| l.kind == kind).count();
            let want = match kind {
                Kind::Parallel => 200 - 8 * 10,
                Kind::Boilerplate => 12,
                _ => 10,
            };
            assert_eq!(n, want, "{kind:?}");
            assert_eq!(Kind::from_name(kind.name()), Some(kind));
        }
        for l in &a {
            match l.kind {
                Kind::Untranslated | Kind::NonText => assert_eq!(l.src, l.tgt),
                Kind::Swapped => assert!(l.src.starts_with("The train")),
                Kind::WrongLanguage => assert_eq!(l.tgt, other[0]),
                Kind::Markup => assert!(l.src.starts_with("<p><b>") && l.tgt.ends_with("&nbsp;")),
                Kind::Link => assert!(l.tgt.contains(" https://example.com/")),
                Kind::Numbers => {
                    let digits =
                        |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
                    assert_ne!(digits(&l.src), digits(&l.tgt));
                }
                Kind::Duplicate => assert!(!l.src.contains(',') && l.src.contains("  ")),
                _ => {}
            }
        }
        assert_ne!(
            a,
            noisy_crawl(&pairs(200), &other, &config, &mut Rng::seed(8)).unwrap()
        );
    }

    #[test]
    fn pairs_without_numbers_stay_parallel_and_bad_settings_are_refused() {
        let plain: Vec<(String, String)> = (0..50)
            .map(|i| {
                (
                    format!("Satz {}", "a".repeat(i + 1)),
                    format!("Sentence {i}"),
                )
            })
            .collect();
        let other = vec!["Phrase.".to_string()];
        let lines =
            noisy_crawl(&plain, &other, &CrawlConfig::default(), &mut Rng::seed(1)).unwrap();
        assert_eq!(lines.iter().filter(|l| l.kind == Kind::Numbers).count(), 0);
        let bad = |p: f64| {
            noisy_crawl(
                &plain,
                &other,
                &CrawlConfig { per_kind: p },
                &mut Rng::seed(1),
            )
        };
        assert!(bad(0.0).is_err() && bad(0.5).is_err() && bad(f64::NAN).is_err());
        assert!(
            noisy_crawl(
                &plain[..10],
                &other,
                &CrawlConfig::default(),
                &mut Rng::seed(1)
            )
            .is_err()
        );
        assert!(noisy_crawl(&plain, &[], &CrawlConfig::default(), &mut Rng::seed(1)).is_err());
    }

    #[test]
    fn helpers_truncate_change_numbers_and_restyle() {
        assert_eq!(truncated("one two three four five six"), "one two");
        assert_eq!(truncated("one"), "one");
        let changed = change_number("at 7 o'clock", &mut Rng::seed(3)).unwrap();
        assert!(
            changed.starts_with("at ") && !changed.contains('7'),
            "{changed}"
        );
        assert_eq!(change_number("no digits", &mut Rng::seed(3)), None);
        assert_eq!(restyled("the train, at 7!"), "The  Train  At  7");
    }
}
