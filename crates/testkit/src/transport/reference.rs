//! Independent references for transport tests: a min-cost-flow solver by successive shortest
//! paths (Bellman–Ford on the residual graph, float capacities), the north-west corner rule,
//! seeded problem generators, and checks of a solution's marginals and cost.

use bitext_transport::{Balance, Transport};

/// Optimal cost of moving `min(Σa, Σb)` units (the lighter mass) from sources `a` to targets
/// `b` over the row-major `n × m` costs: the paper's partial form, and the balanced problem
/// when the masses agree.
pub fn ssp_cost(a: &[f64], b: &[f64], cost: &[f64]) -> f64 {
    let (n, m) = (a.len(), b.len());
    // Nodes: 0 = source, 1..=n rows, n+1..=n+m columns, n+m+1 = sink.
    let nodes = n + m + 2;
    let (s, t) = (0, n + m + 1);
    let mut arcs: Vec<(usize, usize, f64, f64)> = Vec::new(); // (from, to, cap, cost)
    let add = |arcs: &mut Vec<(usize, usize, f64, f64)>, u, v, cap, c| {
        arcs.push((u, v, cap, c));
        arcs.push((v, u, 0.0, -c));
    };
    for (i, &ai) in a.iter().enumerate() {
        add(&mut arcs, s, 1 + i, ai, 0.0);
    }
    for (j, &bj) in b.iter().enumerate() {
        add(&mut arcs, n + 1 + j, t, bj, 0.0);
    }
    for i in 0..n {
        for j in 0..m {
            add(&mut arcs, 1 + i, n + 1 + j, f64::INFINITY, cost[i * m + j]);
        }
    }
    let total: f64 = a.iter().sum::<f64>().min(b.iter().sum());
    let mut sent = 0.0;
    let mut result = 0.0;
    while total - sent > 1e-12 * total.max(1e-300) {
        let mut dist = vec![f64::INFINITY; nodes];
        let mut via = vec![usize::MAX; nodes];
        dist[s] = 0.0;
        for _ in 0..nodes {
            let mut changed = false;
            for (k, &(u, v, cap, c)) in arcs.iter().enumerate() {
                if cap > 1e-15 && dist[u] + c < dist[v] - 1e-15 {
                    dist[v] = dist[u] + c;
                    via[v] = k;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if dist[t].is_infinite() {
            break;
        }
        let mut push = total - sent;
        let mut v = t;
        while v != s {
            let k = via[v];
            push = push.min(arcs[k].2);
            v = arcs[k].0;
        }
        let mut v = t;
        while v != s {
            let k = via[v];
            arcs[k].2 -= push;
            arcs[k ^ 1].2 += push;
            result += push * arcs[k].3;
            v = arcs[k].0;
        }
        sent += push;
    }
    result
}

/// Cost of the north-west corner plan of a balanced problem.
pub fn north_west_cost(a: &[f64], b: &[f64], cost: &[f64]) -> f64 {
    let (n, m) = (a.len(), b.len());
    let (mut r, mut d) = (a.to_vec(), b.to_vec());
    let (mut i, mut j, mut total) = (0, 0, 0.0);
    while i < n && j < m {
        let x = r[i].min(d[j]);
        total += x * cost[i * m + j];
        r[i] -= x;
        d[j] -= x;
        if d[j] <= 1e-15 {
            j += 1;
        } else {
            i += 1;
        }
    }
    total
}

/// Euclidean distances between the rows of `x` (n × dim) and `y` (m × dim).
pub fn euclidean(x: &[f64], y: &[f64], dim: usize) -> Vec<f64> {
    let mut c = Vec::new();
    for xi in x.chunks_exact(dim) {
        for yj in y.chunks_exact(dim) {
            c.push(
                xi.iter()
                    .zip(yj)
                    .map(|(p, q)| (p - q) * (p - q))
                    .sum::<f64>()
                    .sqrt(),
            );
        }
    }
    c
}

/// `n` random weights summing to `total`, a share of them zero (never all).
pub fn weights(rng: &mut bitext_core::Rng, n: usize, zero_share: f64, total: f64) -> Vec<f64> {
    let mut w: Vec<f64> = (0..n)
        .map(|_| {
            if rng.bernoulli(zero_share) {
                0.0
            } else {
                rng.uniform(0.01, 1.0)
            }
        })
        .collect();
    if w.iter().all(|&x| x == 0.0) {
        w[rng.below(n)] = 1.0;
    }
    let s: f64 = w.iter().sum();
    w.iter_mut().for_each(|x| *x *= total / s);
    w
}

/// `n` random points of `dim` standard-normal coordinates, row-major (n × dim).
pub fn points(rng: &mut bitext_core::Rng, n: usize, dim: usize) -> Vec<f64> {
    (0..n * dim).map(|_| rng.normal()).collect()
}

/// The Euclidean costs between `n` random [`points`] of dimension `dim` and themselves: a
/// symmetric `n × n` matrix, zero on the diagonal.
pub fn self_costs(rng: &mut bitext_core::Rng, n: usize, dim: usize) -> Vec<f64> {
    let x = points(rng, n, dim);
    euclidean(&x, &x, dim)
}

/// A random cost matrix: Euclidean between random points, or small integers (many ties).
pub fn costs(rng: &mut bitext_core::Rng, n: usize, m: usize, integer: bool) -> Vec<f64> {
    if integer {
        (0..n * m).map(|_| rng.below(10) as f64).collect()
    } else {
        let dim = 3;
        let x = points(rng, n, dim);
        let y = points(rng, m, dim);
        euclidean(&x, &y, dim)
    }
}

/// Check the marginals of `t` against the weights: the lighter side (or both, when balanced)
/// exactly within `tol` (relative to the mass), the heavier side at most its weights; the plan's
/// masses are non-negative and sum to `t.mass`.
///
/// # Panics
/// When a check fails (it is an assertion).
pub fn check_marginals(t: &Transport, a: &[f64], b: &[f64], balance: Balance, tol: f64) {
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

/// `Σ W_ij C_ij` of the plan of `t` over the row-major costs with `m` columns.
#[must_use]
pub fn plan_cost(t: &Transport, cost: &[f64], m: usize) -> f64 {
    t.plan
        .iter()
        .map(|f| f.mass * cost[f.src * m + f.tgt])
        .sum()
}
