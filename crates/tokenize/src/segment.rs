//! [`Segmenter`]: how models that read tokens as strings (the lexical models of bitext-lexical,
//! the bag-of-words encoder of bitext-encode) cut sentences: the word tokenizer (lowercased by
//! default, as Zhang et al.'s and bicleaner's lexical models and `.vec` vocabularies), or the
//! pieces of any [`TokenizerSpec`] (a sentencepiece model), optionally after unescaping HTML
//! entities as the word tokenizer does.

use std::fmt;
use std::sync::Arc;

use crate::spec::TokenizerSpec;
use crate::tokenizer::Tokenizer;
use crate::word::entities::unescape_html;
use crate::word::{WordConfig, WordTokenizer};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Which tokens a model reads (serde, tagged by `"type"`; saved with the model).
///
/// ```
/// use bitext_tokenize::Segmenter;
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
        /// Unescape HTML entities (`&amp;`, `&#39;`, …) before tokenizing, as the word
        /// tokenizer does (default: off, the text goes to the tokenizer as it is).
        #[serde(default, skip_serializing_if = "is_false")]
        unescape_html: bool,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
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
    /// The pieces of the sentencepiece model `spm` (default framing, no HTML unescaping), or,
    /// without one, the word tokenizer with `word`'s options: how the commands that take an
    /// optional `--spm` (IBM-1, the aligner's IBM-1 links) and the Python `Ibm1` cut text.
    #[must_use]
    pub fn sentencepiece_or_words(spm: Option<std::path::PathBuf>, word: WordConfig) -> Self {
        match spm {
            Some(model) => Segmenter::Pieces {
                tokenizer: TokenizerSpec::Sentencepiece {
                    model,
                    sequence: crate::SequenceConfig::default(),
                },
                unescape_html: false,
            },
            None => Segmenter::Words { word },
        }
    }

    /// The segmenter ready to use.
    ///
    /// # Errors
    /// A tokenizer model that cannot be read or built.
    pub fn build(&self) -> Result<Segment> {
        Ok(match self {
            Segmenter::Words { word } => Segment::Words(WordTokenizer::new(*word)),
            Segmenter::Pieces {
                tokenizer,
                unescape_html,
            } => Segment::Pieces {
                tokenizer: Arc::from(tokenizer.build()?),
                unescape_html: *unescape_html,
            },
        })
    }
}

/// A built [`Segmenter`] (cheap to clone: a tokenizer is shared).
#[derive(Clone)]
pub enum Segment {
    /// Words.
    Words(WordTokenizer),
    /// Pieces of a tokenizer.
    Pieces {
        /// The tokenizer.
        tokenizer: Arc<dyn Tokenizer>,
        /// Unescape HTML entities first.
        unescape_html: bool,
    },
}

