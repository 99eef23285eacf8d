//! [`RowsView`]: a borrowed row-major matrix of any element type, the one shape behind
//! [`crate::EmbeddingsView`] (`f32` values) and [`crate::HalfView`] (binary16 bits), so that
//! both share their accessors, slicing and finiteness check.

use std::ops::Range;

use crate::embeddings::check_shape;
use crate::error::{Error, Location, Result};

/// A value a [`RowsView`] (and a memory-mapped file of rows) can hold: `f32`, or the bits of an
/// IEEE binary16 value as `u16`.
pub trait Element: bytemuck::Pod + std::fmt::Debug {
    /// Whether the value is a finite number (not NaN or ±∞).
    fn is_finite_value(self) -> bool;

    /// The value as an `f32` (exact for both kinds), for messages.
    fn to_f32(self) -> f32;
}

impl Element for f32 {
    fn is_finite_value(self) -> bool {
        self.is_finite()
    }

    fn to_f32(self) -> f32 {
        self
    }
}

impl Element for u16 {
    fn is_finite_value(self) -> bool {
        self & 0x7C00 != 0x7C00
    }

    fn to_f32(self) -> f32 {
        half::f16::from_bits(self).to_f32()
    }
}

/// A borrowed row-major matrix: `len()` rows of `dim()` values; cheap to copy, slicing into
/// row blocks is free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowsView<'a, T> {
    pub(crate) data: &'a [T],
    pub(crate) dim: usize,
}

impl<'a, T> RowsView<'a, T> {
    /// View `data` (row-major, `dim` values per row).
    ///
    /// # Errors
    /// [`Error::Shape`] when `dim` is 0 or `data.len()` is not a multiple of `dim`.
    pub fn new(data: &'a [T], dim: usize) -> Result<Self> {
        check_shape(data.len(), dim)?;
        Ok(Self { data, dim })
    }

    /// Number of values per row.
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

    /// Row `i`.
    ///
    /// # Panics
    /// When `i >= len()`.
    #[must_use]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    /// Row `i`, or `None` when out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> Option<&'a [T]> {
        (i < self.len()).then(|| self.row(i))
    }

    /// All values, row-major.
    #[must_use]
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    /// Iterate over rows.
    pub fn rows(&self) -> std::slice::ChunksExact<'a, T> {
        self.data.chunks_exact(self.dim)
    }

    /// Rows `range` as a zero-copy view.
    ///
    /// # Panics
    /// When the range is out of bounds.
    #[must_use]
    pub fn slice_rows(&self, range: Range<usize>) -> RowsView<'a, T> {
        assert!(
            range.start <= range.end && range.end <= self.len(),
            "row range {range:?} out of bounds for {} rows",
            self.len()
        );
        RowsView {
            data: &self.data[range.start * self.dim..range.end * self.dim],
            dim: self.dim,
        }
    }
}

impl<T: Element> RowsView<'_, T> {
    /// Check that every value is finite.
    ///
    /// # Errors
    /// [`Error::Value`] naming the first row and column holding NaN or ±∞.
    pub fn check_finite(&self) -> Result<()> {
        match self.data.iter().position(|x| !x.is_finite_value()) {
            None => Ok(()),
            Some(p) => Err(Error::Value {
                at: Location::Row {
                    row: p / self.dim,
                    col: Some(p % self.dim),
                },
                reason: format!("{} is not a finite number", self.data[p].to_f32()),
            }),
        }
    }
}
