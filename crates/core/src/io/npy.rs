//! NumPy `.npy` files holding 2-D C-order `float32` (`<f4`) arrays, for interoperability with
//! numpy and faiss users; `<f2` (float16) is read and converted. Versions 1.0, 2.0 and 3.0 of the
//! header are read; 1.0 is written (2.0 when the header needs it), padded so that data starts at
//! a 64-byte boundary (which also lets [`crate::MappedEmbeddings::open_npy`] map it in place).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::embeddings::{Embeddings, EmbeddingsView};
use crate::error::{Error, Location, Result};
use crate::io::raw::RawDtype;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// The parsed header of a `.npy` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NpyHeader {
    /// Rows.
    pub rows: usize,
    /// Columns (the embedding dimension).
    pub dim: usize,
    /// Value type.
    pub dtype: RawDtype,
    /// Byte offset where the data starts.
    pub data_offset: u64,
}

fn bad(path: &Path, at: u64, reason: impl Into<String>) -> Error {
    Error::parse(path, Location::Byte(at), reason)
}

/// Read and check the header of `path` from `reader` (positioned at the start), and check the
/// file length against it.
pub(crate) fn read_header(path: &Path, reader: &mut impl Read, file_len: u64) -> Result<NpyHeader> {
    if file_len == 0 {
        return Err(Error::parse(
            path,
            Location::File,
            "file is empty: not a .npy file",
        ));
    }
    let mut pre = [0u8; 8];
    reader
        .read_exact(&mut pre)
        .map_err(|_| bad(path, 0, "too short for a .npy header"))?;
    if &pre[..6] != MAGIC {
        return Err(bad(
            path,
            0,
            "missing the \\x93NUMPY magic: not a .npy file",
        ));
    }
    let major = pre[6];
    let (hlen, hstart) = match major {
        1 => {
            let mut b = [0u8; 2];
            reader
                .read_exact(&mut b)
                .map_err(|_| bad(path, 8, "truncated header length"))?;
            (u64::from(u16::from_le_bytes(b)), 10u64)
        }
        2 | 3 => {
            let mut b = [0u8; 4];
            reader
                .read_exact(&mut b)
                .map_err(|_| bad(path, 8, "truncated header length"))?;
            (u64::from(u32::from_le_bytes(b)), 12u64)
        }
        v => return Err(bad(path, 6, format!("unsupported .npy format version {v}"))),
    };
    if hstart + hlen > file_len || hlen > 1 << 20 {
        return Err(bad(
            path,
            hstart,
            format!("header length {hlen} exceeds the file"),
        ));
    }
    let mut h = vec![0u8; hlen as usize];
    reader.read_exact(&mut h).map_err(|e| Error::io(path, e))?;
    let text = std::str::from_utf8(&h).map_err(|_| bad(path, hstart, "header is not text"))?;
    let (rows, dim, dtype) = parse_dict(text).map_err(|r| bad(path, hstart, r))?;
    let data_offset = hstart + hlen;
    let expect = (rows as u64)
        .checked_mul(dim as u64)
        .and_then(|v| v.checked_mul(dtype.size() as u64))
        .ok_or_else(|| bad(path, hstart, "shape overflows"))?;
    let have = file_len - data_offset;
    if have != expect {
        return Err(bad(
            path,
            data_offset + have.min(expect),
            format!(
                "header says {rows}×{dim} values ({expect} bytes) but the file holds {have} \
                 bytes of data: truncated or corrupt"
            ),
        ));
    }
    if rows == 0 {
        return Err(Error::parse(path, Location::File, "array has no rows"));
    }
    Ok(NpyHeader {
        rows,
        dim,
        dtype,
        data_offset,
    })
}

