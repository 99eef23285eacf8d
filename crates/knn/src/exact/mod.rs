//! The exact backend: [`ExactIndex`], a brute-force search by blocked matrix products with the
//! top-k selection fused into the kernel, multi-threaded with rayon.
//!
//! - Owned ([`ExactIndex::new`], [`ExactIndex::from_embeddings`]) or zero-copy over any
//!   [`EmbeddingsView`] ([`ExactIndex::over`]), e.g. a memory-mapped file: mining two mapped
//!   files then needs the two matrices plus `O(threads × block)` memory.
//! - Results are exact and deterministic: scores are the sequential fused-multiply-add dot
//!   product ([`dot`]) whatever the kernel, block size or thread count, and ties are broken by
//!   the lower id, so results equal a full sort of all scores.
//! - Squared L2 distances are computed as `max(0, (‖q‖² + ‖x‖²) − 2 q·x)`.
//! - [`ExactParams::precision`] `bf16` / `int8` scans a quantised copy (built at the first
//!   search) and re-ranks the candidates in `f32` with a proof that the result equals the `f32`
//!   search (the `quant` module); [`ExactIndex::search_certified`] also returns the counts.
//! - Threads: the current rayon pool (wrap calls in `ThreadPool::install` to choose).

pub mod auto;
mod copies;
mod file;
mod kernel;
mod precision;
mod quant;
mod rows;
mod search;
mod topk;

use std::path::Path;
use std::sync::OnceLock;

use bitext_core::{Embeddings, EmbeddingsView, HalfView};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub use kernel::{Kernel, dot};
pub use quant::{Certification, CertifiedNeighbors, Precision, Resolved};

use crate::check;
use crate::error::{Error, Result};
use crate::index::{KnnIndex, Metric, Neighbors};

/// Tuning knobs of [`ExactIndex`]; they change speed, never results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExactParams {
    /// Queries packed and scanned together (rounded up to the kernel's panel width). Larger
    /// blocks read the database fewer times; the packed block should fit in the L2 cache
    /// (`query_block × dim × 4` bytes).
    pub query_block: usize,
    /// The micro-kernel.
    pub kernel: Kernel,
    /// Threads of a search: 0 runs it in the current rayon pool (the global one unless the
    /// caller `install`s another), `n` in a pool of `n` threads made for it.
    pub threads: usize,
    /// Arithmetic of the scan: `auto` (the default: the exact path measured fastest here),
    /// `f32`, or a bf16 / int8 copy whose candidates are re-ranked in `f32` with a certificate
    /// (inner product only). The results are the same ([`Precision::resolve`] says what runs).
    pub precision: Precision,
    /// Candidates per query of a reduced-precision scan (`k'`); 0: the precision's default
    /// ([`Precision::default_candidates`]).
    pub candidates: usize,
}

impl Default for ExactParams {
    fn default() -> Self {
        Self {
            query_block: 256,
            kernel: Kernel::Auto,
            threads: 0,
            precision: Precision::Auto,
            candidates: 0,
        }
    }
}

impl ExactParams {
    /// Largest accepted query block.
    pub const MAX_QUERY_BLOCK: usize = 1 << 16;

    /// Most threads accepted.
    pub const MAX_THREADS: usize = 4096;

    /// Most candidates per query of a reduced-precision scan (the widened scan keeps at most
    /// this many too): the lists of a query block hold `block × 1.5 × candidates` entries.
    pub const MAX_CANDIDATES: usize = 1 << 14;

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a query block of 0 or above [`Self::MAX_QUERY_BLOCK`], more than
    /// [`Self::MAX_THREADS`] threads, more than [`Self::MAX_CANDIDATES`] candidates, or a
    /// kernel this CPU cannot run.
    pub fn check(&self) -> Result<()> {
        if self.candidates > Self::MAX_CANDIDATES {
            return Err(Error::Invalid(format!(
                "candidates must be at most {}, got {}",
                Self::MAX_CANDIDATES,
                self.candidates
            )));
        }
        if self.threads > Self::MAX_THREADS {
            return Err(Error::Invalid(format!(
                "threads must be at most {}, got {}",
                Self::MAX_THREADS,
                self.threads
            )));
        }
        if !(1..=Self::MAX_QUERY_BLOCK).contains(&self.query_block) {
            return Err(Error::Invalid(format!(
                "query_block must be in 1..={}, got {}",
                Self::MAX_QUERY_BLOCK,
                self.query_block
            )));
        }
        self.kernel.resolve().map(|_| ())
    }
}

