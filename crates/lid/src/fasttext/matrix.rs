//! fastText's two matrices: dense (`densematrix.cc`) and product-quantized (`quantmatrix.cc`
//! over `productquantizer.cc`), read from a model file, with the two operations prediction
//! needs in fastText's float arithmetic: adding a row to a vector and a row's dot product.

use crate::error::Result;

use super::read::Reader;

/// Centroids per sub-quantizer (fastText's `ksub_`, 8-bit codes).
const KSUB: usize = 256;

/// Largest number of columns (the model's `dim`) read; lid.176 has 16.
pub(super) const MAX_DIM: i64 = 1 << 16;

/// A product quantizer: `dim` columns cut into `nsubq` blocks of `dsub` (the last `lastdsub`),
/// each with 256 centroids.
#[derive(Debug)]
pub(super) struct ProductQuantizer {
    nsubq: usize,
    dsub: usize,
    lastdsub: usize,
    centroids: Vec<f32>,
}

impl ProductQuantizer {
    fn read(r: &mut Reader<'_>, dim: usize, what: &str) -> Result<Self> {
        let at = r.pos();
        let pq_dim = r.i32(what)?;
        let nsubq = r.i32(what)?;
        let dsub = r.i32(what)?;
        let lastdsub = r.i32(what)?;
        let bad = |reason: String| Err(r.error_at(at, format!("{what}: {reason}")));
        if i64::from(pq_dim) != dim as i64 {
            return bad(format!("dimension {pq_dim}, the matrix has {dim} columns"));
        }
        if dsub < 1 || i64::from(dsub) > dim as i64 {
            return bad(format!("sub-vector size {dsub} for dimension {dim}"));
        }
        let dsub = dsub as usize;
        let (want_nsubq, want_last) = (dim.div_ceil(dsub), (dim - 1) % dsub + 1);
        if i64::from(nsubq) != want_nsubq as i64 || i64::from(lastdsub) != want_last as i64 {
            return bad(format!(
                "{nsubq} sub-quantizers of {dsub} (last {lastdsub}) do not cut {dim} columns"
            ));
        }
        let centroids = r.f32s(dim * KSUB, what)?;
        Ok(Self {
            nsubq: want_nsubq,
            dsub,
            lastdsub: want_last,
            centroids,
        })
    }

    /// Centroid `i` of sub-quantizer `m` (`get_centroids`).
    fn centroid(&self, m: usize, i: u8) -> &[f32] {
        let i = usize::from(i);
        if m == self.nsubq - 1 {
            let at = m * KSUB * self.dsub + i * self.lastdsub;
            &self.centroids[at..at + self.lastdsub]
        } else {
            let at = (m * KSUB + i) * self.dsub;
            &self.centroids[at..at + self.dsub]
        }
    }
}

/// A matrix of a fastText model.
#[derive(Debug)]
pub(super) enum Matrix {
    /// Row-major `f32`.
    Dense {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// `rows × cols` values.
        data: Vec<f32>,
    },
    /// Product-quantized rows, optionally with their norms quantized apart.
    Quant {
        /// Rows.
        rows: usize,
        /// The quantizer of the (normalised) rows.
        pq: Box<ProductQuantizer>,
        /// `nsubq` codes per row.
        codes: Vec<u8>,
        /// The norms: one code per row and a one-dimensional quantizer (`qnorm`).
        norms: Option<(Vec<u8>, Box<ProductQuantizer>)>,
        /// Each row's terms of `add_row_to` (norm times centroid), decoded once
        /// ([`Matrix::decode_rows`]): the same `f32` products, without the look-ups.
        decoded: Option<Vec<f32>>,
    },
}

impl Matrix {
    /// Read a matrix of `cols` columns (`what` names it in errors): a `QuantMatrix` when
    /// `quantized`, else a `DenseMatrix`.
    pub(super) fn read(
        r: &mut Reader<'_>,
        quantized: bool,
        cols: usize,
        what: &str,
    ) -> Result<Self> {
        if quantized {
            Self::read_quant(r, cols, what)
        } else {
            Self::read_dense(r, cols, what)
        }
    }

    fn read_shape(r: &mut Reader<'_>, cols: usize, what: &str) -> Result<usize> {
        let at = r.pos();
        let m = r.i64(what)?;
        let n = r.i64(what)?;
        if n != cols as i64 {
            return Err(r.error_at(
                at,
                format!("{what} has {n} columns, the model's dim is {cols}"),
            ));
        }
        r.count(
            at,
            m,
            0,
            i64::from(i32::MAX),
            &format!("{what}'s row count"),
        )
    }

    fn read_dense(r: &mut Reader<'_>, cols: usize, what: &str) -> Result<Self> {
        let rows = Self::read_shape(r, cols, what)?;
        let data = r.f32s(rows.saturating_mul(cols), what)?;
        Ok(Matrix::Dense { rows, cols, data })
    }

