//! Row-major `f32` embedding matrices: [`Embeddings`] (owned) and [`EmbeddingsView`] (borrowed,
//! zero-copy). Memory-mapped files give an [`EmbeddingsView`] too (see [`crate::MappedEmbeddings`]).

use std::ops::Range;

use crate::error::{Error, Result};
use crate::rows::RowsView;

/// An owned row-major matrix of `f32` sentence (or word) embeddings: `len()` rows of `dim()`
/// values each.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    data: Vec<f32>,
    dim: usize,
}

/// A borrowed row-major matrix of embeddings; cheap to copy, slicing into row blocks is free.
/// Its accessors ([`RowsView::row`], [`RowsView::slice_rows`], [`RowsView::check_finite`], …)
/// are those every [`RowsView`] has.
pub type EmbeddingsView<'a> = RowsView<'a, f32>;

pub(crate) fn check_shape(len: usize, dim: usize) -> Result<()> {
    if dim == 0 {
        return Err(Error::Shape(
            "embedding dimension must be at least 1".into(),
        ));
    }
    if !len.is_multiple_of(dim) {
        return Err(Error::Shape(format!(
            "{len} values do not make whole rows of dimension {dim} ({} left over)",
            len % dim
        )));
    }
    Ok(())
}

impl Embeddings {
    /// Wrap `data` (row-major, `dim` values per row).
    ///
    /// # Errors
    /// [`Error::Shape`] when `dim` is 0 or `data.len()` is not a multiple of `dim`.
    pub fn new(data: Vec<f32>, dim: usize) -> Result<Self> {
        check_shape(data.len(), dim)?;
        Ok(Self { data, dim })
    }

    /// An empty matrix of dimension `dim` with room for `rows` rows.
    ///
    /// # Errors
    /// [`Error::Shape`] when `dim` is 0.
    pub fn with_capacity(dim: usize, rows: usize) -> Result<Self> {
        check_shape(0, dim)?;
        Ok(Self {
            data: Vec::with_capacity(dim.saturating_mul(rows)),
            dim,
        })
    }

    /// A `len × dim` matrix of zeros.
    ///
    /// # Errors
    /// [`Error::Shape`] when `dim` is 0 or `len × dim` overflows.
    pub fn zeros(len: usize, dim: usize) -> Result<Self> {
        check_shape(0, dim)?;
        let n = len
            .checked_mul(dim)
            .ok_or_else(|| Error::Shape(format!("{len} rows × {dim} overflows")))?;
        Ok(Self {
            data: vec![0.0; n],
            dim,
        })
    }

    /// Build from rows, each of length `dim`.
    ///
    /// # Errors
    /// [`Error::Shape`] when a row's length differs from `dim` (the error names the row).
    pub fn from_rows<I, R>(rows: I, dim: usize) -> Result<Self>
    where
        I: IntoIterator<Item = R>,
        R: AsRef<[f32]>,
    {
        let mut out = Self::with_capacity(dim, 0)?;
        for row in rows {
            out.push_row(row.as_ref())?;
        }
        Ok(out)
    }

    /// Append one row.
    ///
    /// # Errors
    /// [`Error::Shape`] when `row.len() != dim()`.
    pub fn push_row(&mut self, row: &[f32]) -> Result<()> {
        if row.len() != self.dim {
            return Err(Error::Shape(format!(
                "row {} has {} values, expected dimension {}",
                self.len(),
                row.len(),
                self.dim
            )));
        }
        self.data.extend_from_slice(row);
        Ok(())
    }

    /// Append all rows of `other`.
    ///
    /// # Errors
    /// [`Error::Shape`] when the dimensions differ.
    pub fn extend_from_view(&mut self, other: EmbeddingsView<'_>) -> Result<()> {
        if other.dim != self.dim {
            return Err(Error::Shape(format!(
                "cannot append dimension {} rows to a dimension {} matrix",
                other.dim, self.dim
            )));
        }
        self.data.extend_from_slice(other.data);
        Ok(())
    }