#[derive(Clone)]
enum Storage<'a> {
    Owned(Vec<f32>),
    Borrowed(&'a [f32]),
    /// binary16 rows widened where read, with each row's normalising factor when asked.
    Half(HalfView<'a>, Option<Vec<f32>>),
    /// The same, owned (the bits of the values).
    HalfOwned(Vec<u16>, Option<Vec<f32>>),
}

/// Exact k-nearest-neighbour search over vectors it owns or borrows.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_knn::{ExactIndex, KnnIndex, Metric};
/// # fn main() -> bitext_knn::Result<()> {
/// let db = Embeddings::from_rows([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]], 2)?;
/// let index = ExactIndex::over(db.view(), Metric::InnerProduct)?; // zero-copy
/// let q = Embeddings::from_rows([[0.0, 1.0]], 2)?;
/// let nn = index.search(q.view(), 2)?;
/// assert_eq!(nn.ids(0), &[2, 1]);
/// assert_eq!(nn.scores(0), &[1.0, 0.8]);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ExactIndex<'a> {
    storage: Storage<'a>,
    dim: usize,
    metric: Metric,
    /// Squared norms of the rows (L2 only).
    norms: Vec<f32>,
    params: ExactParams,
    /// The quantised copy of a reduced-precision search, built at its first search.
    quant: OnceLock<quant::QuantDb>,
    /// What chooses `auto`'s precision (`None`: [`auto::Tuner::global`]).
    tuner: Option<std::sync::Arc<auto::Tuner>>,
}

/// Whether `path` holds a saved exact index (by its magic bytes).
pub(crate) fn file_is_exact(path: &Path) -> Result<bool> {
    file::is_exact_file(path)
}

fn check_dim(dim: usize) -> Result<()> {
    if dim == 0 {
        return Err(Error::Invalid(
            "the vector dimension must be at least 1".into(),
        ));
    }
    Ok(())
}

/// Squared norms of all rows, in parallel.
fn norms_of(v: rows::Rows<'_>) -> Vec<f32> {
    let mut out = vec![0.0; v.len()];
    let chunk = 4096;
    out.par_chunks_mut(chunk).enumerate().for_each(|(c, o)| {
        let mut buf = Vec::new();
        let r0 = c * chunk;
        let rows = v.block(r0, r0 + o.len(), &mut buf);
        kernel::sq_norms(rows, v.dim(), o);
    });
    out
}

impl ExactIndex<'static> {
    /// An empty index of `dim`-dimensional vectors that owns what is added.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `dim` is 0.
    pub fn new(dim: usize, metric: Metric) -> Result<Self> {
        check_dim(dim)?;
        Ok(Self {
            storage: Storage::Owned(Vec::new()),
            dim,
            metric,
            norms: Vec::new(),
            params: ExactParams::default(),
            quant: OnceLock::new(),
            tuner: None,
        })
    }

    /// An index owning `vectors` (no copy).
    ///
    /// # Errors
    /// Non-finite values or norms (naming the row).
    pub fn from_embeddings(vectors: Embeddings, metric: Metric) -> Result<Self> {
        check::vectors(vectors.dim(), vectors.view(), "vectors to index")?;
        let dim = vectors.dim();
        let norms = if metric == Metric::L2 {
            norms_of(vectors.view().into())
        } else {
            Vec::new()
        };
        Ok(Self {
            storage: Storage::Owned(vectors.into_vec()),
            dim,
            metric,
            norms,
            params: ExactParams::default(),
            quant: OnceLock::new(),
            tuner: None,
        })
    }

    /// An index owning binary16 rows (`bits`: the values' bits, row-major, `dim` per row),
    /// searched as [`ExactIndex::over_half`] searches borrowed ones.
    ///
    /// # Errors
    /// A shape that is not whole rows of `dim >= 1`; non-finite values (naming the row).
    pub fn from_half(bits: Vec<u16>, dim: usize, metric: Metric, normalize: bool) -> Result<Self> {
        let index = ExactIndex::over_half(HalfView::new(&bits, dim)?, metric, normalize)?;
        let norms = index.norms;
        let inv = match index.storage {
            Storage::Half(_, inv) => inv,
            _ => None,
        };
        Ok(Self {
            storage: Storage::HalfOwned(bits, inv),
            dim,
            metric,
            norms,
            params: ExactParams::default(),
            quant: OnceLock::new(),
            tuner: None,
        })
    }

    /// Load an index saved by [`KnnIndex::save`] (the format is described in the crate
    /// docs).
    ///
    /// # Errors
    /// I/O errors and malformed or truncated files, naming the path (and byte offset or row).
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let (metric, vectors) = file::load(path.as_ref())?;
        Self::from_embeddings(vectors, metric)
    }
}

