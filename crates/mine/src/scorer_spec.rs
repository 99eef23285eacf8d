//! [`ScorerSpec`]: which scorer of sentence pairs to build, from a config file (serde, tagged by
//! `"type"`) or a CLI flag (`cosine`, `ratio`, `model:DIR`, or the JSON itself).
//!
//! ```text
//! {"type": "cosine"}                                   (also "dot", "neg_euclidean")
//! {"type": "margin", "margin": {"type": "ratio", "k_src": 4, "k_trg": 4},
//!  "index": {"type": "exact"}}
//! {"type": "emd", "src_vectors": "de.vec", "tgt_vectors": "en.vec",
//!  "distance": {"oov": "match_identical", "solver": {"type": "sinkhorn"}}}
//! {"type": "model", "dir": "runs/siamese", "backend": "flex"}
//! {"type": "ibm1", "model": "runs/ibm1"}                (also "ibm1:DIR")
//! {"type": "levenshtein"}
//! {"type": "length_ratio", "unit": "chars"}            (or "tokens")
//! ```
//!
//! Scorers come in two kinds, by what they score:
//! - over two embedding matrices: the measures ([`EmbeddingScorer`]) and the margins (a
//!   [`MarginScorer`] over the neighbourhoods [`MineSpec::neighbourhoods`] searches); built by
//!   [`ScorerSpec::with_embedding_scorer`];
//! - over two lists of sentences: the Earth Mover's Distance ([`EmdScorer`], minus the
//!   distance) and the lexical baselines of `bitext-lexical` (IBM Model 1, Levenshtein, length
//!   ratio), built per batch by the [`SentenceScorers`] of [`ScorerSpec::sentence_scorers`], and
//!   the neural models, which only `bitext-neural` loads (it cannot depend on this crate, so the
//!   caller hands a [`ModelSpec`] to it).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use bitext_core::EmbeddingsView;
use bitext_encode::ModelSpec;
use bitext_knn::{IndexSpec, Progress};
use bitext_lexical::LengthUnit;
use bitext_similarity::{
    EmbeddingScorer, MarginFunction, MarginScorer, MarginSpec, Measure, PairScorer,
};
use bitext_transport::sentence::SentenceConfig;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::miner::Miner;
use crate::recipe::{MineSpec, Neighbourhoods};

/// Neighbourhood size of a margin named by its short name (`ratio`, …), LASER's default.
const DEFAULT_K: usize = 4;

/// Which scorer of (source, target) pairs to use, with its parameters.
///
/// Parsed from a CLI string by [`FromStr`]: `cosine`, `dot`, `neg_euclidean`; a margin name
/// (`absolute`, `distance`, `ratio`, `csls`: `k = 4`, exact search); `model:DIR`; or JSON
/// (a string starting with `{`), which every variant accepts.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_mine::ScorerSpec;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let x = Embeddings::from_rows([[1.0, 0.0], [0.0, 1.0]], 2)?;
/// let y = Embeddings::from_rows([[0.6, 0.8], [0.0, 2.0]], 2)?;
/// let cosine: ScorerSpec = "cosine".parse()?;
/// let s = cosine.with_embedding_scorer(x.view(), y.view(), &mut |_, _, _| {}, |s| {
///     s.score(&[(0, 0), (1, 1)])
/// })??;
/// assert!((s[0] - 0.6).abs() < 1e-6 && (s[1] - 1.0).abs() < 1e-6);
/// let ratio: ScorerSpec =
///     r#"{"type":"margin","margin":{"type":"ratio","k_src":1,"k_trg":1}}"#.parse()?;
/// assert_eq!(ratio.to_string().parse::<ScorerSpec>()?, ratio);
/// assert!(ratio.sentence_scorers(None::<(&[&str], &[&str])>).is_err()); // it needs embeddings
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum ScorerSpec {
    /// Cosine of the two embeddings.
    Cosine,
    /// Inner product of the two embeddings.
    Dot,
    /// Negative Euclidean distance between the two embeddings.
    NegEuclidean,
    /// A margin over the k nearest neighbours within the corpus (Artetxe & Schwenk 2019).
    Margin {
        /// Which margin, over how many neighbours.
        margin: MarginSpec,
        /// The kNN search of the neighbourhoods (default: exact).
        #[serde(default)]
        index: IndexSpec,
    },
    /// Minus the Earth Mover's Distance between bags of bilingual word embeddings (Zhang et
    /// al. 2016), over sentences.
    Emd(EmdSpec),
    /// A neural model trained by `bitext train` (the siamese classifier's probability, or an
    /// MLP similarity), over sentences; built only by `bitext-neural`.
    Model(ModelSpec),
    /// IBM Model 1 in both directions (`bitext train ibm1`): Khadivi & Ney's length-normalised
    /// log-probability of each side given the other, summed; over sentences.
    Ibm1 {
        /// The model directory.
        model: PathBuf,
    },
    /// One minus the character-level Levenshtein distance divided by the longer length; over
    /// sentences.
    Levenshtein,
    /// Shorter length over longer, in characters or word tokens; over sentences.
    LengthRatio {
        /// What is counted (default: characters).
        #[serde(default)]
        unit: LengthUnit,
    },
}

