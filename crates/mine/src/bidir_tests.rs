//! Tests of the bidirectional exact search: equal to a brute-force sort (ties included) for
//! every tiling and thread count, on integer data where every inner product is exact.

use super::*;
use crate::testing::BruteForce;
use bitext_core::{Embeddings, Rng};
use bitext_knn::KnnIndex;
use proptest::prelude::*;

/// Small-integer vectors: inner products are exact in f32 whatever the summation order, and
/// ties are frequent.
fn ints(n: usize, d: usize, rng: &mut Rng) -> Embeddings {
    Embeddings::new((0..n * d).map(|_| rng.below(5) as f32 - 2.0).collect(), d).unwrap()
}

fn params(src_block: usize, trg_block: usize, threads: usize) -> BidirectionalParams {
    BidirectionalParams {
        src_block,
        trg_block,
        threads,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn equals_brute_force_with_ties(
        n in 1usize..40, m in 1usize..40, d in 1usize..6, seed in any::<u64>(),
        ks in 1usize..5, kt in 1usize..5, bs in 1usize..17, bt in 1usize..17, threads in 1usize..4,
    ) {
        let mut rng = Rng::seed(seed);
        let (x, y) = (ints(n, d, &mut rng), ints(m, d, &mut rng));
        let (ks, kt) = (ks.min(m), kt.min(n));
        let got = exact_both(x.view(), y.view(), ks, kt, params(bs, bt, threads), &mut |_, _| {})
            .unwrap();
        let fwd = BruteForce::over(y.view()).search(x.view(), ks).unwrap();
        let bwd = BruteForce::over(x.view()).search(y.view(), kt).unwrap();
        prop_assert_eq!(got.forward, fwd);
        prop_assert_eq!(got.backward, bwd);
    }
}

#[test]
fn float_data_matches_within_rounding_and_reports_progress() {
    let mut rng = Rng::seed(5);
    let rows = |n: usize, rng: &mut Rng| {
        let mut e =
            Embeddings::new((0..n * 48).map(|_| rng.normal() as f32).collect(), 48).unwrap();
        e.normalize_l2();
        e
    };
    let (x, y) = (rows(300, &mut rng), rows(257, &mut rng));
    let mut seen = Vec::new();
    let got = exact_both(
        x.view(),
        y.view(),
        4,
        3,
        params(64, 100, 2),
        &mut |done, total| {
            seen.push((done, total));
        },
    )
    .unwrap();
    assert_eq!(seen.last(), Some(&(300, 300)));
    let fwd = BruteForce::over(y.view()).search(x.view(), 4).unwrap();
    let bwd = BruteForce::over(x.view()).search(y.view(), 3).unwrap();
    assert_eq!(got.forward.all_ids(), fwd.all_ids());
    assert_eq!(got.backward.all_ids(), bwd.all_ids());
    for (a, b) in got.forward.all_scores().iter().zip(fwd.all_scores()) {
        assert!((a - b).abs() < 1e-5);
    }
}

#[test]
fn errors() {
    let x = Embeddings::from_rows([[1.0f32, 0.0], [0.0, 1.0]], 2).unwrap();
    let p = BidirectionalParams::default();
    let e = exact_both(x.view(), x.view(), 3, 1, p, &mut |_, _| {}).unwrap_err();
    assert!(
        e.to_string().contains("at most the other side's size"),
        "{e}"
    );
    let y = Embeddings::from_rows([[1.0f32, 0.0, 0.0]], 3).unwrap();
    assert!(exact_both(x.view(), y.view(), 1, 1, p, &mut |_, _| {}).is_err());
    assert!(exact_both(x.view(), x.view(), 1, 1, params(0, 1, 1), &mut |_, _| {}).is_err());
}
