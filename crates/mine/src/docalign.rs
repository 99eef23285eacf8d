//! Sentence alignment inside parallel documents, after vecalign (Thompson & Koehn 2019): a
//! monotonic dynamic programme over the two documents in order, with beads of up to
//! `max_size` sentences (every `x`-`y` with `x, y ≥ 1` and `x + y ≤ max_size`, plus 1-0 and
//! 0-1 deletions), over the embeddings of the concatenated sentences ([`Overlaps`], made by
//! any encoder from [`overlap_texts`]).
//!
//! - **Cost of a bead** of `x` source and `y` target sentences with vectors `u`, `w`:
//!   `2·x·y·(1 − u·w) / (n(u) + n(w))`, where `n(v)` is one minus the mean cosine of `v` to
//!   [`DocAlignConfig::norm_samples`] random overlaps of the other document: the cosine
//!   distance relative to how close `v` is to anything, scaled by the sentence counts.
//! - **Deletion** (1-0, 0-1): a fixed penalty, the [`DocAlignConfig::del_percentile`]
//!   quantile of the 1-1 costs of random sentence pairs (or
//!   [`DocAlignConfig::deletion_penalty`]).
//! - **Search**: documents whose product of lengths exceeds `max_full_dp²` are halved (the
//!   sum of neighbouring sentence vectors, centred, renormalised) until they fit, aligned 1-1
//!   there, and the path refined level by level in a band of `search_buffer` nodes around the
//!   coarse path: time and memory grow linearly with the documents.
//!
//! Differences from vecalign's code, none of which changes a path where the band covers it:
//! the deletion penalty is an exact quantile (vecalign interpolates a 1000-bin histogram), no
//! literal `"PAD"` overlaps are embedded (the norm samples are drawn from real overlaps only),
//! and the band is per source node (vecalign draws a slanted path).

use bitext_core::Rng;
use bitext_core::io::beads::Bead;
use bitext_core::{Embeddings, normalize_row};

use crate::error::{Error, Result};

/// Parameters of [`align_documents`]; [`Default`] is vecalign's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocAlignConfig {
    /// Largest bead, in sentences of both sides (`x + y ≤ max_size`; vecalign's
    /// `alignment_max_size`, 4: 1-1, 1-2, 1-3, 2-1, 2-2, 3-1). [`Overlaps`] need
    /// `max_size − 1` layers.
    pub max_size: usize,
    /// Quantile of random 1-1 costs that a deletion costs (0.2).
    pub del_percentile: f64,
    /// A fixed deletion penalty instead of the quantile.
    pub deletion_penalty: Option<f64>,
    /// Random overlaps of the other document each vector's normaliser averages over (100).
    pub norm_samples: usize,
    /// Random sentence pairs the deletion quantile is taken over (20,000; every pair of
    /// shorter documents).
    pub cost_samples: usize,
    /// Nodes on each side of the coarse path the finer search considers (5).
    pub search_buffer: usize,
    /// Documents with `len_src · len_tgt ≤ max_full_dp²` are aligned by the full programme
    /// (300).
    pub max_full_dp: usize,
    /// Seed of the random samples.
    pub seed: u64,
}

impl Default for DocAlignConfig {
    fn default() -> Self {
        DocAlignConfig {
            max_size: 4,
            del_percentile: 0.2,
            deletion_penalty: None,
            norm_samples: 100,
            cost_samples: 20_000,
            search_buffer: 5,
            max_full_dp: 300,
            seed: 42,
        }
    }
}

