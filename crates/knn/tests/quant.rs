//! Reduced-precision scans with the certified `f32` re-rank: the shared suites, and property
//! tests that the ids and scores equal the `f32` search bit for bit on random and adversarial
//! data (near-duplicates, exact ties, tiny and mixed norms, dimensions that are not a multiple
//! of any lane count), one way and both ways, for each precision and kernel, including
//! candidate counts small enough to force the widened scan and the `f32` fallback.

mod common;

use bitext_core::{Embeddings, Rng};
use bitext_knn::{
    Certification, ExactIndex, ExactParams, Kernel, KnnIndex, Metric, OnePass, Precision,
};
use bitext_testkit::knn::{Expect, kernel_needs};
use bitext_testkit::knn_index_suite;
use common::{Shape, bits, data, f32_index, kernels, params};
use proptest::prelude::*;

// The parameters force the kernel (`common::params`); the suites of a kernel this CPU lacks
// are skipped (`kernel_needs`), never run through another kernel.

/// The exact index over `data` with the parameters `p`.
fn exact(data: &Embeddings, metric: Metric, p: ExactParams) -> ExactIndex<'_> {
    ExactIndex::over(data.view(), metric)
        .unwrap()
        .with_params(p)
        .unwrap()
}

/// The exact index over `data` at `precision` through `kernel`, re-ranking `candidates` (0: the
/// default) in query blocks of 256.
fn scanning(
    data: &Embeddings,
    metric: Metric,
    precision: Precision,
    kernel: Kernel,
    candidates: usize,
) -> ExactIndex<'_> {
    exact(data, metric, params(precision, kernel, candidates, 256))
}

fn reduced(data: &Embeddings, metric: Metric, p: ExactParams) -> Box<dyn KnnIndex + '_> {
    Box::new(exact(data, metric, p))
}

/// The index suite of the exact search at `precision` through `kernel`, with queries in blocks
/// of `block`; a `forced` kernel's suite is skipped on a CPU without it.
macro_rules! reduced_suite {
    ($name:ident, $precision:ident, $kernel:ident, $block:expr) => {
        knn_index_suite!(
            $name,
            |d, m| reduced(
                d,
                m,
                params(Precision::$precision, Kernel::$kernel, 0, $block)
            ),
            Expect::exact()
        );
    };
    ($name:ident, $precision:ident, forced $kernel:ident) => {
        knn_index_suite!(
            $name,
            |d, m| reduced(d, m, params(Precision::$precision, Kernel::$kernel, 0, 256)),
            Expect::exact(),
            needs = Some(kernel_needs(Kernel::$kernel))
        );
    };
}

reduced_suite!(bf16, Bf16, Auto, 256);
reduced_suite!(int8, Int8, Auto, 256);
reduced_suite!(int8_portable_small_blocks, Int8, Portable, 1);
reduced_suite!(bf16_portable_small_blocks, Bf16, Portable, 1);

// Each kernel forced; on a CPU without it, its suite is recorded as skipped.
reduced_suite!(int8_avx2, Int8, forced Avx2);
reduced_suite!(int8_avx_vnni, Int8, forced AvxVnni);
reduced_suite!(int8_neon_sdot, Int8, forced Neon);

/// The both-ways suite of the one-pass search at `precision` (the fastest kernel), keeping
/// `candidates` per query for the re-rank, with queries in blocks of `block`.
macro_rules! one_pass_suite {
    ($name:ident, $precision:ident, $candidates:expr, $block:expr) => {
        bitext_testkit::bidirectional_search_suite!(
            $name,
            |metric| Box::new(OnePass {
                metric,
                params: params(Precision::$precision, Kernel::Auto, $candidates, $block),
            }),
            bitext_testkit::both::Expect::Exact
        );
    };
}

one_pass_suite!(one_pass_bf16, Bf16, 0, 256);
one_pass_suite!(one_pass_int8_few_candidates, Int8, 2, 16);

fn check_counts(c: &Certification, n: usize) {
    assert_eq!(c.total(), n, "{c}");
}

fn shapes() -> impl Strategy<Value = Shape> {
    prop_oneof![
        Just(Shape::Normal),
        Just(Shape::NearDuplicates),
        Just(Shape::Ties),
        Just(Shape::Copies),
        Just(Shape::Tiny),
        Just(Shape::MixedNorms),
        Just(Shape::Unit),
    ]
}

