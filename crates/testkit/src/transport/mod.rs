//! The [`TransportSolver`] conformance suite:
//! [`transport_solver_suite!`](crate::transport_solver_suite) expands to one `#[test]` per
//! check below for one solver, made by an expression. The oracle is an independent min-cost
//! flow solver ([`ssp_cost`], in [`mod@reference`] with seeded problem generators).
//!
//! Checked: the optimal cost (within the solver's tolerance) of balanced and partial problems
//! with Euclidean and integer (tied) costs and zero weights; marginals; the plan is sorted,
//! in range, non-negative and costs what the solver says; `solve_cost` agrees; a reused solver
//! equals a fresh one and a boxed one; shifting every cost shifts the optimum by the shift times
//! the mass; one-row and one-by-one problems; unbalanced masses and NaN or infinite costs (even
//! in a row of zero weight) are errors, never panics.

pub mod reference;

use bitext_core::Rng;
use bitext_transport::{Balance, CostMatrix, Error, Problem, Transport, TransportSolver};

pub use reference::{check_marginals, costs, plan_cost, ssp_cost, weights};

/// What the suite expects of a solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expect {
    /// Relative tolerance on the optimal cost (relative to `max(cost, 10⁻³)`) and on the
    /// marginals (relative to the mass).
    pub tolerance: f64,
}

impl Expect {
    /// An exact solver (tolerance `10⁻⁹`).
    #[must_use]
    pub const fn exact() -> Self {
        Self { tolerance: 1e-9 }
    }

    /// An approximate solver within `tolerance`.
    #[must_use]
    pub const fn within(tolerance: f64) -> Self {
        Self { tolerance }
    }
}

/// The plan is sorted by `(src, tgt)` without repeats, in range, of non-negative masses.
fn check_plan(t: &Transport, n: usize, m: usize) {
    assert!(
        t.plan
            .windows(2)
            .all(|w| (w[0].src, w[0].tgt) < (w[1].src, w[1].tgt)),
        "plan not sorted"
    );
    assert!(
        t.plan
            .iter()
            .all(|f| f.src < n && f.tgt < m && f.mass >= 0.0)
    );
}

/// A seeded `n × m` problem: weights (a share zero), Euclidean or integer costs; target mass
/// `mb`.
fn random_problem(rng: &mut Rng, n: usize, m: usize, mb: f64, integer: bool) -> [Vec<f64>; 3] {
    let a = weights(rng, n, 0.2, 1.0);
    let b = weights(rng, m, 0.2, mb);
    let c = costs(rng, n, m, integer);
    [a, b, c]
}

/// 40 seeded balanced problems up to 7 × 7: the reference's optimal cost within the tolerance,
/// the marginals, a well-formed plan whose cost is the reported cost, and `solve_cost` agrees.
pub fn matches_the_reference<S: TransportSolver>(make: impl Fn() -> S, e: Expect) {
    let mut s = make();
    let mut rng = Rng::seed(11);
    for case in 0..40 {
        let (n, m) = (1 + rng.below(7), 1 + rng.below(7));
        let [a, b, c] = random_problem(&mut rng, n, m, 1.0, case % 3 == 0);
        let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap();
        let t = s.solve(&p).unwrap();
        let want = ssp_cost(&a, &b, &c);
        assert!(
            (t.cost - want).abs() <= e.tolerance * want.abs().max(1e-3),
            "case {case} ({n}×{m}): {} vs {want}",
            t.cost
        );
        check_marginals(&t, &a, &b, Balance::Equal, e.tolerance);
        check_plan(&t, n, m);
        assert!((plan_cost(&t, &c, m) - t.cost).abs() <= 1e-9 * t.cost.max(1.0));
        assert!((s.solve_cost(&p).unwrap() - t.cost).abs() <= 1e-12 * t.cost.max(1.0));
    }
}

/// 30 seeded partial problems (either side heavier): the lighter mass moves completely, the
/// heavier side ships at most its weights, at the reference's optimal cost.
pub fn partial_form_moves_the_lighter_mass<S: TransportSolver>(make: impl Fn() -> S, e: Expect) {
    let mut s = make();
    let mut rng = Rng::seed(12);
    for case in 0..30 {
        let (n, m) = (1 + rng.below(6), 1 + rng.below(6));
        let (ma, mb) = if case % 2 == 0 {
            (1.0, 2.5)
        } else {
            (3.0, 1.0)
        };
        let a = weights(&mut rng, n, 0.1, ma);
        let b = weights(&mut rng, m, 0.1, mb);
        let c = costs(&mut rng, n, m, case % 4 == 0);
        let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap())
            .unwrap()
            .partial();
        let t = s.solve(&p).unwrap();
        let want = ssp_cost(&a, &b, &c);
        assert!(
            (t.cost - want).abs() <= e.tolerance * want.abs().max(1e-3),
            "case {case}: {} vs {want}",
            t.cost
        );
        assert!((t.mass - f64::min(ma, mb)).abs() <= e.tolerance * f64::min(ma, mb));
        check_marginals(&t, &a, &b, Balance::Partial, e.tolerance);
        check_plan(&t, n, m);
        assert!((t.distance() - t.cost / t.mass).abs() < 1e-15);
    }
}