impl DocAlignConfig {
    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Invalid`] for `max_size < 2`, a percentile outside `[0, 1]`, a negative or
    /// non-finite penalty, no samples, or `max_full_dp` 0.
    pub fn check(&self) -> Result<()> {
        let bad = |m: &str| Err(Error::Invalid(format!("document alignment: {m}")));
        if self.max_size < 2 {
            return bad("max_size must be at least 2 (1-1 beads)");
        }
        if !(0.0..=1.0).contains(&self.del_percentile) {
            return bad("del_percentile must be in [0, 1]");
        }
        if self
            .deletion_penalty
            .is_some_and(|p| !p.is_finite() || p < 0.0)
        {
            return bad("the deletion penalty must be a finite number ≥ 0");
        }
        if self.norm_samples == 0 || self.cost_samples == 0 || self.max_full_dp == 0 {
            return bad("norm_samples, cost_samples and max_full_dp must be at least 1");
        }
        Ok(())
    }

    /// The bead shapes searched: `(x, y)` with `x, y ≥ 1`, `x + y ≤ max_size`, then 0-1 and
    /// 1-0.
    #[must_use]
    pub fn bead_types(&self) -> Vec<(usize, usize)> {
        let mut t = Vec::new();
        for x in 1..self.max_size {
            for y in 1..self.max_size {
                if x + y <= self.max_size {
                    t.push((x, y));
                }
            }
        }
        t.extend([(0, 1), (1, 0)]);
        t
    }
}

/// The texts to embed for a document of `sentences`: layer `k` (0-based) holds, for every
/// start `i`, sentences `i ..= i + k` joined by a space (`len − k` texts), for `k <
/// layers`. Sentences are trimmed, as vecalign does.
#[must_use]
pub fn overlap_texts<S: AsRef<str>>(sentences: &[S], layers: usize) -> Vec<Vec<String>> {
    let s: Vec<&str> = sentences.iter().map(|x| x.as_ref().trim()).collect();
    (0..layers)
        .map(|k| {
            (0..s.len().saturating_sub(k))
                .map(|i| s[i..=i + k].join(" "))
                .collect()
        })
        .collect()
}

/// The overlap embeddings of one document ([`overlap_texts`]'s layers embedded): layer `k` row
/// `i` is the vector of sentences `i ..= i + k`. Rows are L2-normalised here.
#[derive(Debug, Clone)]
pub struct Overlaps {
    /// `layers[k]`: `(len − k) × dim` values.
    layers: Vec<Vec<f32>>,
    len: usize,
    dim: usize,
}

impl Overlaps {
    /// The overlaps of a document of `layers[0].len()` sentences.
    ///
    /// # Errors
    /// [`Error::Invalid`] for no layer, a layer with another dimension or a row count other
    /// than `len − k`, or a non-finite value.
    pub fn new(layers: Vec<Embeddings>) -> Result<Self> {
        let Some(first) = layers.first() else {
            return Err(Error::Invalid("overlaps need at least one layer".into()));
        };
        let (len, dim) = (first.len(), first.dim());
        let mut out = Vec::with_capacity(layers.len());
        for (k, l) in layers.into_iter().enumerate() {
            if l.dim() != dim || l.len() != len.saturating_sub(k) {
                return Err(Error::Invalid(format!(
                    "overlap layer {} is {} × {}, expected {} × {dim} (a document of {len} \
                     sentences)",
                    k + 1,
                    l.len(),
                    l.dim(),
                    len.saturating_sub(k)
                )));
            }
            let mut v = l.as_slice().to_vec();
            if v.iter().any(|x| !x.is_finite()) {
                return Err(Error::Invalid(format!(
                    "overlap layer {} has a non-finite value",
                    k + 1
                )));
            }
            for r in v.chunks_mut(dim.max(1)) {
                normalize_row(r);
            }
            out.push(v);
        }
        Ok(Overlaps {
            layers: out,
            len,
            dim,
        })
    }

