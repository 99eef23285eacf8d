//! One direction of IBM Model 1: the sparse translation table `t(e | f)` and its EM training.
//!
//! The table holds only the pairs `(f, e)` that co-occur in some sentence pair (every other
//! probability is zero after the first EM step and stays zero), as rows of a compressed sparse
//! matrix: one row per source token plus the NULL row, target ids sorted within a row.
//!
//! Training precomputes, for every sentence pair, the table position of each of its `(i, j)`
//! links (4 bytes a link), so that an EM iteration is two passes over the links: the E-step
//! computes the links' posteriors in parallel over the sentences of a chunk (rayon), and the
//! counts are accumulated in link order by one thread. Results are therefore bit-identical for any
//! number of threads. There is no random choice: the EM starts from the uniform table.

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Sentence pairs whose link posteriors are held at once during the E-step.
const E_CHUNK: usize = 8192;

/// The posteriors of one sentence pair's links (`l` given words including NULL, `m` explained
/// ones; `idx[i * m + j]` is link `(i, j)`'s table entry) and its log-likelihood
/// `Σ_j log(1/l Σ_i t)`.
fn posteriors(t: &[f64], idx: &[u32], l: usize, m: usize) -> (Vec<f64>, f64) {
    // Each t is read once (a random access into the table) and kept for the division.
    let mut post: Vec<f64> = idx.iter().map(|&p| t[p as usize]).collect();
    let mut ll = 0.0;
    for j in 0..m {
        let mut denom = 0.0;
        for i in 0..l {
            denom += post[i * m + j];
        }
        ll += (denom / l as f64).ln();
        for i in 0..l {
            post[i * m + j] /= denom;
        }
    }
    (post, ll)
}

/// The sorted union of two sorted lists without duplicates.
fn merge_unique(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// What one EM iteration reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationReport {
    /// 1-based iteration.
    pub iteration: usize,
    /// Mean log-probability per target token, `(1/M) Σ log p(e_j | f)`, under the table the
    /// iteration started from (it never decreases under EM).
    pub log_prob_per_token: f64,
    /// Wall-clock seconds of the iteration (E-step, counts, M-step).
    pub seconds: f64,
}

/// A sparse translation table `t(col | row)`; row `rows - 1` is the NULL word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TTable {
    /// `offsets[r]..offsets[r + 1]`: the entries of row `r`.
    pub(crate) offsets: Vec<u64>,
    /// Column (target token) of each entry, increasing within a row.
    pub(crate) cols: Vec<u32>,
    /// `t(col | row)` of each entry.
    pub(crate) prob: Vec<f32>,
    /// Number of columns.
    pub(crate) n_cols: usize,
}

impl TTable {
    /// Number of rows (source tokens and the NULL word).
    pub(crate) fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The NULL word's row.
    pub(crate) fn null_row(&self) -> u32 {
        (self.rows() - 1) as u32
    }

    /// `t(col | row)`, zero when the pair never co-occurred or an id is out of range.
    pub(crate) fn get(&self, row: u32, col: u32) -> f32 {
        let Some(range) = self.row_range(row) else {
            return 0.0;
        };
        match self.cols[range.clone()].binary_search(&col) {
            Ok(at) => self.prob[range.start + at],
            Err(_) => 0.0,
        }
    }

    fn row_range(&self, row: u32) -> Option<std::ops::Range<usize>> {
        let r = row as usize;
        (r + 1 < self.offsets.len()).then(|| self.offsets[r] as usize..self.offsets[r + 1] as usize)
    }

    /// The columns and probabilities of a row (empty for a row out of range).
    pub(crate) fn row(&self, row: u32) -> (&[u32], &[f32]) {
        let range = self.row_range(row).unwrap_or(0..0);
        (&self.cols[range.clone()], &self.prob[range])
    }

    /// Number of stored entries.
    pub(crate) fn nnz(&self) -> usize {
        self.cols.len()
    }

