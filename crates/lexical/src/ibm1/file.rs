//! The model directory of [`Ibm1`]: written by [`Ibm1::save`], read and checked by
//! [`Ibm1::load`].
//!
//! | file | content |
//! |---|---|
//! | `ibm1.json` | `{"format": "bitext-ibm1", "version": 1, "config": {…}, "segmenter": {…}, "pairs": N}` (written last) |
//! | `src.vocab`, `tgt.vocab` | the token vocabularies (`bitext_tokenize::Vocab` text format) |
//! | `src-tgt.ttable` | `t(tgt | src)`, rows: source ids then NULL |
//! | `tgt-src.ttable` | `t(src | tgt)`, rows: target ids then NULL |
//!
//! A `.ttable` is little-endian binary: the 8 bytes `BTXTTAB1`; `rows`, `cols`, `nnz` as `u64`;
//! `rows + 1` row offsets (`u64`, from 0 to `nnz`); `nnz` column ids (`u32`, increasing within
//! a row, below `cols`); `nnz` probabilities (`f32`, in `[0, 1]`, each non-empty row summing to 1).
//! Loading checks every one of these, and that the sizes match the vocabularies.

use std::fs;
use std::io::Write;
use std::path::Path;

use bitext_core::io::{AtomicFile, strip_bom};
use bitext_core::{Error as CoreError, Location};
use bitext_tokenize::Vocab;
use serde::{Deserialize, Serialize};

use super::table::TTable;
use super::{Ibm1, Ibm1Config};
use crate::error::{Error, Result};
use bitext_tokenize::Segmenter;

const MAGIC: &[u8; 8] = b"BTXTTAB1";
const FORMAT: &str = "bitext-ibm1";
const VERSION: u32 = 1;
/// Largest deviation of a row's sum from 1 accepted on load (the stored values are `f32`).
const ROW_SUM_TOLERANCE: f64 = 1e-3;

/// `ibm1.json`.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: String,
    version: u32,
    config: Ibm1Config,
    segmenter: Segmenter,
    pairs: usize,
}

impl Ibm1 {
    /// Write the model into directory `dir` (created if missing; each file atomically, the
    /// header last, so an interrupted save leaves no loadable half-model behind a new header).
    ///
    /// # Errors
    /// A file that cannot be written, naming it.
    pub fn save(&self, dir: impl AsRef<Path>) -> Result<()> {
        let dir = dir.as_ref();
        fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
        self.src_vocab.save(dir.join("src.vocab"))?;
        self.tgt_vocab.save(dir.join("tgt.vocab"))?;
        write_table(&self.fwd, &dir.join("src-tgt.ttable"))?;
        write_table(&self.bwd, &dir.join("tgt-src.ttable"))?;
        let header = Header {
            format: FORMAT.into(),
            version: VERSION,
            config: self.config.clone(),
            segmenter: self.segmenter.clone(),
            pairs: self.pairs,
        };
        let path = dir.join("ibm1.json");
        let mut out = AtomicFile::create(&path)?;
        let json = serde_json::to_string_pretty(&header)
            .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        out.write_all(json.as_bytes()).map_err(|e| out.err(e))?;
        out.commit()?;
        Ok(())
    }

    /// Read a model directory written by [`Ibm1::save`].
    ///
    /// # Errors
    /// A missing or malformed file, naming it and the reason (byte offset for the tables).
    pub fn load(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        let path = dir.join("ibm1.json");
        let bytes = fs::read(&path).map_err(|e| CoreError::io(&path, e))?;
        let header: Header = serde_json::from_slice(strip_bom(&bytes)).map_err(|e| {
            CoreError::parse(
                &path,
                Location::Line(e.line()),
                format!("not an IBM-1 header: {e}"),
            )
        })?;
        if header.format != FORMAT || header.version != VERSION {
            return Err(CoreError::parse(
                &path,
                Location::File,
                format!(
                    "format {:?} version {}: this build reads {FORMAT:?} version {VERSION}",
                    header.format, header.version
                ),
            )
            .into());
        }
        let src_vocab = Vocab::load(dir.join("src.vocab"))?;
        let tgt_vocab = Vocab::load(dir.join("tgt.vocab"))?;
        let (ns, nt) = (src_vocab.len(), tgt_vocab.len());
        let fwd = read_table(&dir.join("src-tgt.ttable"), (ns + 1, nt))?;
        let bwd = read_table(&dir.join("tgt-src.ttable"), (nt + 1, ns))?;
        Ok(Self {
            segment: header.segmenter.build()?,
            config: header.config,
            segmenter: header.segmenter,
            src_vocab,
            tgt_vocab,
            fwd,
            bwd,
            pairs: header.pairs,
        })
    }
}

