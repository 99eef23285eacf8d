//! The files steps write: a magic, a JSON header (what the file holds and its shape), then
//! little-endian arrays, one after the other. Written through a temporary file and a rename;
//! read back with every size checked against the header, so a truncated or foreign file is an
//! error naming it, never a wrong result.

use std::io::Write;
use std::path::Path;

use bitext_core::io::AtomicFile;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The first 8 bytes of a step output.
const MAGIC: &[u8; 8] = b"\x93BTXSHD\x01";

/// The header of a step output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Header {
    /// What the file holds ("knn", "lists", "means", "scored", "pairs").
    pub(crate) kind: String,
    /// Shape numbers of that kind (rows, k, …).
    pub(crate) shape: Vec<usize>,
    /// Element count of each array.
    pub(crate) counts: Vec<usize>,
}

/// An array to write: its little-endian bytes and element count.
pub(crate) struct Array(pub(crate) Vec<u8>, pub(crate) usize);

impl Array {
    pub(crate) fn u64s(v: impl IntoIterator<Item = u64>) -> Self {
        let mut b = Vec::new();
        let mut n = 0;
        for x in v {
            b.extend_from_slice(&x.to_le_bytes());
            n += 1;
        }
        Array(b, n)
    }

    pub(crate) fn bytes(v: Vec<u8>) -> Self {
        let n = v.len();
        Array(v, n)
    }

    pub(crate) fn f32s(v: &[f32]) -> Self {
        Array(v.iter().flat_map(|x| x.to_le_bytes()).collect(), v.len())
    }

    pub(crate) fn f64s(v: &[f64]) -> Self {
        Array(v.iter().flat_map(|x| x.to_le_bytes()).collect(), v.len())
    }
}

/// Write `arrays` under a header of `kind` and `shape` to `path` (atomically).
pub(crate) fn write(path: &Path, kind: &str, shape: Vec<usize>, arrays: &[Array]) -> Result<()> {
    let header = Header {
        kind: kind.into(),
        shape,
        counts: arrays.iter().map(|a| a.1).collect(),
    };
    let json = serde_json::to_string(&header).expect("plain struct serialises");
    let mut out = AtomicFile::create(path)?;
    let mut put = |b: &[u8]| out.write_all(b).map_err(|e| out.err(e));
    put(MAGIC)?;
    put(&(json.len() as u32).to_le_bytes())?;
    put(json.as_bytes())?;
    for a in arrays {
        put(&a.0)?;
    }
    out.commit()?;
    Ok(())
}

/// A file read back: its header and arrays (raw little-endian bytes).
pub(crate) struct Read {
    pub(crate) header: Header,
    arrays: Vec<Vec<u8>>,
}

fn corrupt(path: &Path, reason: impl Into<String>) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Read `path`, expecting `kind` with arrays of elements of `sizes` bytes.
pub(crate) fn read(path: &Path, kind: &str, sizes: &[usize]) -> Result<Read> {
    let bytes = std::fs::read(path).map_err(|e| bitext_core::Error::io(path, e))?;
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(corrupt(path, "not a bitext shard file (bad magic)"));
    }
    let hlen = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
    let header: Header = bytes
        .get(12..12 + hlen)
        .and_then(|h| serde_json::from_slice(h).ok())
        .ok_or_else(|| corrupt(path, "malformed header"))?;
    if header.kind != kind || header.counts.len() != sizes.len() {
        return Err(corrupt(
            path,
            format!(
                "holds {:?} with {} arrays, expected {kind:?} with {}",
                header.kind,
                header.counts.len(),
                sizes.len()
            ),
        ));
    }
    let mut at = 12 + hlen;
    let mut arrays = Vec::with_capacity(sizes.len());
    for (&n, &size) in header.counts.iter().zip(sizes) {
        let end = n
            .checked_mul(size)
            .and_then(|b| b.checked_add(at))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| {
                corrupt(
                    path,
                    "truncated: the arrays are shorter than the header says",
                )
            })?;
        arrays.push(bytes[at..end].to_vec());
        at = end;
    }
    if at != bytes.len() {
        return Err(corrupt(path, "bytes after the last array"));
    }
    Ok(Read { header, arrays })
}

impl Read {
    pub(crate) fn u64s(&self, i: usize) -> Vec<u64> {
        self.arrays[i]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    }

    pub(crate) fn bytes(&self, i: usize) -> Vec<u8> {
        self.arrays[i].clone()
    }

    pub(crate) fn usizes(&self, i: usize, path: &Path, below: usize) -> Result<Vec<usize>> {
        self.u64s(i)
            .into_iter()
            .map(|x| {
                usize::try_from(x)
                    .ok()
                    .filter(|&x| x < below)
                    .ok_or_else(|| corrupt(path, format!("id {x} out of range (< {below})")))
            })
            .collect()
    }

    pub(crate) fn f32s(&self, i: usize) -> Vec<f32> {
        self.arrays[i]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }

    pub(crate) fn f64s(&self, i: usize) -> Vec<f64> {
        self.arrays[i]
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    }
}
