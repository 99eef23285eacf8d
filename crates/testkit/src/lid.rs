//! The [`LanguageIdentifier`] conformance suite: [`lid_suite!`](crate::lid_suite) expands to
//! one `#[test]` per check below for one identifier, made by an expression.
//!
//! Checked: languages are distinct non-empty codes; every text (samples, hostile text, blank
//! lines, a 30 000-character line) gets `min(k, languages)` guesses for every `k`, most
//! likely first, probabilities in `[0, 1]`, languages named once and among `languages()`;
//! determinism and use from many threads; batches (parallel or not) equal one-by-one
//! prediction; `probability` and `identify` agree with `predict`, and a language not named has
//! probability 0; whitespace-only lines get the empty line's answer; references, boxes and
//! `Arc`s forward every method; the sentences of [`Expect`] are identified as their languages.

use std::sync::Arc;

use bitext_lid::{Guess, LanguageIdentifier};
use bitext_tokenize::set_parallelism;

use crate::data::{HOSTILE_TEXTS, SAMPLE_TEXTS};

/// What the suite expects of an identifier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expect {
    /// Sentences and the language code each must be identified as (`(lang, sentence)`).
    pub sentences: &'static [(&'static str, &'static str)],
}

impl Expect {
    /// Expect `sentences`, each `(lang, sentence)`, to be identified as their language.
    #[must_use]
    pub const fn identifies(sentences: &'static [(&'static str, &'static str)]) -> Self {
        Self { sentences }
    }
}

/// Lines of nothing but ASCII whitespace (each must be answered as the empty line is).
const BLANK: &[&str] = &["", " ", "\t", "\n", "\r\n", "  \t  ", "\x0b\x0c"];

/// Every text the checks predict: samples, hostile texts, blank lines, the expected
/// sentences and one long line.
fn texts(e: &Expect) -> Vec<String> {
    let mut all: Vec<String> = SAMPLE_TEXTS
        .iter()
        .chain(HOSTILE_TEXTS)
        .chain(BLANK)
        .chain(e.sentences.iter().map(|(_, s)| s))
        .map(|s| (*s).to_owned())
        .collect();
    all.push(SAMPLE_TEXTS[..5].join(" ").repeat(200));
    all
}

fn short(text: &str) -> String {
    text.chars().take(40).collect()
}

/// Check one prediction's promises (`what` names it in failures).
fn assert_well_formed<L: LanguageIdentifier + ?Sized>(
    lid: &L,
    guesses: &[Guess],
    k: usize,
    what: &str,
) {
    let langs = lid.languages();
    assert_eq!(guesses.len(), k.min(langs.len()), "{what}: k = {k}");
    for g in guesses {
        assert!((0.0..=1.0).contains(&g.probability), "{what}: {g:?}");
        assert!(
            langs.contains(&g.lang),
            "{what}: {g:?} is not among languages()"
        );
    }
    assert!(
        guesses
            .windows(2)
            .all(|w| w[0].probability >= w[1].probability),
        "{what}: not most likely first: {guesses:?}"
    );
    let mut seen: Vec<&str> = guesses.iter().map(|g| g.lang.as_str()).collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(
        seen.len(),
        guesses.len(),
        "{what}: a language twice: {guesses:?}"
    );
}

/// `languages()` is non-empty, with distinct non-empty codes.
pub fn languages_are_distinct_codes<L: LanguageIdentifier>(make: impl Fn() -> L, _e: Expect) {
    let lid = make();
    let langs = lid.languages();
    assert!(!langs.is_empty());
    assert!(langs.iter().all(|l| !l.is_empty()), "{langs:?}");
    let mut sorted = langs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), langs.len(), "duplicate codes in {langs:?}");
}

/// Every text gets `min(k, languages)` well-formed guesses for `k` of 0, 1, 2, 5, all, more
/// than all and `usize::MAX`, and `identify` is never empty.
pub fn guesses_are_well_formed<L: LanguageIdentifier>(make: impl Fn() -> L, e: Expect) {
    let lid = make();
    let n = lid.languages().len();
    for text in texts(&e) {
        for k in [0, 1, 2, 5, n, n + 3, usize::MAX] {
            let guesses = lid.predict(&text, k);
            assert_well_formed(&lid, &guesses, k, &short(&text));
        }
        let top = lid.identify(&text);
        assert!(
            lid.languages().contains(&top.lang),
            "{:?}: {top:?}",
            short(&text)
        );
    }
}

/// Predicting twice, and from several threads at once, gives identical guesses.
pub fn deterministic_across_threads<L: LanguageIdentifier>(make: impl Fn() -> L, e: Expect) {
    let lid = make();
    let all = texts(&e);
    let want: Vec<Vec<Guess>> = all.iter().map(|t| lid.predict(t, 5)).collect();
    let again: Vec<Vec<Guess>> = all.iter().map(|t| lid.predict(t, 5)).collect();
    assert_eq!(again, want);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|_| scope.spawn(|| all.iter().map(|t| lid.predict(t, 5)).collect::<Vec<_>>()))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), want);
        }
    });
}