/// The Earth Mover's Distance scorer's inputs and options (the `emd` variant of
/// [`ScorerSpec`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmdSpec {
    /// Source-language word vectors (fastText `.vec`), in one space with the target ones.
    pub src_vectors: PathBuf,
    /// Target-language word vectors.
    pub tgt_vectors: PathBuf,
    /// Source reference corpus of the IDF (one sentence per line); absent: the reference the
    /// caller passes to [`ScorerSpec::sentence_scorers`] (the CLI passes its input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_idf: Option<PathBuf>,
    /// Target reference corpus of the IDF; given together with `src_idf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tgt_idf: Option<PathBuf>,
    /// The distance's options: IDF on or off, OOV policy and cost, solver.
    #[serde(default)]
    pub distance: SentenceConfig,
}

impl EmdSpec {
    /// Default options over two vector files.
    #[must_use]
    pub fn new(src_vectors: impl Into<PathBuf>, tgt_vectors: impl Into<PathBuf>) -> Self {
        EmdSpec {
            src_vectors: src_vectors.into(),
            tgt_vectors: tgt_vectors.into(),
            src_idf: None,
            tgt_idf: None,
            distance: SentenceConfig::default(),
        }
    }

    /// Whether building needs reference sentences from the caller: IDF weighting is on and no
    /// reference files are named.
    #[must_use]
    pub fn needs_reference(&self) -> bool {
        self.distance.use_idf && self.src_idf.is_none()
    }

    pub(crate) fn check(&self) -> Result<()> {
        if self.src_idf.is_some() != self.tgt_idf.is_some() {
            return Err(Error::Invalid(
                "the emd scorer needs both src_idf and tgt_idf, or neither".into(),
            ));
        }
        self.distance.check().map_err(Error::from)
    }
}

impl ScorerSpec {
    /// A margin with `k` neighbours on both sides, searched exactly.
    #[must_use]
    pub fn margin(function: MarginFunction, k: usize) -> Self {
        ScorerSpec::Margin {
            margin: MarginSpec::new(function, k),
            index: IndexSpec::default(),
        }
    }

    /// The measure of `cosine`, `dot` and `neg_euclidean`; `None` for other scorers.
    #[must_use]
    pub fn measure(&self) -> Option<Measure> {
        match self {
            ScorerSpec::Cosine => Some(Measure::Cosine),
            ScorerSpec::Dot => Some(Measure::Dot),
            ScorerSpec::NegEuclidean => Some(Measure::NegEuclidean),
            _ => None,
        }
    }

    /// Whether the scorer reads two embedding matrices (else two lists of sentences).
    #[must_use]
    pub fn scores_embeddings(&self) -> bool {
        self.measure().is_some() || matches!(self, ScorerSpec::Margin { .. })
    }

    /// Check the parameters (and that this build has the margin's index backend).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a zero neighbourhood, an invalid index, a single IDF file,
    /// an invalid OOV cost or solver, or an unnamed model directory.
    pub fn check(&self) -> Result<()> {
        match self {
            ScorerSpec::Cosine | ScorerSpec::Dot | ScorerSpec::NegEuclidean => Ok(()),
            ScorerSpec::Margin { .. } => self.mine_spec().map_or(Ok(()), |m| m.check()),
            ScorerSpec::Emd(e) => e.check(),
            ScorerSpec::Model(m) => m.check().map_err(|e| Error::Invalid(e.to_string())),
            ScorerSpec::Ibm1 { model } if model.as_os_str().is_empty() => Err(Error::Invalid(
                "the ibm1 scorer needs its model directory (`ibm1:DIR`)".into(),
            )),
            ScorerSpec::Ibm1 { .. } | ScorerSpec::Levenshtein | ScorerSpec::LengthRatio { .. } => {
                Ok(())
            }
        }
    }

    /// The mining recipe whose neighbourhoods a margin scorer reads; `None` for other scorers.
    pub fn mine_spec(&self) -> Option<MineSpec> {
        match self {
            ScorerSpec::Margin { margin, index } => {
                Some(MineSpec::new(Miner::new(*margin)).index(index.clone()))
            }
            _ => None,
        }
    }

    /// Build the scorer over two embedding matrices and call `f` with it (a margin scorer
    /// borrows the neighbourhoods it searches, which live only during the call). Margins search
    /// both sides first ([`MineSpec::neighbourhoods`], reporting to `progress`).
    ///
    /// # Errors
    /// As [`ScorerSpec::check`], [`EmbeddingScorer::new`] and [`MineSpec::neighbourhoods`];
    /// [`Error::Invalid`] for a scorer of sentences (`emd`, `model`).
    pub fn with_embedding_scorer<R>(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        progress: Progress<'_>,
        f: impl FnOnce(&dyn PairScorer) -> R,
    ) -> Result<R> {
        self.with_embedding_scorer_searched(
            src,
            trg,
            |spec, s, t| spec.neighbourhoods(s, t, progress),
            f,
        )
    }

