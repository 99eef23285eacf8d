//! The [`BidirectionalSearch`] conformance suite:
//! [`bidirectional_search_suite!`](crate::bidirectional_search_suite) expands to one `#[test]`
//! per check below for one implementation, made for a metric by a [`BuildBoth`] function.
//!
//! The oracle is [`BruteForce`] searched from each side. Every implementation must return
//! `k_src` targets for every source and `k_trg` sources for every target, equal to the oracle's
//! on small integers (exact arithmetic, many ties: lower ids first) and within rounding on
//! random floats; report progress that only grows and ends at the total; and reject bad input
//! (an empty side, different dimensions, a `k` of 0 or larger than the other side, NaN or ±∞
//! on either side) with an error, never a panic.

use bitext_core::{Embeddings, Rng};
use bitext_knn::{BidirectionalSearch, KnnIndex, Metric, NeighborPair, Neighbors, Stage};

use crate::data::{integers, normal};
use crate::reference::{BruteForce, score};

/// Makes the search under test ranking by `metric`.
pub type BuildBoth = fn(Metric) -> Box<dyn BidirectionalSearch>;

/// What an implementation promises about its results.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expect {
    /// Exact: on small integers the lists equal the oracle's, ids and scores; on random floats
    /// every score is its pair's within `f32` rounding and no better candidate is missed.
    Exact,
    /// Exact up to rounding (e.g. a BLAS-based backend): as `Exact` on random floats, with this
    /// relative tolerance; on small integers the scores (not the order of ties) equal the
    /// oracle's.
    Rounded(f32),
}

/// The oracle's lists both ways.
fn reference(
    src: &Embeddings,
    trg: &Embeddings,
    metric: Metric,
    ks: usize,
    kt: usize,
) -> NeighborPair {
    NeighborPair::new(
        BruteForce::over(trg.view(), metric)
            .unwrap()
            .search(src.view(), ks)
            .unwrap(),
        BruteForce::over(src.view(), metric)
            .unwrap()
            .search(trg.view(), kt)
            .unwrap(),
    )
}

/// Each score of `got` is its pair's, and the list's `i`-th score is within `tol` of the
/// oracle's `i`-th (so no better candidate was missed), for every query.
fn check_close(
    got: &Neighbors,
    want: &Neighbors,
    q: &Embeddings,
    db: &Embeddings,
    metric: Metric,
    tol: f32,
) {
    assert_eq!((got.len(), got.k()), (want.len(), want.k()));
    for i in 0..got.len() {
        for (r, (&id, &s)) in got.ids(i).iter().zip(got.scores(i)).enumerate() {
            let exact = score(metric, q.row(i), db.row(id));
            let scale = 1.0 + exact.abs() as f32;
            assert!(
                (s - exact as f32).abs() <= tol * scale,
                "query {i} rank {r}: id {id} scored {s}, is {exact}"
            );
            let best = want.scores(i)[r];
            assert!(
                (s - best).abs() <= tol * (1.0 + best.abs()),
                "query {i} rank {r}: {s} vs the oracle's {best}"
            );
        }
    }
}

/// Both directions equal the oracle (see [`Expect`]) on 24 seeded cases of random floats and of
/// small integers, both metrics, sides of 1 to 60 rows of 1 to 19 dimensions, `k` up to the
/// other side's size.
pub fn matches_the_reference(build: BuildBoth, e: Expect) {
    let mut rng = Rng::seed(0x626f7468);
    for case in 0..24 {
        let (n, m, d) = (1 + rng.below(60), 1 + rng.below(60), 1 + rng.below(19));
        let (ks, kt) = ((1 + rng.below(6)).min(m), (1 + rng.below(6)).min(n));
        let seed = rng.next_u64();
        let ints = case % 2 == 0;
        let rows = if ints { integers } else { normal };
        let (src, trg) = (rows(n, d, seed), rows(m, d, seed ^ 1));
        for metric in [Metric::InnerProduct, Metric::L2] {
            let got = build(metric)
                .search_both(src.view(), trg.view(), ks, kt, &mut |_, _, _| {})
                .unwrap();
            let want = reference(&src, &trg, metric, ks, kt);
            let what = format!("case {case}: {n}×{m}, d={d}, k=({ks},{kt}), {metric:?}");
            match (ints, e) {
                (true, Expect::Exact) => assert_eq!(got, want, "{what}"),
                (true, Expect::Rounded(_)) => {
                    assert_eq!(
                        got.forward.all_scores(),
                        want.forward.all_scores(),
                        "{what}"
                    );
                    assert_eq!(
                        got.backward.all_scores(),
                        want.backward.all_scores(),
                        "{what}"
                    );
                }
                (false, _) => {
                    let tol = match e {
                        Expect::Exact => 1e-5,
                        Expect::Rounded(t) => t,
                    };
                    check_close(&got.forward, &want.forward, &src, &trg, metric, tol);
                    check_close(&got.backward, &want.backward, &trg, &src, metric, tol);
                }
            }
        }
    }
}

