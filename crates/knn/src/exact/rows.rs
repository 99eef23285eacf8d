//! The rows an exact search reads: an `f32` matrix (owned, borrowed or memory-mapped) or a
//! binary16 matrix (LASER's `--fp16` files) widened to `f32` a few rows at a time where they are
//! read, and optionally scaled to unit norm on the way. Widening is exact, and normalising a
//! widened row is the same [`normalize_row`] the `f32` path applies to a whole matrix, so a
//! search over binary16 rows returns exactly what a search over the widened (normalised)
//! matrix returns, without ever holding that matrix.

use bitext_core::{Embeddings, EmbeddingsView, HalfView};

use crate::error::Result;

/// Rows widened at a time by a scan over binary16 rows (a block of 512 KiB at d = 1024, so
/// that it stays in the L2 cache beside the packed queries).
pub(crate) const WIDEN_ROWS: usize = 128;

/// A matrix of database (or query) rows.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rows<'a> {
    /// `f32` rows, read in place.
    F32(EmbeddingsView<'a>),
    /// binary16 rows, widened (and normalised, with `inv`) where read.
    Half {
        /// The rows.
        v: HalfView<'a>,
        /// Each row's [`bitext_core::unit_scale`] (1 for a zero row), when the rows are
        /// normalised: multiplying by it is `normalize_row`, bit for bit.
        inv: Option<&'a [f32]>,
    },
}

impl<'a> From<EmbeddingsView<'a>> for Rows<'a> {
    fn from(v: EmbeddingsView<'a>) -> Self {
        Rows::F32(v)
    }
}

impl<'a> Rows<'a> {
    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        match self {
            Rows::F32(v) => v.len(),
            Rows::Half { v, .. } => v.len(),
        }
    }

    /// Dimension.
    pub(crate) fn dim(&self) -> usize {
        match self {
            Rows::F32(v) => v.dim(),
            Rows::Half { v, .. } => v.dim(),
        }
    }

    /// The `f32` matrix, when the rows are `f32`.
    pub(crate) fn as_f32(&self) -> Option<EmbeddingsView<'a>> {
        match self {
            Rows::F32(v) => Some(*v),
            Rows::Half { .. } => None,
        }
    }

    /// Row `i` as `f32`: in place, or widened into `buf` (`dim` long).
    pub(crate) fn row<'s>(&self, i: usize, buf: &'s mut [f32]) -> &'s [f32]
    where
        'a: 's,
    {
        match self {
            Rows::F32(v) => v.row(i),
            Rows::Half { v, inv } => {
                v.widen_into(i, buf);
                if let Some(inv) = inv {
                    buf.iter_mut().for_each(|x| *x *= inv[i]);
                }
                buf
            }
        }
    }

    /// Rows `r0..r1` as `f32`: in place, or widened into `buf` (resized).
    pub(crate) fn block<'s>(&self, r0: usize, r1: usize, buf: &'s mut Vec<f32>) -> &'s [f32]
    where
        'a: 's,
    {
        match self {
            Rows::F32(v) => v.slice_rows(r0..r1).as_slice(),
            Rows::Half { v, inv } => {
                let d = v.dim();
                buf.resize((r1 - r0) * d, 0.0);
                v.widen_into(r0, buf);
                if let Some(inv) = inv {
                    for (out, &s) in buf.chunks_exact_mut(d).zip(&inv[r0..r1]) {
                        out.iter_mut().for_each(|x| *x *= s);
                    }
                }
                buf
            }
        }
    }

    /// Rows `ids` as a matrix of their own.
    pub(crate) fn gather(&self, ids: impl IntoIterator<Item = usize>) -> Result<Embeddings> {
        let d = self.dim();
        let mut data = Vec::new();
        let mut buf = vec![0.0; d];
        for i in ids {
            data.extend_from_slice(self.row(i, &mut buf));
        }
        Ok(Embeddings::new(data, d)?)
    }

    /// A hash of row `i`'s stored bits (equal rows, equal hashes).
    pub(crate) fn hash_row(&self, i: usize) -> u64 {
        let mix = |h: u64, bits: u64| (h.rotate_left(5) ^ bits).wrapping_mul(0x517c_c1b7_2722_0a95);
        match self {
            Rows::F32(v) => v
                .row(i)
                .iter()
                .fold(0u64, |h, x| mix(h, u64::from(x.to_bits()))),
            Rows::Half { v, .. } => v
                .row_bits(i)
                .iter()
                .fold(0u64, |h, &x| mix(h, u64::from(x))),
        }
    }

    /// What the rows are stored as: `f32`, `f16`, or `f16-normalized` (the vectors differ).
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Rows::F32(_) => "f32",
            Rows::Half { inv: None, .. } => "f16",
            Rows::Half { inv: Some(_), .. } => "f16-normalized",
        }
    }

    /// [`Rows::hash_row`] of every row, in parallel.
    pub(crate) fn row_hashes(&self) -> Vec<u64> {
        use rayon::prelude::*;
        (0..self.len())
            .into_par_iter()
            .map(|r| self.hash_row(r))
            .collect()
    }

    /// A fingerprint of the whole matrix from its rows' hashes ([`Rows::row_hashes`]): a saved
    /// quantised copy records it, and is refused for other vectors.
    pub(crate) fn fingerprint(&self, hashes: &[u64]) -> u64 {
        let mix = |h: u64, x: u64| (h.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let kind = self.kind().bytes().fold(0u64, |h, b| mix(h, u64::from(b)));
        let h = mix(mix(kind, self.len() as u64), self.dim() as u64);
        hashes.iter().fold(h, |h, &x| mix(h, x))
    }

    /// Whether rows `a` and `b` hold the same bits (hence the same `f32` vector, and the same
    /// score against any query).
    pub(crate) fn same(&self, a: usize, b: usize) -> bool {
        match self {
            Rows::F32(v) => v
                .row(a)
                .iter()
                .zip(v.row(b))
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            Rows::Half { v, .. } => v.row_bits(a) == v.row_bits(b),
        }
    }
}
