//! Memory-mapped embedding files: a raw LASER file or a `.npy` file viewed in place as an
//! [`EmbeddingsView`](crate::EmbeddingsView), so that a 10 GB matrix is paged in only where it is read.

#![allow(unsafe_code)]

use std::fs::File;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::error::{Error, Location, Result};
use crate::io::npy::read_header;
use crate::io::raw::{RawDtype, rows_in};
use crate::rows::{Element, RowsView};

/// A memory-mapped row-major matrix of [`Element`]s (`f32` values or binary16 bits), viewed
/// in place as a [`RowsView`]: [`MappedEmbeddings`] and [`MappedHalf`].
///
/// Opening checks the file's size and header only; values are not read, so use
/// [`MappedRows::check_finite`] (a sequential scan) or check blocks as they are consumed.
#[derive(Debug)]
pub struct MappedRows<T> {
    map: Mmap,
    offset: usize,
    rows: usize,
    dim: usize,
    path: PathBuf,
    element: PhantomData<T>,
}

/// A memory-mapped row-major `f32` matrix (raw little-endian file or `.npy`), viewed in place
/// as an [`EmbeddingsView`](crate::EmbeddingsView).
pub type MappedEmbeddings = MappedRows<f32>;

/// A memory-mapped raw binary16 file (LASER's `--fp16` output), viewed in place as a
/// [`HalfView`](crate::HalfView): its rows are widened to `f32` only where they are read.
pub type MappedHalf = MappedRows<u16>;

fn map_file(path: &Path) -> Result<(File, u64, Mmap)> {
    crate::io::stream::require_plain(path, "memory-mapped embeddings")?;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        return Err(Error::parse(
            path,
            Location::File,
            "file is empty: no embeddings",
        ));
    }
    // SAFETY: the map is read-only. Like every memory map, it is undefined behaviour if another
    // process truncates or rewrites the file while it is mapped; bitext writes its own outputs
    // through a temporary file and a rename, which never modifies a mapped file in place.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    Ok((file, len, map))
}

impl MappedEmbeddings {
    /// Map a raw little-endian `f32` file of dimension `dim`.
    ///
    /// # Errors
    /// Missing or empty file; size not a whole number of rows of `dim` values.
    pub fn open_raw(path: impl AsRef<Path>, dim: usize) -> Result<Self> {
        Self::raw(path.as_ref(), dim, RawDtype::F32)
    }

    /// Map a `.npy` float32 file (written by numpy, which aligns data to 16 or 64 bytes).
    ///
    /// # Errors
    /// As [`crate::io::npy::read_npy_header`]; a float16 file (convert with
    /// [`crate::io::npy::read_npy`] instead).
    pub fn open_npy(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let (_f, len, map) = map_file(path)?;
        let h = read_header(path, &mut &map[..], len)?;
        if h.dtype != RawDtype::F32 {
            return Err(Error::parse(
                path,
                Location::File,
                "only float32 .npy files can be memory-mapped; read float16 with read_npy",
            ));
        }
        Self::checked(map, h.data_offset as usize, h.rows, h.dim, path)
    }

    /// Map `path` as `.npy` when its name ends in `.npy`, as raw `f32` of dimension `dim`
    /// otherwise.
    ///
    /// # Errors
    /// As [`Self::open_npy`] / [`Self::open_raw`]; [`Error::InvalidArgument`] for a raw file
    /// without `dim`, or a `.npy` whose dimension differs from `dim`.
    pub fn open(path: impl AsRef<Path>, dim: Option<usize>) -> Result<Self> {
        let path = path.as_ref();
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("npy"))
        {
            let m = Self::open_npy(path)?;
            if let Some(d) = dim.filter(|&d| d != m.dim) {
                return Err(Error::parse(
                    path,
                    Location::File,
                    format!(
                        "the array has dimension {} but dimension {d} was given",
                        m.dim
                    ),
                ));
            }
            Ok(m)
        } else {
            let dim = dim.ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{}: raw embedding files have no header; give the dimension",
                    path.display()
                ))
            })?;
            Self::open_raw(path, dim)
        }
    }
}

impl<T: Element> MappedRows<T> {
    /// Map the raw little-endian file `path` of `dtype` (`T`'s own) and dimension `dim`.
    fn raw(path: &Path, dim: usize, dtype: RawDtype) -> Result<Self> {
        let (_f, len, map) = map_file(path)?;
        let rows = rows_in(path, len, dim, dtype)?;
        Self::checked(map, 0, rows, dim, path)
    }

