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
//! ```
//!
//! Scorers come in two kinds, by what they score:
//! - over two embedding matrices: the measures ([`EmbeddingScorer`]) and the margins (a
//!   [`MarginScorer`] over the neighbourhoods [`MineSpec::neighbourhoods`] searches); built by
//!   [`ScorerSpec::with_embedding_scorer`];
//! - over two lists of sentences: the Earth Mover's Distance ([`EmdScorer`], minus the
//!   distance), built per batch by the [`EmdScorers`] of [`ScorerSpec::sentence_scorers`], and
//!   the neural models, which only `bitext-neural` loads (it cannot depend on this crate, so the
//!   caller hands a [`ModelSpec`] to it).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use bitext_core::EmbeddingsView;
use bitext_core::io::text::{EmptyLines, read_lines};
use bitext_core::io::vec::read_vec;
use bitext_encode::ModelSpec;
use bitext_knn::{IndexSpec, Progress};
use bitext_similarity::{
    EmbeddingScorer, MarginFunction, MarginScorer, MarginSpec, Measure, PairScorer,
};
use bitext_tokenize::WordTokenizer;
use bitext_transport::EmdScorer;
use bitext_transport::sentence::{Idf, SentenceConfig, SentenceDistance};
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

    fn check(&self) -> Result<()> {
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
        matches!(self, ScorerSpec::Model(_))
    }

    /// Whether [`ScorerSpec::sentence_scorers`] needs reference sentences for the IDF.
    #[must_use]
    pub fn needs_reference(&self) -> bool {
        matches!(self, ScorerSpec::Emd(e) if e.needs_reference())
    }

    /// The builder of `emd` scorers over batches of sentences: reads the word vectors, and
    /// counts the IDF over the spec's reference files, or else over `reference` (source and
    /// target sentences, e.g. the columns of the input).
    ///
    /// # Errors
    /// As [`ScorerSpec::check`]; a missing or malformed vector or reference file (naming the
    /// file and line); [`Error::Invalid`] when IDF weighting has no reference, for a scorer of
    /// embeddings, and for a `model` spec (which `bitext-neural` builds).
    pub fn sentence_scorers<S: AsRef<str>>(
        &self,
        reference: Option<(&[S], &[S])>,
    ) -> Result<EmdScorers> {
        self.check()?;
        let e = match self {
            ScorerSpec::Emd(e) => e,
            ScorerSpec::Model(m) => return Err(Error::Invalid(m.neural_only("scorer"))),
            _ => {
                return Err(Error::Invalid(format!(
                    "the {} scorer scores embeddings, not sentences: build it with \
                     ScorerSpec::with_embedding_scorer",
                    self.name()
                )));
            }
        };
        let tokenizer = WordTokenizer::builder().lowercase(true).build();
        let src = Arc::new(read_vec(&e.src_vectors, None)?);
        let tgt = Arc::new(read_vec(&e.tgt_vectors, None)?);
        let config = e.distance.clone();
        let idf = if config.use_idf {
            let plain = SentenceDistance::new(src.clone(), tgt.clone(), None, config.clone())
                .map_err(Error::from)?;
            let count = |lines: &mut dyn Iterator<Item = &str>| {
                Idf::from_documents(lines.map(|l| plain.words(&tokenizer.tokenize(l))))
            };
            let read = |p: &Path| read_lines(p, EmptyLines::Keep);
            Some(match (&e.src_idf, &e.tgt_idf, reference) {
                (Some(s), Some(t), _) => (
                    count(&mut read(s)?.iter().map(String::as_str)),
                    count(&mut read(t)?.iter().map(String::as_str)),
                ),
                (_, _, Some((s, t))) => (
                    count(&mut s.iter().map(AsRef::as_ref)),
                    count(&mut t.iter().map(AsRef::as_ref)),
                ),
                _ => {
                    return Err(Error::Invalid(
                        "the emd scorer weighs words by IDF: name src_idf and tgt_idf, pass \
                         reference sentences, or turn use_idf off"
                            .into(),
                    ));
                }
            })
        } else {
            None
        };
        let distance = SentenceDistance::new(src, tgt, idf, config).map_err(Error::from)?;
        Ok(EmdScorers {
            distance,
            tokenizer,
        })
    }

    /// The spec's `type`.
    fn name(&self) -> &'static str {
        match self {
            ScorerSpec::Cosine => "cosine",
            ScorerSpec::Dot => "dot",
            ScorerSpec::NegEuclidean => "neg_euclidean",
            ScorerSpec::Margin { .. } => "margin",
            ScorerSpec::Emd(_) => "emd",
            ScorerSpec::Model(_) => "model",
        }
    }
}

/// Builds [`EmdScorer`]s over batches of sentences: the word vectors and IDF read once, the
/// sentences tokenized per batch (lowercased [`WordTokenizer`]).
#[derive(Debug, Clone)]
pub struct EmdScorers {
    distance: SentenceDistance,
    tokenizer: WordTokenizer,
}

impl EmdScorers {
    /// The sentence distance.
    #[must_use]
    pub fn distance(&self) -> &SentenceDistance {
        &self.distance
    }

    /// The scorer of `src × tgt` (score = minus the distance).
    ///
    /// # Errors
    /// As [`EmdScorer::new`] (an empty sentence, …).
    pub fn build<S: AsRef<str>>(&self, src: &[S], tgt: &[S]) -> Result<EmdScorer> {
        let tok = |s: &[S]| -> Vec<Vec<String>> {
            s.iter()
                .map(|x| self.tokenizer.tokenize(x.as_ref()))
                .collect()
        };
        EmdScorer::new(self.distance.clone(), &tok(src), &tok(tgt)).map_err(Error::from)
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
            _ if t.starts_with('{') => serde_json::from_str(t)
                .map_err(|e| Error::Invalid(format!("scorer spec {t}: {e}")))?,
            _ => match t.strip_prefix("model:") {
                Some(dir) => ScorerSpec::Model(ModelSpec::new(dir)),
                None => {
                    return Err(Error::Invalid(format!(
                        "scorer spec {t:?}: expected cosine, dot, neg_euclidean, absolute, \
                         distance, ratio, csls, model:DIR or JSON ({{\"type\": \"emd\", …}})"
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
