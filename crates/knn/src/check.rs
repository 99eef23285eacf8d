//! Input checks shared by every backend, so that all of them reject bad input the same way and
//! with the same messages.

use bitext_core::{EmbeddingsView, Location};

use crate::error::{Error, Result};

/// Check that `v` has dimension `dim`, and that every value is finite and every row's squared
/// norm fits in an `f32` (so that no score can be NaN). `what` names the input in errors.
pub(crate) fn vectors(dim: usize, v: EmbeddingsView<'_>, what: &'static str) -> Result<()> {
    if v.dim() != dim {
        return Err(Error::Dimension {
            index: dim,
            got: v.dim(),
        });
    }
    v.check_finite()
        .map_err(|source| Error::Input { what, source })?;
    for (row, values) in v.rows().enumerate() {
        let sq: f64 = values.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
        if sq > f64::from(f32::MAX) {
            return Err(Error::Input {
                what,
                source: bitext_core::Error::Value {
                    at: Location::Row { row, col: None },
                    reason: format!("squared norm {sq:.3e} overflows f32; scale the vectors down"),
                },
            });
        }
    }
    Ok(())
}

/// Check a search request against an index of `len` vectors of dimension `dim`.
pub(crate) fn search(dim: usize, len: usize, queries: EmbeddingsView<'_>, k: usize) -> Result<()> {
    if queries.dim() != dim {
        return Err(Error::Dimension {
            index: dim,
            got: queries.dim(),
        });
    }
    if k == 0 {
        return Err(Error::Invalid("k must be at least 1".into()));
    }
    if k > len {
        return Err(Error::KTooLarge { k, len });
    }
    if queries.is_empty() {
        return Err(Error::Invalid("no query vectors to search for".into()));
    }
    vectors(dim, queries, "query vectors")
}
