//! The conformance suite every [`PairScorer`] of this crate must pass, instantiated once per
//! scorer (`scorer_conformance!(module_name, |src, trg| constructor)`): sizes, range checks,
//! batch independence, determinism, finite scores, and a translation outscoring a random pair
//! on planted data.

use bitext_core::{Embeddings, EmbeddingsView, Rng};
use bitext_knn::Neighbors;
use bitext_similarity::{
    EmbeddingScorer, Error, Margin, MarginFunction, MarginScorer, MarginSpec, Measure, PairScorer,
};

/// 12 sources, 10 targets in 16 dimensions, unit rows; target `j < 8` is a noisy copy of
/// source `j`.
fn planted() -> (Embeddings, Embeddings) {
    let mut rng = Rng::seed(99);
    let mut rows = |n: usize| {
        let mut e =
            Embeddings::new((0..n * 16).map(|_| rng.normal() as f32).collect(), 16).unwrap();
        e.normalize_l2();
        e
    };
    let x = rows(12);
    let mut y = rows(10);
    for j in 0..8 {
        let copy: Vec<f32> = x
            .row(j)
            .iter()
            .zip(y.row(j))
            .map(|(a, b)| a + 0.2 * b)
            .collect();
        y.row_mut(j).copy_from_slice(&copy);
    }
    y.normalize_l2();
    (x, y)
}

/// Brute-force neighbour lists (inner product, ties by smaller id).
fn knn(q: EmbeddingsView<'_>, db: EmbeddingsView<'_>, k: usize) -> Neighbors {
    let (mut ids, mut scores) = (Vec::new(), Vec::new());
    for a in q.rows() {
        let mut s: Vec<(f32, usize)> = db
            .rows()
            .enumerate()
            .map(|(j, b)| (a.iter().zip(b).map(|(p, q)| p * q).sum(), j))
            .collect();
        s.sort_by(|p, q| q.0.total_cmp(&p.0).then(p.1.cmp(&q.1)));
        for &(v, j) in &s[..k] {
            ids.push(j);
            scores.push(v);
        }
    }
    Neighbors::new(k, ids, scores).unwrap()
}

fn margin_scorer<'a>(
    f: MarginFunction,
    x: EmbeddingsView<'a>,
    y: EmbeddingsView<'a>,
) -> MarginScorer<'a> {
    let (fwd, bwd) = (knn(x, y, 3), knn(y, x, 3));
    let m = Margin::from_neighbors(&MarginSpec::new(f, 3), &fwd, &bwd).unwrap();
    MarginScorer::new(m, x, y).unwrap()
}

macro_rules! scorer_conformance {
    ($name:ident, $make:expr) => {
        mod $name {
            use super::*;

            fn with_scorer(check: impl FnOnce(&dyn PairScorer, usize, usize)) {
                let (x, y) = planted();
                let s = ($make)(x.view(), y.view());
                check(&s, x.len(), y.len());
            }

            #[test]
            fn sizes_are_the_corpora() {
                with_scorer(|s, n, m| assert_eq!(s.sizes(), (n, m)));
            }

            #[test]
            fn out_of_range_pairs_are_errors_naming_the_pair() {
                with_scorer(|s, n, m| {
                    let e = s.score(&[(0, 0), (n, 0)]).unwrap_err();
                    assert!(matches!(e, Error::PairOutOfRange { index: 1, .. }), "{e}");
                    assert!(s.score(&[(0, m)]).is_err());
                });
            }

            #[test]
            fn batches_are_order_independent_and_deterministic() {
                with_scorer(|s, n, m| {
                    let pairs: Vec<(usize, usize)> =
                        (0..n).flat_map(|i| (0..m).map(move |j| (i, j))).collect();
                    let all = s.score(&pairs).unwrap();
                    assert_eq!(all, s.score(&pairs).unwrap());
                    assert!(all.iter().all(|v| v.is_finite()));
                    let rev: Vec<(usize, usize)> = pairs.iter().rev().copied().collect();
                    let mut back = s.score(&rev).unwrap();
                    back.reverse();
                    assert_eq!(all, back);
                    for (p, v) in pairs.iter().zip(&all).step_by(7) {
                        assert_eq!(s.score(&[*p]).unwrap()[0], *v);
                    }
                    assert!(s.score(&[]).unwrap().is_empty());
                });
            }

            #[test]
            fn translations_outscore_random_pairs() {
                with_scorer(|s, _, m| {
                    for i in 0..8 {
                        let own = s.score(&[(i, i)]).unwrap()[0];
                        let others = s
                            .score(&(8..m).map(|j| (i, j)).collect::<Vec<_>>())
                            .unwrap();
                        assert!(others.iter().all(|&o| o < own), "{i}: {own} vs {others:?}");
                    }
                });
            }
        }
    };
}

scorer_conformance!(cosine, |x, y| EmbeddingScorer::new(x, y, Measure::Cosine)
    .unwrap());
scorer_conformance!(dot, |x, y| EmbeddingScorer::new(x, y, Measure::Dot)
    .unwrap());
scorer_conformance!(neg_euclidean, |x, y| {
    EmbeddingScorer::new(x, y, Measure::NegEuclidean).unwrap()
});
scorer_conformance!(margin_absolute, |x, y| margin_scorer(
    MarginFunction::Absolute,
    x,
    y
));
scorer_conformance!(margin_distance, |x, y| margin_scorer(
    MarginFunction::Distance,
    x,
    y
));
scorer_conformance!(margin_ratio, |x, y| margin_scorer(
    MarginFunction::Ratio,
    x,
    y
));
scorer_conformance!(margin_csls, |x, y| margin_scorer(
    MarginFunction::Csls,
    x,
    y
));
