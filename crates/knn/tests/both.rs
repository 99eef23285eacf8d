//! The both-ways search: every implementation passes the testkit's `BidirectionalSearch`
//! suite; the one pass equals two exact searches bit for bit (ids, scores, tie order) for every
//! kernel, block size, thread count and metric, including padded panels, split databases and
//! exact ties; the spec dispatches every spelling of `exact` to it.

use bitext_core::{Embeddings, Rng};
use bitext_knn::{
    BidirectionalSearch, ExactIndex, ExactParams, IndexFactory, IndexSpec, Kernel, KnnIndex,
    Metric, NeighborPair, OnePass, Stage, TwoIndexes,
};
use bitext_testkit::data::normal;
use bitext_testkit::knn::{FORCED_KERNELS, runnable};

/// Vectors on a small integer grid: many exact ties, in every direction.
fn grid(n: usize, d: usize, seed: u64) -> Embeddings {
    let mut r = Rng::seed(seed);
    Embeddings::new((0..n * d).map(|_| (r.below(3) as f32) - 1.0).collect(), d).unwrap()
}

/// Builds exact indexes ranking by its metric.
struct Exact(Metric);

impl IndexFactory for Exact {
    fn build<'a>(
        &self,
        v: bitext_core::EmbeddingsView<'a>,
    ) -> bitext_knn::Result<Box<dyn KnnIndex + 'a>> {
        Ok(Box::new(ExactIndex::over(v, self.0)?))
    }
}

bitext_testkit::bidirectional_search_suite!(
    one_pass,
    |m| Box::new(OnePass::new(m)),
    bitext_testkit::both::Expect::Exact
);

bitext_testkit::bidirectional_search_suite!(
    one_pass_small_blocks_three_threads,
    |metric| Box::new(OnePass {
        metric,
        params: ExactParams {
            query_block: 16,
            kernel: Kernel::Portable,
            threads: 3,
            ..ExactParams::default()
        },
    }),
    bitext_testkit::both::Expect::Exact
);

bitext_testkit::bidirectional_search_suite!(
    two_exact_indexes,
    |m| Box::new(TwoIndexes::new(Exact(m), m)),
    bitext_testkit::both::Expect::Exact
);

bitext_testkit::bidirectional_search_suite!(
    exact_spec,
    |m| Box::new(IndexSpec::exact(m)),
    bitext_testkit::both::Expect::Exact
);

#[cfg(feature = "faiss")]
bitext_testkit::bidirectional_search_suite!(
    faiss_flat_spec,
    |m| Box::new(IndexSpec::faiss("Flat", m)),
    bitext_testkit::both::Expect::Rounded(1e-4)
);

/// Two independent exact searches: today's two-index path over `ExactIndex`.
fn two_searches(
    src: &Embeddings,
    trg: &Embeddings,
    metric: Metric,
    k_src: usize,
    k_trg: usize,
) -> NeighborPair {
    TwoIndexes::new(Exact(metric), metric)
        .search_both(src.view(), trg.view(), k_src, k_trg, &mut |_, _, _| {})
        .unwrap()
}

fn one_pass(
    src: &Embeddings,
    trg: &Embeddings,
    metric: Metric,
    params: ExactParams,
    threads: usize,
    (k_src, k_trg): (usize, usize),
) -> NeighborPair {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let search = OnePass { metric, params };
    pool.install(|| {
        search
            .search_both(src.view(), trg.view(), k_src, k_trg, &mut |_, _, _| {})
            .unwrap()
    })
}

#[test]
fn one_pass_equals_two_searches_for_every_kernel_block_and_thread_count() {
    // 70 sources (< one block: the targets are split across threads), 2101 targets; odd
    // sizes exercise the padded tails of panels (padding queries must never be offered).
    let src = normal(70, 19, 1);
    let trg = normal(2101, 19, 2);
    for metric in [Metric::InnerProduct, Metric::L2] {
        let want = two_searches(&src, &trg, metric, 5, 3);
        for kernel in runnable(&FORCED_KERNELS) {
            for (query_block, threads) in [(1, 1), (16, 3), (33, 2), (4096, 2)] {
                let params = ExactParams {
                    query_block,
                    kernel,
                    ..ExactParams::default()
                };
                let got = one_pass(&src, &trg, metric, params, threads, (5, 3));
                assert_eq!(
                    got, want,
                    "{metric:?} {kernel:?} block {query_block} threads {threads}"
                );
            }
        }
    }
}

