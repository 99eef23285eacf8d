//! The [`KnnIndex`] conformance suite: [`knn_index_suite!`](crate::knn_index_suite) expands to
//! one `#[test]` per check below for one backend, built over test data by a [`Build`] function.
//!
//! The oracle is [`BruteForce`] (scores in `f64`, full sort, ties to the lower id). What a
//! backend must match depends on its [`Quality`]; every backend must return well-formed lists
//! (distinct ids in range, finite scores best first), report its sizes, keep ids continuous
//! across adds, save and load (or refuse cleanly), report progress, search from many threads,
//! and reject bad input (wrong dimension, `k` of 0 or too large, no query, NaN, ±∞, norms that
//! overflow) with the documented errors, adding nothing on a failed add.

use bitext_core::{Embeddings, Rng};
use bitext_knn::{Error, Kernel, KnnIndex, Metric, Neighbors, load_index};

use crate::data::{integers, normal, planted_knn};
use crate::reference::{BruteForce, rank, score};

/// What a test of `kernel` needs, as [`crate::needs::available`] takes it: the kernel's group
/// ([`crate::needs::group::kernel`]) and, when this CPU cannot run it, why.
#[must_use]
pub fn kernel_needs(kernel: Kernel) -> (String, Option<String>) {
    // `Auto` is the kernel it stands for; the group is named after the variant (`avx_vnni`
    // and `avx2` share a display name).
    let kernel = if kernel == Kernel::Auto {
        Kernel::detect()
    } else {
        kernel
    };
    let id = format!("{kernel:?}").to_lowercase();
    let missing = (!kernel.is_available()).then(|| format!("this CPU cannot run the {id} kernel"));
    (crate::needs::group::kernel(&id), missing)
}

/// Whether this CPU runs `kernel`, recorded as one check of its group: a loop over kernels
/// tests each one the CPU has and reports the others skipped.
#[must_use]
pub fn kernel_runs(kernel: Kernel) -> bool {
    let (group, missing) = kernel_needs(kernel);
    crate::needs::available(&group, missing)
}

/// Every kernel a search can be forced to.
pub const FORCED_KERNELS: [Kernel; 6] = [
    Kernel::Portable,
    Kernel::Avx2,
    Kernel::AvxVnni,
    Kernel::Avx512,
    Kernel::Amx,
    Kernel::Neon,
];

/// `Auto` and every kernel a search can be forced to.
pub const KERNELS: [Kernel; 7] = [
    Kernel::Auto,
    Kernel::Portable,
    Kernel::Avx2,
    Kernel::AvxVnni,
    Kernel::Avx512,
    Kernel::Amx,
    Kernel::Neon,
];

/// The kernels of `kernels` this CPU runs, each recorded as one check of its group
/// ([`kernel_runs`]): a loop over them tests each one the CPU has and reports the others skipped.
#[must_use]
pub fn runnable(kernels: &[Kernel]) -> Vec<Kernel> {
    kernels
        .iter()
        .copied()
        .filter(|&k| kernel_runs(k))
        .collect()
}

/// Builds the index under test over `data` (trained on it when it needs training) with `metric`.
pub type Build = for<'a> fn(&'a Embeddings, Metric) -> Box<dyn KnnIndex + 'a>;

/// What a backend promises about its results.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Quality {
    /// Exact search: at every rank the score is within `f32` rounding of the reference's, each
    /// score is its id's, equal scores come in id order, and on small integers (exact
    /// arithmetic) the lists equal the reference's exactly. Single queries equal batches.
    Exact,
    /// Exact up to rounding: scores within this tolerance (relative to `|q|² + max |x|²`) of
    /// the reference at every rank and of the id's own score; ties in any order.
    Rounded(f32),
    /// Approximate: recall@4 of planted neighbours at least this; lists well formed.
    Recall(f64),
}

/// What the suite expects of a backend (see [`Quality`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expect {
    /// How close to the reference its results are.
    pub quality: Quality,
    /// Whether [`KnnIndex::save`] works and [`load_index`] reads the file back; when not, the
    /// suite checks that `save` is an error that leaves no file.
    pub saves: bool,
}

impl Expect {
    /// An exact backend that saves.
    #[must_use]
    pub const fn exact() -> Self {
        Self {
            quality: Quality::Exact,
            saves: true,
        }
    }

    /// An exact-up-to-rounding backend that saves.
    #[must_use]
    pub const fn rounded(tolerance: f32) -> Self {
        Self {
            quality: Quality::Rounded(tolerance),
            saves: true,
        }
    }

    /// An approximate backend that saves.
    #[must_use]
    pub const fn recall(min: f64) -> Self {
        Self {
            quality: Quality::Recall(min),
            saves: true,
        }
    }

