//! LASER raw embedding files: rows of little-endian `f32` (or `f16`) values, no header; the
//! dimension is given by the user. [`read_raw`] loads a whole file, [`RawBlockReader`] streams it
//! block by block (the first rows of a 10 GB file are read without loading it), and
//! [`crate::MappedEmbeddings::open_raw`] maps it.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::embeddings::{Embeddings, EmbeddingsView};
use crate::error::{Error, Location, Result};

/// The value type of a raw embedding file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawDtype {
    /// IEEE-754 binary32, little-endian (LASER's default).
    #[default]
    F32,
    /// IEEE-754 binary16, little-endian (LASER's `--fp16`).
    F16,
}

impl RawDtype {
    /// Bytes per value.
    #[must_use]
    pub fn size(self) -> usize {
        match self {
            RawDtype::F32 => 4,
            RawDtype::F16 => 2,
        }
    }
}

/// Check a raw file's byte length against the dimension; returns the number of rows.
pub(crate) fn rows_in(path: &Path, bytes: u64, dim: usize, dtype: RawDtype) -> Result<usize> {
    if dim == 0 {
        return Err(Error::InvalidArgument(
            "embedding dimension must be at least 1".into(),
        ));
    }
    let row = (dim * dtype.size()) as u64;
    if bytes == 0 {
        return Err(Error::parse(
            path,
            Location::File,
            "file is empty: no embeddings",
        ));
    }
    if !bytes.is_multiple_of(row) {
        return Err(Error::parse(
            path,
            Location::Byte(bytes - bytes % row),
            format!(
                "file size {bytes} bytes is not a multiple of the row size {row} bytes \
                 (dimension {dim} × {} bytes): the file is truncated or the dimension is wrong",
                dtype.size()
            ),
        ));
    }
    usize::try_from(bytes / row)
        .map_err(|_| Error::parse(path, Location::File, "file too large for this platform"))
}

/// Decode little-endian values into `out`, checking that each is finite. `first_row` and
/// `byte_base` place errors in the file.
fn decode_into(
    path: &Path,
    bytes: &[u8],
    dtype: RawDtype,
    dim: usize,
    first_row: usize,
    byte_base: u64,
    out: &mut Vec<f32>,
) -> Result<()> {
    let start = out.len();
    match dtype {
        RawDtype::F32 => out.extend(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        ),
        RawDtype::F16 => out.extend(
            bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()),
        ),
    }
    if let Some(p) = out[start..].iter().position(|x| !x.is_finite()) {
        let row = first_row + p / dim;
        return Err(Error::parse(
            path,
            Location::Byte(byte_base + (p * dtype.size()) as u64),
            format!(
                "row {row}, column {}: {} is not a finite number",
                p % dim,
                out[start + p]
            ),
        ));
    }
    Ok(())
}

/// Read a whole raw embedding file.
///
/// # Errors
/// The file is missing or unreadable, empty, its size is not a whole number of rows, or it holds
/// NaN or ±∞ (the error gives the byte offset, row and column).
pub fn read_raw(path: impl AsRef<Path>, dim: usize, dtype: RawDtype) -> Result<Embeddings> {
    let path = path.as_ref();
    let mut reader = RawBlockReader::open(path, dim, dtype)?;
    let rows = reader.rows();
    reader
        .next_block(rows)?
        .ok_or_else(|| Error::parse(path, Location::File, "file is empty"))
}

/// Write `emb` as a raw file (atomically: temporary file, then rename).
///
/// # Errors
/// [`Error::Io`] naming `path`; [`Error::Value`] (with the path) when a value is not finite, or
/// does not fit in `f16`.
pub fn write_raw(path: impl AsRef<Path>, emb: EmbeddingsView<'_>, dtype: RawDtype) -> Result<()> {
    let mut w = crate::io::writer::EmbeddingsWriter::raw(path, emb.dim(), dtype)?;
    w.push(emb)?;
    w.finish().map(|_| ())
}

/// Streams a raw embedding file in blocks of rows; memory stays at one block.
#[derive(Debug)]
pub struct RawBlockReader {
    path: PathBuf,
    reader: BufReader<File>,
    dim: usize,
    dtype: RawDtype,
    rows: usize,
    next_row: usize,
    bytes: Vec<u8>,
}

