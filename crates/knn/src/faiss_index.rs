//! The faiss backend (feature `faiss`): any `index_factory` string — `Flat`, `IVF1024,Flat`,
//! `IVF4096,PQ64`, `OPQ64,IVF4096,PQ64`, `HNSW32,Flat`, … — trained, filled, searched, saved
//! and loaded through the faiss C API (vendored faiss built from source).
//!
//! faiss's `search` takes `&mut self` in the Rust bindings (some index types tune themselves
//! while searching), so the native index sits behind a [`Mutex`]: searches from several
//! threads take turns, and each one is parallel inside faiss (OpenMP; set `OMP_NUM_THREADS` to
//! choose the thread count, and `OMP_WAIT_POLICY=PASSIVE` on a busy machine).

#![allow(unsafe_code)] // one call into the faiss C API, see `FaissIndex::load`

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use bitext_core::EmbeddingsView;
use faiss::index::autotune::ParameterSpace;
use faiss::index::{IndexImpl, io as fio};
use faiss::{Index, MetricType};

use crate::check;
use crate::error::{Error, Result};
use crate::index::{KnnIndex, Metric, Neighbors};

/// Queries per faiss call, so that progress is reported as a long search advances.
const QUERY_CHUNK: usize = 4096;

fn backend(e: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: "faiss",
        message: e.to_string(),
    }
}

/// A faiss index behind the [`KnnIndex`] trait.
///
/// ```no_run
/// use bitext_core::Embeddings;
/// use bitext_knn::{FaissIndex, KnnIndex, Metric};
/// # fn main() -> bitext_knn::Result<()> {
/// # let vectors = Embeddings::zeros(10_000, 64)?;
/// let mut index = FaissIndex::new(64, "IVF64,Flat", Metric::InnerProduct)?;
/// index.train(vectors.view())?;
/// index.add(vectors.view())?;
/// index.set_param("nprobe", 8.0)?;
/// let nn = index.search(vectors.slice_rows(0..10), 4)?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct FaissIndex {
    inner: Mutex<IndexImpl>,
    dim: usize,
    metric: Metric,
}

impl FaissIndex {
    /// A new, empty index from a faiss `index_factory` description.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a dimension of 0 or above `i32::MAX`, or a description with a NUL
    /// byte; [`Error::Backend`] when faiss rejects the description.
    pub fn new(dim: usize, factory: &str, metric: Metric) -> Result<Self> {
        if dim == 0 || dim > i32::MAX as usize {
            return Err(Error::Invalid(format!(
                "faiss dimension must be in 1..=2^31-1, got {dim}"
            )));
        }
        let m = match metric {
            Metric::InnerProduct => MetricType::InnerProduct,
            Metric::L2 => MetricType::L2,
        };
        let index = faiss::index_factory(dim as u32, factory, m)
            .map_err(|e| backend(format!("index_factory({dim}, {factory:?}): {e}")))?;
        Ok(Self {
            inner: Mutex::new(index),
            dim,
            metric,
        })
    }