    /// The same, for a backend that cannot be saved.
    #[must_use]
    pub const fn without_save(self) -> Self {
        Self {
            saves: false,
            ..self
        }
    }

    /// Score tolerance relative to `1 + |q|² + max |x|²`, if scores must match the reference.
    fn tolerance(&self) -> Option<f64> {
        match self.quality {
            Quality::Exact => Some(1e-5),
            Quality::Rounded(t) => Some(f64::from(t)),
            Quality::Recall(_) => None,
        }
    }
}

/// Squared norm in `f64`.
fn sq(x: &[f32]) -> f64 {
    x.iter().map(|&v| f64::from(v) * f64::from(v)).sum()
}

/// Check `got` (the backend's `k` neighbours of `queries` in `db`) against the reference.
fn check_lists(got: &Neighbors, db: &Embeddings, queries: &Embeddings, metric: Metric, e: Expect) {
    let k = got.k();
    assert_eq!(got.len(), queries.len(), "one list per query");
    let reference = BruteForce::over(db.view(), metric).unwrap();
    let max_sq = db.rows().map(sq).fold(0.0, f64::max);
    for (qi, q) in queries.rows().enumerate() {
        let (ids, scores) = (got.ids(qi), got.scores(qi));
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), k, "query {qi}: repeated ids {ids:?}");
        assert!(ids.iter().all(|&j| j < db.len()), "query {qi}: {ids:?}");
        assert!(
            scores.iter().all(|s| s.is_finite()),
            "query {qi}: {scores:?}"
        );
        for r in 1..k {
            let (a, b) = (f64::from(scores[r - 1]), f64::from(scores[r]));
            assert!(
                rank(metric, a, b).is_le(),
                "query {qi}: not best first: {scores:?}"
            );
            if e.quality == Quality::Exact && a == b {
                assert!(
                    ids[r - 1] < ids[r],
                    "query {qi}: tie not in id order {ids:?}"
                );
            }
        }
        let Some(tol) = e.tolerance() else { continue };
        let tol = tol * (1.0 + sq(q) + max_sq);
        let want = reference.ranked(q);
        for r in 0..k {
            let s = f64::from(scores[r]);
            let own = score(metric, q, db.row(ids[r]));
            assert!(
                (s - want[r].1).abs() <= tol && (s - own).abs() <= tol,
                "{metric:?} query {qi} rank {r}: id {} score {s}, its exact score {own}, \
                 the reference's {} (id {})",
                ids[r],
                want[r].1,
                want[r].0
            );
        }
    }
}

/// Results match the reference ([`Quality`]) on 48 seeded cases of random floats and of small
/// integers (many ties), both metrics, 1 to 69 vectors of 1 to 23 dimensions, plus cases that
/// once failed. Approximate backends, which need more vectors than clusters and dimensions
/// that fit their quantisers, return well-formed lists on 2048 vectors of 16 dimensions.
pub fn matches_the_reference(build: Build, e: Expect) {
    if matches!(e.quality, Quality::Recall(_)) {
        let data = planted_knn(16, 128, 16, 50, 17);
        for metric in [Metric::InnerProduct, Metric::L2] {
            let got = build(&data.db, metric)
                .search(data.queries.view(), 7)
                .unwrap();
            check_lists(&got, &data.db, &data.queries, metric, e);
        }
        return;
    }
    let mut rng = Rng::seed(0x6b6e6e);
    let mut cases: Vec<(usize, usize, usize, usize, u64, bool, bool)> = (0..48)
        .map(|_| {
            let n = 1 + rng.below(69);
            let (d, nq, k0) = (1 + rng.below(23), 1 + rng.below(39), 1 + rng.below(7));
            (
                n,
                d,
                nq,
                k0,
                rng.next_u64(),
                rng.bernoulli(0.5),
                rng.bernoulli(0.5),
            )
        })
        .collect();
    // Found by proptest in the old per-crate suite: `−0` and `+0` scores must tie.
    cases.push((3, 1, 2, 1, 71_319_003_773_007_148, true, false));
    for (n, d, nq, k0, seed, ints, l2) in cases {
        let k = k0.min(n);
        let rows = if ints { integers } else { normal };
        let db = rows(n, d, seed);
        let q = rows(nq, d, seed.wrapping_add(1));
        let metric = if l2 { Metric::L2 } else { Metric::InnerProduct };
        let index = build(&db, metric);
        let got = index.search(q.view(), k).unwrap();
        assert_eq!(got.k(), k);
        check_lists(&got, &db, &q, metric, e);
        if ints && e.quality == Quality::Exact {
            let want = BruteForce::over(db.view(), metric).unwrap();
            assert_eq!(
                got,
                want.search(q.view(), k).unwrap(),
                "integers n={n} d={d} nq={nq} k={k} seed={seed} {metric:?}"
            );
        }
    }
}

