//! The programme of [`super::align_documents`]: one side's vectors and normalisers at one
//! level of the coarse-to-fine search ([`Side`]), the costs of beads under either
//! [`DocScoring`] ([`Level`]), the full or banded dynamic programme, and the halving and band
//! of the coarse-to-fine search ([`solve`]).

use bitext_core::{Embeddings, EmbeddingsView, Rng, normalize_row};
use bitext_knn::{ExactIndex, KnnIndex, Metric};
use bitext_similarity::margin::neighbourhood_means;

use super::{DocAlignConfig, DocScoring, Overlaps};
use crate::error::{Error, Result};

/// One side at one level of the search: vectors by layer, and their normalisers.
pub(super) struct Side {
    layers: Vec<Vec<f32>>,
    /// [`DocScoring::Vecalign`]: one minus the mean cosine to random overlaps of the other
    /// side; [`DocScoring::Margin`]: the mean cosine to the nearest sentences of the other side.
    norms: Vec<Vec<f64>>,
    pub(super) len: usize,
}

impl Side {
    pub(super) fn from(o: &Overlaps, layers: usize) -> Side {
        Side {
            layers: o.layers.iter().take(layers).cloned().collect(),
            norms: Vec::new(),
            len: o.len,
        }
    }

    /// The vector of sentences `start .. start + n`.
    fn vec(&self, n: usize, start: usize, dim: usize) -> &[f32] {
        &self.layers[n - 1][start * dim..(start + 1) * dim]
    }

    fn rows(&self, k: usize, dim: usize) -> usize {
        self.layers.get(k).map_or(0, |l| l.len() / dim.max(1))
    }

