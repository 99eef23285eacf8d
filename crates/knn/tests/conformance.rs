//! The shared [`KnnIndex`] conformance suite (`bitext_testkit::knn_index_suite!`, oracle
//! `bitext_testkit::BruteForce`) instantiated for every backend of this crate: the exact index
//! owned, borrowed, built from a spec and with each kernel (small query blocks), and with the
//! `faiss` feature several faiss index types. Both metrics are checked by every suite.
//!
//! Beyond the suite: the exact backend's scores equal the documented `f32` formula bit for bit.

use bitext_core::Embeddings;
use bitext_knn::{ExactIndex, ExactParams, IndexSpec, Kernel, KnnIndex, Metric, dot};
use bitext_testkit::data::{integers, normal};
use bitext_testkit::knn::{Expect, KERNELS, kernel_needs, runnable};
use bitext_testkit::knn_index_suite;

fn owned(data: &Embeddings, metric: Metric) -> Box<dyn KnnIndex + '_> {
    let mut i = ExactIndex::new(data.dim(), metric).unwrap();
    i.add(data.view()).unwrap();
    Box::new(i)
}

/// An exact index over `data` with `kernel` and one-query blocks, so that the kernel's padded
/// tails are exercised. The suites of a kernel this CPU lacks are skipped (`kernel_needs`),
/// never run through another kernel.
fn with_kernel(data: &Embeddings, metric: Metric, kernel: Kernel) -> Box<dyn KnnIndex + '_> {
    let params = ExactParams {
        query_block: 1,
        kernel,
        ..ExactParams::default()
    };
    Box::new(
        ExactIndex::over(data.view(), metric)
            .unwrap()
            .with_params(params)
            .unwrap(),
    )
}

knn_index_suite!(exact_owned, owned, Expect::exact());
knn_index_suite!(
    exact_borrowed,
    |data, metric| Box::new(ExactIndex::over(data.view(), metric).unwrap()),
    Expect::exact()
);
knn_index_suite!(
    exact_spec,
    |data, metric| IndexSpec::exact(metric).build_over(data.view()).unwrap(),
    Expect::exact()
);
knn_index_suite!(
    exact_portable_small_blocks,
    |d, m| with_kernel(d, m, Kernel::Portable),
    Expect::exact()
);
knn_index_suite!(
    exact_avx2_small_blocks,
    |d, m| with_kernel(d, m, Kernel::Avx2),
    Expect::exact(),
    needs = Some(kernel_needs(Kernel::Avx2))
);
knn_index_suite!(
    exact_avx512_small_blocks,
    |d, m| with_kernel(d, m, Kernel::Avx512),
    Expect::exact(),
    needs = Some(kernel_needs(Kernel::Avx512))
);
knn_index_suite!(
    exact_neon_small_blocks,
    |d, m| with_kernel(d, m, Kernel::Neon),
    Expect::exact(),
    needs = Some(kernel_needs(Kernel::Neon))
);

/// The documented scores, in `f32` as every kernel computes them: `dot(q, x)`, or
/// `max(0, (dot(q, q) + dot(x, x)) − 2·dot(q, x))`.
fn formula(metric: Metric, q: &[f32], x: &[f32]) -> f32 {
    match metric {
        Metric::InnerProduct => dot(q, x),
        Metric::L2 => ((dot(q, q) + dot(x, x)) - 2.0 * dot(q, x)).max(0.0),
    }
}

#[test]
fn exact_scores_are_the_f32_formula_bit_for_bit() {
    let mut rng = bitext_core::Rng::seed(5);
    for case in 0..24 {
        let (n, d, nq) = (1 + rng.below(80), 1 + rng.below(40), 1 + rng.below(20));
        let rows = if case % 3 == 0 { integers } else { normal };
        let (db, q) = (rows(n, d, rng.next_u64()), rows(nq, d, rng.next_u64()));
        let metric = if case % 2 == 0 {
            Metric::L2
        } else {
            Metric::InnerProduct
        };
        let k = n.min(5);
        for kernel in runnable(&KERNELS) {
            let got = with_kernel(&db, metric, kernel)
                .search(q.view(), k)
                .unwrap();
            for (qi, qr) in q.rows().enumerate() {
                let mut want: Vec<(f32, usize)> = db
                    .rows()
                    .enumerate()
                    .map(|(i, x)| (formula(metric, qr, x), i))
                    .collect();
                want.sort_by(|a, b| match metric {
                    Metric::InnerProduct => b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)),
                    Metric::L2 => a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)),
                });
                let (ids, scores): (Vec<usize>, Vec<f32>) =
                    want[..k].iter().map(|&(s, i)| (i, s)).unzip();
                assert_eq!(
                    (got.ids(qi), got.scores(qi)),
                    (&ids[..], &scores[..]),
                    "case {case} {kernel:?} {metric:?} query {qi}"
                );
            }
        }
    }
}

#[cfg(feature = "faiss")]
mod faiss_backends {
    use super::*;

    /// A faiss index from `spec` (a factory string or JSON), trained on and holding `data`.
    fn faiss<'a>(spec: &str, data: &'a Embeddings, metric: Metric) -> Box<dyn KnnIndex + 'a> {
        let spec: IndexSpec = spec.parse().unwrap();
        spec.with_metric(metric).build_over(data.view()).unwrap()
    }

    knn_index_suite!(flat, |d, m| faiss("Flat", d, m), Expect::rounded(1e-5));
    knn_index_suite!(
        ivf_flat,
        |d, m| faiss(
            r#"{"type":"faiss","factory":"IVF32,Flat","nprobe":4}"#,
            d,
            m
        ),
        Expect::recall(0.95)
    );
    knn_index_suite!(
        hnsw,
        |d, m| faiss(
            r#"{"type":"faiss","factory":"HNSW32,Flat","ef_search":64}"#,
            d,
            m
        ),
        Expect::recall(0.95)
    );
    knn_index_suite!(
        ivf_pq,
        |d, m| faiss(
            r#"{"type":"faiss","factory":"IVF32,PQ16x4np","nprobe":8}"#,
            d,
            m
        ),
        Expect::recall(0.85)
    );
}
