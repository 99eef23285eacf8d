//! [`TokenizerSpec`]: choose and configure a tokenizer from a config file or a CLI flag
//! (`{"type": "word", "vocab": "vocab.txt"}`, `{"type": "sentencepiece", "model": "m.model"}`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::sequence::SequenceConfig;
use crate::tokenizer::Tokenizer;
use crate::vocab::Vocab;
use crate::word::{WordConfig, WordTokenizer};
use crate::word_level::WordLevel;

/// Which tokenizer to build, tagged by `type`.
///
/// ```
/// use bitext_tokenize::{TokenizerSpec, WordConfig};
/// let spec: TokenizerSpec = serde_json::from_str(
///     r#"{"type": "word", "vocab": "vocab.txt", "word": {"lowercase": true},
///         "sequence": {"add_eos": true, "max_len": 80}}"#,
/// ).unwrap();
/// let TokenizerSpec::Word { word, sequence, .. } = &spec else { unreachable!() };
/// assert_eq!(*word, WordConfig { lowercase: true, ..WordConfig::default() });
/// assert_eq!(sequence.max_len, Some(80));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum TokenizerSpec {
    /// [`WordLevel`]: the word tokenizer with a vocabulary file (see [`crate::vocab::file`]).
    Word {
        /// The vocabulary file.
        vocab: PathBuf,
        /// Word tokenizer options (default: [`WordConfig::default`]).
        #[serde(default)]
        word: WordConfig,
        /// Framing and truncation (default: none).
        #[serde(default)]
        sequence: SequenceConfig,
    },
    /// `Sentencepiece` (module `spm`): a sentencepiece `.model` file. Needs the
    /// `sentencepiece` feature to build (the spec itself parses without it, so that a config
    /// file names a clear error rather than an unknown type).
    Sentencepiece {
        /// The `.model` file.
        model: PathBuf,
        /// Framing and truncation (default: none, as `spm_encode`).
        #[serde(default)]
        sequence: SequenceConfig,
    },
    /// `HfTokenizer`: a Hugging Face `tokenizer.json` (`{"type": "tokenizer_json", "file":
    /// "tokenizer.json"}`), with the special tokens and truncation the file defines. Needs the
    /// `tokenizer-json` feature to build.
    TokenizerJson {
        /// The `tokenizer.json` file.
        file: PathBuf,
    },
}

impl TokenizerSpec {
    /// Build the tokenizer.
    ///
    /// # Errors
    /// A vocabulary or model file that cannot be read (naming the file, and the line or byte
    /// offset); invalid parameters; [`crate::Error::MissingFeature`] for a sentencepiece or
    /// `tokenizer.json` spec in a build without the `sentencepiece` or `tokenizer-json`
    /// feature.
    pub fn build(&self) -> Result<Box<dyn Tokenizer>> {
        match self {
            TokenizerSpec::Word {
                vocab,
                word,
                sequence,
            } => Ok(Box::new(WordLevel::new(
                WordTokenizer::new(*word),
                Vocab::load(vocab)?,
                *sequence,
            )?)),
            #[cfg(feature = "sentencepiece")]
            TokenizerSpec::Sentencepiece { model, sequence } => Ok(Box::new(
                crate::spm::Sentencepiece::open(model)?.with_sequence(*sequence)?,
            )),
            #[cfg(not(feature = "sentencepiece"))]
            TokenizerSpec::Sentencepiece { model, .. } => Err(crate::Error::MissingFeature {
                what: format!("the sentencepiece model {}", model.display()),
                feature: "sentencepiece",
            }),
            #[cfg(feature = "tokenizer-json")]
            TokenizerSpec::TokenizerJson { file } => {
                Ok(Box::new(crate::hf::HfTokenizer::open(file)?))
            }
            #[cfg(not(feature = "tokenizer-json"))]
            TokenizerSpec::TokenizerJson { file } => Err(crate::Error::MissingFeature {
                what: format!("the tokenizer {}", file.display()),
                feature: "tokenizer-json",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_types_and_fields_are_rejected() {
        for bad in [
            r#"{"type": "wordpiece", "vocab": "v"}"#,
            r#"{"type": "word", "vocab": "v", "lowercase": true}"#,
            r#"{"type": "word", "vocab": "v", "word": {"lower": true}}"#,
            r#"{"type": "word"}"#,
        ] {
            assert!(serde_json::from_str::<TokenizerSpec>(bad).is_err(), "{bad}");
        }
        let spec = TokenizerSpec::Word {
            vocab: "v.txt".into(),
            word: WordConfig::default(),
            sequence: SequenceConfig::default(),
        };
        let json = serde_json::to_string(&spec).unwrap();
        assert!(json.starts_with(r#"{"type":"word","#), "{json}");
        assert_eq!(serde_json::from_str::<TokenizerSpec>(&json).unwrap(), spec);
    }

    #[test]
    fn sentencepiece_specs_parse_and_name_the_model() {
        let spec: TokenizerSpec = serde_json::from_str(
            r#"{"type": "sentencepiece", "model": "/nonexistent/m.model",
                "sequence": {"add_eos": true}}"#,
        )
        .unwrap();
        let TokenizerSpec::Sentencepiece { model, sequence } = &spec else {
            unreachable!()
        };
        assert_eq!(model, &PathBuf::from("/nonexistent/m.model"));
        assert!(sequence.add_eos);
        // Without the feature: a missing feature; with it: a missing file. Both name the model.
        let e = spec.build().err().unwrap().to_string();
        assert!(e.contains("/nonexistent/m.model"), "{e}");
        assert!(serde_json::from_str::<TokenizerSpec>(r#"{"type": "sentencepiece"}"#).is_err());
    }

    #[test]
    fn tokenizer_json_specs_parse_and_name_the_file() {
        let spec: TokenizerSpec =
            serde_json::from_str(r#"{"type": "tokenizer_json", "file": "/nonexistent/t.json"}"#)
                .unwrap();
        assert_eq!(
            spec,
            TokenizerSpec::TokenizerJson {
                file: "/nonexistent/t.json".into()
            }
        );
        let e = spec.build().err().unwrap().to_string();
        assert!(e.contains("/nonexistent/t.json"), "{e}");
        assert!(serde_json::from_str::<TokenizerSpec>(r#"{"type": "tokenizer_json"}"#).is_err());
    }

    #[test]
    fn build_reports_the_vocabulary_file() {
        let spec = TokenizerSpec::Word {
            vocab: "/nonexistent/vocab.txt".into(),
            word: WordConfig::default(),
            sequence: SequenceConfig::default(),
        };
        let e = spec.build().err().unwrap().to_string();
        assert!(e.contains("/nonexistent/vocab.txt"), "{e}");
    }
}
