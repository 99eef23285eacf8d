//! [`FeatureSpec`]: one group of a classifier's features, named in a config (serde, tagged by
//! `"type"`) or a flag (`--scorers`).
//!
//! ```text
//! length_ratio, levenshtein       {"type": "scorer", "scorer": {"type": "levenshtein"}}
//! numbers, punctuation            {"type": "numbers"}, {"type": "punctuation"}
//! rules                           {"type": "rules", "rules": {"max_length_ratio": 2.0}}
//! lid                             {"type": "lid", "model": "lid.176.ftz",
//!                                  "src_lang": "de", "tgt_lang": "en"}
//! ibm1, ibm1:DIR                  {"type": "ibm1", "model": "ibm1"}
//! model:DIR, {"type": "emd", …}   {"type": "scorer", "scorer": {…}} (any ScorerSpec of sentences)
//!                                 {"type": "encoder", "encoder": "onnx:use.onnx"} (its cosine)
//! ```
//!
//! `ibm1` without a directory is the table `bitext train classifier` trains on the clean pairs
//! themselves; `lid` without a model is the one `--lid-model` names, with `--src-lang` and
//! `--tgt-lang`. Relative paths in a saved classifier are relative to its directory.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use bitext_clean::{Rule, Rules};
use bitext_encode::EncoderSpec;
use bitext_lexical::LengthUnit;
use bitext_mine::ScorerSpec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One group of features of a sentence pair (one or more columns, see
/// [`FeatureSpec::columns`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum FeatureSpec {
    /// A scorer of sentences (`bitext score --scorer-spec`): Levenshtein, the length ratio,
    /// the EMD (with its IDF files), a trained neural model. Column: its score, and whether
    /// the pair had a side without text (then the score is missing).
    Scorer {
        /// The scorer.
        scorer: ScorerSpec,
    },
    /// The cosine of an encoder's two vectors. Columns: the cosine, and whether a side had no
    /// known word (then the cosine is missing).
    Encoder {
        /// The encoder.
        encoder: EncoderSpec,
    },
    /// IBM Model 1 (`bitext train ibm1`). Columns: each direction's length-normalised
    /// log-probability (target given source, source given target), and whether a side had no
    /// token.
    Ibm1 {
        /// The model directory.
        model: PathBuf,
    },
    /// Language identification. Columns: the probability of the source language on the source
    /// side and of the target language on the target side.
    Lid {
        /// The fastText model (`lid.176.ftz`).
        model: PathBuf,
        /// The source language (a label of the model: `de`).
        src_lang: String,
        /// The target language.
        tgt_lang: String,
    },
    /// The rule filters of `bitext clean`. Columns: one flag per rule that is on (1 when the
    /// pair fails it), boilerplate aside (it needs the corpus' counts).
    Rules {
        /// The rules' thresholds, languages and switches.
        #[serde(default)]
        rules: Rules,
    },
    /// Whether the two sides hold the same numbers: shared numbers over all numbers (Jaccard;
    /// 1 when neither side has one).
    Numbers,
    /// Whether the two sides hold the same punctuation: punctuation marks in common over the
    /// larger side's count (1 when neither side has one).
    Punctuation,
}

impl FeatureSpec {
    /// The default features, none of which needs a file other than the clean pairs: length
    /// ratio, Levenshtein, numbers and punctuation agreement, the rule flags, IBM Model 1 both
    /// ways (at `ibm1`, trained on the clean pairs), and language identification when `lid`
    /// names a model and both languages.
    #[must_use]
    pub fn defaults(lid: Option<(PathBuf, String, String)>, rules: Rules) -> Vec<FeatureSpec> {
        let mut out = vec![
            FeatureSpec::Scorer {
                scorer: ScorerSpec::LengthRatio {
                    unit: LengthUnit::Chars,
                },
            },
            FeatureSpec::Scorer {
                scorer: ScorerSpec::Levenshtein,
            },
            FeatureSpec::Numbers,
            FeatureSpec::Punctuation,
            FeatureSpec::Rules { rules },
            FeatureSpec::Ibm1 {
                model: PathBuf::from(TRAINED_IBM1),
            },
        ];
        if let Some((model, src_lang, tgt_lang)) = lid {
            out.push(FeatureSpec::Lid {
                model,
                src_lang,
                tgt_lang,
            });
        }
        out
    }

