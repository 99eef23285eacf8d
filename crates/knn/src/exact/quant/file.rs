//! Saved quantised copies: [`QuantDb::save`] writes one (a magic, a JSON header, then 64-byte
//! aligned sections), [`QuantDb::open`] maps it back with the codes, scales and offsets viewed
//! in place ([`Buf::Mapped`]: paged in as the scan reads them, shared between processes through
//! the page cache) and the small per-row tables read into memory.
//!
//! A copy is only as good as the certificate it feeds, so opening checks everything a search
//! relies on: the shape of every section, a checksum of all the data (a flipped bit in the
//! codes would otherwise make a wrong score look certified), finite norms, consistent
//! duplicate tables; and the caller compares the recorded fingerprint of the source vectors
//! with the index's own, so a copy of other vectors is refused.

use std::io::Write;
use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use bitext_core::io::{AtomicFile, checksum};
use bitext_core::{Location, MappedBytes};
use serde::{Deserialize, Serialize};

use super::{Distinct, Norms, Precision, QuantDb, steps};
use crate::error::{Error, Result};

/// The first 8 bytes of a saved quantised copy.
const MAGIC: &[u8; 8] = b"\x93BTXQNT\x01";
const FORMAT: &str = "bitext-knn-quantized";
const VERSION: u32 = 1;
/// Longest header accepted when reading.
const MAX_HEADER: usize = 1 << 16;
/// Alignment of every section.
const ALIGN: usize = 64;

/// An array owned, or viewed in place in a mapped file.
#[derive(Debug, Clone)]
pub(crate) enum Buf<T> {
    Owned(Vec<T>),
    /// `len` values at byte `at` of the map (aligned for `T`: checked when opened).
    Mapped {
        map: Arc<MappedBytes>,
        at: usize,
        len: usize,
    },
}

impl<T> From<Vec<T>> for Buf<T> {
    fn from(v: Vec<T>) -> Self {
        Buf::Owned(v)
    }
}

impl<T: bytemuck::Pod> Deref for Buf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Buf::Owned(v) => v,
            Buf::Mapped { map, at, len } => {
                bytemuck::cast_slice(&map.bytes()[*at..*at + len * size_of::<T>()])
            }
        }
    }
}

impl<T> Buf<T> {
    /// Whether the values are viewed in a mapped file.
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self, Buf::Mapped { .. })
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    precision: Precision,
    dim: usize,
    len: usize,
    rows: usize,
    steps: usize,
    kind: String,
    /// Fingerprint of the source vectors, hexadecimal.
    source: String,
    /// Checksum of everything after the header, hexadecimal.
    checksum: String,
    /// (name, byte offset, values) of each section, in file order.
    sections: Vec<(String, usize, usize)>,
}

fn parse_err(path: &Path, at: Location, reason: impl Into<String>) -> Error {
    Error::Core(bitext_core::Error::parse(path, at, reason))
}

/// The sections of `q` as (name, little-endian bytes).
fn sections(q: &QuantDb) -> Vec<(&'static str, usize, Vec<u8>)> {
    fn le<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
        // The in-memory layout is little-endian on every machine this saves on (see `save`).
        bytemuck::cast_slice(v).to_vec()
    }
    let norms: Vec<f64> = q
        .norms
        .iter()
        .flat_map(|n| [n.norm, n.quant, n.resid, n.scale])
        .collect();
    let (first, start, later, of_row) = match &q.distinct {
        Some(d) => {
            let u = |v: &[usize]| v.iter().map(|&x| x as u64).collect::<Vec<u64>>();
            (u(&d.first), u(&d.start), u(&d.later), d.of_row.clone())
        }
        None => Default::default(),
    };
    vec![
        ("words", q.words.len(), le(&q.words)),
        ("scales", q.scales.len(), le(&q.scales)),
        ("offsets", q.offsets.len(), le(&q.offsets)),
        ("norms", norms.len(), le(&norms)),
        ("first", first.len(), le(&first)),
        ("start", start.len(), le(&start)),
        ("later", later.len(), le(&later)),
        ("of_row", of_row.len(), le(&of_row)),
    ]
}

