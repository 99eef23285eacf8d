//! Inverse document frequencies of words, counted over a reference corpus in which every
//! sentence is a document: the one IDF of the project (the bag-of-words encoder here and the
//! sentence distance of `bitext-transport` both weigh words with it).
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

use bitext_tokenize::{Segment, WordTokenizer};

use crate::error::{Error, Result};

/// Document frequencies over a reference corpus.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Idf {
    docs: usize,
    df: HashMap<String, usize>,
}

impl Idf {
    /// Count document frequencies over sentences already split into words (normalise them as
    /// the sentences to be weighted are). An empty corpus gives every word weight 1.
    ///
    /// ```
    /// use bitext_encode::Idf;
    /// let idf = Idf::from_documents([vec!["a", "b", "a"], vec!["a"]]);
    /// assert_eq!((idf.docs(), idf.df("a"), idf.df("b")), (2, 2, 1));
    /// assert_eq!(idf.weight("a"), 1.0);
    /// ```
    pub fn from_documents<I, S, T>(documents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        let mut idf = Self::default();
        let mut seen: Vec<String> = Vec::new();
        for doc in documents {
            idf.docs += 1;
            seen.clear();
            seen.extend(doc.into_iter().map(|w| w.as_ref().to_owned()));
            seen.sort_unstable();
            seen.dedup();
            for w in seen.drain(..) {
                *idf.df.entry(w).or_default() += 1;
            }
        }
        idf
    }

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
        Ok(Self::from_documents(sentences.iter().map(|s| {
            let mut tokens: Vec<String> = Vec::new();
            tokenizer.for_each_token(s.as_ref(), |t| tokens.push(t.to_owned()));
            tokens
        })))
    }

    /// Count document frequencies of the tokens (words or subword pieces) that `segment` cuts
    /// `sentences` into (one document each).
    ///
    /// # Errors
    /// [`Error::Invalid`] when the corpus is empty; the tokenizer's errors.
    pub fn from_segmented<S: AsRef<str>>(segment: &Segment, sentences: &[S]) -> Result<Self> {
        if sentences.is_empty() {
            return Err(Error::Invalid(
                "the IDF reference corpus has no sentences".into(),
            ));
        }
        let docs = sentences
            .iter()
            .map(|s| segment.tokens(s.as_ref()))
            .collect::<bitext_tokenize::Result<Vec<_>>>()?;
        Ok(Self::from_documents(docs))
    }

    /// Number of reference sentences `N`.
    #[must_use]
    pub fn docs(&self) -> usize {
        self.docs
    }

    /// Sentences of the reference that contain `word`.
    #[must_use]
    pub fn df(&self, word: &str) -> usize {
        self.df.get(word).copied().unwrap_or(0)
    }

    /// The weight of `word`: `ln((1 + N) / (1 + df(word))) + 1`, always at least 1 (computed
    /// in `f64`; the encoder rounds it to `f32`).
    #[must_use]
    pub fn weight(&self, word: &str) -> f64 {
        Self::smoothed(self.docs, self.df(word))
    }

    /// The formula behind [`Idf::weight`], `ln((1 + docs) / (1 + df)) + 1`, for callers that
    /// count document frequencies of something other than strings (token ids).
    ///
    /// ```
    /// use bitext_encode::Idf;
    /// assert_eq!(Idf::smoothed(3, 3), 1.0);
    /// assert!((Idf::smoothed(3, 0) - (4f64.ln() + 1.0)).abs() < 1e-12);
    /// ```
    #[must_use]
    pub fn smoothed(docs: usize, df: usize) -> f64 {
        ((1 + docs) as f64 / (1 + df) as f64).ln() + 1.0
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
            (idf.docs(), idf.df("a"), idf.df("b"), idf.df("z")),
            (3, 2, 1, 0)
        );
        // ln(4/3) + 1, ln(4/2) + 1, ln(4/1) + 1.
        assert!((idf.weight("a") - ((4.0f64 / 3.0).ln() + 1.0)).abs() < 1e-12);
        assert!((idf.weight("b") - (2.0f64.ln() + 1.0)).abs() < 1e-12);
        assert!((idf.weight("z") - (4.0f64.ln() + 1.0)).abs() < 1e-12);
        let empty: [&str; 0] = [];
        assert!(Idf::from_sentences(&tok, &empty).is_err());
        // Counting tokenized sentences is counting their words.
        let words = Idf::from_documents([vec!["a", "b", "a"], vec!["a", "c"], vec!["d"]]);
        assert_eq!(words, idf);
    }
}