/// Parse the Python-literal header dict: `{'descr': '<f4', 'fortran_order': False, 'shape': (n, d), }`.
fn parse_dict(text: &str) -> std::result::Result<(usize, usize, RawDtype), String> {
    let value_of = |key: &str| -> std::result::Result<&str, String> {
        let k = text
            .find(&format!("'{key}'"))
            .ok_or_else(|| format!("header has no '{key}'"))?;
        let rest = &text[k + key.len() + 2..];
        let colon = rest
            .find(':')
            .ok_or_else(|| format!("malformed '{key}' entry"))?;
        Ok(rest[colon + 1..].trim_start())
    };
    let descr = value_of("descr")?;
    let quote = descr.chars().next().filter(|c| *c == '\'' || *c == '"');
    let q = quote.ok_or("malformed 'descr'")?;
    let end = descr[1..].find(q).ok_or("malformed 'descr'")?;
    let dtype = match &descr[1..1 + end] {
        "<f4" => RawDtype::F32,
        "<f2" => RawDtype::F16,
        other => {
            return Err(format!(
                "dtype {other} is not supported: expected little-endian float32 '<f4' (or '<f2')"
            ));
        }
    };
    let fo = value_of("fortran_order")?;
    if fo.starts_with("True") {
        return Err("Fortran-order arrays are not supported: save with \
                    np.ascontiguousarray(x) first"
            .into());
    } else if !fo.starts_with("False") {
        return Err("malformed 'fortran_order'".into());
    }
    let shape = value_of("shape")?;
    let close = shape.find(')').ok_or("malformed 'shape'")?;
    let inner = shape.strip_prefix('(').ok_or("malformed 'shape'")?;
    let dims: Vec<&str> = inner[..close - 1]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if dims.len() != 2 {
        return Err(format!(
            "expected a 2-D array, the shape has {} dimensions",
            dims.len()
        ));
    }
    let parse = |s: &str| {
        s.parse::<usize>()
            .map_err(|_| format!("bad shape entry {s:?}"))
    };
    let (rows, dim) = (parse(dims[0])?, parse(dims[1])?);
    if dim == 0 {
        return Err("array has 0 columns".into());
    }
    Ok((rows, dim, dtype))
}

/// Read the header of a `.npy` file without reading its data.
///
/// # Errors
/// The file is not a valid 2-D float `.npy`, or its length disagrees with its header.
pub fn read_npy_header(path: impl AsRef<Path>) -> Result<NpyHeader> {
    let path = path.as_ref();
    super::stream::require_plain(path, "a .npy file")?;
    let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    read_header(path, &mut f, len)
}

/// Read a whole `.npy` file.
///
/// # Errors
/// As [`read_npy_header`]; values that are NaN or ±∞ are errors naming row and column.
pub fn read_npy(path: impl AsRef<Path>) -> Result<Embeddings> {
    let mut r = NpyBlockReader::open(path)?;
    let rows = r.header().rows;
    Ok(r.next_block(rows)?
        .expect("header guarantees at least one row"))
}

/// Streams a `.npy` file in blocks of rows.
#[derive(Debug)]
pub struct NpyBlockReader {
    path: PathBuf,
    header: NpyHeader,
    reader: BufReader<File>,
    next_row: usize,
}