impl QuantDb {
    /// Write this copy to `path` (atomically).
    ///
    /// # Errors
    /// I/O errors naming the path; a big-endian machine.
    pub(crate) fn save(&self, path: &Path) -> Result<()> {
        if cfg!(target_endian = "big") {
            return Err(Error::Invalid(
                "quantised copies are saved little-endian; this machine is big-endian".into(),
            ));
        }
        let secs = sections(self);
        // Lay the sections out after a header of at most MAX_HEADER bytes.
        let mut data = Vec::new();
        let mut table = Vec::new();
        for (name, count, bytes) in &secs {
            data.resize(data.len().next_multiple_of(ALIGN), 0);
            table.push(((*name).to_string(), data.len(), *count));
            data.extend_from_slice(bytes);
        }
        let mut header = Header {
            format: FORMAT.into(),
            version: VERSION,
            precision: self.precision,
            dim: self.dim,
            len: self.len,
            rows: self.rows(),
            steps: self.steps,
            kind: self.kind.into(),
            source: format!("{:016x}", self.source),
            checksum: format!("{:016x}", checksum(&data)),
            sections: table,
        };
        // The data start at the first boundary after the header, whose offsets depend on it.
        let rel: Vec<usize> = header.sections.iter().map(|s| s.1).collect();
        let mut base = ALIGN;
        let mut json = loop {
            for (s, &r) in header.sections.iter_mut().zip(&rel) {
                s.1 = r + base;
            }
            let json = serde_json::to_string(&header).expect("plain struct serialises");
            let need = (12 + json.len() + 1).next_multiple_of(ALIGN);
            if need <= base {
                break json;
            }
            base = need;
        };
        while 12 + json.len() < base - 1 {
            json.push(' ');
        }
        json.push('\n');
        let mut out = AtomicFile::create(path)?;
        let mut write = |b: &[u8]| out.write_all(b).map_err(|e| out.err(e));
        write(MAGIC)?;
        write(&(json.len() as u32).to_le_bytes())?;
        write(json.as_bytes())?;
        write(&data)?;
        out.commit()?;
        Ok(())
    }

