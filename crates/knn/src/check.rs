//! Input checks shared by every backend, so that all of them reject bad input the same way and
//! with the same messages.

use bitext_core::{EmbeddingsView, Location};
use rayon::prelude::*;

use crate::error::{Error, Result};

/// Rows checked per parallel task.
const CHUNK_ROWS: usize = 1024;

/// The first bad value of `rows`: (row, column, reason).
fn first_bad(rows: &[f32], dim: usize) -> Option<(usize, Option<usize>, String)> {
    for (row, values) in rows.chunks_exact(dim).enumerate() {
        if let Some(col) = values.iter().position(|x| !x.is_finite()) {
            let reason = format!("{} is not a finite number", values[col]);
            return Some((row, Some(col), reason));
        }
        let sq: f64 = values.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
        if sq > f64::from(f32::MAX) {
            let reason = format!("squared norm {sq:.3e} overflows f32; scale the vectors down");
            return Some((row, None, reason));
        }
    }
    None
}

/// Check that `v` has dimension `dim`, and that every value is finite and every row's squared
/// norm fits in an `f32` (so that no score can be NaN). `what` names the input in errors, which
/// give the first bad row (and column).
pub(crate) fn vectors(dim: usize, v: EmbeddingsView<'_>, what: &'static str) -> Result<()> {
    if v.dim() != dim {
        return Err(Error::Dimension {
            index: dim,
            got: v.dim(),
        });
    }
    let bad = v
        .as_slice()
        .par_chunks(CHUNK_ROWS * dim)
        .enumerate()
        .find_map_first(|(c, rows)| {
            first_bad(rows, dim).map(|(row, col, reason)| (c * CHUNK_ROWS + row, col, reason))
        });
    match bad {
        None => Ok(()),
        Some((row, col, reason)) => Err(Error::Input {
            what,
            source: bitext_core::Error::Value {
                at: Location::Row { row, col },
                reason,
            },
        }),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_first_bad_row_across_chunks() {
        let dim = 3;
        let mut data = vec![0.5f32; (CHUNK_ROWS * 3 + 5) * dim];
        data[(CHUNK_ROWS * 2 + 7) * dim + 1] = f32::NAN;
        data[(CHUNK_ROWS * 3 + 1) * dim] = f32::INFINITY;
        let v = EmbeddingsView::new(&data, dim).unwrap();
        let e = vectors(dim, v, "test vectors").unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "test vectors: invalid value (row {}, column 1): NaN is not a finite number",
                CHUNK_ROWS * 2 + 7
            )
        );
    }
}
