//! Dev harness (not committed): one big partial problem.
use bitext_transport::*;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args[1].parse().unwrap();
    let m: usize = args[2].parse().unwrap();
    let params: SimplexParams = args
        .get(3)
        .map(|s| serde_json::from_str(s).unwrap())
        .unwrap_or_default();
    let d = 64;
    let mut rng = bitext_core::Rng::seed(1);
    let x: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
    let y: Vec<f64> = (0..m * d).map(|_| rng.normal()).collect();
    let mut cost = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            let mut s = 0.0;
            for k in 0..d {
                let t = x[i * d + k] - y[j * d + k];
                s += t * t;
            }
            cost[i * m + j] = s.sqrt();
        }
    }
    // Zipf-like frequencies
    let a: Vec<f64> = (0..n).map(|i| 1000.0 / (i as f64 + 1.0)).collect();
    let b: Vec<f64> = (0..m).map(|j| 1000.0 / (j as f64 + 1.0)).collect();
    let p = Problem::new(&a, &b, CostMatrix::new(&cost, n, m).unwrap())
        .unwrap()
        .partial();
    let mut s = params.check().unwrap();
    let t = Instant::now();
    let r = s.solve(&p).unwrap();
    println!(
        "{}x{}: cost {} mass {} plan {} pivots {} in {:.2}s",
        n,
        m,
        r.cost,
        r.mass,
        r.plan.len(),
        r.iterations,
        t.elapsed().as_secs_f64()
    );
}
