//! The [`PairScorer`] conformance suite: [`pair_scorer_suite!`](crate::pair_scorer_suite)
//! expands to one `#[test]` per check below for one scorer, made by an expression over the
//! data its instantiation chooses (e.g. [`planted_pairs`](crate::data::planted_pairs)).
//!
//! Checked: non-empty sizes; out-of-range pairs are [`Error::PairOutOfRange`] naming the first
//! bad pair, never a panic; scores are finite (and in the stated range), deterministic,
//! independent of batch order, batch composition and duplicates, equal from many threads;
//! references, boxes and `Arc`s forward; optionally, planted translations outscore unrelated
//! pairs in both directions.

use std::sync::Arc;

use bitext_similarity::{Error, PairScorer};

/// What the suite expects of a scorer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expect {
    /// Largest difference allowed, relative to `1 + |score|`, between a pair's score in
    /// different batches (0: identical).
    pub tolerance: f64,
    /// Every score lies in this closed range (classifier probabilities: `0..=1`).
    pub range: Option<(f64, f64)>,
    /// When set to `p`: pairs `(i, i)`, `i < p`, are translations, and sources and targets from
    /// `p` on are unrelated; each translation outscores every pair of its source with an
    /// unrelated target and of its target with an unrelated source.
    pub planted: Option<usize>,
}

impl Expect {
    /// Scores identical however pairs are batched.
    #[must_use]
    pub const fn exact() -> Self {
        Self {
            tolerance: 0.0,
            range: None,
            planted: None,
        }
    }

    /// Scores within `tolerance` however pairs are batched.
    #[must_use]
    pub const fn within(tolerance: f64) -> Self {
        Self {
            tolerance,
            ..Self::exact()
        }
    }

    /// The same, with scores that are probabilities.
    #[must_use]
    pub const fn probabilities(self) -> Self {
        Self {
            range: Some((0.0, 1.0)),
            ..self
        }
    }

    /// The same, with `planted` translations (see [`Expect::planted`]).
    #[must_use]
    pub const fn planted(self, planted: usize) -> Self {
        Self {
            planted: Some(planted),
            ..self
        }
    }
}

/// All pairs, or every `step`-th one of them when there are more than 2000.
fn pairs(n: usize, m: usize) -> Vec<(usize, usize)> {
    let step = (n * m).div_ceil(2000).max(1);
    (0..n)
        .flat_map(|i| (0..m).map(move |j| (i, j)))
        .step_by(step)
        .collect()
}

fn assert_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{what}: {a} vs {b}");
}

/// Sizes are positive and the same for every scorer the expression makes.
pub fn sizes_are_positive<S: PairScorer>(make: impl Fn() -> S, _e: Expect) {
    let s = make();
    let (n, m) = s.sizes();
    assert!(n > 0 && m > 0, "sizes ({n}, {m})");
    assert_eq!(make().sizes(), (n, m));
}

/// A source or target index out of range anywhere in a batch is [`Error::PairOutOfRange`]
/// naming the first bad pair and the sizes (`usize::MAX` included); nothing panics.
pub fn rejects_pairs_out_of_range<S: PairScorer>(make: impl Fn() -> S, _e: Expect) {
    let s = make();
    let (n, m) = s.sizes();
    let e = s.score(&[(0, 0), (n, 0), (0, m)]).unwrap_err();
    assert!(
        matches!(e, Error::PairOutOfRange { index: 1, src, tgt: 0, n_src, n_tgt }
            if src == n && n_src == n && n_tgt == m),
        "{e}"
    );
    let e = s.score(&[(0, m)]).unwrap_err();
    assert!(
        matches!(e, Error::PairOutOfRange { index: 0, tgt, .. } if tgt == m),
        "{e}"
    );
    assert!(s.score(&[(usize::MAX, usize::MAX)]).is_err());
    assert!(s.score(&[(n - 1, m - 1)]).is_ok());
}

