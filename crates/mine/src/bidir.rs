//! Exact kNN in both directions from one pass over the similarity matrix.
//!
//! Margin mining needs the `k_src` nearest targets of every source sentence *and* the `k_trg`
//! nearest sources of every target sentence. Two searches (LASER: one faiss index per side)
//! compute every inner product twice; here each tile `S_blk · T_blkᵀ` of the similarity matrix is
//! computed once (a single-precision GEMM, `matrixmultiply`) and feeds both the row-wise top-k
//! lists (forward) and the column-wise ones (backward). Half the arithmetic of two searches, the
//! same neighbours. Memory: the inputs (borrowed, e.g. memory-mapped) plus one tile and one set
//! of column lists per thread — never the `n × m` matrix.
//!
//! Ties are broken by the smaller row index, as a stable sort would.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use bitext_core::EmbeddingsView;
use bitext_knn::Neighbors;

use crate::error::{Error, Result};
use crate::miner::NeighborPair;

/// Tiling and threads of the bidirectional search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BidirectionalParams {
    /// Source rows per tile.
    pub src_block: usize,
    /// Target rows per tile.
    pub trg_block: usize,
    /// Worker threads; 0 = one per core.
    pub threads: usize,
}

impl Default for BidirectionalParams {
    fn default() -> Self {
        Self {
            src_block: 1024,
            trg_block: 1024,
            threads: 0,
        }
    }
}

/// The best `k` (id, score) of one list, best first; ties keep the earlier (smaller) id.
#[derive(Debug, Clone)]
struct TopK {
    k: usize,
    ids: Vec<usize>,
    scores: Vec<f32>,
}

impl TopK {
    /// `n` empty lists of `k`.
    fn new(n: usize, k: usize) -> Self {
        Self {
            k,
            ids: vec![usize::MAX; n * k],
            scores: vec![f32::NEG_INFINITY; n * k],
        }
    }

    /// The `k`-th best score of list `q` (−∞ while it has fewer than `k`).
    #[inline]
    fn floor(&self, q: usize) -> f32 {
        self.scores[q * self.k + self.k - 1]
    }

    /// Offer `(id, s)` to list `q`, which only ever receives ids in increasing order (so a tie
    /// with an element already there loses).
    #[inline]
    fn push(&mut self, q: usize, id: usize, s: f32) {
        let (ids, scores) = (
            &mut self.ids[q * self.k..(q + 1) * self.k],
            &mut self.scores[q * self.k..(q + 1) * self.k],
        );
        let mut p = self.k - 1;
        while p > 0 && scores[p - 1] < s {
            scores[p] = scores[p - 1];
            ids[p] = ids[p - 1];
            p -= 1;
        }
        scores[p] = s;
        ids[p] = id;
    }

    /// Merge `other`'s list `q` into list `q` (both sorted; ties by smaller id).
    fn merge(&mut self, other: &TopK, q: usize) {
        let k = self.k;
        let (a_ids, a_s) = (
            &self.ids[q * k..(q + 1) * k],
            &self.scores[q * k..(q + 1) * k],
        );
        let (b_ids, b_s) = (
            &other.ids[q * k..(q + 1) * k],
            &other.scores[q * k..(q + 1) * k],
        );
        let (mut ids, mut scores) = (Vec::with_capacity(k), Vec::with_capacity(k));
        let (mut i, mut j) = (0, 0);
        while ids.len() < k {
            let take_a = a_s[i] > b_s[j] || (a_s[i] == b_s[j] && a_ids[i] <= b_ids[j]);
            if take_a {
                ids.push(a_ids[i]);
                scores.push(a_s[i]);
                i += 1;
            } else {
                ids.push(b_ids[j]);
                scores.push(b_s[j]);
                j += 1;
            }
        }
        self.ids[q * k..(q + 1) * k].copy_from_slice(&ids);
        self.scores[q * k..(q + 1) * k].copy_from_slice(&scores);
    }
}