    /// A borrowed view of the whole matrix.
    #[must_use]
    pub fn view(&self) -> EmbeddingsView<'_> {
        EmbeddingsView {
            data: &self.data,
            dim: self.dim,
        }
    }

    /// Number of values per row.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.view().dim()
    }

    /// Number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.view().len()
    }

    /// Whether there are no rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.view().is_empty()
    }

    /// Row `i`.
    ///
    /// # Panics
    /// When `i >= len()`, like slice indexing; use [`Embeddings::get`] to avoid that.
    #[must_use]
    pub fn row(&self, i: usize) -> &[f32] {
        self.view().row(i)
    }

    /// Row `i`, or `None` when out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&[f32]> {
        self.view().get(i)
    }

    /// Row `i`, mutable.
    ///
    /// # Panics
    /// When `i >= len()`.
    pub fn row_mut(&mut self, i: usize) -> &mut [f32] {
        let d = self.dim;
        &mut self.data[i * d..(i + 1) * d]
    }

    /// All values, row-major.
    #[must_use]
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }

    /// All values, row-major, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        &mut self.data
    }

    /// The values, row-major.
    #[must_use]
    pub fn into_vec(self) -> Vec<f32> {
        self.data
    }

    /// Iterate over rows.
    pub fn rows(&self) -> std::slice::ChunksExact<'_, f32> {
        self.view().rows()
    }

    /// Rows `range` as a zero-copy view.
    ///
    /// # Panics
    /// When the range is out of bounds.
    #[must_use]
    pub fn slice_rows(&self, range: Range<usize>) -> EmbeddingsView<'_> {
        self.view().slice_rows(range)
    }

    /// Consecutive zero-copy blocks of at most `block_rows` rows, with their first row index.
    pub fn blocks(&self, block_rows: usize) -> Blocks<'_> {
        self.view().blocks(block_rows)
    }

    /// Scale every row to unit L2 norm, in place. Rows whose norm is zero stay zero; their
    /// number is returned so that callers can report them.
    pub fn normalize_l2(&mut self) -> usize {
        let mut zero = 0;
        for row in self.data.chunks_exact_mut(self.dim) {
            if !normalize_row(row) {
                zero += 1;
            }
        }
        zero
    }

    /// Check that every value is finite.
    ///
    /// # Errors
    /// [`Error::Value`] naming the first row and column holding NaN or ±∞.
    pub fn check_finite(&self) -> Result<()> {
        self.view().check_finite()
    }
}

/// Scale `row` to unit L2 norm in place (accumulating in `f64`); returns `false` (and leaves the
/// row unchanged) when its norm is zero.
pub fn normalize_row(row: &mut [f32]) -> bool {
    let Some(inv) = unit_scale(row) else {
        return false;
    };
    for x in row.iter_mut() {
        *x *= inv;
    }
    true
}

/// The factor [`normalize_row`] multiplies `row` by (`1 / ‖row‖`, the norm accumulated in
/// `f64`), or `None` for a zero row: multiplying each value by it gives the normalised row bit
/// for bit, so a caller can keep the factors and normalise rows later, one at a time.
#[must_use]
pub fn unit_scale(row: &[f32]) -> Option<f32> {
    let norm = row
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt();
    (norm != 0.0).then(|| (1.0 / norm) as f32)
}

impl<'a> EmbeddingsView<'a> {
    /// Consecutive zero-copy blocks of at most `block_rows` rows (at least 1), with the index of
    /// each block's first row.
    pub fn blocks(&self, block_rows: usize) -> Blocks<'a> {
        Blocks {
            view: *self,
            block_rows: block_rows.max(1),
            next: 0,
        }
    }

    /// Copy into an owned matrix.
    #[must_use]
    pub fn to_owned(&self) -> Embeddings {
        Embeddings {
            data: self.data.to_vec(),
            dim: self.dim,
        }
    }

    /// The rows whose values are all zero (e.g. sentences without a known word), in order.
    #[must_use]
    pub fn zero_rows(&self) -> Vec<usize> {
        self.rows()
            .enumerate()
            .filter(|(_, r)| r.iter().all(|&x| x == 0.0))
            .map(|(i, _)| i)
            .collect()
    }

    /// A copy without the rows listed in `skip` (sorted, out-of-range entries ignored), and for
    /// each row of the copy the row of `self` it came from.
    ///
    /// ```
    /// use bitext_core::Embeddings;
    /// let e = Embeddings::from_rows([[1.0, 0.0], [0.0, 0.0], [0.5, 0.5]], 2).unwrap();
    /// let v = e.view();
    /// assert_eq!(v.zero_rows(), vec![1]);
    /// let (kept, rows) = v.without_rows(&v.zero_rows());
    /// assert_eq!((kept.len(), rows), (2, vec![0, 2]));
    /// assert_eq!(kept.row(1), &[0.5, 0.5]);
    /// ```
    #[must_use]
    pub fn without_rows(&self, skip: &[usize]) -> (Embeddings, Vec<usize>) {
        let keep: Vec<usize> = (0..self.len())
            .filter(|i| skip.binary_search(i).is_err())
            .collect();
        let mut data = Vec::with_capacity(keep.len() * self.dim);
        for &i in &keep {
            data.extend_from_slice(self.row(i));
        }
        (
            Embeddings {
                data,
                dim: self.dim,
            },
            keep,
        )
    }
}

