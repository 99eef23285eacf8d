//! Word-translation retrieval baselines over bilingual word embeddings, the methods Zhang et
//! al. (2016) compare the Earth Mover's Distance with: nearest neighbour by cosine, CSLS
//! (Conneau et al. 2018, the usual hubness correction today) and the globally corrected
//! retrieval of Dinu et al. (2014). All work on cosine similarities computed block by block
//! with a GEMM, in parallel over blocks.

use std::cmp::Ordering;

use bitext_core::EmbeddingsView;
use ndarray::{ArrayView2, ArrayViewMut2, linalg::general_mat_mul};
use rayon::prelude::*;

use crate::error::{Error, Result};

/// Rows per block of the similarity computations.
const BLOCK: usize = 256;

/// Ranked translation proposals: for each source word, target indices with a score, best
/// first (a similarity for the retrieval methods, the moved mass for the EMD).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Proposals {
    lists: Vec<Vec<(usize, f64)>>,
}

impl Proposals {
    /// Build from one list per source word; each list is sorted best first (higher score).
    #[must_use]
    pub fn new(mut lists: Vec<Vec<(usize, f64)>>) -> Self {
        for l in &mut lists {
            l.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        }
        Self { lists }
    }

    /// Proposals for source word `i`, best first.
    ///
    /// # Panics
    /// When `i` is out of range.
    #[must_use]
    pub fn get(&self, i: usize) -> &[(usize, f64)] {
        &self.lists[i]
    }

    /// Number of source words.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lists.len()
    }

    /// Whether there are no source words.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// Keep at most the `k` best proposals per word.
    #[must_use]
    pub fn top(&self, k: usize) -> Self {
        Self {
            lists: self
                .lists
                .iter()
                .map(|l| l[..l.len().min(k)].to_vec())
                .collect(),
        }
    }

    /// Average number of proposals per word.
    #[must_use]
    pub fn mean_len(&self) -> f64 {
        if self.lists.is_empty() {
            return 0.0;
        }
        self.lists.iter().map(Vec::len).sum::<usize>() as f64 / self.lists.len() as f64
    }
}

/// Unit-length copies of the rows (zero rows stay zero), as `f32`, row-major.
fn unit_rows(x: EmbeddingsView<'_>) -> Vec<f32> {
    let mut out = x.as_slice().to_vec();
    for row in out.chunks_exact_mut(x.dim().max(1)) {
        bitext_core::normalize_row(row);
    }
    out
}

fn check_dims(x: EmbeddingsView<'_>, y: EmbeddingsView<'_>) -> Result<()> {
    if x.dim() != y.dim() {
        return Err(Error::Shape(format!(
            "source embeddings have dimension {}, target embeddings {}",
            x.dim(),
            y.dim()
        )));
    }
    if x.is_empty() || y.is_empty() {
        return Err(Error::Invalid("no source or no target words".into()));
    }
    x.check_finite()?;
    y.check_finite()?;
    Ok(())
}

/// `out = x · yᵀ` for row-major `x` (`rows × d`) and `y` (`cols × d`).
fn gemm(x: &[f32], y: &[f32], d: usize, out: &mut [f32]) {
    let (rows, cols) = (x.len() / d, y.len() / d);
    let a = ArrayView2::from_shape((rows, d), x).expect("x is rows × d");
    let b = ArrayView2::from_shape((cols, d), y).expect("y is cols × d");
    let mut c = ArrayViewMut2::from_shape((rows, cols), out).expect("out is rows × cols");
    general_mat_mul(1.0, &a, &b.t(), 0.0, &mut c);
}

/// Call `f(first_row, block)` for blocks of rows of `x · yᵀ` (unit rows), in parallel, and
/// collect the results in row order.
fn blocks_of_similarities<T: Send>(
    x: &[f32],
    y: &[f32],
    d: usize,
    f: impl Fn(usize, &[f32]) -> Vec<T> + Sync,
) -> Vec<T> {
    let cols = y.len() / d;
    x.par_chunks(BLOCK * d)
        .enumerate()
        .flat_map_iter(|(b, xs)| {
            let mut sims = vec![0.0f32; xs.len() / d * cols];
            gemm(xs, y, d, &mut sims);
            f(b * BLOCK, &sims)
        })
        .collect()
}

/// Indices and values of the `k` largest entries of `row`, largest first.
fn top_k(row: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut best: Vec<(usize, f32)> = Vec::with_capacity(k + 1);
    for (j, &v) in row.iter().enumerate() {
        if best.len() == k && v <= best[k - 1].1 {
            continue;
        }
        let pos = best.partition_point(|&(_, b)| b >= v);
        best.insert(pos, (j, v));
        best.truncate(k);
    }
    best
}

/// Mean of the `k` largest similarities of each row of `x` against all rows of `y` (unit rows).
fn mean_top_similarity(x: &[f32], y: &[f32], d: usize, k: usize) -> Vec<f64> {
    let cols = y.len() / d;
    blocks_of_similarities(x, y, d, |_, sims| {
        sims.chunks_exact(cols)
            .map(|row| {
                let t = top_k(row, k);
                t.iter().map(|&(_, v)| f64::from(v)).sum::<f64>() / t.len().max(1) as f64
            })
            .collect()
    })
}