fn precisions() -> impl Strategy<Value = Precision> {
    prop_oneof![Just(Precision::Bf16), Just(Precision::Int8)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn one_way_equals_the_f32_search(
        shape in shapes(), precision in precisions(), kernel in kernels(),
        n in 1usize..90, nq in 1usize..40, d in 1usize..40, k in 1usize..6,
        candidates in prop_oneof![Just(0usize), 1usize..8], block in 1usize..70, seed in 0u64..1000,
    ) {
        let mut rng = Rng::seed(seed);
        let db = data(shape, n, d, &mut rng);
        let q = data(shape, nq, d, &mut rng);
        let k = k.min(n);
        let want = f32_index(&db).search(q.view(), k).unwrap();
        let index = exact(&db, Metric::InnerProduct, params(precision, kernel, candidates, block));
        let got = index.search_certified(q.view(), k, &mut |_| {}).unwrap();
        check_counts(&got.certification, nq);
        prop_assert_eq!(bits(&got.neighbors), bits(&want));
    }

    #[test]
    fn both_ways_equal_the_f32_search(
        shape in shapes(), precision in precisions(), kernel in kernels(),
        n in 1usize..60, nq in 1usize..60, d in 1usize..37, k in 1usize..5,
        candidates in prop_oneof![Just(0usize), 1usize..6], seed in 0u64..1000,
    ) {
        let mut rng = Rng::seed(seed);
        let db = data(shape, n, d, &mut rng);
        let q = data(shape, nq, d, &mut rng);
        let (k, kb) = (k.min(n), k.min(nq));
        let (wf, wb) = f32_index(&db)
            .search_both_with_progress(q.view(), k, kb, &mut |_| {}).unwrap();
        let index = exact(&db, Metric::InnerProduct, params(precision, kernel, candidates, 32));
        let (f, b) = index.search_both_certified(q.view(), k, kb, &mut |_| {}).unwrap();
        check_counts(&f.certification, nq);
        check_counts(&b.certification, n);
        prop_assert_eq!(bits(&f.neighbors), bits(&wf));
        prop_assert_eq!(bits(&b.neighbors), bits(&wb));
    }
}

/// On unit vectors of a realistic shape the first scan is enough: the certificate is not
/// vacuous.
#[test]
fn unit_vectors_are_certified_at_the_first_try() {
    let mut rng = Rng::seed(11);
    let db = data(Shape::Unit, 3000, 96, &mut rng);
    let q = data(Shape::Unit, 200, 96, &mut rng);
    for precision in [Precision::Bf16, Precision::Int8] {
        let index = scanning(&db, Metric::InnerProduct, precision, Kernel::Auto, 0);
        let got = index.search_certified(q.view(), 4, &mut |_| {}).unwrap();
        let c = got.certification;
        assert_eq!((c.certified, c.widened, c.fallen_back), (200, 0, 0), "{c}");
        assert_eq!(got.neighbors, f32_index(&db).search(q.view(), 4).unwrap());
    }
}

/// Exact duplicates are scanned once and put back after their first copy: 200 copies of one
/// row are certified with 2 candidates, and ties go to the lower ids as in the f32 search.
#[test]
fn duplicates_are_scanned_once_and_stay_exact() {
    let mut rng = Rng::seed(3);
    let row: Vec<f32> = (0..24).map(|_| rng.normal() as f32).collect();
    let db = Embeddings::from_rows(std::iter::repeat_n(&row, 200), 24).unwrap();
    let q = data(Shape::Normal, 5, 24, &mut rng);
    let index = scanning(&db, Metric::InnerProduct, Precision::Int8, Kernel::Auto, 2);
    let got = index.search_certified(q.view(), 2, &mut |_| {}).unwrap();
    let c = got.certification;
    assert_eq!((c.certified, c.widened, c.fallen_back), (5, 0, 0), "{c}");
    assert_eq!(got.neighbors, f32_index(&db).search(q.view(), 2).unwrap());
    assert!(got.neighbors.ids(0) == [0, 1]);
    // Both ways: every copy gets its first copy's backward list.
    let (f, b) = index
        .search_both_certified(q.view(), 2, 3, &mut |_| {})
        .unwrap();
    let (wf, wb) = f32_index(&db)
        .search_both_with_progress(q.view(), 2, 3, &mut |_| {})
        .unwrap();
    assert_eq!(
        (bits(&f.neighbors), bits(&b.neighbors)),
        (bits(&wf), bits(&wb))
    );
    assert_eq!(b.certification.total(), 200);
}

#[test]
fn l2_runs_in_f32_and_says_so() {
    let mut rng = Rng::seed(4);
    let db = data(Shape::Normal, 50, 8, &mut rng);
    let index = scanning(&db, Metric::L2, Precision::Bf16, Kernel::Auto, 0);
    let got = index.search_certified(db.view(), 3, &mut |_| {}).unwrap();
    let c = got.certification;
    assert_eq!(
        (c.precision, c.requested),
        (Precision::F32, Precision::Bf16)
    );
    assert!(c.note.is_some_and(|n| n.contains("inner product")), "{c}");
    let want = ExactIndex::over(db.view(), Metric::L2)
        .unwrap()
        .search(db.view(), 3)
        .unwrap();
    assert_eq!(got.neighbors, want);
}

#[test]
fn absurd_candidate_counts_are_refused() {
    let db = data(Shape::Normal, 10, 4, &mut Rng::seed(1));
    let err = ExactIndex::over(db.view(), Metric::InnerProduct)
        .unwrap()
        .with_params(params(Precision::Int8, Kernel::Auto, 1 << 40, 256))
        .unwrap_err();
    assert!(
        err.to_string().contains("candidates must be at most"),
        "{err}"
    );
    let bad = r#"{"type":"exact","precision":"fp8"}"#.parse::<bitext_knn::IndexSpec>();
    assert!(bad.is_err());
    let ok = r#"{"type":"exact","precision":"int8","candidates":256}"#;
    let spec = ok.parse::<bitext_knn::IndexSpec>().unwrap();
    assert_eq!(
        spec.exact_search().unwrap().params.precision,
        Precision::Int8
    );
}

/// With the kernel left to `Auto`, what runs is what [`Precision::resolve`] says: `Auto`
/// `f32` or a measurement's choice (`f32` for this search, too small to measure), an explicit
/// reduced precision either itself or `f32` with a note, never anything but the `f32`
/// search's neighbours; a forced kernel runs the precision asked for. The summary names the
/// kernel.
#[test]
fn precisions_resolve_to_what_the_cpu_runs_fast() {
    let mut rng = Rng::seed(21);
    let (n, nq, d) = (4200, 300, 24);
    let db = data(Shape::Unit, n, d, &mut rng);
    let q = data(Shape::Unit, nq, d, &mut rng);
    let want = f32_index(&db).search(q.view(), 4).unwrap();
    for p in [
        Precision::Auto,
        Precision::F32,
        Precision::Bf16,
        Precision::Int8,
    ] {
        let r = p.resolve(Kernel::Auto, Metric::InnerProduct);
        match p {
            Precision::Bf16 | Precision::Int8 => assert!(
                (r.precision, r.note.is_none()) == (p, true)
                    || (r.precision == Precision::F32 && r.note.is_some()),
                "{p}: {r:?}"
            ),
            _ => assert!(
                r.note.is_none() && (r.precision != Precision::Auto || p == Precision::Auto),
                "{p}: {r:?}"
            ),
        }
        // Too small a search to repay measuring: auto runs f32.
        let r = if r.precision == Precision::Auto {
            Precision::F32.resolve(Kernel::Auto, Metric::InnerProduct)
        } else {
            r
        };
        let params = ExactParams {
            precision: p,
            ..ExactParams::default()
        };
        let index = ExactIndex::over(db.view(), Metric::InnerProduct)
            .unwrap()
            .with_params(params)
            .unwrap();
        let got = index.search_certified(q.view(), 4, &mut |_| {}).unwrap();
        assert_eq!(bits(&got.neighbors), bits(&want), "{p}");
        let c = got.certification;
        assert_eq!(
            (c.precision, c.requested, c.note),
            (r.precision, p, r.note),
            "{c}"
        );
        assert!(!c.kernel.is_empty(), "{c}");
        assert!(c.to_string().contains(c.kernel), "{c}");
        let (f, b) = index
            .search_both_certified(q.view(), 4, 3, &mut |_| {})
            .unwrap();
        assert_eq!(f.certification.precision, r.precision, "{p}");
        assert_eq!(b.certification.total(), n, "{p}");
    }
    // Nothing to measure with a forced kernel or the L2 metric.
    for (kernel, metric) in [
        (Kernel::Portable, Metric::InnerProduct),
        (Kernel::Auto, Metric::L2),
    ] {
        let r = Precision::Auto.resolve(kernel, metric);
        assert_eq!(r.precision, Precision::F32);
    }
    // A forced kernel runs the precision asked for, fast or not.
    let forced = Precision::Int8.resolve(Kernel::Portable, Metric::InnerProduct);
    assert_eq!(forced.precision, Precision::Int8);
    let index = scanning(
        &db,
        Metric::InnerProduct,
        Precision::Int8,
        Kernel::Portable,
        0,
    );
    let got = index.search_certified(q.view(), 4, &mut |_| {}).unwrap();
    assert_eq!(got.certification.precision, Precision::Int8);
    assert_eq!(got.certification.kernel, "portable");
    assert_eq!(bits(&got.neighbors), bits(&want));
}
