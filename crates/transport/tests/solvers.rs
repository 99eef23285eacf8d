//! Properties of the solvers beyond the shared conformance suite (tests/conformance.rs): the
//! network simplex's optimality, basic solutions and symmetries (proptest, against the
//! testkit's independent min-cost-flow solver), larger problems, parameters and specs, the
//! iteration cap, problem checks, and the lower bounds.

use bitext_core::Rng;
use bitext_testkit::transport::reference::{
    check_marginals, costs, euclidean, north_west_cost, plan_cost, self_costs, ssp_cost, weights,
};
use bitext_transport::{
    Balance, CostMatrix, Error, NetworkSimplex, Problem, SimplexParams, SinkhornParams, SolverSpec,
    TransportSolver, bounds,
};
use proptest::prelude::*;

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
        let c = self_costs(&mut rng, n, 4);
        let a = weights(&mut rng, n, 0.2, 1.0);
        let p = Problem::new(&a, &a, CostMatrix::new(&c, n, n).unwrap()).unwrap();
        let t = NetworkSimplex::default().solve(&p).unwrap();
        prop_assert!(t.cost.abs() <= 1e-12, "{}", t.cost);
        prop_assert!(t.plan.iter().all(|f| f.src == f.tgt));
    }

    #[test]
    fn symmetric_costs_give_a_symmetric_distance(n in 1usize..10, seed in any::<u64>()) {
        let mut rng = Rng::seed(seed);
        let c = self_costs(&mut rng, n, 3);
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

#[test]
fn problems_check_their_weights_and_shapes() {
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
    assert!(CostMatrix::new(&c, usize::MAX, 2).is_err());
}
