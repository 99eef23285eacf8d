//! Dev harness (not committed).
use bitext_transport::*;
use std::time::Instant;

#[derive(serde::Deserialize)]
struct Case {
    id: usize,
    kind: String,
    n: usize,
    m: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    cost: Vec<f64>,
    optimum: f64,
}

fn main() {
    let path = std::env::args().nth(1).unwrap();
    let params: SimplexParams = std::env::args()
        .nth(2)
        .map(|s| serde_json::from_str(&s).unwrap())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap();
    let cases: Vec<Case> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut solver = params.check().unwrap();
    let mut worst = 0.0f64;
    let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (k, c) in cases.iter().enumerate() {
        let key = if c.kind == "euclid" && c.n == c.m {
            format!("{:>4}x{:<4}", c.n, c.m)
        } else {
            format!("{} mixed", c.kind)
        };
        groups.entry(key).or_default().push(k);
        if std::env::var("SOLVES").is_ok() {
            continue;
        }
        let cm = CostMatrix::new(&c.cost, c.n, c.m).unwrap();
        let p = Problem::new(&c.a, &c.b, cm).unwrap();
        let t = solver.solve(&p).unwrap();
        let rel = (t.cost - c.optimum).abs() / c.optimum.abs().max(1e-300);
        if rel > 1e-9 {
            println!(
                "case {} {} {}x{}: {} vs {} rel {:e}",
                c.id, c.kind, c.n, c.m, t.cost, c.optimum, rel
            );
        }
        worst = worst.max(rel);
    }
    println!("worst rel {worst:e}");
    for (key, idx) in &groups {
        let probs: Vec<Problem<'_>> = idx
            .iter()
            .map(|&k| {
                let c = &cases[k];
                Problem::new(&c.a, &c.b, CostMatrix::new(&c.cost, c.n, c.m).unwrap()).unwrap()
            })
            .collect();
        let mut its = 0;
        for p in &probs {
            its += solver.solve(p).unwrap().iterations;
        }
        let mut times = Vec::new();
        let start = Instant::now();
        let mut k = 0;
        let fixed: usize = std::env::var("SOLVES")
            .ok()
            .map(|s| s.parse().unwrap())
            .unwrap_or(0);
        while (fixed == 0 && (start.elapsed().as_secs_f64() < 1.0 || times.len() < 5))
            || (fixed > 0 && k < fixed)
        {
            let p = &probs[k % probs.len()];
            let t = Instant::now();
            std::hint::black_box(solver.solve_cost(p).unwrap());
            times.push(t.elapsed().as_secs_f64());
            k += 1;
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let med = times[times.len() / 2];
        println!(
            "{key} solves/s {:>10.1} median {:.4} ms  avg pivots {:.1}",
            1.0 / med,
            med * 1e3,
            its as f64 / probs.len() as f64
        );
    }
}