    /// The names of the feature's columns, `index` telling apart two features of one kind
    /// (`cosine`, `cosine_2`, …).
    #[must_use]
    pub fn columns(&self, index: usize) -> Vec<String> {
        let suffix = if index > 1 {
            format!("_{index}")
        } else {
            String::new()
        };
        let named = |names: &[&str]| names.iter().map(|n| format!("{n}{suffix}")).collect();
        match self {
            FeatureSpec::Scorer { scorer } => {
                let base = scorer.name();
                named(&[base, &format!("{base}_missing")])
            }
            FeatureSpec::Encoder { .. } => named(&["cosine", "cosine_missing"]),
            FeatureSpec::Ibm1 { .. } => named(&["ibm1_fwd", "ibm1_bwd", "ibm1_missing"]),
            FeatureSpec::Lid { .. } => named(&["lid_src", "lid_tgt"]),
            FeatureSpec::Rules { rules } => rule_columns(rules)
                .iter()
                .map(|r| format!("rule_{}{suffix}", r.name()))
                .collect(),
            FeatureSpec::Numbers => named(&["numbers"]),
            FeatureSpec::Punctuation => named(&["punctuation"]),
        }
    }

    /// The kind of feature, as `"type"` spells it.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            FeatureSpec::Scorer { .. } => "scorer",
            FeatureSpec::Encoder { .. } => "encoder",
            FeatureSpec::Ibm1 { .. } => "ibm1",
            FeatureSpec::Lid { .. } => "lid",
            FeatureSpec::Rules { .. } => "rules",
            FeatureSpec::Numbers => "numbers",
            FeatureSpec::Punctuation => "punctuation",
        }
    }

    /// The neural model the feature runs, if any (a `model:` scorer or encoder).
    #[must_use]
    pub fn neural_model(&self) -> Option<&bitext_encode::ModelSpec> {
        match self {
            FeatureSpec::Scorer { scorer } => scorer.as_model(),
            FeatureSpec::Encoder { encoder } => encoder.as_model(),
            _ => None,
        }
    }

    /// Whether this is IBM Model 1 to be trained on the clean pairs (`ibm1` without a
    /// directory).
    #[must_use]
    pub fn trains_ibm1(&self) -> bool {
        matches!(self, FeatureSpec::Ibm1 { model } if model.as_os_str() == TRAINED_IBM1)
    }

    /// The spec with its relative paths read from `base` (a classifier's directory).
    #[must_use]
    pub fn resolved(&self, base: &Path) -> FeatureSpec {
        let at = |p: &PathBuf| {
            if p.is_relative() {
                base.join(p)
            } else {
                p.clone()
            }
        };
        match self {
            FeatureSpec::Ibm1 { model } => FeatureSpec::Ibm1 { model: at(model) },
            FeatureSpec::Lid {
                model,
                src_lang,
                tgt_lang,
            } => FeatureSpec::Lid {
                model: at(model),
                src_lang: src_lang.clone(),
                tgt_lang: tgt_lang.clone(),
            },
            other => other.clone(),
        }
    }

    /// Check what can be checked without loading anything.
    ///
    /// # Errors
    /// [`Error::Invalid`]: a scorer of embeddings (name an encoder instead), an EMD whose IDF
    /// would need a reference corpus, empty languages, rules out of range.
    pub fn check(&self) -> Result<()> {
        match self {
            FeatureSpec::Scorer { scorer } => {
                scorer
                    .check()
                    .map_err(|e| Error::Invalid(format!("feature {self}: {e}")))?;
                if scorer.scores_embeddings() {
                    return Err(Error::Invalid(format!(
                        "feature {self}: a scorer of embeddings; give an encoder \
                         ({{\"type\": \"encoder\", \"encoder\": SPEC}}, or --encoder) and the \
                         classifier scores its cosine"
                    )));
                }
                if scorer.needs_reference() {
                    return Err(Error::Invalid(format!(
                        "feature {self}: the EMD's IDF needs src_idf and tgt_idf files in a \
                         classifier (or \"use_idf\": false), so that it scores alone"
                    )));
                }
                Ok(())
            }
            FeatureSpec::Encoder { encoder } => encoder
                .check()
                .map_err(|e| Error::Invalid(format!("feature {self}: {e}"))),
            FeatureSpec::Lid {
                src_lang, tgt_lang, ..
            } if src_lang.is_empty() || tgt_lang.is_empty() => Err(Error::Invalid(format!(
                "feature {self}: name both languages"
            ))),
            FeatureSpec::Rules { rules } => Ok(rules.check()?),
            _ => Ok(()),
        }
    }
}

/// Where `bitext train classifier` saves the IBM-1 table it trains, in the classifier's
/// directory (and the model path of the `ibm1` feature without a directory).
pub const TRAINED_IBM1: &str = "ibm1";

/// The rules whose flags are features: those that are on, boilerplate aside.
pub(crate) fn rule_columns(rules: &Rules) -> Vec<Rule> {
    Rule::ALL
        .into_iter()
        .filter(|&r| r != Rule::Boilerplate && rules.enabled(r))
        .collect()
}