/// `c = a · bᵀ` for row-major `a` (`m × d`) and `b` (`n × d`), `c` row-major `m × n`.
#[allow(unsafe_code)]
fn gemm_abt(a: &[f32], b: &[f32], d: usize, c: &mut [f32]) {
    let (m, n) = (a.len() / d, b.len() / d);
    assert!(a.len() == m * d && b.len() == n * d && c.len() == m * n && d > 0);
    // SAFETY: the pointers come from slices whose lengths were just checked against the
    // shapes and strides: `a` is m × d with strides (d, 1), `b` read as its transpose is d × n
    // with strides (1, d), `c` is m × n with strides (n, 1); `c` does not alias `a` or `b`
    // (it is a distinct `&mut`). `beta = 0` means `c` is written, never read.
    unsafe {
        matrixmultiply::sgemm(
            m,
            d,
            n,
            1.0,
            a.as_ptr(),
            d as isize,
            1,
            b.as_ptr(),
            1,
            d as isize,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// The `k_src` nearest targets of every source row and the `k_trg` nearest sources of every
/// target row by inner product, from one pass over the tiles of the similarity matrix.
/// `progress` gets the source rows done and the total.
///
/// # Errors
/// [`Error::Invalid`] for an empty side, different dimensions, a `k` of 0 or larger than the
/// other side, zero block sizes.
pub fn exact_both(
    src: EmbeddingsView<'_>,
    trg: EmbeddingsView<'_>,
    k_src: usize,
    k_trg: usize,
    params: BidirectionalParams,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<NeighborPair> {
    crate::miner::check_sides(src, trg)?;
    let (n, m, d) = (src.len(), trg.len(), src.dim());
    if k_src == 0 || k_trg == 0 || k_src > m || k_trg > n {
        return Err(Error::Invalid(format!(
            "k_src = {k_src} and k_trg = {k_trg} must be at least 1 and at most the other \
             side's size ({m} targets, {n} sources)"
        )));
    }
    if params.src_block == 0 || params.trg_block == 0 {
        return Err(Error::Invalid("tile sizes must be at least 1".into()));
    }
    let threads = match params.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        t => t,
    };
    let (bs, bt) = (params.src_block.min(n), params.trg_block.min(m));
    let n_blocks = n.div_ceil(bs);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let fwd = Mutex::new(TopK::new(n, k_src));
    let bwd_parts: Mutex<Vec<TopK>> = Mutex::new(Vec::new());
    let worker = || {
        let mut tile = vec![0f32; bs * bt];
        let mut cols = TopK::new(m, k_trg);
        let mut floors = Vec::with_capacity(bt);
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= n_blocks {
                break;
            }
            let (r0, r1) = (b * bs, ((b + 1) * bs).min(n));
            let a = src.slice_rows(r0..r1).as_slice();
            let mut rows = TopK::new(r1 - r0, k_src);
            for c0 in (0..m).step_by(bt) {
                let c1 = (c0 + bt).min(m);
                let t = &mut tile[..(r1 - r0) * (c1 - c0)];
                gemm_abt(a, trg.slice_rows(c0..c1).as_slice(), d, t);
                scan_tile(t, c1 - c0, r0, c0, &mut rows, &mut cols, &mut floors);
            }
            let mut f = fwd
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let k = k_src;
            f.ids[r0 * k..r1 * k].copy_from_slice(&rows.ids);
            f.scores[r0 * k..r1 * k].copy_from_slice(&rows.scores);
            drop(f);
            done.fetch_add(r1 - r0, Ordering::Relaxed);
        }
        bwd_parts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(cols);
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.min(n_blocks))
            .map(|_| s.spawn(worker))
            .collect();
        while handles.iter().any(|h| !h.is_finished()) {
            progress(done.load(Ordering::Relaxed), n);
            std::thread::park_timeout(std::time::Duration::from_millis(100));
        }
    });
    progress(n, n);
    let fwd = fwd
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut parts = bwd_parts
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut bwd = parts
        .pop()
        .ok_or_else(|| Error::Invalid("no worker ran".into()))?;
    for p in &parts {
        for q in 0..m {
            bwd.merge(p, q);
        }
    }
    Ok(NeighborPair {
        forward: Neighbors::new(k_src, fwd.ids, fwd.scores)?,
        backward: Neighbors::new(k_trg, bwd.ids, bwd.scores)?,
    })
}

/// Feed one tile (rows `r0..`, columns `c0..`, row-major with `width` columns) to the row lists
/// (indexed from the tile's first row) and the column lists (indexed by target row).
/// `floors` is scratch space for the column lists' current floors.
fn scan_tile(
    tile: &[f32],
    width: usize,
    r0: usize,
    c0: usize,
    rows: &mut TopK,
    cols: &mut TopK,
    floors: &mut Vec<f32>,
) {
    /// Columns checked at once: a branch-free comparison the compiler vectorises; the rare
    /// chunk holding a candidate is then walked element by element.
    const CHUNK: usize = 16;
    floors.clear();
    floors.extend((c0..c0 + width).map(|j| cols.floor(j)));
    for (i, row) in tile.chunks_exact(width).enumerate() {
        let mut floor = rows.floor(i);
        for (c, (chunk, fl)) in row.chunks(CHUNK).zip(floors.chunks_mut(CHUNK)).enumerate() {
            let hit = chunk
                .iter()
                .zip(fl.iter())
                .fold(false, |acc, (&s, &f)| acc | (s > f.min(floor)));
            if !hit {
                continue;
            }
            for (jj, (&s, f)) in chunk.iter().zip(fl.iter_mut()).enumerate() {
                let j = c * CHUNK + jj;
                if s > floor {
                    rows.push(i, c0 + j, s);
                    floor = rows.floor(i);
                }
                if s > *f {
                    cols.push(c0 + j, r0 + i, s);
                    *f = cols.floor(c0 + j);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "bidir_tests.rs"]
mod tests;