/// `predict_batch` equals one-by-one prediction, in order, with batch parallelism on and off;
/// an empty batch is empty.
pub fn batches_equal_single_predictions<L: LanguageIdentifier>(make: impl Fn() -> L, e: Expect) {
    let lid = make();
    let all = texts(&e);
    let texts: Vec<&str> = all.iter().map(String::as_str).cycle().take(300).collect();
    for k in [1, 3] {
        let single: Vec<Vec<Guess>> = texts.iter().map(|t| lid.predict(t, k)).collect();
        for par in [true, false] {
            set_parallelism(par);
            assert_eq!(lid.predict_batch(&texts, k), single, "parallel: {par}");
        }
        set_parallelism(true);
    }
    assert!(lid.predict_batch(&[], 1).is_empty());
}

/// `probability` of each language is the probability `predict` gives it, `identify` is
/// `predict`'s first guess, and a language the identifier does not name has probability 0.
pub fn probability_agrees_with_predict<L: LanguageIdentifier>(make: impl Fn() -> L, e: Expect) {
    let lid = make();
    for text in texts(&e) {
        let all = lid.predict(&text, usize::MAX);
        for g in &all {
            let p = lid.probability(&text, &g.lang);
            assert_eq!(p, g.probability, "{:?}: {}", short(&text), g.lang);
        }
        assert_eq!(Some(lid.identify(&text)), all.first().cloned());
        for absent in ["", "no-such-language", "__label__en"] {
            if !lid.languages().iter().any(|l| l == absent) {
                assert_eq!(lid.probability(&text, absent), 0.0, "{absent:?}");
            }
        }
    }
}

/// Empty and whitespace-only lines do not panic and get the empty line's guesses.
pub fn blank_lines_are_the_empty_line<L: LanguageIdentifier>(make: impl Fn() -> L, _e: Expect) {
    let lid = make();
    let empty = lid.predict("", usize::MAX);
    assert_well_formed(&lid, &empty, usize::MAX, "empty line");
    for blank in BLANK {
        assert_eq!(lid.predict(blank, usize::MAX), empty, "{blank:?}");
        assert_eq!(lid.identify(blank), lid.identify(""), "{blank:?}");
    }
}

/// References, boxes and `Arc`s of the identifier answer as it does.
pub fn forwards_through_pointers<L: LanguageIdentifier + 'static>(make: impl Fn() -> L, e: Expect) {
    fn generic<L: LanguageIdentifier>(lid: L, texts: &[&str]) -> Vec<Vec<Guess>> {
        lid.predict_batch(texts, 2)
    }
    let lid = make();
    let all = texts(&e);
    let texts: Vec<&str> = all.iter().map(String::as_str).collect();
    let want = lid.predict_batch(&texts, 2);
    let by_ref: &dyn LanguageIdentifier = &lid;
    assert_eq!(generic(by_ref, &texts), want);
    let boxed: Box<dyn LanguageIdentifier> = Box::new(make());
    assert_eq!(generic(&boxed, &texts), want);
    assert_eq!(generic(boxed, &texts), want);
    let arc: Arc<dyn LanguageIdentifier> = Arc::new(make());
    assert_eq!(arc.languages(), lid.languages());
    let text = texts[0];
    assert_eq!(arc.predict(text, 3), lid.predict(text, 3));
    assert_eq!(arc.identify(text), lid.identify(text));
    let lang = &lid.languages()[0];
    assert_eq!(arc.probability(text, lang), lid.probability(text, lang));
}

/// Each sentence of [`Expect::sentences`] is identified as its language, which
/// `languages()` names.
pub fn names_expected_languages<L: LanguageIdentifier>(make: impl Fn() -> L, e: Expect) {
    let lid = make();
    for &(lang, sentence) in e.sentences {
        assert!(
            lid.languages().iter().any(|l| l == lang),
            "{lang} is not named"
        );
        let top = lid.identify(sentence);
        assert_eq!(
            top.lang,
            lang,
            "{sentence:?}: {:?}",
            lid.predict(sentence, 3)
        );
    }
}

/// The [`LanguageIdentifier`] conformance suite for one identifier: a module `$name` with one
/// `#[test]` per check of [`bitext_testkit::lid`](crate::lid).
///
/// `$make` is an expression that makes the identifier (evaluated once or more per test) and
/// `$expect` an [`Expect`]; items of the calling module are in scope.
///
/// ```ignore
/// bitext_testkit::lid_suite!(tiny_bin, tiny_model(), Expect::identifies(&[("de", "hallo")]));
/// ```
#[macro_export]
macro_rules! lid_suite {
    ($name:ident, $make:expr, $expect:expr $(,)?) => {
        $crate::__suite! { $name, lid, (|| $make, $expect), [
            languages_are_distinct_codes, guesses_are_well_formed,
            deterministic_across_threads, batches_equal_single_predictions,
            probability_agrees_with_predict, blank_lines_are_the_empty_line,
            forwards_through_pointers, names_expected_languages
        ] }
    };
}