    /// Train by `iterations` EM steps on sentence pairs of ids (`src` rows below
    /// `n_rows - 1`, `tgt` columns below `n_cols`), with the NULL word in every source
    /// sentence when `null` is on.
    pub(crate) fn train(
        src: &[Vec<u32>],
        tgt: &[Vec<u32>],
        (n_rows, n_cols): (usize, usize),
        null: bool,
        iterations: usize,
        report: &mut dyn FnMut(IterationReport),
    ) -> Result<Self> {
        let null_row = (n_rows - 1) as u32;
        let row_ids = |s: &[u32]| -> Vec<u32> {
            let mut r = s.to_vec();
            if null {
                r.push(null_row);
            }
            r
        };
        // The co-occurring pairs, as sorted unique keys row << 32 | col, merged chunk by chunk
        // of sentences (memory: the unique keys, not every sentence's).
        let mut keys: Vec<u64> = Vec::new();
        for (s, t) in src.chunks(E_CHUNK).zip(tgt.chunks(E_CHUNK)) {
            let mut chunk: Vec<u64> = s
                .par_iter()
                .zip(t)
                .flat_map_iter(|(s, t)| {
                    let mut k: Vec<u64> = row_ids(s)
                        .into_iter()
                        .flat_map(|r| t.iter().map(move |&c| (u64::from(r) << 32) | u64::from(c)))
                        .collect();
                    k.sort_unstable();
                    k.dedup();
                    k
                })
                .collect();
            chunk.par_sort_unstable();
            chunk.dedup();
            keys = merge_unique(&keys, &chunk);
        }
        if keys.len() >= u32::MAX as usize {
            return Err(Error::Invalid(format!(
                "{} co-occurring token pairs: more than the 2^32 - 1 IBM Model 1 training supports",
                keys.len()
            )));
        }
        let mut offsets = vec![0u64; n_rows + 1];
        for k in &keys {
            offsets[(k >> 32) as usize + 1] += 1;
        }
        for r in 0..n_rows {
            offsets[r + 1] += offsets[r];
        }
        let cols: Vec<u32> = keys.iter().map(|k| *k as u32).collect();
        drop(keys);
        let mut table = TTable {
            offsets,
            cols,
            prob: Vec::new(),
            n_cols,
        };
        // Each sentence's links: position of (row_i, col_j) at i * m + j.
        let links: Vec<Vec<u32>> = src
            .par_iter()
            .zip(tgt)
            .map(|(s, t)| {
                row_ids(s)
                    .iter()
                    .flat_map(|&r| t.iter().map(move |&c| (r, c)))
                    .map(|(r, c)| table.position(r, c))
                    .collect()
            })
            .collect();
        let uniform = 1.0 / n_cols as f64;
        let mut t = vec![uniform; table.nnz()];
        let mut counts = vec![0.0f64; table.nnz()];
        let tokens: usize = tgt.iter().map(Vec::len).sum();
        for iteration in 1..=iterations {
            let start = std::time::Instant::now();
            // E-step in chunks of sentences: the posteriors of a chunk's links in parallel, then
            // added to the counts in link order (deterministic; memory bounded by the chunk).
            counts.iter_mut().for_each(|c| *c = 0.0);
            let mut log_lik = 0.0;
            for ((s, tt), idx) in src
                .chunks(E_CHUNK)
                .zip(tgt.chunks(E_CHUNK))
                .zip(links.chunks(E_CHUNK))
            {
                let posts: Vec<(Vec<f64>, f64)> = s
                    .par_iter()
                    .zip(tt)
                    .zip(idx)
                    .map(|((s, tt), idx)| {
                        posteriors(&t, idx, s.len() + usize::from(null), tt.len())
                    })
                    .collect();
                for (idx, (post, ll)) in idx.iter().zip(&posts) {
                    log_lik += ll;
                    for (&p, &v) in idx.iter().zip(post) {
                        counts[p as usize] += v;
                    }
                }
            }
            // M-step: normalise each row.
            for r in 0..n_rows {
                let (a, b) = (table.offsets[r] as usize, table.offsets[r + 1] as usize);
                let total: f64 = counts[a..b].iter().sum();
                if total > 0.0 {
                    for e in a..b {
                        t[e] = counts[e] / total;
                    }
                }
            }
            report(IterationReport {
                iteration,
                log_prob_per_token: log_lik / tokens.max(1) as f64,
                seconds: start.elapsed().as_secs_f64(),
            });
        }
        table.prob = t.iter().map(|&p| p as f32).collect();
        Ok(table)
    }

    /// Position of an entry known to exist (training only).
    fn position(&self, row: u32, col: u32) -> u32 {
        let range = self.row_range(row).unwrap_or(0..0);
        let at = self.cols[range.clone()]
            .binary_search(&col)
            .unwrap_or_default();
        (range.start + at) as u32
    }
}