impl FromStr for FeatureSpec {
    type Err = Error;

    /// `numbers`, `punctuation`, `rules`, `lid` (model and languages filled in by the caller:
    /// [`FeatureSpec::Lid`] with an empty model), `ibm1` (trained on the clean pairs),
    /// `ibm1:DIR`, any [`ScorerSpec`] of sentences (`levenshtein`, `length_ratio`,
    /// `model:DIR`, its JSON), `encoder:SPEC`, or a feature's JSON (`{"type": "lid", …}`).
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let spec = match t {
            "numbers" => FeatureSpec::Numbers,
            "punctuation" => FeatureSpec::Punctuation,
            "rules" => FeatureSpec::Rules {
                rules: Rules::default(),
            },
            "lid" => FeatureSpec::Lid {
                model: PathBuf::new(),
                src_lang: String::new(),
                tgt_lang: String::new(),
            },
            "ibm1" => FeatureSpec::Ibm1 {
                model: PathBuf::from(TRAINED_IBM1),
            },
            _ if t.starts_with('{') => match serde_json::from_str::<FeatureSpec>(t) {
                Ok(spec) => spec,
                Err(feature) => FeatureSpec::Scorer {
                    scorer: t.parse().map_err(|e| {
                        Error::Invalid(format!(
                            "feature {t}: neither a feature ({feature}) nor a scorer ({e})"
                        ))
                    })?,
                },
            },
            _ => match (t.strip_prefix("encoder:"), t.strip_prefix("ibm1:")) {
                (Some(e), _) => FeatureSpec::Encoder {
                    encoder: e
                        .parse()
                        .map_err(|e| Error::Invalid(format!("feature {t}: {e}")))?,
                },
                (_, Some(dir)) => FeatureSpec::Ibm1 { model: dir.into() },
                _ => FeatureSpec::Scorer {
                    scorer: t.parse().map_err(|e| {
                        Error::Invalid(format!(
                            "feature {t:?}: expected numbers, punctuation, rules, lid, ibm1, \
                             ibm1:DIR, encoder:SPEC, a scorer of sentences ({e}) or JSON"
                        ))
                    })?,
                },
            },
        };
        if !matches!(&spec, FeatureSpec::Lid { model, .. } if model.as_os_str().is_empty()) {
            spec.check()?;
        }
        Ok(spec)
    }
}

impl fmt::Display for FeatureSpec {
    /// The spec as JSON (what [`FromStr`] reads back).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_back() {
        for s in [
            "numbers",
            "punctuation",
            "rules",
            "ibm1",
            "ibm1:runs/t",
            "levenshtein",
            "length_ratio",
            "model:runs/siamese",
        ] {
            let spec: FeatureSpec = s.parse().unwrap();
            assert_eq!(
                spec.to_string().parse::<FeatureSpec>().unwrap(),
                spec,
                "{s}"
            );
        }
        assert!("ibm1".parse::<FeatureSpec>().unwrap().trains_ibm1());
        assert!(!"ibm1:x".parse::<FeatureSpec>().unwrap().trains_ibm1());
    }

    #[test]
    fn embedding_scorers_and_unknown_names_are_refused() {
        let e = "cosine".parse::<FeatureSpec>().unwrap_err().to_string();
        assert!(e.contains("encoder"), "{e}");
        let e = "nonsense".parse::<FeatureSpec>().unwrap_err().to_string();
        assert!(e.contains("expected numbers"), "{e}");
        let e = r#"{"type":"emd","src_vectors":"a","tgt_vectors":"b"}"#
            .parse::<FeatureSpec>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("src_idf"), "{e}");
    }

    #[test]
    fn columns_are_named_and_numbered() {
        let enc: FeatureSpec = "encoder:bow:x.vec".parse().unwrap();
        assert_eq!(enc.columns(1), ["cosine", "cosine_missing"]);
        assert_eq!(enc.columns(2), ["cosine_2", "cosine_missing_2"]);
        let rules = FeatureSpec::Rules {
            rules: Rules::default(),
        };
        let cols = rules.columns(1);
        assert!(cols.contains(&"rule_markup".to_string()));
        assert!(!cols.iter().any(|c| c.contains("boilerplate")));
        let lev: FeatureSpec = "levenshtein".parse().unwrap();
        assert_eq!(lev.columns(1), ["levenshtein", "levenshtein_missing"]);
    }

    #[test]
    fn relative_paths_resolve_against_the_directory() {
        let spec = FeatureSpec::Ibm1 {
            model: "ibm1".into(),
        };
        let FeatureSpec::Ibm1 { model } = spec.resolved(Path::new("/runs/c")) else {
            unreachable!()
        };
        assert_eq!(model, Path::new("/runs/c/ibm1"));
    }
}