/// The `k` nearest targets of every source word by cosine similarity.
///
/// # Errors
/// [`Error::Shape`] for different dimensions; [`Error::Invalid`] for an empty side or `k = 0`;
/// a non-finite value.
pub fn nearest_neighbours(
    src: EmbeddingsView<'_>,
    tgt: EmbeddingsView<'_>,
    k: usize,
) -> Result<Proposals> {
    check_dims(src, tgt)?;
    check_k(k)?;
    let (x, y, d) = (unit_rows(src), unit_rows(tgt), src.dim());
    let lists = blocks_of_similarities(&x, &y, d, |_, sims| {
        sims.chunks_exact(tgt.len())
            .map(|row| {
                top_k(row, k)
                    .into_iter()
                    .map(|(j, v)| (j, f64::from(v)))
                    .collect()
            })
            .collect()
    });
    Ok(Proposals::new(lists))
}

fn check_k(k: usize) -> Result<()> {
    if k == 0 {
        return Err(Error::Param("k must be at least 1".into()));
    }
    Ok(())
}

/// Cross-domain similarity local scaling (Conneau et al. 2018):
/// `CSLS(x, y) = 2 cos(x, y) − r_T(x) − r_S(y)`, where `r_T(x)` is the mean similarity of `x`
/// to its `neighbourhood` nearest targets and `r_S(y)` that of `y` to its nearest words of
/// `src_pool` (the source vocabulary; pass `src` itself when there is no larger one). Returns
/// the `k` best targets per source word.
///
/// # Errors
/// As [`nearest_neighbours`]; a zero neighbourhood.
pub fn csls(
    src: EmbeddingsView<'_>,
    tgt: EmbeddingsView<'_>,
    src_pool: EmbeddingsView<'_>,
    neighbourhood: usize,
    k: usize,
) -> Result<Proposals> {
    check_dims(src, tgt)?;
    check_dims(src_pool, tgt)?;
    check_k(k)?;
    if neighbourhood == 0 {
        return Err(Error::Param(
            "the CSLS neighbourhood must be at least 1".into(),
        ));
    }
    let (x, y, pool, d) = (
        unit_rows(src),
        unit_rows(tgt),
        unit_rows(src_pool),
        src.dim(),
    );
    let r_t = mean_top_similarity(&x, &y, d, neighbourhood);
    let r_s = mean_top_similarity(&y, &pool, d, neighbourhood);
    let lists = blocks_of_similarities(&x, &y, d, |first, sims| {
        sims.chunks_exact(tgt.len())
            .enumerate()
            .map(|(r, row)| {
                let adjusted: Vec<f32> = row
                    .iter()
                    .zip(&r_s)
                    .map(|(&s, &rs)| (2.0 * f64::from(s) - r_t[first + r] - rs) as f32)
                    .collect();
                top_k(&adjusted, k)
                    .into_iter()
                    .map(|(j, v)| (j, f64::from(v)))
                    .collect()
            })
            .collect()
    });
    Ok(Proposals::new(lists))
}

/// Globally corrected retrieval (Dinu et al. 2014): a target `y` is ranked for the source word
/// `x` by the rank of `x` among all pool words by similarity to `y` (how exclusive `y`'s
/// preference for `x` is), ties broken by cosine similarity. The pool is `src` followed by
/// `extra` source words (Zhang et al.'s GC-0 has none, GC-5000 five thousand). Returns the `k`
/// best targets per source word; the score is `−rank`.
///
/// # Errors
/// As [`nearest_neighbours`].
pub fn globally_corrected(
    src: EmbeddingsView<'_>,
    tgt: EmbeddingsView<'_>,
    extra: Option<EmbeddingsView<'_>>,
    k: usize,
) -> Result<Proposals> {
    check_dims(src, tgt)?;
    if let Some(e) = extra {
        if e.dim() != src.dim() {
            return Err(Error::Shape(format!(
                "extra source words have dimension {}, the others {}",
                e.dim(),
                src.dim()
            )));
        }
        e.check_finite()?;
    }
    check_k(k)?;
    let d = src.dim();
    let mut pool = unit_rows(src);
    if let Some(e) = extra {
        pool.extend(unit_rows(e));
    }
    let y = unit_rows(tgt);
    let queries = src.len();
    let pool_len = pool.len() / d;
    // For every target: its similarities to the pool, sorted, give each query's rank.
    type Best = Vec<Vec<(usize, f32, usize)>>; // per query: (rank, similarity, target)
    let better = |a: &(usize, f32, usize), b: &(usize, f32, usize)| -> Ordering {
        a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2))
    };
    let keep = |list: &mut Vec<(usize, f32, usize)>, cand: (usize, f32, usize)| {
        if list.len() == k && better(&cand, &list[k - 1]) != Ordering::Less {
            return;
        }
        let pos = list.partition_point(|e| better(e, &cand) == Ordering::Less);
        list.insert(pos, cand);
        list.truncate(k);
    };
    let best: Best = y
        .par_chunks(BLOCK * d)
        .enumerate()
        .fold(
            || vec![Vec::new(); queries],
            |mut acc: Best, (b, ys)| {
                let mut sims = vec![0.0f32; ys.len() / d * pool_len];
                gemm(ys, &pool, d, &mut sims);
                let mut sorted = Vec::with_capacity(pool_len);
                for (r, row) in sims.chunks_exact(pool_len).enumerate() {
                    sorted.clear();
                    sorted.extend_from_slice(row);
                    sorted.sort_unstable_by(|p, q| q.total_cmp(p));
                    for (q, list) in acc.iter_mut().enumerate() {
                        let s = row[q];
                        let rank = sorted.partition_point(|&v| v > s);
                        keep(list, (rank, s, b * BLOCK + r));
                    }
                }
                acc
            },
        )
        .reduce(
            || vec![Vec::new(); queries],
            |mut a, b| {
                for (la, lb) in a.iter_mut().zip(b) {
                    for c in lb {
                        keep(la, c);
                    }
                }
                a
            },
        );
    Ok(Proposals {
        lists: best
            .into_iter()
            .map(|l| l.into_iter().map(|(r, _, t)| (t, -(r as f64))).collect())
            .collect(),
    })
}

