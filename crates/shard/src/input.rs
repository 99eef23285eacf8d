//! The two embedding files, memory-mapped and read a shard (a range of rows) at a time: raw
//! little-endian `f32` (LASER), `.npy` float32, or raw binary16 (LASER `--fp16`). No file is
//! copied: a shard's rows are viewed in place, and copied only when they must be normalised
//! (or, for binary16 queries, widened).

use std::ops::Range;
use std::path::{Path, PathBuf};

use bitext_core::{Embeddings, EmbeddingsView, HalfView, MappedEmbeddings, MappedHalf};
use bitext_knn::{ExactIndex, ExactParams, Metric};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How an embedding file stores its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Raw little-endian `f32` (the dimension is given).
    RawF32,
    /// numpy `.npy` float32 (the header gives the dimension).
    Npy,
    /// Raw little-endian binary16 (LASER `--fp16`; the dimension is given).
    RawF16,
}

impl Format {
    /// The format of `path`: `.npy` by its extension, raw binary16 with `fp16`, raw `f32`
    /// otherwise.
    #[must_use]
    pub fn of(path: &Path, fp16: bool) -> Self {
        let npy = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
        match (npy, fp16) {
            (true, _) => Format::Npy,
            (false, true) => Format::RawF16,
            (false, false) => Format::RawF32,
        }
    }
}

/// An embedding file to mine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// How it stores its rows.
    pub format: Format,
    /// The dimension (needed for raw files; checked against `.npy` headers).
    pub dim: Option<usize>,
}

/// An opened input.
pub(crate) enum Mapped {
    F32(MappedEmbeddings),
    F16(MappedHalf),
}

impl Input {
    /// Map the file.
    ///
    /// # Errors
    /// As [`MappedEmbeddings::open`] / [`MappedHalf::open`]; a raw file without a dimension.
    pub(crate) fn open(&self) -> Result<Mapped> {
        match self.format {
            Format::RawF16 => {
                let dim = self.dim.ok_or_else(|| {
                    Error::Invalid(format!(
                        "{}: raw embedding files have no header; give the dimension",
                        self.path.display()
                    ))
                })?;
                Ok(Mapped::F16(MappedHalf::open(&self.path, dim)?))
            }
            Format::Npy | Format::RawF32 => {
                Ok(Mapped::F32(MappedEmbeddings::open(&self.path, self.dim)?))
            }
        }
    }

    /// Rows and dimension (the file is mapped, not read).
    ///
    /// # Errors
    /// The file cannot be mapped, or a raw file has no dimension.
    pub fn shape(&self) -> Result<(usize, usize)> {
        let m = self.open()?;
        Ok((m.len(), m.dim()))
    }

    /// What identifies the file's content cheaply: its canonical path, size and modification
    /// time (a changed file gets new step names, so nothing made from the old one is reused).
    ///
    /// # Errors
    /// The file cannot be read.
    pub(crate) fn identity(&self) -> Result<String> {
        let file = crate::text::identity(&self.path)?;
        Ok(format!("{file}|{:?}", self.format))
    }
}

/// Rows read at a time by [`Input::check_unit`].
const CHECK_BLOCK: usize = 8192;

impl Input {
    /// Check every row as single-process mining does (finite, not all zeros; errors name the
    /// file, `side` and the row) and say whether all are unit length already. Streams the file
    /// a block at a time (it is read, not mapped, so that checking a file larger than memory
    /// holds only a block).
    ///
    /// # Errors
    /// Unreadable or malformed files; bad rows.
    pub fn check_unit(&self, dim: usize, side: &str) -> Result<bool> {
        use bitext_core::io::npy::NpyBlockReader;
        use bitext_core::io::raw::{RawBlockReader, RawDtype};
        let bad = |e: bitext_mine::Error| Error::Invalid(format!("{}: {e}", self.path.display()));
        let mut unit = true;
        let mut row = 0;
        let mut check = |block: Embeddings| -> Result<()> {
            unit &= bitext_mine::check_unit(block.view(), side, row).map_err(bad)?;
            row += block.len();
            Ok(())
        };
        match self.format {
            Format::Npy => {
                let mut r = NpyBlockReader::open(&self.path)?;
                while let Some(b) = r.next_block(CHECK_BLOCK)? {
                    check(b)?;
                }
            }
            Format::RawF32 | Format::RawF16 => {
                let dtype = if self.format == Format::RawF16 {
                    RawDtype::F16
                } else {
                    RawDtype::F32
                };
                let mut r = RawBlockReader::open(&self.path, dim, dtype)?;
                while let Some(b) = r.next_block(CHECK_BLOCK)? {
                    check(b)?;
                }
            }
        }
        Ok(unit)
    }
}

