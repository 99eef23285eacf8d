//! [`UnitRows`]: embeddings checked (finite, no zero rows) and L2-normalised for cosine search,
//! borrowed without a copy when they already are unit length (as LASER's and
//! `gen_embeddings.py`'s outputs after normalisation), copied and normalised otherwise.

use bitext_core::{Embeddings, EmbeddingsView, normalize_row};

use crate::error::{Error, Result};

/// Rows whose squared norm is within this of 1 count as normalised.
const UNIT_TOLERANCE: f32 = 1e-4;

/// L2-normalised embeddings, borrowed or owned.
#[derive(Debug, Clone)]
pub enum UnitRows<'a> {
    /// The input, already unit length.
    Borrowed(EmbeddingsView<'a>),
    /// A normalised copy.
    Owned(Embeddings),
}

impl<'a> UnitRows<'a> {
    /// Check `v` and normalise it if needed; `side` ("source", "target") names it in errors.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the side, row and column of a non-finite value, or the side
    /// and row of an all-zero row (it has no direction: no cosine is defined).
    pub fn new(v: EmbeddingsView<'a>, side: &str) -> Result<Self> {
        if check_unit(v, side, 0)? {
            return Ok(UnitRows::Borrowed(v));
        }
        let mut e = v.to_owned();
        for r in 0..e.len() {
            normalize_row(e.row_mut(r));
        }
        Ok(UnitRows::Owned(e))
    }

    /// The normalised rows.
    #[must_use]
    pub fn view(&self) -> EmbeddingsView<'_> {
        match self {
            UnitRows::Borrowed(v) => *v,
            UnitRows::Owned(e) => e.view(),
        }
    }

    /// Whether a normalised copy was made.
    #[must_use]
    pub fn copied(&self) -> bool {
        matches!(self, UnitRows::Owned(_))
    }
}

/// Check the rows of `v` as [`UnitRows::new`] does and say whether all are already unit
/// length (then they are searched as they are; otherwise every row is normalised). `first_row`
/// numbers the rows in errors (a shard of a larger matrix), `side` names it. A matrix cut
/// into shards is unit when every shard is.
///
/// # Errors
/// As [`UnitRows::new`].
pub fn check_unit(v: EmbeddingsView<'_>, side: &str, first_row: usize) -> Result<bool> {
    let mut unit = true;
    for (r, row) in v.rows().enumerate() {
        let r = first_row + r;
        if let Some(c) = row.iter().position(|x| !x.is_finite()) {
            return Err(Error::Invalid(format!(
                "{side} embeddings: row {r}, column {c} is {}, not a finite number",
                row[c]
            )));
        }
        let n2: f32 = row.iter().map(|x| x * x).sum();
        if n2 == 0.0 {
            return Err(Error::Invalid(format!(
                "{side} embeddings: row {r} is all zeros: it has no direction, so no cosine"
            )));
        }
        unit &= (n2 - 1.0).abs() <= UNIT_TOLERANCE;
    }
    Ok(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_unit_rows_and_normalises_others() {
        let u = Embeddings::from_rows([[0.6, 0.8], [1.0, 0.0]], 2).unwrap();
        let r = UnitRows::new(u.view(), "source").unwrap();
        assert!(!r.copied());
        assert!(std::ptr::eq(r.view().row(0).as_ptr(), u.row(0).as_ptr()));
        let n = Embeddings::from_rows([[3.0, 4.0], [1.0, 0.0]], 2).unwrap();
        let r = UnitRows::new(n.view(), "source").unwrap();
        assert!(r.copied());
        assert!((r.view().row(0)[1] - 0.8).abs() < 1e-7);
        let z = Embeddings::from_rows([[1.0, 0.0], [0.0, 0.0]], 2).unwrap();
        let e = UnitRows::new(z.view(), "target").unwrap_err().to_string();
        assert!(e.contains("target embeddings: row 1 is all zeros"), "{e}");
        let nan = Embeddings::from_rows([[1.0, f32::INFINITY]], 2).unwrap();
        let e = UnitRows::new(nan.view(), "source").unwrap_err().to_string();
        assert!(e.contains("row 0, column 1 is inf"), "{e}");
    }
}
