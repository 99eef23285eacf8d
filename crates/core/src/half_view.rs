//! [`HalfView`]: a row-major matrix of IEEE binary16 values (LASER's `--fp16` files) viewed in
//! place, whose rows are widened to `f32` one at a time, where they are read. Widening is
//! exact, so a search over a `HalfView` can return the same results as one over the widened
//! matrix without ever holding it (see `bitext-knn`'s `ExactIndex::over_half`).

use crate::embeddings::normalize_row;
use crate::rows::RowsView;

/// A borrowed row-major matrix of binary16 values (stored as their bits). Its accessors
/// ([`RowsView::len`], [`RowsView::slice_rows`], [`RowsView::check_finite`], …) are those every
/// [`RowsView`] has.
pub type HalfView<'a> = RowsView<'a, u16>;

impl<'a> HalfView<'a> {
    /// The bits of row `i`.
    ///
    /// # Panics
    /// If `i` is out of range (as slice indexing).
    #[must_use]
    pub fn row_bits(&self, i: usize) -> &'a [u16] {
        self.row(i)
    }

    /// All values' bits.
    #[must_use]
    pub fn as_bits(&self) -> &'a [u16] {
        self.as_slice()
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
