//! Saved quantised copies of an [`ExactIndex`]: [`ExactIndex::save_quantized`] writes the
//! bf16 / int8 copy of a reduced-precision index, [`ExactIndex::with_quantized_file`] maps it
//! back (checked against the index's vectors by a fingerprint) instead of quantising again.

use std::path::Path;
use std::sync::OnceLock;

use super::{ExactIndex, ExactParams, quant};
use crate::error::{Error, Result};
use crate::index::Metric;

impl ExactIndex<'_> {
    /// Save the quantised copy of a reduced-precision index (built now if it was not) to
    /// `path` (atomically), for [`ExactIndex::with_quantized_file`] to map later instead of
    /// quantising again. The file records a fingerprint of the indexed vectors.
    ///
    /// # Errors
    /// [`Error::Invalid`] at `f32` or for the L2 metric (nothing to save); I/O errors naming
    /// the path.
    pub fn save_quantized(&self, path: impl AsRef<Path>) -> Result<()> {
        let qdb = self.quantized()?.ok_or_else(|| {
            Error::Invalid(format!(
                "no quantised copy to save: precision {} with the {:?} metric (bf16 or int8 with                  the inner product have one)",
                self.params.precision, self.metric
            ))
        })?;
        qdb.save(path.as_ref())
    }

    /// Search with the quantised copy saved in `path` by [`ExactIndex::save_quantized`],
    /// memory-mapped (its codes are paged in as the scan reads them, and shared by every
    /// process mapping the file); the index's precision becomes the copy's. Set other
    /// parameters first: [`ExactIndex::with_params`] at another precision drops the copy.
    ///
    /// # Errors
    /// As [`ExactParams::check`]; a malformed, truncated or corrupt file (checksum); a copy of
    /// other vectors (dimension, count, storage or fingerprint differ), or an index with the L2
    /// metric, naming the path.
    pub fn with_quantized_file(mut self, path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let qdb = quant::QuantDb::open(path)?;
        let rows = self.rows();
        let refuse = |why: String| {
            Error::Core(bitext_core::Error::parse(
                path,
                bitext_core::Location::File,
                why,
            ))
        };
        if self.metric != Metric::InnerProduct {
            return Err(refuse(
                "reduced precision covers the inner product only".into(),
            ));
        }
        if (qdb.dim, qdb.len, qdb.kind) != (rows.dim(), rows.len(), rows.kind()) {
            return Err(refuse(format!(
                "a copy of {} {}-dimensional {} vectors, but the index holds {} {}-dimensional {}                  vectors",
                qdb.len,
                qdb.dim,
                qdb.kind,
                rows.len(),
                rows.dim(),
                rows.kind()
            )));
        }
        if qdb.source != rows.fingerprint(&rows.row_hashes()) {
            return Err(refuse(
                "a copy of other vectors (their fingerprint differs): save it again".into(),
            ));
        }
        let params = ExactParams {
            precision: qdb.precision,
            ..self.params
        };
        params.check()?;
        self.params = params;
        self.quant = OnceLock::new();
        let _ = self.quant.set(qdb);
        Ok(self)
    }

    /// Whether the quantised copy in use is memory-mapped from a saved file.
    #[must_use]
    pub fn quantized_is_mapped(&self) -> bool {
        self.quant.get().is_some_and(|q| q.words.is_mapped())
    }

    /// Bytes of the quantised copy built so far (0 before a search scanned one: under `auto`,
    /// the copy of the precision the measurement chose is built at the first search).
    #[must_use]
    pub fn quantized_bytes(&self) -> usize {
        self.quant.get().map_or(0, quant::QuantDb::bytes)
    }
}