/// Scores are finite (in the range), the same when scored again, in reverse order, one by one
/// and with duplicates (within the tolerance); an empty batch gives no scores.
pub fn batches_do_not_change_scores<S: PairScorer>(make: impl Fn() -> S, e: Expect) {
    let s = make();
    let (n, m) = s.sizes();
    let pairs = pairs(n, m);
    let all = s.score(&pairs).unwrap();
    assert_eq!(all.len(), pairs.len());
    assert!(all.iter().all(|v| v.is_finite()));
    if let Some((lo, hi)) = e.range {
        assert!(all.iter().all(|v| (lo..=hi).contains(v)), "{all:?}");
    }
    let again = s.score(&pairs).unwrap();
    let rev: Vec<(usize, usize)> = pairs.iter().rev().copied().collect();
    let mut back = s.score(&rev).unwrap();
    back.reverse();
    for k in 0..pairs.len() {
        let what = format!("pair {:?}", pairs[k]);
        assert_close(again[k], all[k], 0.0, &format!("{what} scored twice"));
        assert_close(back[k], all[k], e.tolerance, &format!("{what} in reverse"));
    }
    for (k, p) in pairs.iter().enumerate().step_by(7) {
        let one = s.score(&[*p]).unwrap();
        assert_close(one[0], all[k], e.tolerance, &format!("{p:?} alone"));
        let dup = s.score(&[*p, (0, 0), *p]).unwrap();
        assert_close(dup[0], dup[2], 0.0, &format!("{p:?} twice in a batch"));
    }
    assert!(s.score(&[]).unwrap().is_empty());
}

/// Scoring from several threads at once gives the single-thread scores.
pub fn scores_from_many_threads<S: PairScorer>(make: impl Fn() -> S, _e: Expect) {
    let s = make();
    let (n, m) = s.sizes();
    let pairs = pairs(n, m);
    let want = s.score(&pairs).unwrap();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|_| scope.spawn(|| s.score(&pairs).unwrap()))
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), want);
        }
    });
}

/// References, boxes and `Arc`s of the scorer score as it does.
pub fn forwards_through_pointers<S: PairScorer + 'static>(make: impl Fn() -> S, _e: Expect) {
    let s = make();
    let (n, m) = s.sizes();
    let pairs = pairs(n, m);
    let want = s.score(&pairs).unwrap();
    let by_ref: &dyn PairScorer = &s;
    assert_eq!(by_ref.score(&pairs).unwrap(), want);
    let boxed: Box<dyn PairScorer> = Box::new(make());
    assert_eq!(boxed.score(&pairs).unwrap(), want);
    let arc: Arc<dyn PairScorer> = Arc::new(make());
    assert_eq!(arc.score(&pairs).unwrap(), want);
    assert_eq!(arc.sizes(), (n, m));
}

/// With [`Expect::planted`], every translation `(i, i)` outscores `(i, j)` and `(j, i)` for
/// unrelated `j`; without, the diagonal is scored like any pair.
pub fn translations_outscore_unrelated_pairs<S: PairScorer>(make: impl Fn() -> S, e: Expect) {
    let s = make();
    let (n, m) = s.sizes();
    let Some(p) = e.planted else {
        let diag: Vec<(usize, usize)> = (0..n.min(m)).map(|i| (i, i)).collect();
        assert!(s.score(&diag).unwrap().iter().all(|v| v.is_finite()));
        return;
    };
    assert!(p <= n.min(m), "{p} planted pairs in a {n} × {m} scorer");
    for i in 0..p {
        let own = s.score(&[(i, i)]).unwrap()[0];
        let others: Vec<(usize, usize)> = (p..m)
            .map(|j| (i, j))
            .chain((p..n).map(|j| (j, i)))
            .collect();
        let scores = s.score(&others).unwrap();
        for (pair, o) in others.iter().zip(&scores) {
            assert!(*o < own, "({i}, {i}) scores {own}, {pair:?} scores {o}");
        }
    }
}

/// The [`PairScorer`] conformance suite for one scorer: a module `$name` with one `#[test]` per
/// check of [`bitext_testkit::scorer`](crate::scorer).
///
/// `$make` is an expression that makes the scorer (evaluated once or more per test; a scorer
/// that borrows its data can borrow it from a `static`) and `$expect` an [`Expect`]; items of
/// the calling module are in scope.
///
/// ```ignore
/// bitext_testkit::pair_scorer_suite!(cosine, cosine_scorer(), Expect::exact().planted(8));
/// ```
#[macro_export]
macro_rules! pair_scorer_suite {
    ($name:ident, $make:expr, $expect:expr $(,)?) => {
        $crate::__suite! { $name, scorer, (|| $make, $expect), [
            sizes_are_positive, rejects_pairs_out_of_range,
            batches_do_not_change_scores, scores_from_many_threads,
            forwards_through_pointers, translations_outscore_unrelated_pairs
        ] }
    };
}
