//! Inverse document frequencies of words, counted over a reference corpus in which every
//! sentence is a document.
//!
//! ```text
//! idf(w) = ln((1 + N) / (1 + df(w))) + 1
//! ```
//!
//! with `N` the number of reference sentences and `df(w)` the number of them that contain `w`
//! at least once. This is scikit-learn's smoothed IDF (`smooth_idf=True`): the `+1` inside the
//! logarithm acts as one extra document containing every word, so a word missing from the
//! reference (`df = 0`) gets the largest weight `ln(1 + N) + 1` instead of a division by zero,
//! and the outer `+1` keeps a word present in every sentence at weight 1 rather than 0.

use std::collections::HashMap;

use bitext_tokenize::WordTokenizer;

use crate::error::{Error, Result};

/// Document frequencies over a reference corpus.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Idf {
    docs: usize,
    df: HashMap<String, u32>,
}

impl Idf {
    /// Count document frequencies of the tokens of `sentences` (one document each).
    ///
    /// # Errors
    /// [`Error::Invalid`] when the corpus is empty.
    pub fn from_sentences<S: AsRef<str>>(
        tokenizer: &WordTokenizer,
        sentences: &[S],
    ) -> Result<Self> {
        if sentences.is_empty() {
            return Err(Error::Invalid(
                "the IDF reference corpus has no sentences".into(),
            ));
        }
        let mut df: HashMap<String, u32> = HashMap::new();
        let mut seen: Vec<String> = Vec::new();
        for s in sentences {
            seen.clear();
            tokenizer.for_each_token(s.as_ref(), |t| seen.push(t.to_owned()));
            seen.sort_unstable();
            seen.dedup();
            for t in seen.drain(..) {
                *df.entry(t).or_insert(0) += 1;
            }
        }
        Ok(Self {
            docs: sentences.len(),
            df,
        })
    }

    /// Number of reference sentences `N`.
    #[must_use]
    pub fn documents(&self) -> usize {
        self.docs
    }

    /// Sentences of the reference that contain `word`.
    #[must_use]
    pub fn df(&self, word: &str) -> u32 {
        self.df.get(word).copied().unwrap_or(0)
    }

    /// `ln((1 + N) / (1 + df(word))) + 1`.
    #[must_use]
    pub fn idf(&self, word: &str) -> f32 {
        let n = self.docs as f64;
        (((1.0 + n) / (1.0 + f64::from(self.df(word)))).ln() + 1.0) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_idf() {
        let tok = WordTokenizer::default();
        let idf = Idf::from_sentences(&tok, &["a b a", "a c", "d"]).unwrap();
        assert_eq!(
            (idf.documents(), idf.df("a"), idf.df("b"), idf.df("z")),
            (3, 2, 1, 0)
        );
        // ln(4/3) + 1, ln(4/2) + 1, ln(4/1) + 1.
        assert!((idf.idf("a") - ((4.0f32 / 3.0).ln() + 1.0)).abs() < 1e-6);
        assert!((idf.idf("b") - (2.0f32.ln() + 1.0)).abs() < 1e-6);
        assert!((idf.idf("z") - (4.0f32.ln() + 1.0)).abs() < 1e-6);
        let empty: [&str; 0] = [];
        assert!(Idf::from_sentences(&tok, &empty).is_err());
    }
}