    /// The overlaps of the document `sentences` ([`overlap_texts`]), embedded by `encoder` as
    /// `side`: the one way the CLI and the evaluations make them.
    ///
    /// # Errors
    /// The encoder's errors; as [`Overlaps::new`].
    pub fn encode<S: AsRef<str>>(
        encoder: &dyn bitext_encode::SentenceEncoder,
        side: bitext_encode::Side,
        sentences: &[S],
        layers: usize,
    ) -> Result<Self> {
        let layers = overlap_texts(sentences, layers)
            .iter()
            .map(|texts| {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                encoder
                    .encode(side, &refs)
                    .map_err(|e| Error::Invalid(format!("embedding overlaps: {e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Overlaps::new(layers)
    }

    /// Sentences in the document.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the document has no sentence.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Layers (the longest overlap, in sentences).
    #[must_use]
    pub fn depth(&self) -> usize {
        self.layers.len()
    }
}

/// One side at one level of the search: vectors by layer, and their normalisers.
struct Side {
    layers: Vec<Vec<f32>>,
    norms: Vec<Vec<f64>>,
    len: usize,
}

impl Side {
    fn from(o: &Overlaps, layers: usize) -> Side {
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
struct Level {
    src: Side,
    tgt: Side,
    dim: usize,
    penalty: f64,
    types: Vec<(usize, usize)>,
}

impl Level {
    fn new(
        mut src: Side,
        mut tgt: Side,
        dim: usize,
        types: Vec<(usize, usize)>,
        c: &DocAlignConfig,
        rng: &mut Rng,
    ) -> Level {
        src.norms = norms(&src, &tgt, dim, c.norm_samples, rng);
        tgt.norms = norms(&tgt, &src, dim, c.norm_samples, rng);
        let mut level = Level {
            src,
            tgt,
            dim,
            penalty: 0.0,
            types,
        };
        level.penalty = match c.deletion_penalty {
            Some(p) => p,
            None => level.quantile_cost(c, rng),
        };
        level
    }

    /// The cost of the bead of `x` source sentences from `i` and `y` target sentences from
    /// `j` (both ≥ 1).
    fn cost(&self, x: usize, i: usize, y: usize, j: usize) -> f64 {
        let u = self.src.vec(x, i, self.dim);
        let w = self.tgt.vec(y, j, self.dim);
        let n = 1e-6 + self.src.norms[x - 1][i] + self.tgt.norms[y - 1][j];
        2.0 * (x * y) as f64 * (1.0 - dot(u, w)) / n
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
fn solve(level: &Level, c: &DocAlignConfig, rng: &mut Rng) -> Result<Vec<(usize, usize)>> {
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
    );
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

/// Align two documents: their beads in order, each with vecalign's score (the bead's cost per
/// sentence pair, `cost / (x·y)`, at least 0; 0 for a deletion).
///
/// # Errors
/// Invalid parameters ([`DocAlignConfig::check`]); overlaps of different dimensions or with
/// fewer than `max_size − 1` layers (where the document is that long).
pub fn align_documents(src: &Overlaps, tgt: &Overlaps, c: &DocAlignConfig) -> Result<Vec<Bead>> {
    c.check()?;
    if src.dim != tgt.dim {
        return Err(Error::Invalid(format!(
            "document alignment: source overlaps have {} dimensions, target overlaps {}",
            src.dim, tgt.dim
        )));
    }
    let need = c.max_size - 1;
    for (o, side) in [(src, "source"), (tgt, "target")] {
        if o.depth() < need.min(o.len) {
            return Err(Error::Invalid(format!(
                "document alignment: the {side} overlaps have {} layers; beads of up to {} \
                 sentences need {need}",
                o.depth(),
                c.max_size
            )));
        }
    }
    let (level, mut rng) = full_level(src, tgt, c);
    let path = solve(&level, c, &mut rng)?;
    let (mut i, mut j) = (0, 0);
    Ok(path
        .into_iter()
        .map(|(x, y)| {
            let score = if x == 0 || y == 0 {
                0.0
            } else {
                (level.cost(x, i, y, j) / (x * y) as f64).max(0.0)
            };
            let bead = Bead {
                src: (i..i + x).collect(),
                tgt: (j..j + y).collect(),
                cost: Some(score),
            };
            i += x;
            j += y;
            bead
        })
        .collect())
}

/// The full programme's [`Level`] (normalised with samples drawn from `c.seed`), and the
/// generator to draw on from there.
fn full_level(src: &Overlaps, tgt: &Overlaps, c: &DocAlignConfig) -> (Level, Rng) {
    let need = c.max_size - 1;
    let mut rng = Rng::seed(c.seed);
    let level = Level::new(
        Side::from(src, need),
        Side::from(tgt, need),
        src.dim,
        c.bead_types(),
        c,
        &mut rng,
    );
    (level, rng)
}

/// The total cost of `beads` (shapes in order) under the full programme's costs: what
/// [`align_documents`] minimises, for checking it against an exhaustive search.
///
/// # Errors
/// As [`align_documents`].
pub fn path_cost(
    src: &Overlaps,
    tgt: &Overlaps,
    c: &DocAlignConfig,
    beads: &[(usize, usize)],
) -> Result<f64> {
    c.check()?;
    let (level, _) = full_level(src, tgt, c);
    let (mut i, mut j, mut total) = (0, 0, 0.0);
    for &(x, y) in beads {
        total += if x == 0 || y == 0 {
            level.penalty
        } else {
            level.cost(x, i, y, j)
        };
        i += x;
        j += y;
    }
    Ok(total)
}

#[cfg(test)]
#[path = "docalign_tests.rs"]
mod tests;