impl<'a> ExactIndex<'a> {
    /// An index over `vectors` without copying them (e.g. a memory-mapped file). Adding
    /// vectors later copies the borrowed ones first.
    ///
    /// # Errors
    /// Non-finite values or norms (naming the row).
    pub fn over(vectors: EmbeddingsView<'a>, metric: Metric) -> Result<Self> {
        check::vectors(vectors.dim(), vectors, "vectors to index")?;
        let norms = if metric == Metric::L2 {
            norms_of(vectors.into())
        } else {
            Vec::new()
        };
        Ok(Self {
            storage: Storage::Borrowed(vectors.as_slice()),
            dim: vectors.dim(),
            metric,
            norms,
            params: ExactParams::default(),
            quant: OnceLock::new(),
            tuner: None,
        })
    }

    /// An index over binary16 rows (e.g. a LASER `--fp16` file mapped with
    /// `bitext_core::MappedHalf`) that never widens the whole matrix: the `f32` scan widens a
    /// block of rows at a time, a bf16 / int8 copy is quantised from the widened rows one by
    /// one, and the certified re-rank widens only the candidates. With `normalize`, each
    /// widened row is scaled to unit norm (as `Embeddings::normalize_l2` would scale the widened
    /// matrix; a zero row stays zero). Results equal those of an index over the widened
    /// (normalised) `f32` matrix: ids, score bits and tie order.
    ///
    /// # Errors
    /// Non-finite values (naming the row and column).
    pub fn over_half(vectors: HalfView<'a>, metric: Metric, normalize: bool) -> Result<Self> {
        vectors.check_finite().map_err(|source| Error::Input {
            what: "vectors to index",
            source,
        })?;
        let d = vectors.dim();
        let inv = normalize.then(|| {
            (0..vectors.len())
                .into_par_iter()
                .map_init(
                    || vec![0f32; d],
                    |buf, i| {
                        vectors.widen_into(i, buf);
                        bitext_core::unit_scale(buf).unwrap_or(1.0)
                    },
                )
                .collect::<Vec<f32>>()
        });
        let rows = rows::Rows::Half {
            v: vectors,
            inv: inv.as_deref(),
        };
        let norms = if metric == Metric::L2 {
            norms_of(rows)
        } else {
            Vec::new()
        };
        Ok(Self {
            storage: Storage::Half(vectors, inv),
            dim: vectors.dim(),
            metric,
            norms,
            params: ExactParams::default(),
            quant: OnceLock::new(),
            tuner: None,
        })
    }

    /// Use `params`.
    ///
    /// # Errors
    /// As [`ExactParams::check`].
    pub fn with_params(mut self, params: ExactParams) -> Result<Self> {
        params.check()?;
        if params.precision != self.params.precision {
            self.quant = OnceLock::new();
        }
        self.params = params;
        Ok(self)
    }

    /// Build the quantised copy of a reduced-precision index now rather than at its first
    /// search (e.g. to time searches alone); returns its size in bytes (0 at `f32`).
    ///
    /// # Errors
    /// As [`ExactIndex::search_certified`].
    pub fn quantize(&self) -> Result<usize> {
        Ok(self.quantized()?.map_or(0, quant::QuantDb::bytes))
    }

    /// [`KnnIndex::search_with_progress`] with the counts of the certified re-rank (at `f32`:
    /// all queries, "certified" as exact by construction).
    ///
    /// # Errors
    /// As [`KnnIndex::search`]; [`Error::Invalid`] for int8 above 65,536 dimensions.
    pub fn search_certified(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<CertifiedNeighbors> {
        check::search(self.dim, self.len(), queries, k)?;
        let plan = self.plan(queries, k, None)?;
        let s = self.searcher(plan.kernel);
        match self.copy_for(&plan)? {
            None => Ok(CertifiedNeighbors {
                neighbors: s.run(queries, k, progress)?,
                certification: self.in_f32(queries.len(), &plan),
            }),
            Some(qdb) => {
                let mut got =
                    quant::search_one_way(&s, qdb, queries, k, self.params.candidates, progress)?;
                got.certification = self.reduced(got.certification, &plan);
                Ok(got)
            }
        }
    }

    /// Choose `auto`'s precision with `tuner` (its cache, sample and clock) rather than the
    /// process's [`auto::Tuner::global`].
    #[must_use]
    pub fn with_tuner(mut self, tuner: std::sync::Arc<auto::Tuner>) -> Self {
        self.tuner = Some(tuner);
        self
    }

    /// The tuning parameters.
    #[must_use]
    pub fn params(&self) -> ExactParams {
        self.params
    }

    /// The indexed vectors, row `i` being id `i`; `None` for an index over binary16 rows
    /// ([`ExactIndex::over_half`]), which never holds them as `f32`.
    #[must_use]
    pub fn vectors(&self) -> Option<EmbeddingsView<'_>> {
        self.rows().as_f32()
    }