/// Rows of a shard as the search reads them.
pub(crate) enum ShardRows<'a> {
    F32(EmbeddingsView<'a>),
    F16(HalfView<'a>),
}

impl Mapped {
    pub(crate) fn len(&self) -> usize {
        match self {
            Mapped::F32(m) => m.len(),
            Mapped::F16(m) => m.len(),
        }
    }

    pub(crate) fn dim(&self) -> usize {
        match self {
            Mapped::F32(m) => m.dim(),
            Mapped::F16(m) => m.dim(),
        }
    }

    pub(crate) fn rows(&self, r: Range<usize>) -> ShardRows<'_> {
        match self {
            Mapped::F32(m) => ShardRows::F32(m.view().slice_rows(r)),
            Mapped::F16(m) => ShardRows::F16(m.view().slice_rows(r)),
        }
    }

    /// Rows `r` as `f32` (widened, for binary16), in place when possible.
    pub(crate) fn rows_f32(&self, r: Range<usize>) -> Result<std::borrow::Cow<'_, [f32]>> {
        Ok(match self.rows(r) {
            ShardRows::F32(v) => std::borrow::Cow::Borrowed(v.as_slice()),
            ShardRows::F16(h) => {
                let mut out = vec![0f32; h.len() * h.dim()];
                if !h.is_empty() {
                    h.widen_into(0, &mut out);
                }
                std::borrow::Cow::Owned(out)
            }
        })
    }
}

/// The queries of a shard: its rows as `f32`, normalised unless the side is unit already.
pub(crate) fn queries(m: &Mapped, r: Range<usize>, unit: bool) -> Result<Embeddings> {
    let d = m.dim();
    let mut e = Embeddings::new(m.rows_f32(r)?.into_owned(), d)?;
    if !unit {
        for i in 0..e.len() {
            bitext_core::normalize_row(e.row_mut(i));
        }
    }
    Ok(e)
}

/// Rows `rows` (ascending) as `f32`, normalised unless the side is unit already (a training
/// sample).
pub(crate) fn gather(
    m: &crate::layout::Opened,
    dim: usize,
    rows: &[usize],
    unit: bool,
) -> Result<Embeddings> {
    let d = dim;
    let mut data = Vec::with_capacity(rows.len() * d);
    for &r in rows {
        let (file, local) = m.locate(r..r + 1)?;
        data.extend_from_slice(&file.rows_f32(local)?);
    }
    let mut e = Embeddings::new(data, d)?;
    if !unit {
        for i in 0..e.len() {
            bitext_core::normalize_row(e.row_mut(i));
        }
    }
    Ok(e)
}

/// The database of a shard: an exact index over its rows (in place when they are unit `f32`
/// or binary16; a normalised copy of `f32` rows otherwise).
pub(crate) fn database<'a>(
    m: &'a Mapped,
    r: Range<usize>,
    unit: bool,
    params: ExactParams,
    owned: &'a mut Option<Embeddings>,
) -> Result<ExactIndex<'a>> {
    let index = match m.rows(r.clone()) {
        ShardRows::F16(h) => ExactIndex::over_half(h, Metric::InnerProduct, !unit)?,
        ShardRows::F32(v) if unit => ExactIndex::over(v, Metric::InnerProduct)?,
        ShardRows::F32(_) => {
            let e = owned.insert(queries(m, r, false)?);
            ExactIndex::over(e.view(), Metric::InnerProduct)?
        }
    };
    Ok(index.with_params(params)?)
}
