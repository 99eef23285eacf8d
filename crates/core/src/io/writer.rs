//! [`EmbeddingsWriter`]: an embedding file written block by block (raw little-endian f32/f16, or
//! `.npy` float32 whose row count is given up front), so that a producer of tens of millions of
//! rows never holds them all; [`super::raw::write_raw`] and [`super::npy::write_npy`] write
//! whole matrices through it.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::embeddings::EmbeddingsView;
use crate::error::{Error, Location, Result};
use crate::io::AtomicFile;
use crate::io::raw::RawDtype;

/// The layout of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Raw(RawDtype),
    /// `.npy` float32 of this many rows.
    Npy(usize),
}

/// An embedding file written block by block, atomically: nothing is at the destination until
/// [`EmbeddingsWriter::finish`], and an error on the way leaves it untouched.
#[derive(Debug)]
pub struct EmbeddingsWriter {
    out: AtomicFile,
    path: PathBuf,
    layout: Layout,
    dim: usize,
    written: usize,
    buf: Vec<u8>,
}

impl EmbeddingsWriter {
    /// A raw file of `dim`-dimensional rows (LASER's format).
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`; [`Error::Shape`] for `dim` 0.
    pub fn raw(path: impl AsRef<Path>, dim: usize, dtype: RawDtype) -> Result<Self> {
        Self::create(path.as_ref(), dim, Layout::Raw(dtype))
    }

    /// A `.npy` float32 array of `rows` × `dim` (the header comes first, so the row count is
    /// needed now; [`EmbeddingsWriter::finish`] checks it).
    ///
    /// # Errors
    /// [`Error::Io`] naming `path`; [`Error::Shape`] for an empty matrix.
    pub fn npy(path: impl AsRef<Path>, rows: usize, dim: usize) -> Result<Self> {
        let path = path.as_ref();
        if rows == 0 {
            return Err(Error::Shape(format!(
                "refusing to write an empty matrix to {}",
                path.display()
            )));
        }
        let mut w = Self::create(path, dim, Layout::Npy(rows))?;
        w.out
            .write_all(&super::npy::header_bytes(rows, dim))
            .map_err(|e| w.out.err(e))?;
        Ok(w)
    }

    fn create(path: &Path, dim: usize, layout: Layout) -> Result<Self> {
        if dim == 0 {
            return Err(Error::Shape(format!(
                "refusing to write 0-dimensional rows to {}",
                path.display()
            )));
        }
        Ok(Self {
            out: AtomicFile::create(path)?,
            path: path.to_path_buf(),
            layout,
            dim,
            written: 0,
            buf: Vec::with_capacity(1 << 16),
        })
    }

    /// Rows written so far.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.written
    }

    /// Append the rows of `block`.
    ///
    /// # Errors
    /// [`Error::Shape`] for another dimension or more rows than a `.npy` header holds;
    /// [`Error::Parse`] naming the file, row (counted over the whole file) and column of a value
    /// that is not finite, or that overflows f16; [`Error::Io`].
    pub fn push(&mut self, block: EmbeddingsView<'_>) -> Result<()> {
        if block.dim() != self.dim {
            return Err(Error::Shape(format!(
                "{}: a block of {}-dimensional rows for a file of {} dimensions",
                self.path.display(),
                block.dim(),
                self.dim
            )));
        }
        if let Layout::Npy(rows) = self.layout
            && self.written + block.len() > rows
        {
            return Err(Error::Shape(format!(
                "{}: more than the {rows} rows of its header",
                self.path.display()
            )));
        }
        for (i, row) in block.rows().enumerate() {
            let at = |col: usize, what: String| {
                Error::parse(
                    &self.path,
                    Location::Row {
                        row: self.written + i,
                        col: Some(col),
                    },
                    what,
                )
            };
            self.buf.clear();
            for (j, &x) in row.iter().enumerate() {
                if !x.is_finite() {
                    return Err(at(j, format!("{x} is not a finite value")));
                }
                match self.layout {
                    Layout::Raw(RawDtype::F16) => {
                        let h = half::f16::from_f32(x);
                        if !h.is_finite() {
                            return Err(at(j, format!("{x} overflows f16")));
                        }
                        self.buf.extend_from_slice(&h.to_le_bytes());
                    }
                    _ => self.buf.extend_from_slice(&x.to_le_bytes()),
                }
            }
            self.out.write_all(&self.buf).map_err(|e| self.out.err(e))?;
        }
        self.written += block.len();
        Ok(())
    }

    /// Put the file in place; returns the rows written.
    ///
    /// # Errors
    /// [`Error::Shape`] when a `.npy` file got fewer rows than its header says (the
    /// destination is left untouched); [`Error::Io`].
    pub fn finish(self) -> Result<usize> {
        if let Layout::Npy(rows) = self.layout
            && self.written != rows
        {
            return Err(Error::Shape(format!(
                "{}: {} rows written, its header says {rows}",
                self.path.display(),
                self.written
            )));
        }
        let n = self.written;
        self.out.commit()?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Embeddings;
    use crate::io::{npy, raw};

    #[test]
    fn blocks_write_what_whole_matrices_write() {
        let e = Embeddings::random(10, 3, 7);
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a.npy"), d.path().join("b.f32"));
        let mut w = EmbeddingsWriter::npy(&a, 10, 3).unwrap();
        let mut r = EmbeddingsWriter::raw(&b, 3, RawDtype::F32).unwrap();
        for start in [0, 4, 8] {
            let end = (start + 4).min(10);
            let block = Embeddings::new(e.as_slice()[start * 3..end * 3].to_vec(), 3).unwrap();
            w.push(block.view()).unwrap();
            r.push(block.view()).unwrap();
        }
        assert_eq!((w.finish().unwrap(), r.finish().unwrap()), (10, 10));
        assert_eq!(npy::read_npy(&a).unwrap(), e);
        assert_eq!(raw::read_raw(&b, 3, RawDtype::F32).unwrap(), e);
        // Too few rows for the header, a NaN (named by its row in the file), another dim.
        let c = d.path().join("c.npy");
        let mut w = EmbeddingsWriter::npy(&c, 11, 3).unwrap();
        w.push(e.view()).unwrap();
        assert!(
            w.finish()
                .unwrap_err()
                .to_string()
                .contains("header says 11")
        );
        assert!(!c.exists());
        let mut w = EmbeddingsWriter::raw(&c, 3, RawDtype::F32).unwrap();
        w.push(e.view()).unwrap();
        let bad = Embeddings::new(vec![0.0, f32::NAN, 0.0], 3).unwrap();
        let err = w.push(bad.view()).unwrap_err().to_string();
        assert!(err.contains("row 10") && err.contains("NaN"), "{err}");
        let other = Embeddings::new(vec![0.0; 2], 2).unwrap();
        assert!(w.push(other.view()).is_err());
    }
}
