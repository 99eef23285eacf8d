//! The file format of a saved [`super::ExactIndex`] (described in the crate docs): a magic,
//! a small JSON header, then the vectors as raw little-endian `f32`.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;

use bitext_core::io::AtomicFile;
use bitext_core::{Embeddings, Location};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::exact::rows::Rows;
use crate::index::Metric;

/// The first 8 bytes of a saved exact index.
pub(crate) const MAGIC: &[u8; 8] = b"\x93BTXKNN\x01";
const FORMAT: &str = "bitext-knn-exact";
const VERSION: u32 = 1;
/// Longest header accepted when reading.
const MAX_HEADER: u32 = 1 << 16;

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    metric: Metric,
    dim: usize,
    len: usize,
    dtype: String,
}

fn parse_err(path: &Path, at: Location, reason: impl Into<String>) -> Error {
    Error::Core(bitext_core::Error::parse(path, at, reason))
}

/// Write `vectors` with `metric` to `path` atomically.
pub(crate) fn save(path: &Path, metric: Metric, vectors: Rows<'_>) -> Result<()> {
    let header = Header {
        format: FORMAT.into(),
        version: VERSION,
        metric,
        dim: vectors.dim(),
        len: vectors.len(),
        dtype: "<f4".into(),
    };
    let mut json = serde_json::to_string(&header).expect("plain struct serialises");
    let total = (12 + json.len() + 1).div_ceil(64) * 64;
    while 12 + json.len() < total - 1 {
        json.push(' ');
    }
    json.push('\n');
    let mut out = AtomicFile::create(path)?;
    let write = |bytes: &[u8], out: &mut AtomicFile| out.write_all(bytes).map_err(|e| out.err(e));
    write(MAGIC, &mut out)?;
    write(&(json.len() as u32).to_le_bytes(), &mut out)?;
    write(json.as_bytes(), &mut out)?;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut wide = Vec::new();
    let step = (1 << 14) / vectors.dim() + 1;
    for r0 in (0..vectors.len()).step_by(step) {
        let rows = vectors.block(r0, (r0 + step).min(vectors.len()), &mut wide);
        buf.clear();
        buf.extend(rows.iter().flat_map(|x| x.to_le_bytes()));
        write(&buf, &mut out)?;
    }
    out.commit()?;
    Ok(())
}

/// Whether `path` starts with the magic of a saved exact index.
pub(crate) fn is_exact_file(path: &Path) -> Result<bool> {
    let mut f = File::open(path).map_err(|e| bitext_core::Error::io(path, e))?;
    let mut m = [0u8; 8];
    Ok(f.read_exact(&mut m).is_ok() && &m == MAGIC)
}

/// Read a saved exact index: its metric and vectors.
pub(crate) fn load(path: &Path) -> Result<(Metric, Embeddings)> {
    let io = |e| Error::Core(bitext_core::Error::io(path, e));
    let f = File::open(path).map_err(io)?;
    let file_len = f.metadata().map_err(io)?.len();
    let mut r = BufReader::with_capacity(1 << 20, f);
    let mut pre = [0u8; 12];
    if r.read_exact(&mut pre).is_err() || &pre[..8] != MAGIC {
        return Err(parse_err(
            path,
            Location::Byte(0),
            "not a bitext exact kNN index (bad magic); faiss indexes need the `faiss` feature",
        ));
    }
    let hlen = u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]);
    if hlen > MAX_HEADER || 12 + u64::from(hlen) > file_len {
        return Err(parse_err(
            path,
            Location::Byte(8),
            format!("header length {hlen} is invalid"),
        ));
    }
    let mut hbytes = vec![0u8; hlen as usize];
    r.read_exact(&mut hbytes).map_err(io)?;
    let h: Header = std::str::from_utf8(&hbytes)
        .ok()
        .and_then(|s| serde_json::from_str(s.trim_end()).ok())
        .ok_or_else(|| parse_err(path, Location::Byte(12), "malformed JSON header"))?;
    if h.format != FORMAT || h.version != VERSION || h.dtype != "<f4" || h.dim == 0 {
        return Err(parse_err(
            path,
            Location::Byte(12),
            format!(
                "unsupported header: format {:?} version {} dtype {:?} dim {} (expected {FORMAT:?} \
                 version {VERSION}, \"<f4\", dim >= 1)",
                h.format, h.version, h.dtype, h.dim
            ),
        ));
    }
    let data_at = 12 + u64::from(hlen);
    let expect = (h.len as u64)
        .checked_mul(h.dim as u64)
        .and_then(|v| v.checked_mul(4))
        .ok_or_else(|| parse_err(path, Location::Byte(12), "shape overflows"))?;
    if file_len - data_at != expect {
        return Err(parse_err(
            path,
            Location::Byte(data_at),
            format!(
                "header says {}×{} values ({expect} bytes) but the file holds {} bytes of data: \
                 truncated or corrupt",
                h.len,
                h.dim,
                file_len - data_at
            ),
        ));
    }
    let mut data = Vec::with_capacity(h.len * h.dim);
    let mut buf = vec![0u8; 1 << 16];
    let mut left = expect as usize;
    while left > 0 {
        let n = left.min(buf.len());
        r.read_exact(&mut buf[..n]).map_err(io)?;
        data.extend(
            buf[..n]
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        left -= n;
    }
    let vectors = Embeddings::new(data, h.dim)?;
    vectors
        .check_finite()
        .map_err(|e| Error::Core(e.in_file(path)))?;
    Ok((h.metric, vectors))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_pads_to_64_and_numpy_layout_holds() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("i.knn");
        let e = Embeddings::from_rows([[1.0, -2.0, 3.5], [0.0, 0.25, -1.0]], 3).unwrap();
        save(&p, Metric::L2, e.view().into()).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        let h = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
        assert_eq!((12 + h) % 64, 0);
        assert_eq!(bytes.len(), 12 + h + 6 * 4);
        assert_eq!(&bytes[12 + h..12 + h + 4], &1.0f32.to_le_bytes());
        assert!(
            std::str::from_utf8(&bytes[12..12 + h])
                .unwrap()
                .contains("\"metric\":\"l2\"")
        );
        assert_eq!(load(&p).unwrap(), (Metric::L2, e));
        assert!(is_exact_file(&p).unwrap());
    }

    #[test]
    fn truncated_and_foreign_files_name_the_path() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("i.knn");
        let e = Embeddings::from_rows([[1.0, 2.0]], 2).unwrap();
        save(&p, Metric::InnerProduct, e.view().into()).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 2]).unwrap();
        let err = load(&p).unwrap_err().to_string();
        assert!(
            err.starts_with(&p.display().to_string()) && err.contains("truncated"),
            "{err}"
        );
        std::fs::write(&p, b"IxF2 not ours").unwrap();
        let err = load(&p).unwrap_err().to_string();
        assert!(err.contains("bad magic"), "{err}");
        assert!(!is_exact_file(&p).unwrap());
        let mut nan = bytes.clone();
        let n = nan.len();
        nan[n - 4..].copy_from_slice(&f32::NAN.to_le_bytes());
        std::fs::write(&p, nan).unwrap();
        let err = load(&p).unwrap_err().to_string();
        assert!(err.contains("row 0, column 1"), "{err}");
        assert!(
            load(&d.path().join("missing"))
                .unwrap_err()
                .to_string()
                .contains("missing")
        );
    }
}