/// Cosine similarities of every source row with every target row (row-major
/// `src.len() × tgt.len()`), computed block by block in parallel.
///
/// # Errors
/// As [`nearest_neighbours`].
pub fn cosine_similarities(src: EmbeddingsView<'_>, tgt: EmbeddingsView<'_>) -> Result<Vec<f32>> {
    check_dims(src, tgt)?;
    let (x, y, d) = (unit_rows(src), unit_rows(tgt), src.dim());
    Ok(blocks_of_similarities(&x, &y, d, |_, sims| sims.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitext_core::Embeddings;

    fn emb(rows: &[[f32; 2]]) -> Embeddings {
        Embeddings::from_rows(rows.iter().copied(), 2).unwrap()
    }

    /// Target 0 is a hub: the nearest neighbour of both sources.
    fn words() -> (Embeddings, Embeddings) {
        (
            emb(&[[1.0, 0.0], [0.8, 0.6]]),
            emb(&[[0.9, 0.44], [0.6, 0.8], [-1.0, 0.0]]),
        )
    }

    #[test]
    fn nearest_and_csls_by_hand() {
        let (src, tgt) = words();
        let nn = nearest_neighbours(src.view(), tgt.view(), 2).unwrap();
        assert_eq!((nn.get(0)[0].0, nn.get(1)[0].0), (0, 0));
        assert_eq!(nn.get(1)[1].0, 1);
        assert!((nn.mean_len() - 2.0).abs() < 1e-12);
        // Neighbourhood 2: r_S(t0) = 0.940, r_S(t1) = 0.78; for s1, CSLS(t0) = 0.053 and
        // CSLS(t1) = 0.169: the hub is penalised.
        let c = csls(src.view(), tgt.view(), src.view(), 2, 1).unwrap();
        assert_eq!((c.get(0)[0].0, c.get(1)[0].0), (0, 1));
        assert!((c.get(1)[0].1 - 0.1689).abs() < 1e-3, "{:?}", c.get(1));
        let sims = cosine_similarities(src.view(), tgt.view()).unwrap();
        assert_eq!(sims.len(), 6);
        assert!((sims[5] + 0.8).abs() < 1e-6);
    }

    #[test]
    fn globally_corrected_by_hand() {
        let (src, tgt) = words();
        // Pool {s0, s1}: s1 ranks first for every target, s0 second; ties by cosine.
        let gc = globally_corrected(src.view(), tgt.view(), None, 3).unwrap();
        assert_eq!(gc.get(1)[0], (0, 0.0));
        assert_eq!(gc.get(0)[0], (0, -1.0));
        assert_eq!(gc.get(0).len(), 3);
        // An extra pool word closer to the hub than s1 pushes s1 to rank 1 there.
        let extra = emb(&[[0.85, 0.53]]);
        let gc = globally_corrected(src.view(), tgt.view(), Some(extra.view()), 1).unwrap();
        assert_eq!(gc.get(1)[0], (1, 0.0));
        assert!(nearest_neighbours(src.view(), emb(&[]).view(), 1).is_err());
        assert!(nearest_neighbours(src.view(), tgt.view(), 0).is_err());
    }

    #[test]
    fn blocks_cover_many_rows() {
        let mut rng = bitext_core::Rng::seed(4);
        let n = BLOCK * 2 + 7;
        let x = Embeddings::new((0..n * 3).map(|_| rng.normal() as f32).collect(), 3).unwrap();
        let nn = nearest_neighbours(x.view(), x.view(), 1).unwrap();
        for i in 0..n {
            assert_eq!(nn.get(i)[0].0, i);
        }
    }
}
