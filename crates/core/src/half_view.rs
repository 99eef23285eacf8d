//! [`HalfView`]: a row-major matrix of IEEE binary16 values (LASER's `--fp16` files) viewed in
//! place, whose rows are widened to `f32` one at a time, where they are read. Widening is
//! exact, so a search over a `HalfView` can return the same results as one over the widened
//! matrix without ever holding it (see `bitext-knn`'s `ExactIndex::over_half`).

use crate::embeddings::{check_shape, normalize_row};
use crate::error::{Error, Location, Result};

/// A borrowed row-major matrix of binary16 values (stored as their bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HalfView<'a> {
    data: &'a [u16],
    dim: usize,
}

impl<'a> HalfView<'a> {
    /// View `data` (the bits of binary16 values, row-major, `dim` per row).
    ///
    /// # Errors
    /// [`Error::Shape`] when `dim` is 0 or `data.len()` is not a multiple of `dim`.
    pub fn new(data: &'a [u16], dim: usize) -> Result<Self> {
        check_shape(data.len(), dim)?;
        Ok(Self { data, dim })
    }

    /// Dimension.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data.len() / self.dim
    }

    /// Whether there are no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The bits of row `i`.
    ///
    /// # Panics
    /// If `i` is out of range (as slice indexing).
    #[must_use]
    pub fn row_bits(&self, i: usize) -> &'a [u16] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// All values' bits.
    #[must_use]
    pub fn as_bits(&self) -> &'a [u16] {
        self.data
    }

    /// Rows `range` as a view of their own.
    ///
    /// # Panics
    /// If the range is out of bounds.
    #[must_use]
    pub fn slice_rows(&self, range: std::ops::Range<usize>) -> HalfView<'a> {
        HalfView {
            data: &self.data[range.start * self.dim..range.end * self.dim],
            dim: self.dim,
        }
    }

    /// Row `i` widened into `out` (exactly: every binary16 value is an `f32`), then scaled to
    /// unit norm with [`normalize_row`] when `normalize` is set (a zero row stays zero).
    ///
    /// # Panics
    /// If `i` is out of range or `out` is not `dim` long.
    pub fn row_into(&self, i: usize, normalize: bool, out: &mut [f32]) {
        assert_eq!(out.len(), self.dim, "output row has the wrong length");
        self.widen_into(i, out);
        if normalize {
            normalize_row(out);
        }
    }

    /// Rows `i..i + out.len() / dim` widened into `out` (with F16C where the CPU has it).
    ///
    /// # Panics
    /// If the rows are out of range or `out` is not whole rows long.
    pub fn widen_into(&self, i: usize, out: &mut [f32]) {
        use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};
        assert!(
            out.len().is_multiple_of(self.dim),
            "output is not whole rows"
        );
        let bits = &self.data[i * self.dim..i * self.dim + out.len()];
        bits.reinterpret_cast::<half::f16>()
            .convert_to_f32_slice(out);
    }

    /// Check that every value is finite.
    ///
    /// # Errors
    /// [`Error::Value`] naming the first row and column holding NaN or ±∞.
    pub fn check_finite(&self) -> Result<()> {
        let dim = self.dim;
        let bad = self
            .data
            .iter()
            .position(|&h| h & 0x7C00 == 0x7C00)
            .map(|p| (p / dim, p % dim, self.data[p]));
        match bad {
            None => Ok(()),
            Some((row, col, h)) => Err(Error::Value {
                at: Location::Row {
                    row,
                    col: Some(col),
                },
                reason: format!(
                    "{} is not a finite number",
                    half::f16::from_bits(h).to_f32()
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widens_exactly_normalises_and_finds_non_finite_values() {
        let vals = [1.0f32, -2.0, 0.5, 3.0, 0.0, 0.0];
        let bits: Vec<u16> = vals
            .iter()
            .map(|&x| half::f16::from_f32(x).to_bits())
            .collect();
        let v = HalfView::new(&bits, 2).unwrap();
        assert_eq!((v.len(), v.dim()), (3, 2));
        let mut out = [0.0; 2];
        v.row_into(0, false, &mut out);
        assert_eq!(out, [1.0, -2.0]);
        v.row_into(1, true, &mut out);
        let mut want = [0.5f32, 3.0];
        normalize_row(&mut want);
        assert_eq!(out, want);
        v.row_into(2, true, &mut out);
        assert_eq!(out, [0.0, 0.0]);
        assert!(v.check_finite().is_ok());
        assert_eq!(v.slice_rows(1..3).row_bits(0), &bits[2..4]);
        let mut bad = bits.clone();
        bad[3] = half::f16::NAN.to_bits();
        let err = HalfView::new(&bad, 2).unwrap().check_finite().unwrap_err();
        assert!(err.to_string().contains("row 1"), "{err}");
        assert!(HalfView::new(&bits, 4).is_err() && HalfView::new(&bits, 0).is_err());
    }
}
