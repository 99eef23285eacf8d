//! The transport solvers against an independent min-cost-flow solver, their invariants
//! (proptest), and their errors on bad input. One conformance suite runs for every solver.

mod reference;

use bitext_core::Rng;
use bitext_transport::{
    Balance, CostMatrix, Error, InitialBasis, NetworkSimplex, Problem, SimplexParams,
    SinkhornParams, SolverSpec, Transport, TransportSolver, bounds,
};
use proptest::prelude::*;
use reference::{costs, euclidean, north_west_cost, ssp_cost, weights};

/// Marginals of `t` against the weights: the lighter side (or both, balanced) exactly within
/// `tol` (relative to the mass), the heavier side at most its weights.
fn check_marginals(t: &Transport, a: &[f64], b: &[f64], balance: Balance, tol: f64) {
    let (ma, mb): (f64, f64) = (a.iter().sum(), b.iter().sum());
    let rows = t.row_sums(a.len());
    let cols = t.col_sums(b.len());
    let equal = balance == Balance::Equal || (ma - mb).abs() <= 1e-9 * ma.max(mb);
    let scale = if equal { ma / mb } else { 1.0 };
    let mass = ma.min(mb);
    for (side, got, want, exact) in [
        ("row", &rows, a.to_vec(), equal || ma <= mb),
        (
            "col",
            &cols,
            b.iter().map(|x| x * scale).collect(),
            equal || mb <= ma,
        ),
    ] {
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            if exact {
                assert!((g - w).abs() <= tol * mass, "{side} {k}: {g} vs {w}");
            } else {
                assert!(*g <= w + tol * mass, "{side} {k}: {g} > {w}");
            }
        }
    }
    let sum: f64 = t.plan.iter().map(|f| f.mass).sum();
    assert!((sum - t.mass).abs() <= 1e-9 * mass);
    assert!(t.plan.iter().all(|f| f.mass >= 0.0));
}

/// `Σ W_ij C_ij` of the plan.
fn plan_cost(t: &Transport, cost: &[f64], m: usize) -> f64 {
    t.plan
        .iter()
        .map(|f| f.mass * cost[f.src * m + f.tgt])
        .sum()
}

macro_rules! conformance {
    ($name:ident, $make:expr, $tol:expr) => {
        mod $name {
            use super::*;

            fn solver() -> Box<dyn TransportSolver> {
                Box::new($make)
            }

            #[test]
            fn matches_the_reference_and_meets_the_marginals() {
                let mut s = solver();
                let mut rng = Rng::seed(11);
                for case in 0..40 {
                    let (n, m) = (1 + rng.below(7), 1 + rng.below(7));
                    let a = weights(&mut rng, n, 0.2, 1.0);
                    let b = weights(&mut rng, m, 0.2, 1.0);
                    let c = costs(&mut rng, n, m, case % 3 == 0);
                    let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap();
                    let t = s.solve(&p).unwrap();
                    let want = ssp_cost(&a, &b, &c);
                    assert!(
                        (t.cost - want).abs() <= $tol * want.abs().max(1e-3),
                        "case {case} ({n}×{m}): {} vs {want}",
                        t.cost
                    );
                    check_marginals(&t, &a, &b, Balance::Equal, $tol);
                    assert!((plan_cost(&t, &c, m) - t.cost).abs() <= 1e-9 * t.cost.max(1.0));
                    assert!((s.solve_cost(&p).unwrap() - t.cost).abs() <= 1e-12 * t.cost.max(1.0));
                }
            }

            #[test]
            fn partial_form_moves_the_lighter_mass() {
                let mut s = solver();
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
                        (t.cost - want).abs() <= $tol * want.abs().max(1e-3),
                        "case {case}: {} vs {want}",
                        t.cost
                    );
                    assert!((t.mass - ma.min(mb)).abs() <= $tol * ma.min(mb));
                    check_marginals(&t, &a, &b, Balance::Partial, $tol);
                    assert!((t.distance() - t.cost / t.mass).abs() < 1e-15);
                }
            }

            #[test]
            fn bad_input_is_an_error() {
                let mut s = solver();
                let c = [0.0, 1.0, 1.0, 0.0];
                let cm = CostMatrix::new(&c, 2, 2).unwrap();
                for (a, b) in [
                    ([-0.5, 1.5], [1.0, 1.0]),
                    ([f64::NAN, 1.0], [1.0, 1.0]),
                    ([1.0, 1.0], [f64::INFINITY, 1.0]),
                    ([0.0, 0.0], [0.5, 0.5]),
                ] {
                    assert!(Problem::new(&a, &b, cm).is_err(), "{a:?} {b:?}");
                }
                assert!(matches!(
                    Problem::new(&[1.0], &[1.0, 1.0], cm),
                    Err(Error::Shape(_))
                ));
                assert!(matches!(
                    Problem::new(&[0.0, 0.0], &[1.0, 1.0], cm),
                    Err(Error::ZeroMass { side: "source" })
                ));
                assert!(CostMatrix::new(&c, 3, 2).is_err());
                let p = Problem::new(&[1.0, 1.0], &[1.0, 2.0], cm).unwrap();
                assert!(matches!(s.solve(&p), Err(Error::Unbalanced { .. })));
                let nan = [0.0, f64::NAN, 1.0, 0.0];
                let p = Problem::new(
                    &[0.5, 0.5],
                    &[0.5, 0.5],
                    CostMatrix::new(&nan, 2, 2).unwrap(),
                )
                .unwrap();
                let e = s.solve(&p).unwrap_err();
                assert!(matches!(e, Error::BadCost { row: 0, col: 1, .. }), "{e}");
                // A NaN cost in a row of zero weight is still an error.
                let p = Problem::new(
                    &[0.0, 1.0],
                    &[0.5, 0.5],
                    CostMatrix::new(&nan, 2, 2).unwrap(),
                )
                .unwrap();
                assert!(matches!(
                    s.solve(&p),
                    Err(Error::BadCost { row: 0, col: 1, .. })
                ));
            }
        }
    };
}