    fn read_quant(r: &mut Reader<'_>, cols: usize, what: &str) -> Result<Self> {
        let qnorm = r.bool(&format!("{what}'s qnorm flag"))?;
        let rows = Self::read_shape(r, cols, what)?;
        let at = r.pos();
        let codesize = r.i32(what)?;
        let codesize = r.count(at, i64::from(codesize), 0, i64::from(i32::MAX), "code size")?;
        // One code per row and sub-quantizer, and at most one sub-quantizer per column: what
        // the quantizer after the codes must then confirm.
        let per_row = codesize.checked_div(rows).unwrap_or(0);
        if per_row * rows != codesize || per_row > cols || (rows > 0 && per_row == 0) {
            return Err(r.error_at(at, format!("{what}: {codesize} codes for {rows} rows")));
        }
        let codes = r.take(codesize, &format!("{what}'s codes"))?.to_vec();
        let pq = ProductQuantizer::read(r, cols, &format!("{what}'s quantizer"))?;
        if rows.checked_mul(pq.nsubq) != Some(codesize) {
            return Err(r.error_at(
                at,
                format!(
                    "{what}: {codesize} codes for {rows} rows of {} sub-quantizers",
                    pq.nsubq
                ),
            ));
        }
        let norms = if qnorm {
            let norm_codes = r.take(rows, &format!("{what}'s norm codes"))?.to_vec();
            let npq = ProductQuantizer::read(r, 1, &format!("{what}'s norm quantizer"))?;
            Some((norm_codes, Box::new(npq)))
        } else {
            None
        };
        Ok(Matrix::Quant {
            rows,
            pq: Box::new(pq),
            codes,
            norms,
            decoded: None,
        })
    }

    /// Decode a quantized matrix's rows for [`Matrix::add_row_to`] when they take at most
    /// `max_bytes` (lid.176's input: 6 MB): each value is the norm times the centroid's, the
    /// product `add_row_to` adds, so sums stay bit for bit what fastText computes.
    pub(super) fn decode_rows(&mut self, max_bytes: usize) {
        let cols = self.cols();
        let Matrix::Quant {
            rows,
            pq,
            codes,
            norms,
            decoded,
        } = self
        else {
            return;
        };
        if rows.saturating_mul(cols).saturating_mul(4) > max_bytes {
            return;
        }
        let mut data = vec![0.0f32; *rows * cols];
        for (i, row) in data.chunks_exact_mut(cols).enumerate() {
            let alpha = Self::norm(norms.as_ref(), i);
            let code = &codes[pq.nsubq * i..pq.nsubq * (i + 1)];
            for (m, &c) in code.iter().enumerate() {
                for (xj, v) in row[m * pq.dsub..].iter_mut().zip(pq.centroid(m, c)) {
                    *xj = alpha * v;
                }
            }
        }
        *decoded = Some(data);
    }

    /// Number of columns.
    fn cols(&self) -> usize {
        match self {
            Matrix::Dense { cols, .. } => *cols,
            Matrix::Quant { pq, .. } => (pq.nsubq - 1) * pq.dsub + pq.lastdsub,
        }
    }

    /// Number of rows.
    pub(super) fn rows(&self) -> usize {
        match self {
            Matrix::Dense { rows, .. } | Matrix::Quant { rows, .. } => *rows,
        }
    }

    /// Whether the matrix is product-quantized.
    pub(super) fn is_quantized(&self) -> bool {
        matches!(self, Matrix::Quant { .. })
    }

    /// The norm of quantized row `i` (1 without `qnorm`).
    fn norm(norms: Option<&(Vec<u8>, Box<ProductQuantizer>)>, i: usize) -> f32 {
        norms.map_or(1.0, |(codes, npq)| npq.centroid(0, codes[i])[0])
    }

    /// `x += row i` (`addRowToVector`; a quantized row is its centroids times its norm).
    pub(super) fn add_row_to(&self, x: &mut [f32], i: usize) {
        match self {
            Matrix::Dense { cols, data, .. } => {
                for (xj, v) in x.iter_mut().zip(&data[i * cols..(i + 1) * cols]) {
                    *xj += v;
                }
            }
            Matrix::Quant {
                decoded: Some(data),
                ..
            } => {
                let cols = x.len();
                for (xj, v) in x.iter_mut().zip(&data[i * cols..(i + 1) * cols]) {
                    *xj += v;
                }
            }
            Matrix::Quant {
                pq, codes, norms, ..
            } => {
                let alpha = Self::norm(norms.as_ref(), i);
                let code = &codes[pq.nsubq * i..pq.nsubq * (i + 1)];
                for (m, &c) in code.iter().enumerate() {
                    let block = &mut x[m * pq.dsub..];
                    for (xj, v) in block.iter_mut().zip(pq.centroid(m, c)) {
                        *xj += alpha * v;
                    }
                }
            }
        }
    }

    /// The dot product of row `i` with `x` (`dotRow`, summed left to right in `f32`).
    pub(super) fn dot_row(&self, x: &[f32], i: usize) -> f32 {
        match self {
            Matrix::Dense { cols, data, .. } => {
                let mut d = 0.0f32;
                for (v, xj) in data[i * cols..(i + 1) * cols].iter().zip(x) {
                    d += v * xj;
                }
                d
            }
            Matrix::Quant {
                pq, codes, norms, ..
            } => {
                let alpha = Self::norm(norms.as_ref(), i);
                let code = &codes[pq.nsubq * i..pq.nsubq * (i + 1)];
                let mut res = 0.0f32;
                for (m, &c) in code.iter().enumerate() {
                    for (xj, v) in x[m * pq.dsub..].iter().zip(pq.centroid(m, c)) {
                        res += xj * v;
                    }
                }
                res * alpha
            }
        }
    }
}