/// recall@4 of planted neighbours (2048 unit vectors in 32 clusters, 200 queries) is 1 for
/// exact backends and at least the stated minimum for approximate ones, for both metrics.
pub fn finds_planted_neighbours(build: Build, e: Expect) {
    let data = planted_knn(32, 64, 32, 200, 7);
    let min = match e.quality {
        Quality::Recall(min) => min,
        _ => 1.0,
    };
    for metric in [Metric::InnerProduct, Metric::L2] {
        let got = build(&data.db, metric)
            .search(data.queries.view(), 4)
            .unwrap();
        let r = data.recall(|q| got.ids(q).to_vec());
        assert!(r >= min, "{metric:?}: recall@4 {r:.3} < {min}");
    }
}

/// A query searched alone gets the list it gets in a batch (41 queries: faiss switches to BLAS
/// above 20): the same ids and scores for exact backends, scores within the tolerance for the
/// others.
pub fn single_queries_equal_batches(build: Build, e: Expect) {
    let db = normal(300, 16, 21);
    let q = normal(41, 16, 22);
    let scale = 1.0 + q.rows().chain(db.rows()).map(sq).fold(0.0, f64::max) * 2.0;
    let tol = e.tolerance().unwrap_or(1e-4) * scale;
    for metric in [Metric::InnerProduct, Metric::L2] {
        let index = build(&db, metric);
        let all = index.search(q.view(), 5).unwrap();
        assert_eq!(all, index.search(q.view(), 5).unwrap(), "not deterministic");
        for i in (0..q.len()).step_by(4) {
            let one = index.search(q.slice_rows(i..i + 1), 5).unwrap();
            if e.quality == Quality::Exact {
                assert_eq!((one.ids(0), one.scores(0)), (all.ids(i), all.scores(i)));
            }
            for (a, b) in one.scores(0).iter().zip(all.scores(i)) {
                assert!(
                    f64::from((a - b).abs()) <= tol,
                    "{metric:?} query {i}: {a} vs {b}"
                );
            }
        }
    }
}

/// `dim`, `len`, `metric` are reported; vectors added later get the ids that follow (a second
/// copy of the data gives every neighbour twice, ids `n` apart); `k = len` returns every id.
pub fn added_vectors_continue_the_ids(build: Build, e: Expect) {
    let (n, d) = (1300, 16);
    let db = normal(n, d, 3);
    let q = normal(9, d, 4);
    let whole = build(&db, Metric::L2);
    assert_eq!(
        (whole.dim(), whole.len(), whole.metric()),
        (d, n, Metric::L2)
    );
    assert!(!whole.is_empty());
    let mut parts = build(&db, Metric::L2);
    parts.add(db.view()).unwrap();
    assert_eq!(parts.len(), 2 * n);
    let b = parts.search(q.view(), 6).unwrap();
    assert!(b.all_ids().iter().all(|&j| j < 2 * n));
    if matches!(e.quality, Quality::Recall(_)) {
        return; // approximate indexes may rank duplicates differently, and miss some at k = len
    }
    let a = whole.search(q.view(), 3).unwrap();
    for i in 0..q.len() {
        let twice: std::collections::BTreeSet<usize> = b.ids(i).iter().map(|&x| x % n).collect();
        assert_eq!(twice, a.ids(i).iter().copied().collect(), "query {i}");
    }
    let small = normal(50, 8, 5);
    let index = build(&small, Metric::InnerProduct);
    let all = index.search(normal(3, 8, 6).view(), 50).unwrap();
    for i in 0..3 {
        let mut ids = all.ids(i).to_vec();
        ids.sort_unstable();
        assert_eq!(ids, (0..50).collect::<Vec<_>>());
    }
}

/// A saved index loads back (with [`load_index`]) with the same dimension, size, metric and
/// results, and a missing file's error names it; or, for a backend that cannot be saved,
/// `save` is an error that leaves no file behind.
pub fn saves_and_loads(build: Build, e: Expect) {
    let data = planted_knn(32, 48, 16, 30, 11);
    let dir = tempfile::tempdir().unwrap();
    for metric in [Metric::InnerProduct, Metric::L2] {
        let index = build(&data.db, metric);
        let path = dir.path().join(format!("{metric:?}.index"));
        if !e.saves {
            assert!(index.save(&path).is_err());
            assert!(!path.exists(), "a refused save left {}", path.display());
            continue;
        }
        index.save(&path).unwrap();
        let back = load_index(&path).unwrap();
        assert_eq!((back.dim(), back.len(), back.metric()), (16, 1536, metric));
        let q = data.queries.view();
        assert_eq!(back.search(q, 5).unwrap(), index.search(q, 5).unwrap());
    }
    let e = load_index(&dir.path().join("nope")).err().unwrap();
    assert!(e.to_string().contains("nope"), "{e}");
}

