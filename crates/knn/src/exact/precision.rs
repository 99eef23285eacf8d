//! Which precision and kernel a search of an [`ExactIndex`] runs at ([`Precision::resolve`]
//! with the index's parameters), its quantised copy, built at the first search that scans one,
//! and the kernel and note its [`Certification`] reports.

use super::{ExactIndex, quant};
use crate::error::Result;
use crate::exact::{Certification, Precision};
use crate::index::{KnnIndex, Metric};

impl ExactIndex<'_> {
    /// What a search of `queries` queries runs at on this CPU ([`Precision::resolve`] with
    /// this index's parameters).
    pub(super) fn resolved(&self, queries: usize) -> quant::Resolved {
        self.params
            .precision
            .resolve(self.params.kernel, self.metric, self.len(), queries)
    }

    /// The precision of this index's quantised copy: the parameters' when explicit, the
    /// CPU's fastest for `Auto`; `None` when no search of the index scans a copy (`f32`, the
    /// L2 metric, `Auto` on a CPU without a fast kernel).
    pub(super) fn copy_precision(&self) -> Option<Precision> {
        if self.metric != Metric::InnerProduct {
            return None;
        }
        match self.params.precision {
            Precision::F32 => None,
            Precision::Auto => {
                let r = self.params.precision.resolve(
                    self.params.kernel,
                    self.metric,
                    usize::MAX,
                    usize::MAX,
                );
                (r.precision != Precision::F32).then_some(r.precision)
            }
            p => Some(p),
        }
    }

    /// The quantised copy of the vectors ([`ExactIndex::copy_precision`]; built now if it was
    /// not).
    ///
    /// # Errors
    /// [`Error::Invalid`] for int8 above 65,536 dimensions.
    pub(super) fn quantized(&self) -> Result<Option<&quant::QuantDb>> {
        let Some(precision) = self.copy_precision() else {
            return Ok(None);
        };
        if self.quant.get().is_none() {
            let q = quant::QuantDb::build(precision, self.rows())?;
            // A concurrent search may have set it first: either copy is the same.
            let _ = self.quant.set(q);
        }
        Ok(self.quant.get())
    }

    /// The quantised copy a search of `queries` queries scans, if it scans one, and what the
    /// search resolved.
    pub(super) fn copy_for(
        &self,
        queries: usize,
    ) -> Result<(Option<&quant::QuantDb>, quant::Resolved)> {
        let r = self.resolved(queries);
        if r.precision == Precision::F32 {
            return Ok((None, r));
        }
        let copy = self.quantized()?;
        Ok((copy.filter(|q| q.precision == r.precision), r))
    }

    /// The name of the kernel that scans at `precision`.
    pub(super) fn kernel_name(&self, precision: Precision) -> &'static str {
        let Ok(kernel) = self.params.kernel.resolve() else {
            return "";
        };
        if precision == Precision::F32 || precision == Precision::Auto {
            kernel.name()
        } else {
            quant::QuantKernel::for_kernel(kernel, precision).name(precision)
        }
    }

    /// The counts of an `f32` search of `n` vectors (exact by construction), with what was
    /// asked for.
    pub(super) fn in_f32(&self, n: usize, r: quant::Resolved) -> Certification {
        Certification::exact(n).ran(
            self.params.precision,
            self.kernel_name(Precision::F32),
            r.note,
        )
    }

    /// `c` with what was asked for and the kernel that scanned.
    pub(super) fn reduced(&self, c: Certification) -> Certification {
        c.ran(self.params.precision, self.kernel_name(c.precision), None)
    }
}
