//! [`IndexSpec`]: which backend to build, from a config file (serde, tagged by `"type"`) or a
//! CLI flag (`--index exact`, `--index IVF1024,Flat`), and loading saved indexes.
//!
//! ```text
//! {"type": "exact", "metric": "inner_product"}
//! {"type": "exact", "metric": "l2", "query_block": 256, "kernel": "avx2"}
//! {"type": "faiss", "factory": "IVF1024,Flat", "metric": "inner_product", "nprobe": 8}
//! {"type": "faiss", "factory": "HNSW32,Flat", "ef_search": 128}
//! {"type": "faiss", "factory": "OPQ64,IVF4096,PQ64", "nprobe": 16, "train_size": 200000}
//! ```

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use bitext_core::EmbeddingsView;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::exact::{ExactIndex, ExactParams, Kernel, Precision};
use crate::index::{KnnIndex, Metric};

/// Seed of the training sample when `train_size` is given and none is.
const DEFAULT_SEED: u64 = 0x5EED;

/// Which kNN backend to use, with its parameters.
///
/// Parsed from a CLI string by [`FromStr`]: `exact` selects [`ExactIndex`]; a string starting
/// with `{` is read as JSON; anything else is a faiss `index_factory` string (`Flat`,
/// `IVF1024,Flat`, `IVF4096,PQ64`, `OPQ64,IVF4096,PQ64`, `HNSW32,Flat`, …), which needs the
/// `faiss` feature. The metric comes from its own flag: see [`IndexSpec::with_metric`].
///
/// ```
/// use bitext_knn::{IndexSpec, Metric};
/// let s: IndexSpec = "exact".parse().unwrap();
/// assert_eq!(s, IndexSpec::exact(Metric::InnerProduct));
/// let f: IndexSpec = "IVF1024,Flat".parse().unwrap();
/// assert_eq!(f.clone().with_metric(Metric::L2).metric(), Metric::L2);
/// let j: IndexSpec = r#"{"type":"faiss","factory":"IVF1024,Flat","nprobe":8}"#.parse().unwrap();
/// assert_eq!(j, f.with_nprobe(8));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[non_exhaustive]
pub enum IndexSpec {
    /// [`ExactIndex`]: brute force, exact and deterministic.
    Exact {
        /// How neighbours are ranked.
        #[serde(default)]
        metric: Metric,
        /// Queries per block (speed only); the default when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        query_block: Option<usize>,
        /// Micro-kernel (speed only).
        #[serde(default, skip_serializing_if = "is_auto")]
        kernel: Kernel,
        /// Threads (speed only; 0 or absent: the current rayon pool).
        #[serde(default, skip_serializing_if = "is_zero")]
        threads: usize,
        /// Arithmetic of the scan (speed only: bf16 and int8 are re-ranked and certified to
        /// give the `f32` results; inner product only).
        #[serde(default, skip_serializing_if = "is_auto_precision")]
        precision: Precision,
        /// Candidates per query of a bf16 / int8 scan (speed only; 0 or absent: the default).
        #[serde(default, skip_serializing_if = "is_zero")]
        candidates: usize,
    },
    /// A faiss index built by `index_factory` (feature `faiss`).
    Faiss {
        /// The `index_factory` description, e.g. `IVF1024,Flat`.
        factory: String,
        /// How neighbours are ranked.
        #[serde(default)]
        metric: Metric,
        /// Inverted lists visited per query (IVF indexes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nprobe: Option<usize>,
        /// Candidate list size of the search (HNSW indexes).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ef_search: Option<usize>,
        /// Train on a random sample of this many vectors instead of all of them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        train_size: Option<usize>,
        /// Seed of the training sample.
        #[serde(default = "default_seed")]
        seed: u64,
    },
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn is_auto(k: &Kernel) -> bool {
    *k == Kernel::Auto
}

fn is_auto_precision(p: &Precision) -> bool {
    *p == Precision::Auto
}

fn default_seed() -> u64 {
    DEFAULT_SEED
}

impl Default for IndexSpec {
    fn default() -> Self {
        Self::exact(Metric::default())
    }
}

impl IndexSpec {
    /// The exact backend with default parameters.
    #[must_use]
    pub fn exact(metric: Metric) -> Self {
        IndexSpec::Exact {
            metric,
            query_block: None,
            kernel: Kernel::Auto,
            threads: 0,
            precision: Precision::Auto,
            candidates: 0,
        }
    }