    /// Map a copy saved by [`QuantDb::save`]; the caller checks its source against the index.
    ///
    /// # Errors
    /// I/O errors, a bad magic or header, sections of the wrong size or alignment, a checksum
    /// mismatch, non-finite norms or inconsistent duplicate tables, naming the path.
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let map = Arc::new(MappedBytes::open(path)?);
        let bytes = map.bytes();
        let bad = |at: u64, why: String| parse_err(path, Location::Byte(at), why);
        if bytes.len() < 12 || &bytes[..8] != MAGIC {
            return Err(bad(
                0,
                "not a saved bitext quantised copy (bad magic)".into(),
            ));
        }
        let hlen = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
        if hlen > MAX_HEADER || 12 + hlen > bytes.len() {
            return Err(bad(8, format!("header length {hlen} is invalid")));
        }
        let h: Header = std::str::from_utf8(&bytes[12..12 + hlen])
            .ok()
            .and_then(|s| serde_json::from_str(s.trim_end()).ok())
            .ok_or_else(|| bad(12, "malformed JSON header".into()))?;
        let data_at = 12 + hlen;
        if h.format != FORMAT || h.version != VERSION {
            return Err(bad(
                12,
                format!("unsupported format {:?} version {}", h.format, h.version),
            ));
        }
        let shape_ok = h.precision != Precision::F32
            && h.dim > 0
            && h.rows <= h.len
            && h.steps == steps(h.precision, h.dim)
            && (h.rows > 0 || h.len == 0);
        if !shape_ok {
            return Err(bad(12, format!("inconsistent shape in the header: {h:?}")));
        }
        let int8 = usize::from(h.precision == Precision::Int8);
        let dups = usize::from(h.rows < h.len);
        let expect = [
            ("words", h.rows.checked_mul(h.steps), 4),
            ("scales", Some(int8 * h.rows), 4),
            ("offsets", Some(int8 * h.rows), 4),
            ("norms", h.rows.checked_mul(4), 8),
            ("first", Some(dups * h.rows), 8),
            ("start", Some(dups * (h.rows + 1)), 8),
            ("later", Some(dups * (h.len - h.rows)), 8),
            ("of_row", Some(dups * h.len), 4),
        ];
        if h.sections.len() != expect.len() {
            return Err(bad(
                12,
                format!("{} sections, expected 8", h.sections.len()),
            ));
        }
        let mut end = data_at;
        for ((name, at, count), (want, n, size)) in h.sections.iter().zip(expect) {
            let fits = n == Some(*count)
                && name == want
                && at % ALIGN == 0
                && *at >= end
                && count
                    .checked_mul(size)
                    .and_then(|b| b.checked_add(*at))
                    .is_some_and(|e| e <= bytes.len());
            if !fits {
                return Err(bad(
                    12,
                    format!(
                        "section {name:?} ({count} values at byte {at}) does not fit the \
                         header's shape or the file ({} bytes): truncated or corrupt",
                        bytes.len()
                    ),
                ));
            }
            end = at + count * size;
        }
        if end != bytes.len() {
            return Err(bad(end as u64, "bytes after the last section".into()));
        }
        let stored = u64::from_str_radix(&h.checksum, 16).ok();
        if stored != Some(checksum(&bytes[data_at..])) {
            return Err(bad(
                data_at as u64,
                "checksum mismatch: the file is corrupt".into(),
            ));
        }
        let source = u64::from_str_radix(&h.source, 16)
            .map_err(|_| bad(12, format!("bad source fingerprint {:?}", h.source)))?;
        let sec = |i: usize| (h.sections[i].1, h.sections[i].2);
        fn mapped<T>(map: &Arc<MappedBytes>, (at, len): (usize, usize)) -> Buf<T> {
            Buf::Mapped {
                map: Arc::clone(map),
                at,
                len,
            }
        }
        let read = |i: usize| -> &[u8] {
            let (at, len) = sec(i);
            &bytes[at..at + len * if i == 7 { 4 } else { 8 }]
        };
        let f64s: Vec<f64> = bytemuck::pod_collect_to_vec(read(3));
        let norms: Vec<Norms> = f64s
            .chunks_exact(4)
            .map(|c| Norms {
                norm: c[0],
                quant: c[1],
                resid: c[2],
                scale: c[3],
            })
            .collect();
        if f64s.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(bad(
                sec(3).0 as u64,
                "a norm is negative or not finite".into(),
            ));
        }
        let max = norms.iter().copied().fold(Norms::default(), Norms::max);
        let distinct = if dups == 1 {
            let us = |i: usize| -> Vec<usize> {
                bytemuck::pod_collect_to_vec::<u8, u64>(read(i))
                    .into_iter()
                    .map(|x| x as usize)
                    .collect()
            };
            let d = Distinct {
                first: us(4),
                start: us(5),
                later: us(6),
                of_row: bytemuck::pod_collect_to_vec(read(7)),
            };
            if !d.is_consistent(h.len) {
                return Err(bad(sec(4).0 as u64, "inconsistent duplicate tables".into()));
            }
            Some(d)
        } else {
            None
        };
        let kind = match h.kind.as_str() {
            "f32" => "f32",
            "f16" => "f16",
            "f16-normalized" => "f16-normalized",
            other => return Err(bad(12, format!("unknown source kind {other:?}"))),
        };
        Ok(QuantDb {
            precision: h.precision,
            steps: h.steps,
            dim: h.dim,
            len: h.len,
            kind,
            source,
            words: mapped(&map, sec(0)),
            scales: mapped(&map, sec(1)),
            offsets: mapped(&map, sec(2)),
            norms,
            max,
            distinct,
        })
    }
}

impl Distinct {
    /// Whether the tables describe a partition of `len` rows into distinct rows whose first
    /// copies ascend and whose later copies follow them (what the re-rank relies on).
    fn is_consistent(&self, len: usize) -> bool {
        let rows = self.first.len();
        let ascending = |v: &[usize]| v.windows(2).all(|w| w[0] < w[1]);
        let starts_ok = self.start.len() == rows + 1
            && self.start.first() == Some(&0)
            && self.start.last() == Some(&self.later.len())
            && self.start.windows(2).all(|w| w[0] <= w[1]);
        if !(starts_ok && ascending(&self.first) && self.of_row.len() == len) {
            return false;
        }
        let first_ok = self
            .first
            .iter()
            .enumerate()
            .all(|(u, &r)| r < len && self.of_row[r] as usize == u);
        let later_ok = (0..rows).all(|u| {
            let l = &self.later[self.start[u]..self.start[u + 1]];
            ascending(l)
                && l.iter()
                    .all(|&r| r < len && r > self.first[u] && self.of_row[r] as usize == u)
        });
        first_ok && later_ok && self.of_row.iter().all(|&u| (u as usize) < rows)
    }
}