fn write_table(t: &TTable, path: &Path) -> Result<()> {
    let mut out = AtomicFile::create(path)?;
    let mut bytes = Vec::with_capacity(32 + 8 * t.offsets.len() + 8 * t.nnz());
    bytes.extend_from_slice(MAGIC);
    for n in [t.rows(), t.n_cols, t.nnz()] {
        bytes.extend_from_slice(&(n as u64).to_le_bytes());
    }
    t.offsets
        .iter()
        .for_each(|o| bytes.extend_from_slice(&o.to_le_bytes()));
    t.cols
        .iter()
        .for_each(|c| bytes.extend_from_slice(&c.to_le_bytes()));
    t.prob
        .iter()
        .for_each(|p| bytes.extend_from_slice(&p.to_le_bytes()));
    out.write_all(&bytes).map_err(|e| out.err(e))?;
    out.commit()?;
    Ok(())
}

fn read_table(path: &Path, (rows, cols): (usize, usize)) -> Result<TTable> {
    let bytes = fs::read(path).map_err(|e| CoreError::io(path, e))?;
    let bad = |at: usize, reason: String| -> Error {
        CoreError::parse(path, Location::Byte(at as u64), reason).into()
    };
    if bytes.len() < 32 || &bytes[..8] != MAGIC {
        return Err(bad(
            0,
            "not a bitext IBM-1 table (no BTXTTAB1 header)".into(),
        ));
    }
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
    let (r, c, nnz) = (u64_at(8), u64_at(16), u64_at(24));
    if r != rows as u64 || c != cols as u64 {
        return Err(bad(
            8,
            format!(
                "a {r} × {c} table, but the vocabularies make it {rows} × {cols} (files from \
                 different models?)"
            ),
        ));
    }
    let expected = (rows as u128 + 1) * 8 + u128::from(nnz) * 8 + 32;
    if bytes.len() as u128 != expected {
        return Err(bad(
            24,
            format!(
                "{} bytes, but {nnz} entries in {rows} rows need {expected}",
                bytes.len()
            ),
        ));
    }
    let nnz = nnz as usize;
    let off_at = 32;
    let cols_at = off_at + (rows + 1) * 8;
    let prob_at = cols_at + nnz * 4;
    let offsets: Vec<u64> = (0..=rows).map(|i| u64_at(off_at + 8 * i)).collect();
    let col_ids: Vec<u32> = bytes[cols_at..prob_at]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let prob: Vec<f32> = bytes[prob_at..]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if offsets[0] != 0 || offsets[rows] != nnz as u64 {
        return Err(bad(
            off_at,
            "row offsets must run from 0 to the entry count".into(),
        ));
    }
    for row in 0..rows {
        let (a, b) = (offsets[row], offsets[row + 1]);
        if b < a || b > nnz as u64 {
            return Err(bad(
                off_at + 8 * (row + 1),
                format!("row {row}: offsets decrease"),
            ));
        }
        let (a, b) = (a as usize, b as usize);
        for e in a..b {
            if col_ids[e] as usize >= cols || (e > a && col_ids[e] <= col_ids[e - 1]) {
                return Err(bad(
                    cols_at + 4 * e,
                    format!(
                        "row {row}: column {} is out of range or not increasing",
                        col_ids[e]
                    ),
                ));
            }
            if !(0.0..=1.0).contains(&prob[e]) {
                return Err(bad(
                    prob_at + 4 * e,
                    format!("row {row}: probability {} is not in [0, 1]", prob[e]),
                ));
            }
        }
        let sum: f64 = prob[a..b].iter().map(|&p| f64::from(p)).sum();
        if b > a && (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(bad(
                prob_at + 4 * a,
                format!("row {row}: probabilities sum to {sum}, not 1"),
            ));
        }
    }
    Ok(TTable {
        offsets,
        cols: col_ids,
        prob,
        n_cols: cols,
    })
}