conformance!(network_simplex, NetworkSimplex::default(), 1e-9);
conformance!(
    network_simplex_vogel,
    SimplexParams::default()
        .initial(InitialBasis::Vogel)
        .check()
        .unwrap(),
    1e-9
);
conformance!(
    network_simplex_north_west,
    SimplexParams::default()
        .initial(InitialBasis::NorthWest)
        .check()
        .unwrap(),
    1e-9
);
conformance!(
    sinkhorn,
    SinkhornParams::default()
        .reg(1e-3)
        .tolerance(1e-7)
        .check()
        .unwrap(),
    3e-2
);

/// A random balanced or partial problem for proptest: `(a, b, costs, n, m)`.
fn problem_strategy(
    partial: bool,
) -> impl Strategy<Value = (Vec<f64>, Vec<f64>, Vec<f64>, usize, usize)> {
    (1usize..9, 1usize..9, any::<u64>(), any::<bool>()).prop_map(move |(n, m, seed, int)| {
        let mut rng = Rng::seed(seed);
        let mb = if partial { rng.uniform(0.3, 3.0) } else { 1.0 };
        let a = weights(&mut rng, n, 0.25, 1.0);
        let b = weights(&mut rng, m, 0.25, mb);
        let c = costs(&mut rng, n, m, int);
        (a, b, c, n, m)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn simplex_is_optimal_with_exact_marginals((a, b, c, n, m) in problem_strategy(false)) {
        let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap();
        let t = NetworkSimplex::default().solve(&p).unwrap();
        check_marginals(&t, &a, &b, Balance::Equal, 1e-12);
        prop_assert!((plan_cost(&t, &c, m) - t.cost).abs() <= 1e-12 * t.cost.max(1.0));
        let want = ssp_cost(&a, &b, &c);
        prop_assert!((t.cost - want).abs() <= 1e-9 * want.max(1e-9), "{} vs {}", t.cost, want);
        // A basic solution: at most n + m − 1 non-zero entries.
        prop_assert!(t.plan.len() < n + m);
        // Never worse than the north-west corner plan.
        prop_assert!(t.cost <= north_west_cost(&a, &b, &c) + 1e-12);
        prop_assert!(bounds::relaxed_cost(&p) <= t.cost + 1e-12);
    }

    #[test]
    fn simplex_partial_form((a, b, c, n, m) in problem_strategy(true)) {
        let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap().partial();
        let t = NetworkSimplex::default().solve(&p).unwrap();
        check_marginals(&t, &a, &b, Balance::Partial, 1e-12);
        let want = ssp_cost(&a, &b, &c);
        prop_assert!((t.cost - want).abs() <= 1e-9 * want.max(1e-9), "{} vs {}", t.cost, want);
        prop_assert!(bounds::relaxed_cost(&p) <= t.cost + 1e-12);
        // Swapping the roles of the two sides gives the same optimum.
        let ct: Vec<f64> = (0..m).flat_map(|j| (0..n).map(move |i| (i, j))).map(|(i, j)| c[i * m + j]).collect();
        let q = Problem::new(&b, &a, CostMatrix::new(&ct, m, n).unwrap()).unwrap().partial();
        let u = NetworkSimplex::default().solve(&q).unwrap();
        prop_assert!((u.cost - t.cost).abs() <= 1e-9 * t.cost.max(1e-9));
    }

    #[test]
    fn emd_of_a_distribution_to_itself_is_zero(n in 1usize..12, seed in any::<u64>()) {
        let mut rng = Rng::seed(seed);
        let x: Vec<f64> = (0..n * 4).map(|_| rng.normal()).collect();
        let c = euclidean(&x, &x, 4);
        let a = weights(&mut rng, n, 0.2, 1.0);
        let p = Problem::new(&a, &a, CostMatrix::new(&c, n, n).unwrap()).unwrap();
        let t = NetworkSimplex::default().solve(&p).unwrap();
        prop_assert!(t.cost.abs() <= 1e-12, "{}", t.cost);
        prop_assert!(t.plan.iter().all(|f| f.src == f.tgt));
    }

    #[test]
    fn symmetric_costs_give_a_symmetric_distance(n in 1usize..10, seed in any::<u64>()) {
        let mut rng = Rng::seed(seed);
        let x: Vec<f64> = (0..n * 3).map(|_| rng.normal()).collect();
        let c = euclidean(&x, &x, 3);
        let a = weights(&mut rng, n, 0.2, 1.0);
        let b = weights(&mut rng, n, 0.2, 1.0);
        let cm = CostMatrix::new(&c, n, n).unwrap();
        let mut s = NetworkSimplex::default();
        let ab = s.solve_cost(&Problem::new(&a, &b, cm).unwrap()).unwrap();
        let ba = s.solve_cost(&Problem::new(&b, &a, cm).unwrap()).unwrap();
        prop_assert!((ab - ba).abs() <= 1e-12 * ab.max(1.0), "{} vs {}", ab, ba);
    }
}

#[test]
fn larger_problems_match_the_reference_and_reuse_the_workspace() {
    let mut rng = Rng::seed(5);
    let mut reused = NetworkSimplex::default();
    for (n, m) in [(40, 40), (3, 50), (50, 7), (25, 35), (1, 1), (30, 30)] {
        let a = weights(&mut rng, n, 0.1, 1.0);
        let b = weights(&mut rng, m, 0.1, 1.0);
        let c = costs(&mut rng, n, m, n == 30);
        let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap();
        let t = reused.solve(&p).unwrap();
        let fresh = NetworkSimplex::default().solve(&p).unwrap();
        assert_eq!(t, fresh);
        let want = ssp_cost(&a, &b, &c);
        assert!((t.cost - want).abs() <= 1e-9 * want.max(1e-9), "{n}×{m}");
        check_marginals(&t, &a, &b, Balance::Equal, 1e-12);
    }
}

#[test]
fn parameters_are_checked_and_specs_round_trip() {
    assert!(SimplexParams::default().max_iterations(0).check().is_err());
    assert!(
        SimplexParams::default()
            .tolerance(f64::NAN)
            .check()
            .is_err()
    );
    assert!(
        SimplexParams::default()
            .mass_tolerance(1.0)
            .check()
            .is_err()
    );
    assert!(SimplexParams::default().block_factor(0.0).check().is_err());
    assert!(SinkhornParams::default().max_iterations(0).check().is_err());
    assert!(SinkhornParams::default().tolerance(0.0).check().is_err());
    let spec: SolverSpec = serde_json::from_str(r#"{"type": "sinkhorn", "reg": 0.05}"#).unwrap();
    assert_eq!(
        spec,
        SolverSpec::Sinkhorn(SinkhornParams::default().reg(0.05))
    );
    assert!(!spec.is_exact());
    let json = serde_json::to_string(&SolverSpec::default()).unwrap();
    assert!(json.contains(r#""type":"network_simplex""#), "{json}");
    assert!(
        serde_json::from_str::<SolverSpec>(r#"{"type": "network_simplex", "typo": 1}"#).is_err()
    );
    let bad: SolverSpec = serde_json::from_str(r#"{"type": "sinkhorn", "reg": -1}"#).unwrap();
    assert!(bad.build().is_err());
}

#[test]
fn the_iteration_cap_is_an_error() {
    let mut rng = Rng::seed(3);
    let (n, m) = (30, 30);
    let a = weights(&mut rng, n, 0.0, 1.0);
    let b = weights(&mut rng, m, 0.0, 1.0);
    let c = costs(&mut rng, n, m, false);
    let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap();
    let mut s = SimplexParams::default().max_iterations(2).check().unwrap();
    assert!(matches!(
        s.solve(&p),
        Err(Error::NotConverged { iterations: 2, .. })
    ));
    let mut s = SinkhornParams::default()
        .reg(1e-4)
        .max_iterations(3)
        .check()
        .unwrap();
    assert!(matches!(s.solve(&p), Err(Error::NotConverged { .. })));
}

#[test]
fn centroid_distance_bounds_the_distance() {
    let mut rng = Rng::seed(9);
    for _ in 0..50 {
        let (n, m, dim) = (1 + rng.below(6), 1 + rng.below(6), 3);
        let x: Vec<f32> = (0..n * dim).map(|_| rng.normal() as f32).collect();
        let y: Vec<f32> = (0..m * dim).map(|_| rng.normal() as f32).collect();
        let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        let y64: Vec<f64> = y.iter().map(|&v| f64::from(v)).collect();
        let c = euclidean(&x64, &y64, dim);
        let a = weights(&mut rng, n, 0.0, 2.0);
        let b = weights(&mut rng, m, 0.0, 2.0);
        let p = Problem::new(&a, &b, CostMatrix::new(&c, n, m).unwrap()).unwrap();
        let d = NetworkSimplex::default().solve(&p).unwrap().distance();
        let wcd = bounds::centroid_distance(&a, &x, &b, &y, dim).unwrap();
        assert!(wcd <= d + 1e-9, "{wcd} > {d}");
        assert!(bounds::relaxed_cost(&p) / 2.0 <= d + 1e-9);
    }
    assert!(bounds::centroid_distance(&[1.0], &[0.0; 3], &[1.0], &[0.0; 2], 2).is_err());
}