/// A solver reused across problems of changing sizes gives what a fresh solver, and the same
/// solver boxed as `dyn TransportSolver`, gives; its name is stable and non-empty.
pub fn reuse_equals_a_fresh_solver<S: TransportSolver + 'static>(make: impl Fn() -> S, _e: Expect) {
    let mut reused = make();
    let mut boxed: Box<dyn TransportSolver> = Box::new(make());
    let name = reused.name();
    assert!(!name.is_empty());
    let mut rng = Rng::seed(13);
    for (n, m) in [(7, 3), (1, 1), (6, 6), (2, 7), (7, 3), (12, 9)] {
        let [a, b, c] = random_problem(&mut rng, n, m, 1.0, n == 6);
        let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap();
        let t = reused.solve(&p).unwrap();
        assert_eq!(t, make().solve(&p).unwrap(), "{n}×{m}");
        assert_eq!(boxed.solve(&p).unwrap(), t, "{n}×{m} boxed");
        assert_eq!(
            boxed.solve_cost(&p).unwrap(),
            reused.solve_cost(&p).unwrap()
        );
    }
    assert_eq!((reused.name(), boxed.name()), (name, name));
}

/// Adding a constant to every cost of a balanced problem adds the constant times the mass to
/// the optimum; a single source ships to each target its weight; a 1 × 1 problem costs its
/// cost times its mass.
pub fn simple_problems_have_known_answers<S: TransportSolver>(make: impl Fn() -> S, e: Expect) {
    let mut s = make();
    let mut rng = Rng::seed(14);
    for case in 0..10 {
        let (n, m) = (1 + rng.below(6), 1 + rng.below(6));
        let [a, b, c] = random_problem(&mut rng, n, m, 1.0, case % 2 == 0);
        let shifted: Vec<f64> = c.iter().map(|x| x + 5.0).collect();
        let base = s
            .solve_cost(&Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap())
            .unwrap();
        let p = Problem::new(&a, &b, CostMatrix::new(&shifted, n, m).unwrap()).unwrap();
        let up = s.solve_cost(&p).unwrap();
        let tol = e.tolerance * (base + 5.0);
        assert!(
            (up - base - 5.0).abs() <= tol,
            "case {case}: {up} vs {base} + 5"
        );
    }
    let b = [0.25, 0.0, 0.5, 0.25];
    let c = [1.0, 2.0, 3.0, 4.0];
    let t = s
        .solve(&Problem::new(&[1.0], &b, CostMatrix::new(&c, 1, 4).unwrap()).unwrap())
        .unwrap();
    for (j, w) in b.iter().enumerate() {
        assert!((t.col_sums(4)[j] - w).abs() <= e.tolerance, "target {j}");
    }
    let want = 0.25 + 1.5 + 1.0;
    assert!(
        (t.cost - want).abs() <= e.tolerance * want,
        "{} vs {want}",
        t.cost
    );
    let t = s
        .solve(&Problem::new(&[2.0], &[2.0], CostMatrix::new(&[0.75], 1, 1).unwrap()).unwrap())
        .unwrap();
    assert!((t.cost - 1.5).abs() <= e.tolerance * 1.5 && (t.mass - 2.0).abs() <= 1e-9);
}

/// Unbalanced masses for a balanced problem are [`Error::Unbalanced`]; a NaN or infinite cost
/// is [`Error::BadCost`] naming its row and column, also in a row or column of zero weight.
pub fn rejects_bad_input<S: TransportSolver>(make: impl Fn() -> S, _e: Expect) {
    let mut s = make();
    let cm = CostMatrix::new(&[0.0, 1.0, 1.0, 0.0], 2, 2).unwrap();
    let p = Problem::new(&[1.0, 1.0], &[1.0, 2.0], cm).unwrap();
    assert!(matches!(s.solve(&p), Err(Error::Unbalanced { .. })));
    assert!(matches!(s.solve_cost(&p), Err(Error::Unbalanced { .. })));
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let c = [0.0, bad, 1.0, 0.0];
        let cm = CostMatrix::new(&c, 2, 2).unwrap();
        for (a, b) in [
            ([0.5, 0.5], [0.5, 0.5]),
            ([0.0, 1.0], [0.5, 0.5]),
            ([0.5, 0.5], [1.0, 0.0]),
        ] {
            let p = Problem::new(&a, &b, cm).unwrap();
            let e = s.solve(&p).unwrap_err();
            assert!(
                matches!(e, Error::BadCost { row: 0, col: 1, .. }),
                "{bad} with {a:?} {b:?}: {e}"
            );
        }
    }
    // The solver still works after errors.
    let p = Problem::new(&[0.5, 0.5], &[0.5, 0.5], cm).unwrap();
    assert!(s.solve(&p).unwrap().cost.abs() <= 1e-6);
}

/// The [`TransportSolver`] conformance suite for one solver: a module `$name` with one
/// `#[test]` per check of [`bitext_testkit::transport`](crate::transport).
///
/// `$make` is an expression that makes the solver (evaluated once or more per test) and
/// `$expect` an [`Expect`]; items of the calling module are in scope.
///
/// ```ignore
/// bitext_testkit::transport_solver_suite!(simplex, NetworkSimplex::default(), Expect::exact());
/// ```
#[macro_export]
macro_rules! transport_solver_suite {
    ($name:ident, $make:expr, $expect:expr $(,)?) => {
        $crate::__suite! { $name, transport, (|| $make, $expect), [
            matches_the_reference, partial_form_moves_the_lighter_mass,
            reuse_equals_a_fresh_solver, simple_problems_have_known_answers,
            rejects_bad_input
        ] }
    };
}