/// Progress reports count queries done: increasing, ending at the number of queries.
pub fn reports_progress(build: Build, _e: Expect) {
    let db = normal(400, 16, 5);
    let q = normal(1000, 16, 6);
    let index = build(&db, Metric::InnerProduct);
    let mut seen = Vec::new();
    let nn = index
        .search_with_progress(q.view(), 2, &mut |n| seen.push(n))
        .unwrap();
    assert_eq!(nn.len(), 1000);
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    assert_eq!(seen.last(), Some(&1000));
    assert_eq!(nn, index.search(q.view(), 2).unwrap());
}

/// Searches from several threads at once (the trait is `Sync`) give the single-thread result.
pub fn searches_from_many_threads(build: Build, _e: Expect) {
    let db = normal(500, 16, 7);
    let q = normal(60, 16, 8);
    let index = build(&db, Metric::L2);
    let want = index.search(q.view(), 4).unwrap();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| index.search(q.view(), 4).unwrap()))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), want);
        }
    });
}

/// Bad input is the documented error, never a panic: wrong dimension (search and add), `k` of
/// 0, larger than the index, or `usize::MAX`, no query, NaN and ±∞ (naming the input, row and
/// column), norms whose square overflows `f32`; a failed add adds nothing.
pub fn rejects_bad_input(build: Build, _e: Expect) {
    let db = normal(1300, 16, 1);
    let mut index = build(&db, Metric::InnerProduct);
    let q = normal(3, 16, 2);
    assert!(matches!(
        index.search(normal(2, 15, 1).view(), 1),
        Err(Error::Dimension { index: 16, got: 15 })
    ));
    assert!(matches!(
        index.add(normal(2, 17, 1).view()),
        Err(Error::Dimension { .. })
    ));
    assert!(matches!(
        index.search(q.view(), 1301),
        Err(Error::KTooLarge { k: 1301, len: 1300 })
    ));
    assert!(matches!(
        index.search(q.view(), usize::MAX),
        Err(Error::KTooLarge { .. })
    ));
    assert!(matches!(index.search(q.view(), 0), Err(Error::Invalid(_))));
    let none = Embeddings::with_capacity(16, 0).unwrap();
    let e = index.search(none.view(), 1).unwrap_err().to_string();
    assert!(e.contains("no query"), "{e}");
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut v = normal(4, 16, 3);
        v.row_mut(2)[5] = bad;
        let e = index.search(v.view(), 1).unwrap_err().to_string();
        assert!(
            e.contains("query vectors") && e.contains("row 2, column 5"),
            "{e}"
        );
        let e = index.add(v.view()).unwrap_err().to_string();
        assert!(e.contains("row 2, column 5"), "{e}");
    }
    let mut huge = normal(2, 16, 3);
    huge.row_mut(1).fill(1e19);
    let e = index.search(huge.view(), 1).unwrap_err().to_string();
    assert!(e.contains("norm"), "{e}");
    assert!(index.add(huge.view()).is_err());
    assert_eq!(index.len(), 1300, "failed adds must add nothing");
}

/// The [`KnnIndex`] conformance suite for one backend: a module `$name` with one `#[test]` per
/// check of [`bitext_testkit::knn`](crate::knn).
///
/// `$build` is a [`Build`] (a function or a closure that captures nothing) and `$expect` an
/// [`Expect`]. Items of the calling module are in scope. A backend that needs a kernel of the
/// CPU adds `needs = Some(kernel_needs(kernel))` ([`kernel_needs`]): on a CPU without it, each
/// check is recorded as skipped and runs nothing.
///
/// ```ignore
/// use bitext_knn::{ExactIndex, KnnIndex};
/// use bitext_testkit::knn::Expect;
///
/// bitext_testkit::knn_index_suite!(
///     exact_borrowed,
///     |data, metric| Box::new(ExactIndex::over(data.view(), metric).unwrap()),
///     Expect::exact()
/// );
/// ```
#[macro_export]
macro_rules! knn_index_suite {
    ($name:ident, $build:expr, $expect:expr $(,)?) => {
        $crate::knn_index_suite! { $name, $build, $expect, needs = None }
    };
    ($name:ident, $build:expr, $expect:expr, needs = $needs:expr $(,)?) => {
        $crate::__suite! { $name, knn, ($build, $expect), [
            matches_the_reference, finds_planted_neighbours,
            single_queries_equal_batches, added_vectors_continue_the_ids,
            saves_and_loads, reports_progress, searches_from_many_threads,
            rejects_bad_input
        ], needs = $needs }
    };
}