    fn checked(map: Mmap, offset: usize, rows: usize, dim: usize, path: &Path) -> Result<Self> {
        if bytemuck::try_cast_slice::<u8, T>(&map[offset..]).is_err() {
            return Err(Error::parse(
                path,
                Location::Byte(offset as u64),
                format!(
                    "data is not {}-byte aligned and cannot be mapped; read it instead",
                    size_of::<T>()
                ),
            ));
        }
        if cfg!(target_endian = "big") {
            return Err(Error::parse(
                path,
                Location::File,
                "little-endian files cannot be mapped on a big-endian machine; read them instead",
            ));
        }
        Ok(Self {
            map,
            offset,
            rows,
            dim,
            path: path.to_path_buf(),
            element: PhantomData,
        })
    }

    /// The matrix, viewed in place.
    #[must_use]
    pub fn view(&self) -> RowsView<'_, T> {
        RowsView::new(bytemuck::cast_slice(&self.map[self.offset..]), self.dim)
            .expect("shape checked when opened")
    }

    /// Number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether there are no rows (never true: empty files are rejected).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Dimension.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The mapped file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Check all values are finite, naming the file, row and column of the first that is not.
    ///
    /// # Errors
    /// [`Error::Parse`].
    pub fn check_finite(&self) -> Result<()> {
        self.view()
            .check_finite()
            .map_err(|e| e.in_file(&self.path))
    }
}

/// A whole file mapped read-only, for formats that lay out their own arrays (the page-aligned
/// map lets them view aligned sections in place with `bytemuck`).
#[derive(Debug)]
pub struct MappedBytes {
    map: Mmap,
    path: PathBuf,
}

impl MappedBytes {
    /// Map `path`.
    ///
    /// # Errors
    /// A missing, unreadable or empty file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let (_f, _len, map) = map_file(path)?;
        Ok(Self {
            map,
            path: path.to_path_buf(),
        })
    }

    /// The file's bytes.
    #[must_use]
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// The mapped file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl MappedHalf {
    /// Map a raw little-endian binary16 file of dimension `dim`.
    ///
    /// # Errors
    /// Missing or empty file; size not a whole number of rows of `dim` values; a big-endian
    /// machine.
    pub fn open(path: impl AsRef<Path>, dim: usize) -> Result<Self> {
        Self::raw(path.as_ref(), dim, RawDtype::F16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Embeddings;
    use crate::io::{npy, raw};

    #[test]
    fn maps_fp16_files_like_reading_them() {
        let e = Embeddings::from_rows((0..5).map(|i| [i as f32, 0.5, -2.0]), 3).unwrap();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("e.f16");
        raw::write_raw(&p, e.view(), RawDtype::F16).unwrap();
        let m = MappedHalf::open(&p, 3).unwrap();
        assert_eq!((m.len(), m.dim()), (5, 3));
        let mut row = [0.0; 3];
        let read = raw::read_raw(&p, 3, RawDtype::F16).unwrap();
        for i in 0..5 {
            m.view().row_into(i, false, &mut row);
            assert_eq!(row, read.row(i));
        }
        assert!(m.check_finite().is_ok());
        let err = MappedHalf::open(&p, 4).unwrap_err().to_string();
        assert!(err.contains("e.f16"), "{err}");
        std::fs::write(&p, [0u8, 0x7C, 0, 0]).unwrap();
        let err = MappedHalf::open(&p, 2).unwrap().check_finite().unwrap_err();
        assert!(err.to_string().contains("e.f16"), "{err}");
    }

    #[test]
    fn maps_raw_and_npy_like_reading() {
        let e = Embeddings::from_rows((0..7).map(|i| [i as f32, 1.0, -2.0]), 3).unwrap();
        let d = tempfile::tempdir().unwrap();
        let r = d.path().join("e.f32");
        let n = d.path().join("e.npy");
        raw::write_raw(&r, e.view(), RawDtype::F32).unwrap();
        npy::write_npy(&n, e.view()).unwrap();
        let mr = MappedEmbeddings::open(&r, Some(3)).unwrap();
        let mn = MappedEmbeddings::open(&n, None).unwrap();
        assert_eq!(mr.view(), e.view());
        assert_eq!(mn.view(), e.view());
        assert_eq!(mn.view().slice_rows(5..7).row(1), &[6.0, 1.0, -2.0]);
        assert!(MappedEmbeddings::open(&r, None).is_err());
        assert!(
            MappedEmbeddings::open(&n, Some(4))
                .unwrap_err()
                .to_string()
                .contains("dimension 4")
        );
        assert!(MappedEmbeddings::open_raw(&r, 5).is_err());
    }

    #[test]
    fn check_finite_names_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.f32");
        let bytes: Vec<u8> = [1.0f32, f32::NAN]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        std::fs::write(&p, bytes).unwrap();
        let m = MappedEmbeddings::open_raw(&p, 2).unwrap();
        assert_eq!(
            m.check_finite()
                .unwrap_err()
                .to_string()
                .split(": ")
                .next()
                .unwrap(),
            format!("{} (row 0, column 1)", p.display())
        );
    }
}
