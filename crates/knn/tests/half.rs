//! Exact search over binary16 rows (LASER `--fp16` files) that are never widened as a whole:
//! the `KnnIndex` suite (scores within binary16 rounding of the `f32` data), and property tests
//! that at every precision, normalised or not, one way and both ways, the ids and score bits
//! equal an `f32` index over the widened (normalised) matrix.

mod common;

use bitext_core::{Embeddings, HalfView, MappedHalf, Rng};
use bitext_knn::{ExactIndex, Kernel, KnnIndex, Metric, Precision};
use bitext_testkit::knn::Expect;
use bitext_testkit::knn_index_suite;
use common::{at, bits, kernels, params};
use proptest::prelude::*;

fn to_bits(e: &Embeddings) -> Vec<u16> {
    e.as_slice()
        .iter()
        .map(|&x| half::f16::from_f32(x).to_bits())
        .collect()
}

fn half_index(d: &Embeddings, m: Metric, precision: Precision) -> Box<dyn KnnIndex + '_> {
    // A concrete kernel: the precision runs as asked on every CPU.
    Box::new(
        ExactIndex::from_half(to_bits(d), d.dim(), m, false)
            .unwrap()
            .with_params(at(precision))
            .unwrap(),
    )
}

knn_index_suite!(
    half_f32,
    |d, m| half_index(d, m, Precision::F32),
    Expect::rounded(2e-3)
);
knn_index_suite!(
    half_bf16,
    |d, m| half_index(d, m, Precision::Bf16),
    Expect::rounded(2e-3)
);
knn_index_suite!(
    half_int8,
    |d, m| half_index(d, m, Precision::Int8),
    Expect::rounded(2e-3)
);

/// `n × d` binary16 rows: normal values, with exact copies and {-1, 0, 1} rows (ties) mixed in,
/// and a zero row now and then; the widened matrix, normalised when `normalize`.
fn data(n: usize, d: usize, normalize: bool, rng: &mut Rng) -> (Vec<u16>, Embeddings) {
    let base: Vec<f32> = (0..d).map(|_| rng.normal() as f32).collect();
    let mut bits = Vec::with_capacity(n * d);
    for _ in 0..n {
        let row: Vec<f32> = match rng.below(6) {
            0 => base.clone(),
            1 => (0..d).map(|_| rng.below(3) as f32 - 1.0).collect(),
            2 if rng.below(4) == 0 => vec![0.0; d],
            _ => (0..d).map(|_| rng.normal() as f32 * 3.0).collect(),
        };
        bits.extend(row.iter().map(|&x| half::f16::from_f32(x).to_bits()));
    }
    let wide: Vec<f32> = bits
        .iter()
        .map(|&h| half::f16::from_bits(h).to_f32())
        .collect();
    let mut e = Embeddings::new(wide, d).unwrap();
    if normalize {
        e.normalize_l2();
    }
    (bits, e)
}

fn queries(n: usize, d: usize, rng: &mut Rng) -> Embeddings {
    let mut q = Embeddings::new((0..n * d).map(|_| rng.normal() as f32).collect(), d).unwrap();
    q.normalize_l2();
    q
}

fn precisions() -> impl Strategy<Value = Precision> {
    prop_oneof![
        Just(Precision::F32),
        Just(Precision::Bf16),
        Just(Precision::Int8)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn one_way_equals_the_widened_f32_search(
        precision in precisions(), kernel in kernels(), normalize in any::<bool>(),
        l2 in any::<bool>(), n in 1usize..300, nq in 1usize..30, d in 1usize..40,
        k in 1usize..6, block in 1usize..70, seed in 0u64..1000,
    ) {
        let mut rng = Rng::seed(seed);
        let (h, wide) = data(n, d, normalize, &mut rng);
        let q = queries(nq, d, &mut rng);
        let k = k.min(n);
        let metric = if l2 { Metric::L2 } else { Metric::InnerProduct };
        let want = ExactIndex::over(wide.view(), metric).unwrap().search(q.view(), k).unwrap();
        let index = ExactIndex::over_half(HalfView::new(&h, d).unwrap(), metric, normalize)
            .unwrap()
            .with_params(params(precision, kernel, 0, block))
            .unwrap();
        let got = index.search_certified(q.view(), k, &mut |_| {}).unwrap();
        prop_assert_eq!(got.certification.total(), nq);
        prop_assert_eq!(bits(&got.neighbors), bits(&want));
    }

    #[test]
    fn both_ways_equal_the_widened_f32_search(
        precision in precisions(), normalize in any::<bool>(), n in 1usize..300,
        nq in 1usize..40, d in 1usize..37, k in 1usize..5, seed in 0u64..1000,
    ) {
        let mut rng = Rng::seed(seed);
        let (h, wide) = data(n, d, normalize, &mut rng);
        let q = queries(nq, d, &mut rng);
        let (k, kb) = (k.min(n), k.min(nq));
        let (wf, wb) = ExactIndex::over(wide.view(), Metric::InnerProduct)
            .unwrap()
            .search_both_with_progress(q.view(), k, kb, &mut |_| {})
            .unwrap();
        let index = ExactIndex::over_half(HalfView::new(&h, d).unwrap(), Metric::InnerProduct, normalize)
            .unwrap()
            .with_params(params(precision, Kernel::Auto, 0, 32))
            .unwrap();
        let (f, b) = index.search_both_certified(q.view(), k, kb, &mut |_| {}).unwrap();
        prop_assert_eq!(f.certification.total(), nq);
        prop_assert_eq!(b.certification.total(), n);
        prop_assert_eq!(bits(&f.neighbors), bits(&wf));
        prop_assert_eq!(bits(&b.neighbors), bits(&wb));
    }
}

#[test]
fn a_mapped_fp16_file_is_searched_in_place_and_saves_widened() {
    let mut rng = Rng::seed(7);
    let (h, wide) = data(1000, 24, true, &mut rng);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("db.f16");
    let bytes: Vec<u8> = h.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(&path, bytes).unwrap();
    let map = MappedHalf::open(&path, 24).unwrap();
    let index = ExactIndex::over_half(map.view(), Metric::InnerProduct, true)
        .unwrap()
        .with_params(params(Precision::Int8, Kernel::Auto, 0, 256))
        .unwrap();
    assert!(index.vectors().is_none() && index.is_borrowed());
    assert_eq!((index.len(), index.dim()), (1000, 24));
    let q = queries(50, 24, &mut rng);
    let want = ExactIndex::over(wide.view(), Metric::InnerProduct)
        .unwrap()
        .search(q.view(), 4)
        .unwrap();
    let got = index.search_certified(q.view(), 4, &mut |_| {}).unwrap();
    assert_eq!(bits(&got.neighbors), bits(&want));
    assert!(got.certification.certified > 0, "{}", got.certification);
    let saved = dir.path().join("db.knn");
    index.save(&saved).unwrap();
    let loaded = ExactIndex::load(&saved).unwrap();
    assert_eq!(loaded.vectors().unwrap(), wide.view());
}

#[test]
fn non_finite_values_are_refused_with_their_row_and_column() {
    let mut h = vec![half::f16::from_f32(1.0).to_bits(); 12];
    h[7] = half::f16::INFINITY.to_bits();
    let err = ExactIndex::over_half(HalfView::new(&h, 3).unwrap(), Metric::InnerProduct, false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("row 2") && err.contains("column 1"), "{err}");
    assert!(ExactIndex::from_half(vec![0; 5], 2, Metric::L2, false).is_err());
}