/// `k` equal to the other side's size lists every row of it once.
pub fn full_neighbourhoods_list_every_row(build: BuildBoth, _e: Expect) {
    let (src, trg) = (normal(9, 5, 1), normal(7, 5, 2));
    let nb = build(Metric::InnerProduct)
        .search_both(src.view(), trg.view(), 7, 9, &mut |_, _, _| {})
        .unwrap();
    for (lists, len) in [(&nb.forward, 7), (&nb.backward, 9)] {
        for q in 0..lists.len() {
            let mut ids = lists.ids(q).to_vec();
            ids.sort_unstable();
            assert_eq!(ids, (0..len).collect::<Vec<_>>());
        }
    }
}

/// Progress only grows within a stage, never passes its total, and every stage ends at its
/// total.
pub fn reports_progress(build: BuildBoth, _e: Expect) {
    let (src, trg) = (normal(700, 8, 3), normal(650, 8, 4));
    let mut seen: Vec<(Stage, usize, usize)> = Vec::new();
    build(Metric::InnerProduct)
        .search_both(src.view(), trg.view(), 3, 3, &mut |s, done, total| {
            if let Some(&(ps, pd, pt)) = seen.last()
                && ps == s
            {
                assert!(
                    done >= pd && total == pt,
                    "{s:?}: {pd}/{pt} then {done}/{total}"
                );
            }
            assert!(done <= total, "{s:?}: {done} of {total}");
            seen.push((s, done, total));
        })
        .unwrap();
    assert!(!seen.is_empty(), "no progress reported");
    for w in seen.windows(2) {
        if w[0].0 != w[1].0 {
            assert_eq!(w[0].1, w[0].2, "{:?} left at {}/{}", w[0].0, w[0].1, w[0].2);
        }
    }
    let last = seen.last().unwrap();
    assert_eq!(last.1, last.2);
}

/// Bad requests are errors (no panic) that say what is wrong.
pub fn rejects_bad_input(build: BuildBoth, _e: Expect) {
    let s = build(Metric::InnerProduct);
    let (src, trg) = (normal(5, 4, 5), normal(3, 4, 6));
    let err = |src: &Embeddings, trg: &Embeddings, ks: usize, kt: usize| {
        s.search_both(src.view(), trg.view(), ks, kt, &mut |_, _, _| {})
            .unwrap_err()
            .to_string()
    };
    let e = err(&src, &trg, 4, 1);
    assert!(e.contains("source sentence") && e.contains("only 3"), "{e}");
    let e = err(&src, &trg, 1, 6);
    assert!(e.contains("target sentence") && e.contains("only 5"), "{e}");
    assert!(err(&src, &trg, 0, 1).contains("k = 0"));
    assert!(err(&src, &trg, 1, 0).contains("k = 0"));
    let e = err(&src, &normal(3, 5, 7), 1, 1);
    assert!(e.contains("dimension 4") && e.contains('5'), "{e}");
    let empty = Embeddings::with_capacity(4, 0).unwrap();
    assert!(err(&empty, &trg, 1, 1).contains("source side has no sentences"));
    assert!(err(&src, &empty, 1, 1).contains("target side has no sentences"));
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut b = normal(3, 4, 8);
        b.row_mut(2)[1] = bad;
        for e in [err(&src, &b, 1, 1), err(&b, &trg, 1, 1)] {
            assert!(e.contains("row 2"), "{bad}: {e}");
        }
    }
}

/// Expands to a module of `#[test]`s running every check of [`crate::both`] on one
/// [`BidirectionalSearch`] implementation.
///
/// `$build` is a [`BuildBoth`] (a function or a closure that captures nothing) and `$expect` an
/// [`Expect`]. Items of the calling module are in scope.
///
/// ```ignore
/// use bitext_knn::OnePass;
/// use bitext_testkit::both::Expect;
///
/// bitext_testkit::bidirectional_search_suite!(one_pass, |m| Box::new(OnePass::new(m)), Expect::Exact);
/// ```
#[macro_export]
macro_rules! bidirectional_search_suite {
    ($name:ident, $build:expr, $expect:expr $(,)?) => {
        $crate::__suite! { $name, both, ($build, $expect), [
            matches_the_reference, full_neighbourhoods_list_every_row, reports_progress,
            rejects_bad_input
        ] }
    };
}