    /// A faiss index from an `index_factory` string, default search parameters.
    #[must_use]
    pub fn faiss(factory: impl Into<String>, metric: Metric) -> Self {
        IndexSpec::Faiss {
            factory: factory.into(),
            metric,
            nprobe: None,
            ef_search: None,
            train_size: None,
            seed: DEFAULT_SEED,
        }
    }

    /// How neighbours are ranked.
    #[must_use]
    pub fn metric(&self) -> Metric {
        match self {
            IndexSpec::Exact { metric, .. } | IndexSpec::Faiss { metric, .. } => *metric,
        }
    }

    /// The same spec ranking by `metric`.
    #[must_use]
    pub fn with_metric(mut self, m: Metric) -> Self {
        match &mut self {
            IndexSpec::Exact { metric, .. } | IndexSpec::Faiss { metric, .. } => *metric = m,
        }
        self
    }

    /// Set `nprobe` (faiss only; ignored by the exact backend, which has nothing to probe).
    #[must_use]
    pub fn with_nprobe(mut self, n: usize) -> Self {
        if let IndexSpec::Faiss { nprobe, .. } = &mut self {
            *nprobe = Some(n);
        }
        self
    }

    /// Set `efSearch` (faiss only).
    #[must_use]
    pub fn with_ef_search(mut self, n: usize) -> Self {
        if let IndexSpec::Faiss { ef_search, .. } = &mut self {
            *ef_search = Some(n);
        }
        self
    }

    /// Whether the spec names a faiss index.
    #[must_use]
    pub fn is_faiss(&self) -> bool {
        matches!(self, IndexSpec::Faiss { .. })
    }

    /// Check the parameters, and that this build has the backend.
    ///
    /// # Errors
    /// [`Error::Invalid`] for zero or absurd parameters or an empty factory string;
    /// [`Error::Unsupported`] for a faiss spec in a build without the `faiss` feature.
    pub fn check(&self) -> Result<()> {
        match self {
            IndexSpec::Exact { .. } => self.exact_params().check(),
            IndexSpec::Faiss {
                factory,
                nprobe,
                ef_search,
                train_size,
                ..
            } => {
                if factory.trim().is_empty() || factory.contains('\0') {
                    return Err(Error::Invalid(format!(
                        "faiss factory string {factory:?} is empty or holds a NUL byte"
                    )));
                }
                for (name, v) in [
                    ("nprobe", nprobe),
                    ("ef_search", ef_search),
                    ("train_size", train_size),
                ] {
                    if *v == Some(0) || v.is_some_and(|v| v > i32::MAX as usize) {
                        return Err(Error::Invalid(format!(
                            "{name} must be in 1..={}, got {}",
                            i32::MAX,
                            v.unwrap_or_default()
                        )));
                    }
                }
                #[cfg(not(feature = "faiss"))]
                return Err(self.faiss_missing());
                #[cfg(feature = "faiss")]
                Ok(())
            }
        }
    }

    /// The one-pass both-ways search of an exact spec (its metric and tuning); `None` for
    /// other backends.
    #[must_use]
    pub fn exact_search(&self) -> Option<crate::OnePass> {
        match self {
            IndexSpec::Exact { metric, .. } => Some(crate::OnePass {
                metric: *metric,
                params: self.exact_params(),
            }),
            IndexSpec::Faiss { .. } => None,
        }
    }

    /// The exact backend's tuning (the defaults for other backends).
    fn exact_params(&self) -> ExactParams {
        let d = ExactParams::default();
        match self {
            IndexSpec::Exact {
                query_block,
                kernel,
                threads,
                precision,
                candidates,
                ..
            } => ExactParams {
                query_block: query_block.unwrap_or(d.query_block),
                kernel: *kernel,
                threads: *threads,
                precision: *precision,
                candidates: *candidates,
            },
            IndexSpec::Faiss { .. } => d,
        }
    }