    /// [`ScorerSpec::with_embedding_scorer`] with the margins' neighbourhoods searched by
    /// `search` (called with the [`ScorerSpec::mine_spec`] and both sides; e.g. a wrapper of
    /// [`MineSpec::neighbourhoods`] that shows progress bars), in the caller's error type.
    ///
    /// # Errors
    /// As [`ScorerSpec::with_embedding_scorer`], and `search`'s errors.
    pub fn with_embedding_scorer_searched<'a, R, E: From<Error>>(
        &self,
        src: EmbeddingsView<'a>,
        trg: EmbeddingsView<'a>,
        search: impl FnOnce(
            &MineSpec,
            EmbeddingsView<'a>,
            EmbeddingsView<'a>,
        ) -> std::result::Result<Neighbourhoods<'a>, E>,
        f: impl FnOnce(&dyn PairScorer) -> R,
    ) -> std::result::Result<R, E> {
        self.check()?;
        if let Some(m) = self.measure() {
            let scorer = EmbeddingScorer::new(src, trg, m).map_err(Error::from)?;
            return Ok(f(&scorer));
        }
        match self.mine_spec() {
            Some(spec) => {
                let hoods = search(&spec, src, trg)?;
                let scorer: MarginScorer<'_> = hoods.scorer()?;
                Ok(f(&scorer))
            }
            None => Err(Error::Invalid(format!(
                "the {} scorer scores sentences, not embeddings: build it with \
                 ScorerSpec::sentence_scorers{}",
                self.name(),
                if self.is_neural() {
                    " (neural models: bitext-neural)"
                } else {
                    ""
                }
            ))
            .into()),
        }
    }

    /// Whether the spec names a neural model (built only by `bitext-neural`).
    #[must_use]
    pub fn is_neural(&self) -> bool {
        self.as_model().is_some()
    }

    /// The neural model, when the spec names one.
    #[must_use]
    pub fn as_model(&self) -> Option<&ModelSpec> {
        match self {
            ScorerSpec::Model(m) => Some(m),
            _ => None,
        }
    }

    /// Whether the spec is a margin (scored over kNN neighbourhoods of the whole corpus).
    #[must_use]
    pub fn is_margin(&self) -> bool {
        matches!(self, ScorerSpec::Margin { .. })
    }

    /// Whether [`ScorerSpec::sentence_scorers`] needs reference sentences for the IDF.
    #[must_use]
    pub fn needs_reference(&self) -> bool {
        matches!(self, ScorerSpec::Emd(e) if e.needs_reference())
    }

    /// The spec's `type` (`"cosine"`, `"ibm1"`, …).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            ScorerSpec::Cosine => "cosine",
            ScorerSpec::Dot => "dot",
            ScorerSpec::NegEuclidean => "neg_euclidean",
            ScorerSpec::Margin { .. } => "margin",
            ScorerSpec::Emd(_) => "emd",
            ScorerSpec::Model(_) => "model",
            ScorerSpec::Ibm1 { .. } => "ibm1",
            ScorerSpec::Levenshtein => "levenshtein",
            ScorerSpec::LengthRatio { .. } => "length_ratio",
        }
    }
}

impl FromStr for ScorerSpec {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let spec = match t {
            "cosine" => ScorerSpec::Cosine,
            "dot" => ScorerSpec::Dot,
            "neg_euclidean" => ScorerSpec::NegEuclidean,
            "absolute" => ScorerSpec::margin(MarginFunction::Absolute, DEFAULT_K),
            "distance" => ScorerSpec::margin(MarginFunction::Distance, DEFAULT_K),
            "ratio" => ScorerSpec::margin(MarginFunction::Ratio, DEFAULT_K),
            "csls" => ScorerSpec::margin(MarginFunction::Csls, DEFAULT_K),
            "levenshtein" => ScorerSpec::Levenshtein,
            "length_ratio" | "length-ratio" => ScorerSpec::LengthRatio {
                unit: LengthUnit::Chars,
            },
            _ if t.starts_with('{') => serde_json::from_str(t)
                .map_err(|e| Error::Invalid(format!("scorer spec {t}: {e}")))?,
            _ => match (t.strip_prefix("model:"), t.strip_prefix("ibm1:")) {
                (Some(dir), _) => ScorerSpec::Model(ModelSpec::new(dir)),
                (_, Some(dir)) => ScorerSpec::Ibm1 { model: dir.into() },
                _ => {
                    return Err(Error::Invalid(format!(
                        "scorer spec {t:?}: expected cosine, dot, neg_euclidean, absolute, \
                         distance, ratio, csls, levenshtein, length_ratio, model:DIR, ibm1:DIR \
                         or JSON ({{\"type\": \"emd\", …}})"
                    )));
                }
            },
        };
        spec.check()?;
        Ok(spec)
    }
}

impl fmt::Display for ScorerSpec {
    /// The spec as JSON (what [`FromStr`] reads back).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let json = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&json)
    }
}