    /// The rows searched.
    fn rows(&self) -> rows::Rows<'_> {
        let data = match &self.storage {
            Storage::Owned(v) => &v[..],
            Storage::Borrowed(s) => s,
            Storage::Half(v, inv) => {
                return rows::Rows::Half {
                    v: *v,
                    inv: inv.as_deref(),
                };
            }
            Storage::HalfOwned(bits, inv) => {
                return rows::Rows::Half {
                    v: HalfView::new(bits, self.dim).expect("whole rows of dimension >= 1"),
                    inv: inv.as_deref(),
                };
            }
        };
        rows::Rows::F32(EmbeddingsView::new(data, self.dim).expect("whole rows of dimension >= 1"))
    }

    /// Whether the vectors are borrowed (zero-copy) rather than owned.
    #[must_use]
    pub fn is_borrowed(&self) -> bool {
        matches!(self.storage, Storage::Borrowed(_) | Storage::Half(..))
    }

    /// Both directions from one pass over the scores: the `k` nearest indexed vectors of every
    /// query (as [`KnnIndex::search`]) and the `k_back` nearest queries of every indexed vector
    /// (as a search of these vectors in an index of the queries), with the same scores, ids
    /// and tie order as those two searches, at the cost of one. `progress` gets the queries
    /// done. Memory: the lists, plus one `len() × k_back` list set per running thread.
    ///
    /// # Errors
    /// As [`KnnIndex::search`]; [`Error::KTooLarge`] when `k_back` exceeds the queries.
    pub fn search_both_with_progress(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        k_back: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(Neighbors, Neighbors)> {
        let (f, b) = self.search_both_certified(queries, k, k_back, progress)?;
        Ok((f.neighbors, b.neighbors))
    }

    /// [`ExactIndex::search_both_with_progress`] with the counts of the certified re-rank of
    /// each direction (the backward counts are per database row).
    ///
    /// # Errors
    /// As [`ExactIndex::search_both_with_progress`]; [`Error::Invalid`] for int8 above 65,536
    /// dimensions.
    pub fn search_both_certified(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        k_back: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(CertifiedNeighbors, CertifiedNeighbors)> {
        check::search(self.dim, self.len(), queries, k)?;
        if k_back == 0 {
            return Err(Error::Invalid("k must be at least 1".into()));
        }
        if k_back > queries.len() {
            return Err(Error::KTooLarge {
                k: k_back,
                len: queries.len(),
            });
        }
        let plan = self.plan(queries, k, Some(k_back))?;
        let s = self.searcher(plan.kernel);
        if let Some(qdb) = self.copy_for(&plan)? {
            let c = self.params.candidates;
            let (mut f, mut b) = quant::search_both(&s, qdb, queries, k, k_back, c, progress)?;
            f.certification = self.reduced(f.certification, &plan);
            b.certification = self.reduced(b.certification, &plan);
            return Ok((f, b));
        }
        let (forward, backward) = s.run_both_ways(queries, k, k_back, progress)?;
        Ok((
            CertifiedNeighbors {
                neighbors: forward,
                certification: self.in_f32(queries.len(), &plan),
            },
            CertifiedNeighbors {
                neighbors: backward,
                certification: self.in_f32(self.len(), &plan),
            },
        ))
    }

    fn searcher(&self, kernel: Kernel) -> search::Search<'_> {
        search::Search {
            db: self.rows(),
            db_norms: &self.norms,
            metric: self.metric,
            kernel,
            query_block: self.params.query_block,
            threads: self.params.threads,
            quant: None,
        }
    }
}

impl std::fmt::Debug for ExactIndex<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExactIndex")
            .field("dim", &self.dim)
            .field("len", &self.len())
            .field("metric", &self.metric)
            .field("borrowed", &self.is_borrowed())
            .field("params", &self.params)
            .finish()
    }
}

impl KnnIndex for ExactIndex<'_> {
    fn dim(&self) -> usize {
        self.dim
    }

    fn len(&self) -> usize {
        self.rows().len()
    }

    fn metric(&self) -> Metric {
        self.metric
    }

    fn add(&mut self, vectors: EmbeddingsView<'_>) -> Result<()> {
        check::vectors(self.dim, vectors, "vectors to add")?;
        match self.storage {
            Storage::Borrowed(s) => self.storage = Storage::Owned(s.to_vec()),
            Storage::Half(..) | Storage::HalfOwned(..) => {
                let all = self.rows().gather(0..self.len())?;
                self.storage = Storage::Owned(all.into_vec());
            }
            Storage::Owned(_) => {}
        }
        if let Storage::Owned(v) = &mut self.storage {
            v.extend_from_slice(vectors.as_slice());
        }
        if self.metric == Metric::L2 {
            self.norms.extend(norms_of(vectors.into()));
        }
        self.quant = OnceLock::new();
        Ok(())
    }

    fn search_with_progress(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Neighbors> {
        Ok(self.search_certified(queries, k, progress)?.neighbors)
    }

    fn save(&self, path: &Path) -> Result<()> {
        file::save(path, self.metric, self.rows())
    }
}