#[test]
fn ties_go_to_the_lower_id_in_both_directions() {
    let src = grid(300, 4, 3);
    let trg = grid(257, 4, 4);
    let want = two_searches(&src, &trg, Metric::InnerProduct, 6, 6);
    // With so few distinct vectors most lists are all ties: the lower ids must win.
    let ties = (0..want.backward.len())
        .filter(|&q| want.backward.scores(q)[0] == want.backward.scores(q)[5])
        .count();
    assert!(ties > 50, "{ties} tied lists");
    for w in want.backward.all_ids().chunks(6) {
        // Within equal scores, ids ascend.
        assert!(w.windows(2).all(|p| p[0] != p[1]));
    }
    for (block, threads) in [(8, 1), (32, 2), (256, 3)] {
        let params = ExactParams {
            query_block: block,
            kernel: Kernel::Auto,
            ..ExactParams::default()
        };
        let got = one_pass(&src, &trg, Metric::InnerProduct, params, threads, (6, 6));
        assert_eq!(got, want, "block {block} threads {threads}");
    }
}

#[test]
fn every_spelling_of_exact_searches_alike_and_reports_progress() {
    let src = normal(600, 8, 5);
    let trg = normal(500, 8, 6);
    let a: IndexSpec = "exact".parse().unwrap();
    let b: IndexSpec = r#"{"type":"exact"}"#.parse().unwrap();
    let c: IndexSpec = r#"{"type":"exact","query_block":64,"kernel":"portable"}"#
        .parse()
        .unwrap();
    let mut stages = Vec::new();
    let mut last = 0;
    let want = a
        .search_both(src.view(), trg.view(), 4, 4, &mut |s, done, total| {
            stages.push(s);
            assert_eq!(total, 600);
            assert!(done >= last && done <= total);
            last = done;
        })
        .unwrap();
    assert_eq!(last, 600);
    assert!(stages.iter().all(|&s| s == Stage::Bidirectional));
    for spec in [b, c] {
        let got = spec
            .search_both(src.view(), trg.view(), 4, 4, &mut |_, _, _| {})
            .unwrap();
        assert_eq!(got, want, "{spec:?}");
    }
    assert_eq!(want, two_searches(&src, &trg, Metric::InnerProduct, 4, 4));
    assert_eq!(a.exact_search(), Some(OnePass::default()));
}

#[test]
fn bad_requests_are_errors_naming_the_side() {
    let src = normal(5, 4, 7);
    let trg = normal(3, 4, 8);
    let other = normal(3, 5, 9);
    let s = OnePass::default();
    let none = |_: Stage, _: usize, _: usize| {};
    let err = |r: bitext_knn::Result<NeighborPair>| r.unwrap_err().to_string();
    let e = err(s.search_both(src.view(), trg.view(), 4, 2, &mut { none }));
    assert!(
        e.contains("k = 4 neighbours of each source sentence") && e.contains("only 3"),
        "{e}"
    );
    let e = err(s.search_both(src.view(), trg.view(), 2, 6, &mut { none }));
    assert!(e.contains("target sentence") && e.contains("only 5"), "{e}");
    let e = err(s.search_both(src.view(), trg.view(), 0, 1, &mut { none }));
    assert!(e.contains("k = 0"), "{e}");
    let e = err(s.search_both(src.view(), other.view(), 1, 1, &mut { none }));
    assert!(e.contains("dimension 4 but target embeddings 5"), "{e}");
    let empty = Embeddings::with_capacity(4, 0).unwrap();
    let e = err(s.search_both(empty.view(), trg.view(), 1, 1, &mut { none }));
    assert!(e.contains("source side has no sentences"), "{e}");
    let mut nan = normal(3, 4, 10);
    nan.row_mut(2)[1] = f32::NAN;
    let e = err(s.search_both(src.view(), nan.view(), 1, 1, &mut { none }));
    assert!(e.contains("row 2") && e.contains("NaN"), "{e}");
    let e = err(s.search_both(nan.view(), trg.view(), 1, 1, &mut { none }));
    assert!(e.contains("row 2") && e.contains("NaN"), "{e}");
    // A factory whose index ranks otherwise than asked is refused.
    let e = err(
        TwoIndexes::new(Exact(Metric::L2), Metric::InnerProduct).search_both(
            src.view(),
            trg.view(),
            1,
            1,
            &mut { none },
        ),
    );
    assert!(e.contains("ranks by L2"), "{e}");
}