    /// Half as many sentences: neighbours summed, centred, renormalised (layer 1 only).
    fn halved(&self, dim: usize) -> Side {
        let half = self.len / 2;
        let l = &self.layers[0];
        let mut v = vec![0f32; half * dim];
        for i in 0..half {
            for d in 0..dim {
                v[i * dim + d] = l[2 * i * dim + d] + l[(2 * i + 1) * dim + d];
            }
        }
        if half > 0 {
            let mut mean = vec![0f32; dim];
            for r in v.chunks(dim) {
                for (m, x) in mean.iter_mut().zip(r) {
                    *m += x / half as f32;
                }
            }
            for r in v.chunks_mut(dim) {
                for (x, m) in r.iter_mut().zip(&mean) {
                    *x -= m;
                }
                normalize_row(r);
            }
        }
        Side {
            layers: vec![v],
            norms: Vec::new(),
            len: half,
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    f64::from(bitext_similarity::dot(a, b))
}

/// One level of the search: both sides, their normalisers and the deletion penalty.
pub(super) struct Level {
    pub(super) src: Side,
    pub(super) tgt: Side,
    dim: usize,
    pub(super) penalty: f64,
    types: Vec<(usize, usize)>,
    scoring: DocScoring,
}

impl Level {
    pub(super) fn new(
        mut src: Side,
        mut tgt: Side,
        dim: usize,
        types: Vec<(usize, usize)>,
        c: &DocAlignConfig,
        rng: &mut Rng,
    ) -> Result<Level> {
        match c.scoring {
            DocScoring::Vecalign => {
                src.norms = norms(&src, &tgt, dim, c.norm_samples, rng);
                tgt.norms = norms(&tgt, &src, dim, c.norm_samples, rng);
            }
            DocScoring::Margin { neighbours, pool } => {
                src.norms = knn_means(&src, &tgt, dim, neighbours, pool, rng)?;
                tgt.norms = knn_means(&tgt, &src, dim, neighbours, pool, rng)?;
            }
        }
        let mut level = Level {
            src,
            tgt,
            dim,
            penalty: 0.0,
            types,
            scoring: c.scoring,
        };
        level.penalty = match (c.deletion_penalty, c.scoring) {
            (Some(p), _) => p,
            (None, DocScoring::Vecalign) => level.quantile_cost(c, rng),
            (None, DocScoring::Margin { .. }) => DocScoring::MARGIN_DELETION,
        };
        Ok(level)
    }

    /// The cost of the bead of `x` source sentences from `i` and `y` target sentences from
    /// `j` (both ≥ 1).
    pub(super) fn cost(&self, x: usize, i: usize, y: usize, j: usize) -> f64 {
        let u = self.src.vec(x, i, self.dim);
        let w = self.tgt.vec(y, j, self.dim);
        let (nu, nw) = (self.src.norms[x - 1][i], self.tgt.norms[y - 1][j]);
        match self.scoring {
            DocScoring::Vecalign => 2.0 * (x * y) as f64 * (1.0 - dot(u, w)) / (1e-6 + nu + nw),
            DocScoring::Margin { .. } => (nu + nw) / 2.0 - dot(u, w),
        }
    }

    /// The `del_percentile` quantile of the 1-1 costs of random sentence pairs.
    fn quantile_cost(&self, c: &DocAlignConfig, rng: &mut Rng) -> f64 {
        let (a, b) = (self.src.len, self.tgt.len);
        if a == 0 || b == 0 {
            return 0.5;
        }
        let mut costs: Vec<f64> = if a.saturating_mul(b) <= c.cost_samples {
            (0..a)
                .flat_map(|i| (0..b).map(move |j| (i, j)))
                .map(|(i, j)| self.cost(1, i, 1, j))
                .collect()
        } else {
            (0..c.cost_samples)
                .map(|_| self.cost(1, rng.below(a), 1, rng.below(b)))
                .collect()
        };
        costs.sort_by(f64::total_cmp);
        let pos = c.del_percentile * (costs.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        costs[lo] + (costs[hi] - costs[lo]) * (pos - lo as f64)
    }

    /// The full or banded programme: `band[X]` is the inclusive range of target nodes searched
    /// at source node `X`. Returns the path as bead shapes, first to last.
    fn search(&self, band: &[(usize, usize)]) -> Result<Vec<(usize, usize)>> {
        let (n0, n1) = (self.src.len, self.tgt.len);
        let mut cost: Vec<Vec<f64>> = band
            .iter()
            .map(|&(lo, hi)| vec![f64::INFINITY; hi - lo + 1])
            .collect();
        let mut back: Vec<Vec<u8>> = band
            .iter()
            .map(|&(lo, hi)| vec![u8::MAX; hi - lo + 1])
            .collect();
        cost[0][0] = 0.0;
        for xn in 0..=n0 {
            let (lo, hi) = band[xn];
            for yn in lo..=hi {
                if xn == 0 && yn == 0 {
                    continue;
                }
                let mut best = (f64::INFINITY, u8::MAX);
                for (t, &(x, y)) in self.types.iter().enumerate() {
                    if x > xn || y > yn {
                        continue;
                    }
                    let (px, py) = (xn - x, yn - y);
                    let (plo, phi) = band[px];
                    if py < plo || py > phi {
                        continue;
                    }
                    let prev = cost[px][py - plo];
                    if !prev.is_finite() {
                        continue;
                    }
                    if x > 0
                        && y > 0
                        && (self.src.rows(x - 1, self.dim) <= px
                            || self.tgt.rows(y - 1, self.dim) <= py)
                    {
                        continue;
                    }
                    let c = if x == 0 || y == 0 {
                        self.penalty
                    } else {
                        self.cost(x, px, y, py)
                    };
                    if prev + c < best.0 {
                        best = (prev + c, t as u8);
                    }
                }
                cost[xn][yn - lo] = best.0;
                back[xn][yn - lo] = best.1;
            }
        }
        let (lo, _) = band[n0];
        if n1 < lo || !cost[n0].get(n1 - lo).is_some_and(|c| c.is_finite()) {
            return Err(Error::Invalid(
                "document alignment: the search band holds no path".into(),
            ));
        }
        let mut path = Vec::new();
        let (mut xn, mut yn) = (n0, n1);
        while xn > 0 || yn > 0 {
            let t = back[xn][yn - band[xn].0];
            let (x, y) = self.types[usize::from(t)];
            path.push((x, y));
            xn -= x;
            yn -= y;
        }
        path.reverse();
        Ok(path)
    }
}

/// Each vector's normaliser: one minus its mean cosine to `samples` random overlaps of the
/// other side.
fn norms(side: &Side, other: &Side, dim: usize, samples: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
    let layers: Vec<usize> = (0..other.layers.len())
        .filter(|&k| other.rows(k, dim) > 0)
        .collect();
    let picks: Vec<&[f32]> = if layers.is_empty() {
        Vec::new()
    } else {
        (0..samples)
            .map(|_| {
                let k = layers[rng.below(layers.len())];
                let r = rng.below(other.rows(k, dim));
                &other.layers[k][r * dim..(r + 1) * dim]
            })
            .collect()
    };
    side.layers
        .iter()
        .map(|l| {
            l.chunks(dim.max(1))
                .map(|v| {
                    if picks.is_empty() {
                        1.0
                    } else {
                        1.0 - picks.iter().map(|p| dot(v, p)).sum::<f64>() / picks.len() as f64
                    }
                })
                .collect()
        })
        .collect()
}

/// Each vector's margin normaliser: the mean cosine of its `k` nearest sentences (single
/// sentences, layer 1) of the other side, found by the workspace's exact search
/// ([`ExactIndex`]) and averaged by [`neighbourhood_means`], the means of margin mining; over a
/// random `pool` of them, with `k` scaled by `pool / len`, where the other side is longer. 0
/// where the other side is empty.
fn knn_means(
    side: &Side,
    other: &Side,
    dim: usize,
    k: usize,
    pool: usize,
    rng: &mut Rng,
) -> Result<Vec<Vec<f64>>> {
    let m = other.rows(0, dim);
    let rows: Vec<usize> = if m > pool {
        rng.sample_indices(m, pool)
    } else {
        (0..m).collect()
    };
    let k = if m > pool {
        ((k * pool) as f64 / m as f64).round().max(1.0) as usize
    } else {
        k
    }
    .min(rows.len());
    if k == 0 || dim == 0 {
        return Ok(side
            .layers
            .iter()
            .map(|l| vec![0.0; l.len() / dim.max(1)])
            .collect());
    }
    let picks = Embeddings::from_rows(
        rows.iter()
            .map(|&r| &other.layers[0][r * dim..(r + 1) * dim]),
        dim,
    )?;
    let index = ExactIndex::over(picks.view(), Metric::InnerProduct)?;
    side.layers
        .iter()
        .map(|l| {
            if l.is_empty() {
                return Ok(Vec::new());
            }
            let nb = index.search(EmbeddingsView::new(l, dim)?, k)?;
            Ok(neighbourhood_means(&nb, k, "document alignment")?)
        })
        .collect()
}

/// The search band around a coarse path (bead shapes at half the resolution) for documents of
/// `n0` and `n1` sentences: every node of the upsampled path's rectangles, `w` target nodes to
/// each side.
fn band_around(coarse: &[(usize, usize)], n0: usize, n1: usize, w: usize) -> Vec<(usize, usize)> {
    let mut band = vec![(usize::MAX, 0usize); n0 + 1];
    let mut cover = |x0: usize, x1: usize, y0: usize, y1: usize| {
        for b in &mut band[x0.min(n0)..=x1.min(n0)] {
            b.0 = b.0.min(y0);
            b.1 = b.1.max(y1);
        }
    };
    let (mut a, mut c) = (0, 0);
    for &(x, y) in coarse {
        cover(2 * a, 2 * (a + x), 2 * c, 2 * (c + y));
        a += x;
        c += y;
    }
    // The sentence a halving dropped at the end of an odd document.
    cover(2 * a, n0, 2 * c, n1);
    band.iter()
        .map(|&(lo, hi)| (lo.saturating_sub(w), (hi + w).min(n1)))
        .collect()
}

/// The path of the documents of `level`, found coarse to fine.
pub(super) fn solve(
    level: &Level,
    c: &DocAlignConfig,
    rng: &mut Rng,
) -> Result<Vec<(usize, usize)>> {
    let (n0, n1) = (level.src.len, level.tgt.len);
    let limit = c.max_full_dp.saturating_mul(c.max_full_dp);
    if n0.saturating_mul(n1) <= limit || n0 < 2 || n1 < 2 {
        return level.search(&vec![(0, n1); n0 + 1]);
    }
    let coarse = Level::new(
        level.src.halved(level.dim),
        level.tgt.halved(level.dim),
        level.dim,
        vec![(1, 1), (0, 1), (1, 0)],
        c,
        rng,
    )?;
    let path = solve(&coarse, c, rng)?;
    let longest = level
        .types
        .iter()
        .map(|&(x, y)| x.max(y))
        .max()
        .unwrap_or(1);
    let w = longest.div_ceil(2) + c.search_buffer;
    level.search(&band_around(&path, n0, n1, w))
}