impl fmt::Debug for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Words(w) => f.debug_tuple("Words").field(w).finish(),
            Segment::Pieces { unescape_html, .. } => f
                .debug_struct("Pieces")
                .field("unescape_html", unescape_html)
                .finish_non_exhaustive(),
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
            Segment::Pieces {
                tokenizer,
                unescape_html: true,
            } => tokenizer.encode(&unescape_html(text))?.pieces,
            Segment::Pieces { tokenizer, .. } => tokenizer.encode(text)?.pieces,
        })
    }

    /// Call `f` on each token of one sentence in order, without collecting them (words are
    /// passed as the word tokenizer yields them, pieces after encoding the sentence).
    ///
    /// # Errors
    /// The tokenizer's errors.
    pub fn for_each_token(&self, text: &str, mut f: impl FnMut(&str)) -> Result<()> {
        match self {
            Segment::Words(w) => w.for_each_token(text, f),
            Segment::Pieces { .. } => self.tokens(text)?.iter().for_each(|t| f(t)),
        }
        Ok(())
    }

    /// The tokens of many sentences, in parallel.
    ///
    /// # Errors
    /// The first tokenizer error.
    pub fn tokens_batch<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<Vec<Vec<String>>> {
        texts.par_iter().map(|t| self.tokens(t.as_ref())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SequenceConfig, Vocab, VocabBuilder, WordLevel};

    #[test]
    fn sentencepiece_or_words_names_the_model_or_keeps_the_word_options() {
        let word = WordConfig {
            lowercase: false,
            ..WordConfig::default()
        };
        assert_eq!(
            Segmenter::sentencepiece_or_words(None, word),
            Segmenter::Words { word }
        );
        let model = std::path::PathBuf::from("m.model");
        assert_eq!(
            Segmenter::sentencepiece_or_words(Some(model.clone()), word),
            Segmenter::Pieces {
                tokenizer: TokenizerSpec::Sentencepiece {
                    model,
                    sequence: SequenceConfig::default(),
                },
                unescape_html: false,
            }
        );
    }

    /// A word-level tokenizer over the words of `a & b`.
    fn word_level() -> WordLevel {
        let words = WordTokenizer::new(WordConfig::default());
        let mut counts = crate::TokenCounter::default();
        counts.add_texts(&words, &["a & b"]);
        let vocab: Vocab = VocabBuilder::new().build(&counts).unwrap();
        WordLevel::new(words, vocab, SequenceConfig::default()).unwrap()
    }

    #[test]
    fn html_unescaped_tokenizes_the_decoded_text() {
        let level = word_level();
        let wrapped = HtmlUnescaped(level.clone());
        // The word tokenizer decodes one layer itself; the wrapper decodes one more.
        let text = "a &amp;amp; b";
        assert_eq!(
            wrapped.encode(text).unwrap(),
            level.encode("a &amp; b").unwrap()
        );
        assert_ne!(wrapped.encode(text).unwrap(), level.encode(text).unwrap());
        assert_eq!(
            wrapped.encode_ids("b &amp; a").unwrap(),
            level.encode_ids("b & a").unwrap()
        );
        assert_eq!(
            (
                wrapped.vocab_size(),
                wrapped.token_to_id("&"),
                wrapped.special_ids()
            ),
            (
                level.vocab_size(),
                level.token_to_id("&"),
                level.special_ids()
            )
        );
        let ids = level.encode_ids("a & b").unwrap();
        assert_eq!(wrapped.decode(&ids).unwrap(), level.decode(&ids).unwrap());
    }

    #[test]
    fn pieces_unescape_only_when_asked_and_words_stream_the_same_tokens() {
        let level: Arc<dyn Tokenizer> = Arc::new(word_level());
        let raw = Segment::Pieces {
            tokenizer: Arc::clone(&level),
            unescape_html: false,
        };
        let unescaped = Segment::Pieces {
            tokenizer: level,
            unescape_html: true,
        };
        // The word tokenizer unescapes itself; pass the text through a second `&amp;` layer
        // to see the segment's own unescaping.
        let text = "a &amp;amp; b";
        assert_eq!(unescaped.tokens(text).unwrap(), vec!["a", "&", "b"]);
        assert_ne!(raw.tokens(text).unwrap(), unescaped.tokens(text).unwrap());
        let seg = Segmenter::default().build().unwrap();
        let mut streamed = Vec::new();
        seg.for_each_token("Das Haus, 2024.", |t| streamed.push(t.to_owned()))
            .unwrap();
        assert_eq!(streamed, seg.tokens("Das Haus, 2024.").unwrap());
        let mut streamed = Vec::new();
        unescaped
            .for_each_token("b &amp; a", |t| streamed.push(t.to_owned()))
            .unwrap();
        assert_eq!(streamed, vec!["b", "&", "a"]);
        let spec = Segmenter::Pieces {
            tokenizer: TokenizerSpec::Word {
                vocab: "v.txt".into(),
                word: WordConfig::default(),
                sequence: SequenceConfig::default(),
            },
            unescape_html: true,
        };
        let json = serde_json::to_string(&spec).unwrap();
        assert!(json.contains("\"unescape_html\":true"), "{json}");
        assert_eq!(serde_json::from_str::<Segmenter>(&json).unwrap(), spec);
        let old = r#"{"type":"pieces","tokenizer":{"type":"word","vocab":"v.txt"}}"#;
        assert!(matches!(
            serde_json::from_str::<Segmenter>(old).unwrap(),
            Segmenter::Pieces {
                unescape_html: false,
                ..
            }
        ));
    }
}

/// A tokenizer that decodes the HTML entities of Moses-tokenized text (`&quot;`, `&apos;`,
/// `&amp;`, …) before `inner` sees it, as [`Segmenter::Pieces`] does with `unescape_html`:
/// for models that cut such text into sentencepiece pieces, so that they see the characters
/// the pieces were made of. Pieces and offsets are those of the unescaped text.
#[derive(Debug, Clone)]
pub struct HtmlUnescaped<T>(pub T);

impl<T: Tokenizer> Tokenizer for HtmlUnescaped<T> {
    fn encode(&self, text: &str) -> crate::Result<crate::Encoding> {
        self.0.encode(&unescape_html(text))
    }

    fn decode(&self, ids: &[u32]) -> crate::Result<String> {
        self.0.decode(ids)
    }

    fn vocab_size(&self) -> usize {
        self.0.vocab_size()
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.0.token_to_id(token)
    }

    fn special_ids(&self) -> crate::SpecialIds {
        self.0.special_ids()
    }

    fn lang_id(&self, lang: &str) -> Option<u32> {
        self.0.lang_id(lang)
    }
}