    /// Set the precision of the exact search's scan (results do not change: see
    /// [`Precision`]); faiss specs are left as they are.
    #[must_use]
    pub fn with_precision(mut self, p: Precision) -> Self {
        if let IndexSpec::Exact { precision, .. } = &mut self {
            *precision = p;
        }
        self
    }

    /// Set the threads of the exact search (0: the current rayon pool). faiss indexes use
    /// OpenMP's threads (`OMP_NUM_THREADS`), which this does not change.
    #[must_use]
    pub fn with_threads(mut self, n: usize) -> Self {
        if let IndexSpec::Exact { threads, .. } = &mut self {
            *threads = n;
        }
        self
    }

    /// An empty index of `dim`-dimensional vectors (train it if
    /// [`KnnIndex::needs_training`], then add vectors).
    ///
    /// # Errors
    /// As [`IndexSpec::check`]; `dim` of 0; backend failures (a factory string faiss rejects).
    pub fn build(&self, dim: usize) -> Result<Box<dyn KnnIndex>> {
        self.check()?;
        match self {
            IndexSpec::Exact { metric, .. } => Ok(Box::new(
                ExactIndex::new(dim, *metric)?.with_params(self.exact_params())?,
            )),
            IndexSpec::Faiss { .. } => self.build_faiss(dim),
        }
    }

    /// An index holding `vectors`, ready to search: the exact backend borrows them (zero-copy,
    /// e.g. from a memory map); faiss trains (on all of them, or on a seeded sample of
    /// `train_size`) and adds them.
    ///
    /// # Errors
    /// As [`IndexSpec::build`]; non-finite vectors (naming the row); training failures.
    pub fn build_over<'a>(&self, vectors: EmbeddingsView<'a>) -> Result<Box<dyn KnnIndex + 'a>> {
        self.check()?;
        match self {
            IndexSpec::Exact { metric, .. } => Ok(Box::new(
                ExactIndex::over(vectors, *metric)?.with_params(self.exact_params())?,
            )),
            IndexSpec::Faiss { .. } => {
                crate::check::vectors(vectors.dim(), vectors, "vectors to index")?;
                let mut index = self.build_faiss(vectors.dim())?;
                if index.needs_training() {
                    match self.training_rows(vectors.len()) {
                        Some(rows) => {
                            let sample = bitext_core::Embeddings::from_rows(
                                rows.iter().map(|&r| vectors.row(r)),
                                vectors.dim(),
                            )?;
                            index.train(sample.view())?;
                        }
                        None => index.train(vectors)?,
                    }
                }
                index.add(vectors)?;
                Ok(index)
            }
        }
    }

    /// The rows of `n` that an index needing training trains on: a seeded sample of
    /// `train_size` of them, in order, when the spec asks for fewer than `n`; `None` for all.
    #[must_use]
    pub fn training_rows(&self, n: usize) -> Option<Vec<usize>> {
        let IndexSpec::Faiss {
            train_size: Some(size),
            seed,
            ..
        } = self
        else {
            return None;
        };
        (*size < n).then(|| {
            let mut rows = bitext_core::Rng::seed(*seed).sample_indices(n, *size);
            rows.sort_unstable();
            rows
        })
    }

    /// Load an index saved with [`KnnIndex::save`] and apply this spec's search parameters.
    ///
    /// # Errors
    /// I/O and format errors naming the path; a saved index of another kind or metric than
    /// the spec says.
    pub fn load(&self, path: &Path) -> Result<Box<dyn KnnIndex>> {
        self.check()?;
        let mismatch = |found: &str, metric: Metric| {
            Error::Invalid(format!(
                "{}: holds a {found} index ranking by {metric:?}, but the spec asks for \
                 \"{self}\" ranking by {:?}",
                path.display(),
                self.metric()
            ))
        };
        let exact_file = crate::exact::file_is_exact(path)?;
        match self {
            IndexSpec::Exact { metric, .. } => {
                if !exact_file {
                    return Err(mismatch("faiss (or unknown)", *metric));
                }
                let index = ExactIndex::load(path)?;
                if index.metric() != *metric {
                    return Err(mismatch("bitext exact", index.metric()));
                }
                Ok(Box::new(index.with_params(self.exact_params())?))
            }
            IndexSpec::Faiss { metric, .. } => {
                if exact_file {
                    return Err(mismatch("bitext exact", *metric));
                }
                let index = self.load_faiss(path)?;
                if index.metric() != *metric {
                    return Err(mismatch("faiss", index.metric()));
                }
                Ok(index)
            }
        }
    }

    #[cfg(feature = "faiss")]
    fn build_faiss(&self, dim: usize) -> Result<Box<dyn KnnIndex>> {
        let index = crate::faiss_index::FaissIndex::new(dim, &self.to_string(), self.metric())?;
        self.apply_faiss_params(&index)?;
        Ok(Box::new(index))
    }

    #[cfg(feature = "faiss")]
    fn load_faiss(&self, path: &Path) -> Result<Box<dyn KnnIndex>> {
        let index = crate::faiss_index::FaissIndex::load(path)?;
        self.apply_faiss_params(&index)?;
        Ok(Box::new(index))
    }

    #[cfg(feature = "faiss")]
    fn apply_faiss_params(&self, index: &crate::faiss_index::FaissIndex) -> Result<()> {
        if let IndexSpec::Faiss {
            nprobe, ef_search, ..
        } = self
        {
            if let Some(n) = nprobe {
                index.set_param("nprobe", *n as f64)?;
            }
            if let Some(n) = ef_search {
                index.set_param("efSearch", *n as f64)?;
            }
        }
        Ok(())
    }

    #[cfg(not(feature = "faiss"))]
    fn build_faiss(&self, _dim: usize) -> Result<Box<dyn KnnIndex>> {
        Err(self.faiss_missing())
    }

    #[cfg(not(feature = "faiss"))]
    fn load_faiss(&self, _path: &Path) -> Result<Box<dyn KnnIndex>> {
        Err(self.faiss_missing())
    }

    #[cfg(not(feature = "faiss"))]
    fn faiss_missing(&self) -> Error {
        Error::Unsupported(format!(
            "the faiss index \"{self}\" needs the faiss backend, which this build lacks: \
             rebuild with `--features faiss` (or use `--index exact`)"
        ))
    }
}