impl NpyBlockReader {
    /// Open `path` and read its header.
    ///
    /// # Errors
    /// As [`read_npy_header`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        super::stream::require_plain(path, "a .npy file")?;
        let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
        let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
        let header = read_header(path, &mut f, len)?;
        f.seek(SeekFrom::Start(header.data_offset))
            .map_err(|e| Error::io(path, e))?;
        Ok(Self {
            path: path.to_path_buf(),
            header,
            reader: BufReader::with_capacity(1 << 20, f),
            next_row: 0,
        })
    }

    /// The header.
    #[must_use]
    pub fn header(&self) -> &NpyHeader {
        &self.header
    }

    /// The file read.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Read up to `max_rows` rows, or `None` at the end.
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::Parse`] naming the byte offset, row and column of a value that is
    /// not finite.
    pub fn next_block(&mut self, max_rows: usize) -> Result<Option<Embeddings>> {
        let h = self.header;
        let n = max_rows.max(1).min(h.rows - self.next_row);
        if n == 0 {
            return Ok(None);
        }
        let row_bytes = h.dim * h.dtype.size();
        let mut bytes = vec![0u8; n * row_bytes];
        self.reader
            .read_exact(&mut bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        let data: Vec<f32> = match h.dtype {
            RawDtype::F32 => bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            RawDtype::F16 => bytes
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
        };
        let emb = Embeddings::new(data, h.dim)?;
        if let Err(Error::Value {
            at: Location::Row { row, col },
            reason,
        }) = emb.check_finite()
        {
            let value = row * h.dim + col.unwrap_or(0);
            return Err(Error::parse(
                &self.path,
                Location::Byte(
                    h.data_offset + ((self.next_row * h.dim + value) * h.dtype.size()) as u64,
                ),
                format!(
                    "row {}, column {}: {reason}",
                    self.next_row + row,
                    col.unwrap_or(0)
                ),
            ));
        }
        self.next_row += n;
        Ok(Some(emb))
    }
}

/// The header bytes for a `rows × dim` float32 array, padded to a multiple of 64 bytes.
pub(crate) fn header_bytes(rows: usize, dim: usize) -> Vec<u8> {
    let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({rows}, {dim}), }}");
    // Version 1.0: 6 magic + 2 version + 2 length bytes; the dict is padded with spaces and
    // ends with '\n'. Version 2.0 (4 length bytes) only when the padded dict exceeds u16.
    let fits_v1 = (dict.len() + 1 + 10).div_ceil(64) * 64 - 10 <= usize::from(u16::MAX);
    let (major, pre) = if fits_v1 { (1u8, 10) } else { (2u8, 12) };
    let total = (dict.len() + 1 + pre).div_ceil(64) * 64;
    let hlen = total - pre;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&(hlen as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(hlen as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

/// Write `emb` as a `.npy` float32 array (atomically).
///
/// # Errors
/// [`Error::Io`] naming `path`; [`Error::Parse`] naming `path`, row and column when a value is not
/// finite; [`Error::Shape`] for an empty matrix.
pub fn write_npy(path: impl AsRef<Path>, emb: EmbeddingsView<'_>) -> Result<()> {
    let mut w = crate::io::writer::EmbeddingsWriter::npy(path, emb.len(), emb.dim())?;
    w.push(emb)?;
    w.finish().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trip(rows in 1usize..30, dim in 1usize..40, seed in any::<u64>()) {
            let e = Embeddings::random(rows, dim, seed);
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("e.npy");
            write_npy(&p, e.view()).unwrap();
            let h = read_npy_header(&p).unwrap();
            prop_assert_eq!(h.data_offset % 64, 0);
            prop_assert_eq!((h.rows, h.dim), (rows, dim));
            prop_assert_eq!(read_npy(&p).unwrap(), e);
        }
    }

    /// Bytes numpy 1.26 writes for `np.save(f, np.array([[1, 2, 3], [4, 5, 6]], dtype='<f4'))`.
    #[test]
    fn reads_numpy_written_file() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(b"\x93NUMPY\x01\x00\x76\x00");
        let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        let mut h = dict.as_bytes().to_vec();
        h.resize(0x76 - 1, b' ');
        h.push(b'\n');
        bytes.extend_from_slice(&h);
        for x in [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("np.npy");
        std::fs::write(&p, &bytes).unwrap();
        let e = read_npy(&p).unwrap();
        assert_eq!((e.len(), e.dim()), (2, 3));
        assert_eq!(e.row(1), &[4.0, 5.0, 6.0]);
    }

    #[test]
    fn bad_headers_and_data_are_errors() {
        let d = tempfile::tempdir().unwrap();
        let write = |name: &str, dict: &str, data: &[u8]| {
            let mut b = b"\x93NUMPY\x01\x00".to_vec();
            let mut h = dict.as_bytes().to_vec();
            let total = (h.len() + 11).div_ceil(64) * 64;
            h.resize(total - 11, b' ');
            h.push(b'\n');
            b.extend_from_slice(&(h.len() as u16).to_le_bytes());
            b.extend_from_slice(&h);
            b.extend_from_slice(data);
            let p = d.path().join(name);
            std::fs::write(&p, b).unwrap();
            p
        };
        // The header dictionary of `descr` values in `fortran` order, of `shape`.
        let dict = |descr: &str, fortran: &str, shape: &str| {
            format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
        };
        // Each file is refused, the error naming it and saying `want`.
        let refused = |name: &str, dict: &str, data: &[u8], want: &str| {
            let p = write(name, dict, data);
            let e = read_npy(&p).unwrap_err().to_string();
            assert!(e.contains(name) && e.contains(want), "{name}: {e}");
        };
        // Headers of the wrong kind or shape, or too few bytes, over `bytes` zero bytes.
        let cases = [
            ("f8.npy", dict("<f8", "False", "(1, 1)"), 8, "dtype <f8"),
            ("fo.npy", dict("<f4", "True", "(1, 1)"), 4, "Fortran"),
            ("1d.npy", dict("<f4", "False", "(3,)"), 12, "2-D"),
            ("short.npy", dict("<f4", "False", "(2, 2)"), 12, "truncated"),
        ];
        for (name, dict, bytes, want) in cases {
            refused(name, &dict, &vec![0u8; bytes], want);
        }
        let nan = [0f32.to_le_bytes(), f32::NAN.to_le_bytes()].concat();
        refused(
            "nan.npy",
            &dict("<f4", "False", "(1, 2)"),
            &nan,
            "row 0, column 1",
        );
        let p = d.path().join("empty.npy");
        std::fs::write(&p, b"").unwrap();
        assert!(read_npy(&p).unwrap_err().to_string().contains("empty"));
        let p = d.path().join("text.npy");
        std::fs::write(&p, b"hello world, not numpy").unwrap();
        assert!(read_npy(&p).unwrap_err().to_string().contains("magic"));
    }
}
