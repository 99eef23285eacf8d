//! The AMX scans (`Kernel::Amx`: `TDPBF16PS`, `TDPBSUD`) forced, one way and both ways, on
//! shapes that leave partial tiles everywhere (dimensions that are not multiples of 16 words,
//! rows and queries that are not multiples of 16 or 32), with duplicates, ties, tiny and mixed
//! norms, and candidate counts small enough to force the widened scan and the `f32` fallback:
//! the ids and score bits must be the `f32` search's. Skipped, with a note, where AMX is not
//! usable (CPU or OS).

use bitext_core::{Embeddings, Rng};
use bitext_knn::{ExactIndex, ExactParams, IndexSpec, Kernel, KnnIndex, Metric, Precision};
use bitext_testkit::knn::{Expect, kernel_needs};
use bitext_testkit::knn_index_suite;
use common::{Shape, bits, data};

mod common;

/// Whether the AMX kernel runs here; prints why not.
fn amx() -> bool {
    let ok = Kernel::Amx.is_available();
    if !ok {
        eprintln!("AMX is not usable here (CPU or OS): test skipped");
    }
    ok
}

fn index(
    data: &Embeddings,
    precision: Precision,
    kernel: Kernel,
    candidates: usize,
    block: usize,
) -> ExactIndex<'_> {
    index_with(
        data,
        Metric::InnerProduct,
        precision,
        kernel,
        candidates,
        block,
    )
}

fn index_with(
    data: &Embeddings,
    metric: Metric,
    precision: Precision,
    kernel: Kernel,
    candidates: usize,
    block: usize,
) -> ExactIndex<'_> {
    let p = ExactParams {
        precision,
        kernel,
        candidates,
        query_block: block,
        ..ExactParams::default()
    };
    ExactIndex::over(data.view(), metric)
        .unwrap()
        .with_params(p)
        .unwrap()
}

/// The exact index over `data` at `precision` through the AMX kernel.
fn amx_index(data: &Embeddings, metric: Metric, precision: Precision) -> Box<dyn KnnIndex + '_> {
    Box::new(index_with(data, metric, precision, Kernel::Amx, 0, 256))
}

// The shared index suites through the AMX kernel (skipped where it does not run).
knn_index_suite!(
    bf16_amx,
    |d, m| amx_index(d, m, Precision::Bf16),
    Expect::exact(),
    needs = Some(kernel_needs(Kernel::Amx))
);
knn_index_suite!(
    int8_amx,
    |d, m| amx_index(d, m, Precision::Int8),
    Expect::exact(),
    needs = Some(kernel_needs(Kernel::Amx))
);

const SHAPES: [Shape; 6] = [
    Shape::Normal,
    Shape::Ties,
    Shape::Copies,
    Shape::Tiny,
    Shape::MixedNorms,
    Shape::Unit,
];

/// (database rows, queries, dimension): partial row blocks, partial panels, tails of 1–15 words
/// past whole tiles, and exact multiples.
const SIZES: [(usize, usize, usize); 6] = [
    (1, 1, 1),
    (17, 5, 7),
    (33, 31, 33),
    (70, 47, 100),
    (64, 64, 128),
    (45, 40, 515),
];

#[test]
fn amx_searches_equal_the_f32_search_one_way_and_both_ways() {
    if !amx() {
        return;
    }
    let mut rng = Rng::seed(17);
    for shape in SHAPES {
        for (n, nq, d) in SIZES {
            let db = data(shape, n, d, &mut rng);
            let q = data(shape, nq, d, &mut rng);
            let k = n.min(4);
            let kb = nq.min(3);
            let f32_index = index(&db, Precision::F32, Kernel::Avx512, 0, 256);
            let want = bits(&f32_index.search(q.view(), k).unwrap());
            let (wf, wb) = f32_index
                .search_both_with_progress(q.view(), k, kb, &mut |_| {})
                .unwrap();
            let (wf, wb) = (bits(&wf), bits(&wb));
            for precision in [Precision::Bf16, Precision::Int8] {
                // Default candidates, and k (the widened scan and the f32 fallback run).
                for (candidates, block) in [(0, 256), (k, 32), (k, 1)] {
                    let what =
                        format!("{shape:?} {n}x{nq}x{d} {precision} k'={candidates} block {block}");
                    let ix = index(&db, precision, Kernel::Amx, candidates, block);
                    let got = ix.search_certified(q.view(), k, &mut |_| {}).unwrap();
                    assert_eq!(got.certification.precision, precision, "{what}");
                    assert!(
                        got.certification.kernel.starts_with("AMX"),
                        "{what}: {}",
                        got.certification
                    );
                    assert_eq!(bits(&got.neighbors), want, "one way, {what}");
                    let (f, b) = ix
                        .search_both_certified(q.view(), k, kb, &mut |_| {})
                        .unwrap();
                    assert_eq!(bits(&f.neighbors), wf, "both ways, forward, {what}");
                    assert_eq!(bits(&b.neighbors), wb, "both ways, backward, {what}");
                }
            }
        }
    }
}

#[test]
fn amx_is_reached_through_the_index_spec() {
    if !amx() {
        return;
    }
    let mut rng = Rng::seed(23);
    let db = data(Shape::Unit, 300, 96, &mut rng);
    let q = data(Shape::Unit, 50, 96, &mut rng);
    let want = bits(
        &index(&db, Precision::F32, Kernel::Avx512, 0, 256)
            .search(q.view(), 5)
            .unwrap(),
    );
    for (json, name) in [
        (
            r#"{"type":"exact","kernel":"amx","precision":"bf16"}"#,
            "AMX-BF16 (TDPBF16PS)",
        ),
        (
            r#"{"type":"exact","kernel":"amx","precision":"int8"}"#,
            "AMX-INT8 (TDPBSUD)",
        ),
    ] {
        let spec: IndexSpec = json.parse().unwrap();
        assert!(
            matches!(
                spec,
                IndexSpec::Exact {
                    kernel: Kernel::Amx,
                    ..
                }
            ),
            "{json}: {spec:?}"
        );
        let ix = spec.build_over(db.view()).unwrap();
        assert_eq!(bits(&ix.search(q.view(), 5).unwrap()), want, "{json}");
        let IndexSpec::Exact { precision, .. } = spec else {
            unreachable!()
        };
        let got = index(&db, precision, Kernel::Amx, 0, 256)
            .search_certified(q.view(), 5, &mut |_| {})
            .unwrap();
        assert_eq!(got.certification.kernel, name);
    }
    // An f32 search forced through the AMX kernel runs the AVX-512F kernel.
    let f32_amx = index(&db, Precision::F32, Kernel::Amx, 0, 256);
    assert_eq!(bits(&f32_amx.search(q.view(), 5).unwrap()), want);
}