impl<'a> From<&'a Embeddings> for EmbeddingsView<'a> {
    fn from(e: &'a Embeddings) -> Self {
        e.view()
    }
}

/// Iterator over row blocks of a matrix, see [`EmbeddingsView::blocks`].
#[derive(Debug, Clone)]
pub struct Blocks<'a> {
    view: EmbeddingsView<'a>,
    block_rows: usize,
    next: usize,
}

impl<'a> Iterator for Blocks<'a> {
    type Item = (usize, EmbeddingsView<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let n = self.view.len();
        if self.next >= n {
            return None;
        }
        let start = self.next;
        let end = (start + self.block_rows).min(n);
        self.next = end;
        Some((start, self.view.slice_rows(start..end)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self
            .view
            .len()
            .saturating_sub(self.next)
            .div_ceil(self.block_rows);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Blocks<'_> {}

#[cfg(test)]
impl Embeddings {
    /// A `rows × dim` matrix of standard normal values drawn from `seed` (for tests).
    pub(crate) fn random(rows: usize, dim: usize, seed: u64) -> Self {
        let mut rng = crate::Rng::seed(seed);
        Self::new((0..rows * dim).map(|_| rng.normal() as f32).collect(), dim).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_checks() {
        assert!(Embeddings::new(vec![0.0; 6], 4).is_err());
        assert!(Embeddings::new(vec![], 0).is_err());
        let e = Embeddings::new(vec![0.0; 6], 3).unwrap();
        assert_eq!((e.len(), e.dim()), (2, 3));
        assert!(Embeddings::from_rows([vec![1.0, 2.0], vec![3.0]], 2).is_err());
    }

    #[test]
    fn rows_slices_and_blocks() {
        let e = Embeddings::from_rows((0..5).map(|i| [i as f32, -(i as f32)]), 2).unwrap();
        assert_eq!(e.row(3), &[3.0, -3.0]);
        assert_eq!(e.get(5), None);
        let s = e.slice_rows(1..4);
        assert_eq!(s.len(), 3);
        assert_eq!(s.row(0), &[1.0, -1.0]);
        let blocks: Vec<_> = e.blocks(2).map(|(i, b)| (i, b.len())).collect();
        assert_eq!(blocks, vec![(0, 2), (2, 2), (4, 1)]);
        assert_eq!(e.blocks(2).len(), 3);
        // Zero-copy: the block points into the same memory.
        assert!(std::ptr::eq(s.row(0).as_ptr(), e.row(1).as_ptr()));
    }

    #[test]
    fn normalize_l2_unit_rows_and_zero_rows() {
        let mut e = Embeddings::from_rows([[3.0, 4.0], [0.0, 0.0], [1.0, 0.0]], 2).unwrap();
        assert_eq!(e.normalize_l2(), 1);
        assert!((e.row(0)[0] - 0.6).abs() < 1e-7 && (e.row(0)[1] - 0.8).abs() < 1e-7);
        assert_eq!(e.row(1), &[0.0, 0.0]);
        assert_eq!(e.row(2), &[1.0, 0.0]);
    }

    #[test]
    fn check_finite_names_row_and_column() {
        let e = Embeddings::from_rows([[1.0, 2.0], [3.0, f32::NAN]], 2).unwrap();
        let err = e.check_finite().unwrap_err().to_string();
        assert!(err.contains("row 1, column 1"), "{err}");
        let e = Embeddings::from_rows([[1.0, f32::INFINITY]], 2).unwrap();
        assert!(e.check_finite().is_err());
    }
}