impl RawBlockReader {
    /// Open `path`, checking its size against `dim`.
    ///
    /// # Errors
    /// As [`read_raw`] for the size checks.
    pub fn open(path: impl AsRef<Path>, dim: usize, dtype: RawDtype) -> Result<Self> {
        let path = path.as_ref();
        super::stream::require_plain(path, "raw embeddings")?;
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let rows = rows_in(path, len, dim, dtype)?;
        Ok(Self {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 20, file),
            dim,
            dtype,
            rows,
            next_row: 0,
            bytes: Vec::new(),
        })
    }

    /// Total rows in the file.
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Dimension.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Index of the next row to be read.
    #[must_use]
    pub fn position(&self) -> usize {
        self.next_row
    }

    /// Move to row `row` (`row <= rows()`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `row > rows()`; [`Error::Io`] on seek failure.
    pub fn seek_row(&mut self, row: usize) -> Result<()> {
        if row > self.rows {
            return Err(Error::InvalidArgument(format!(
                "row {row} is past the end of {} ({} rows)",
                self.path.display(),
                self.rows
            )));
        }
        let off = (row * self.dim * self.dtype.size()) as u64;
        self.reader
            .seek(SeekFrom::Start(off))
            .map_err(|e| Error::io(&self.path, e))?;
        self.next_row = row;
        Ok(())
    }

    /// Read up to `max_rows` rows (at least one), or `None` at the end of the file.
    ///
    /// # Errors
    /// [`Error::Io`] on read failure (including a file that shrank); [`Error::Parse`] with byte
    /// offset, row and column for NaN or ±∞.
    pub fn next_block(&mut self, max_rows: usize) -> Result<Option<Embeddings>> {
        let n = max_rows.max(1).min(self.rows - self.next_row);
        if n == 0 {
            return Ok(None);
        }
        let row_bytes = self.dim * self.dtype.size();
        self.bytes.resize(n * row_bytes, 0);
        self.reader
            .read_exact(&mut self.bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        let mut data = Vec::with_capacity(n * self.dim);
        let base = (self.next_row * row_bytes) as u64;
        decode_into(
            &self.path,
            &self.bytes,
            self.dtype,
            self.dim,
            self.next_row,
            base,
            &mut data,
        )?;
        self.next_row += n;
        Ok(Some(Embeddings::new(data, self.dim)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    proptest! {
        /// `f32` reads back exactly, `f16` within half precision; both take `size()` bytes a
        /// value.
        #[test]
        fn round_trip(rows in 1usize..20, dim in 1usize..17, seed in any::<u64>()) {
            let e = Embeddings::random(rows, dim, seed);
            let d = tmp();
            for dtype in [RawDtype::F32, RawDtype::F16] {
                let p = d.path().join("e.raw");
                write_raw(&p, e.view(), dtype).unwrap();
                let bytes = std::fs::metadata(&p).unwrap().len() as usize;
                prop_assert_eq!(bytes, rows * dim * dtype.size());
                let back = read_raw(&p, dim, dtype).unwrap();
                if dtype == RawDtype::F32 {
                    prop_assert_eq!(&back, &e);
                }
                for (a, b) in e.as_slice().iter().zip(back.as_slice()) {
                    prop_assert!((a - b).abs() <= 1e-3 * a.abs().max(1e-2));
                }
            }
        }
    }

    #[test]
    fn block_reader_reads_first_rows_and_seeks() {
        let e = Embeddings::from_rows((0..10).map(|i| [i as f32, 0.5]), 2).unwrap();
        let d = tmp();
        let p = d.path().join("e.f32");
        write_raw(&p, e.view(), RawDtype::F32).unwrap();
        let mut r = RawBlockReader::open(&p, 2, RawDtype::F32).unwrap();
        assert_eq!(r.rows(), 10);
        assert_eq!(r.next_block(3).unwrap().unwrap().row(2), &[2.0, 0.5]);
        r.seek_row(8).unwrap();
        let b = r.next_block(100).unwrap().unwrap();
        assert_eq!((b.len(), b.row(1)), (2, &[9.0f32, 0.5][..]));
        assert!(r.next_block(1).unwrap().is_none());
    }

    #[test]
    fn truncated_file_names_offset() {
        let d = tmp();
        let p = d.path().join("bad.f32");
        std::fs::write(&p, vec![0u8; 4 * 8 + 3]).unwrap();
        let e = read_raw(&p, 4, RawDtype::F32).unwrap_err().to_string();
        assert!(e.contains("bad.f32 (byte offset 32)"), "{e}");
        assert!(e.contains("not a multiple of the row size 16"), "{e}");
        // Right size for dim 4 but not dim 3.
        std::fs::write(&p, vec![0u8; 4 * 8]).unwrap();
        let e = read_raw(&p, 3, RawDtype::F32).unwrap_err().to_string();
        assert!(e.contains("dimension is wrong"), "{e}");
    }

    #[test]
    fn empty_missing_nan_and_inf_files_are_errors() {
        let d = tmp();
        let p = d.path().join("empty.f32");
        std::fs::write(&p, b"").unwrap();
        assert!(
            read_raw(&p, 4, RawDtype::F32)
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        let missing = d.path().join("missing.f32");
        assert!(
            read_raw(&missing, 4, RawDtype::F32)
                .unwrap_err()
                .to_string()
                .contains("missing.f32")
        );
        assert!(read_raw(&p, 0, RawDtype::F32).is_err());

        let mut bytes = Vec::new();
        for x in [1.0f32, 2.0, 3.0, f32::NAN] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        let p = d.path().join("nan.f32");
        std::fs::write(&p, &bytes).unwrap();
        let e = read_raw(&p, 2, RawDtype::F32).unwrap_err().to_string();
        assert!(
            e.contains("nan.f32 (byte offset 12): row 1, column 1: NaN"),
            "{e}"
        );

        let bad = Embeddings::new(vec![1.0, f32::INFINITY], 2).unwrap();
        let e = write_raw(d.path().join("w.f32"), bad.view(), RawDtype::F32).unwrap_err();
        assert!(e.to_string().contains("w.f32 (row 0, column 1)"), "{e}");
        assert!(!d.path().join("w.f32").exists());
        let big = Embeddings::new(vec![1e6, 0.0], 2).unwrap();
        assert!(write_raw(d.path().join("h.f16"), big.view(), RawDtype::F16).is_err());
    }
}