    /// Load an index written by [`KnnIndex::save`] (or by faiss's `write_index`).
    ///
    /// # Errors
    /// Missing or unreadable files and faiss read failures, naming the path; metrics other
    /// than inner product and L2.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        std::fs::metadata(path).map_err(|e| bitext_core::Error::io(path, e))?;
        let name = utf8(path)?;
        let index =
            fio::read_index(name).map_err(|e| backend(format!("{}: {e}", path.display())))?;
        // `Index::metric_type` panics on metrics the bindings do not know (L1, Linf, …): ask
        // the C API directly.
        // SAFETY: `inner_ptr` points to the live index owned by `index`.
        let code = unsafe { faiss_sys::faiss_Index_metric_type(index.inner_ptr()) };
        let metric = match MetricType::from_code(code as u32) {
            Some(MetricType::InnerProduct) => Metric::InnerProduct,
            Some(MetricType::L2) => Metric::L2,
            None => {
                return Err(Error::Unsupported(format!(
                    "{}: faiss metric code {code} is not supported (inner product and L2 are)",
                    path.display()
                )));
            }
        };
        Ok(Self {
            dim: index.d() as usize,
            inner: Mutex::new(index),
            metric,
        })
    }

    fn lock(&self) -> MutexGuard<'_, IndexImpl> {
        // A panic while holding the lock cannot leave the native index half-updated: faiss
        // calls do not unwind into Rust.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Set a search parameter through faiss's `ParameterSpace`: `nprobe` (IVF), `efSearch`
    /// (HNSW), `ht` (PQ polysemous), ….
    ///
    /// # Errors
    /// [`Error::Backend`] when the index has no such parameter.
    pub fn set_param(&self, name: &str, value: f64) -> Result<()> {
        let ps = ParameterSpace::new().map_err(backend)?;
        let index = self.lock();
        ps.set_index_parameter(&*index, name, value)
            .map_err(|e| backend(format!("setting {name} = {value}: {e}")))
    }

    /// Whether the index is trained (or needs no training).
    #[must_use]
    pub fn is_trained(&self) -> bool {
        self.lock().is_trained()
    }
}

fn utf8(path: &Path) -> Result<&str> {
    path.to_str()
        .ok_or_else(|| Error::Invalid(format!("{}: faiss needs a UTF-8 path", path.display())))
}

impl KnnIndex for FaissIndex {
    fn dim(&self) -> usize {
        self.dim
    }

    fn len(&self) -> usize {
        self.lock().ntotal() as usize
    }

    fn metric(&self) -> Metric {
        self.metric
    }

    fn needs_training(&self) -> bool {
        !self.is_trained()
    }

    fn train(&mut self, sample: EmbeddingsView<'_>) -> Result<()> {
        check::vectors(self.dim, sample, "training vectors")?;
        if sample.is_empty() {
            return Err(Error::Invalid("no training vectors".into()));
        }
        self.lock()
            .train(sample.as_slice())
            .map_err(|e| backend(format!("train: {e}")))
    }

    fn add(&mut self, vectors: EmbeddingsView<'_>) -> Result<()> {
        check::vectors(self.dim, vectors, "vectors to add")?;
        if vectors.is_empty() {
            return Ok(());
        }
        let mut index = self.lock();
        if !index.is_trained() {
            return Err(Error::Invalid(
                "the faiss index must be trained before vectors are added".into(),
            ));
        }
        index
            .add(vectors.as_slice())
            .map_err(|e| backend(format!("add: {e}")))
    }

    fn search_with_progress(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Neighbors> {
        check::search(self.dim, self.len(), queries, k)?;
        let mut ids = Vec::with_capacity(queries.len() * k);
        let mut scores = Vec::with_capacity(queries.len() * k);
        for (q0, block) in queries.blocks(QUERY_CHUNK) {
            let r = self
                .lock()
                .search(block.as_slice(), k)
                .map_err(|e| backend(format!("search: {e}")))?;
            for (i, label) in r.labels.iter().enumerate() {
                let id = label.get().ok_or_else(|| Error::Backend {
                    backend: "faiss",
                    message: format!(
                        "found fewer than k = {k} neighbours for query {} (raise nprobe or \
                             efSearch)",
                        q0 + i / k
                    ),
                })?;
                ids.push(id as usize);
            }
            scores.extend_from_slice(&r.distances);
            progress(q0 + block.len());
        }
        Neighbors::new(k, ids, scores)
    }

    fn save(&self, path: &Path) -> Result<()> {
        // faiss writes a file by name: a temporary path, placed as every output of bitext is
        // (renamed onto a regular file or a link's target, streamed into a device or FIFO).
        let tmp = bitext_core::io::TempPath::new(path)?;
        fio::write_index(&*self.lock(), utf8(tmp.path())?)
            .map_err(|e| backend(format!("{}: {e}", path.display())))?;
        tmp.commit()?;
        Ok(())
    }
}

// The native index is only reached through the mutex, and faiss CPU indexes have no thread
// affinity, so the wrapper may move between and be shared across threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<FaissIndex>();
};