/// Load any saved index, telling the format by its first bytes: a bitext exact index, or
/// (feature `faiss`) a faiss index.
///
/// # Errors
/// I/O and format errors naming the path; a faiss file in a build without the feature.
pub fn load_index(path: &Path) -> Result<Box<dyn KnnIndex>> {
    if crate::exact::file_is_exact(path)? {
        return Ok(Box::new(ExactIndex::load(path)?));
    }
    #[cfg(feature = "faiss")]
    {
        Ok(Box::new(crate::faiss_index::FaissIndex::load(path)?))
    }
    #[cfg(not(feature = "faiss"))]
    {
        Err(Error::Unsupported(format!(
            "{}: not a bitext exact index; if it is a faiss index, rebuild with `--features faiss`",
            path.display()
        )))
    }
}

impl fmt::Display for IndexSpec {
    /// `exact`, or the faiss factory string: what `--index` takes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexSpec::Exact { .. } => f.write_str("exact"),
            IndexSpec::Faiss { factory, .. } => f.write_str(factory),
        }
    }
}

impl FromStr for IndexSpec {
    type Err = Error;

    /// `exact`, a JSON spec (starting with `{`), or a faiss factory string. Checks nothing
    /// about the build: [`IndexSpec::check`] (called by `build`) says when faiss is missing.
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim();
        if s.is_empty() {
            return Err(Error::Invalid(
                "empty index spec: use \"exact\" or a faiss factory string such as \"IVF1024,Flat\""
                    .into(),
            ));
        }
        if s.eq_ignore_ascii_case("exact") {
            return Ok(IndexSpec::exact(Metric::default()));
        }
        if s.starts_with('{') {
            return serde_json::from_str(s)
                .map_err(|e| Error::Invalid(format!("index spec {s}: {e}")));
        }
        Ok(IndexSpec::faiss(s, Metric::default()))
    }
}
