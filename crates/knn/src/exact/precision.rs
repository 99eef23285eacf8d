//! What a search of an [`ExactIndex`] runs at: the precision and kernel of its scan
//! ([`Precision::resolve`] with the index's parameters, and for `Auto` the measured choice of
//! the index's [`Tuner`]), its quantised copy, built at the first search that scans one, and the
//! kernel, note and `auto` report its [`Certification`] gives.

use bitext_core::EmbeddingsView;

use super::auto::{AutoReport, Tuner};
use super::{ExactIndex, Kernel, quant};
use crate::error::Result;
use crate::exact::{Certification, Precision};
use crate::index::Metric;

/// How a search runs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    /// Precision of the scan (never `Auto`).
    pub(super) precision: Precision,
    /// The kernel asked for (the parameters', or the measured candidate's).
    pub(super) kernel: Kernel,
    /// Why an explicit precision runs in `f32`.
    pub(super) note: Option<&'static str>,
    /// How `auto` chose, when it was asked for.
    pub(super) auto: Option<AutoReport>,
}

impl ExactIndex<'_> {
    /// How a search of `queries` for `k` neighbours (`k_back`: both ways) runs on this CPU.
    ///
    /// # Errors
    /// As the sample searches of a measurement.
    pub(super) fn plan(
        &self,
        queries: EmbeddingsView<'_>,
        k: usize,
        k_back: Option<usize>,
    ) -> Result<Plan> {
        let r = self
            .params
            .precision
            .resolve(self.params.kernel, self.metric);
        if r.precision != Precision::Auto {
            let asked_auto = self.params.precision == Precision::Auto;
            return Ok(Plan {
                precision: r.precision,
                kernel: self.params.kernel,
                note: r.note,
                auto: asked_auto.then(AutoReport::only_f32),
            });
        }
        let tuner = self.tuner.as_deref().unwrap_or_else(|| Tuner::global());
        let report = tuner.choose_for(self, queries, k, k_back)?;
        Ok(Plan {
            precision: report.chosen.precision,
            kernel: report.chosen.kernel,
            note: None,
            auto: Some(report),
        })
    }

    /// The precision of this index's quantised copy when the parameters name one (`bf16` or
    /// `int8` with the inner product); `Auto` builds one only when a search chooses it.
    pub(super) fn copy_precision(&self) -> Option<Precision> {
        match self.params.precision {
            Precision::F32 | Precision::Auto => None,
            _ if self.metric != Metric::InnerProduct => None,
            p => Some(p),
        }
    }

    /// The quantised copy at `precision`, built now if there is none; `None` when the index
    /// already holds a copy at another precision (a mapped file's).
    ///
    /// # Errors
    /// [`Error::Invalid`] for int8 above 65,536 dimensions.
    pub(super) fn quantized_at(&self, precision: Precision) -> Result<Option<&quant::QuantDb>> {
        if self.quant.get().is_none() {
            let q = quant::QuantDb::build(precision, self.rows())?;
            // A concurrent search may have set it first: either copy is the same.
            let _ = self.quant.set(q);
        }
        Ok(self.quant.get().filter(|q| q.precision == precision))
    }

    /// The quantised copy of the parameters' precision ([`ExactIndex::copy_precision`]).
    ///
    /// # Errors
    /// As [`ExactIndex::quantized_at`].
    pub(super) fn quantized(&self) -> Result<Option<&quant::QuantDb>> {
        match self.copy_precision() {
            Some(p) => self.quantized_at(p),
            None => Ok(None),
        }
    }

    /// The quantised copy a search planned as `plan` scans, if it scans one.
    pub(super) fn copy_for(&self, plan: &Plan) -> Result<Option<&quant::QuantDb>> {
        if plan.precision == Precision::F32 || self.metric != Metric::InnerProduct {
            return Ok(None);
        }
        self.quantized_at(plan.precision)
    }

    /// The name of the kernel that scans at `precision` when `kernel` is asked for.
    pub(super) fn kernel_name(kernel: Kernel, precision: Precision) -> &'static str {
        let Ok(kernel) = kernel.resolve() else {
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
    pub(super) fn in_f32(&self, n: usize, plan: &Plan) -> Certification {
        Certification::exact(n).ran(
            self.params.precision,
            Self::kernel_name(plan.kernel, Precision::F32),
            plan.note,
            plan.auto,
        )
    }

    /// `c` with what was asked for, the kernel that scanned and how `auto` chose.
    pub(super) fn reduced(&self, c: Certification, plan: &Plan) -> Certification {
        c.ran(
            self.params.precision,
            Self::kernel_name(plan.kernel, c.precision),
            None,
            plan.auto,
        )
    }
}
