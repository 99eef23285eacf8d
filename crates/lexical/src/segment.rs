//! [`Segmenter`]: how the lexical models cut sentences into tokens (strings): the word
//! tokenizer (lowercased by default, as Zhang et al.'s and bicleaner's lexical models), or the
//! pieces of any [`TokenizerSpec`] (a sentencepiece model).

use std::fmt;

use bitext_tokenize::{Tokenizer, TokenizerSpec, WordConfig, WordTokenizer};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Which tokens a lexical model reads (serde, tagged by `"type"`; saved with the model).
///
/// ```
/// use bitext_lexical::Segmenter;
/// let s = Segmenter::default().build().unwrap();
/// assert_eq!(s.tokens("Das Haus.").unwrap(), vec!["das", "haus", "."]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Segmenter {
    /// [`WordTokenizer`] with these options.
    Words {
        /// The word tokenizer's options (default: lowercased, HTML unescaped).
        #[serde(default = "lowercase_words")]
        word: WordConfig,
    },
    /// The pieces of a tokenizer (e.g. a sentencepiece model; needs `bitext-tokenize`'s
    /// `sentencepiece` feature, which the CLI has).
    Pieces {
        /// The tokenizer.
        tokenizer: TokenizerSpec,
    },
}

fn lowercase_words() -> WordConfig {
    WordConfig {
        lowercase: true,
        ..WordConfig::default()
    }
}

impl Default for Segmenter {
    /// Lowercased words.
    fn default() -> Self {
        Segmenter::Words {
            word: lowercase_words(),
        }
    }
}

impl Segmenter {
    /// The segmenter ready to use.
    ///
    /// # Errors
    /// A tokenizer model that cannot be read or built.
    pub fn build(&self) -> Result<Segment> {
        Ok(match self {
            Segmenter::Words { word } => Segment::Words(WordTokenizer::new(*word)),
            Segmenter::Pieces { tokenizer } => Segment::Pieces(tokenizer.build()?),
        })
    }
}

/// A built [`Segmenter`].
pub enum Segment {
    /// Words.
    Words(WordTokenizer),
    /// Pieces of a tokenizer.
    Pieces(Box<dyn Tokenizer>),
}

impl fmt::Debug for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Words(w) => f.debug_tuple("Words").field(w).finish(),
            Segment::Pieces(_) => f.write_str("Pieces(..)"),
        }
    }
}

impl Segment {
    /// The tokens of one sentence.
    ///
    /// # Errors
    /// The tokenizer's errors.
    pub fn tokens(&self, text: &str) -> Result<Vec<String>> {
        Ok(match self {
            Segment::Words(w) => w.tokenize(text),
            Segment::Pieces(t) => t.encode(text)?.pieces,
        })
    }

    /// The tokens of many sentences, in parallel.
    ///
    /// # Errors
    /// The first tokenizer error.
    pub fn tokens_batch<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<Vec<Vec<String>>> {
        texts.par_iter().map(|t| self.tokens(t.as_ref())).collect()
    }
}
