//! Earth Mover's Distance benchmarks: exact solves per size on the problems POT's reference
//! script times (`../shared/bench/emd_pot.py`: points `~ N(0, I)` in `R^300`, Euclidean costs,
//! weights uniform in `(0, 1)` normalised to sum 1), Sinkhorn on the same problems, and
//! scoring a corpus of sentence pairs with the TF-IDF sentence distance on 1 and 2 threads.
//!
//! `cargo bench -p bitext --bench emd`; the side-by-side comparison with POT is
//! `benches/emd_side_by_side.sh`.

use std::hint::black_box;
use std::sync::Arc;

use bitext::core::io::vec::WordVectors;
use bitext::core::{Embeddings, Rng};
use bitext::similarity::PairScorer;
use bitext::transport::sentence::{SentenceConfig, SentenceDistance};
use bitext::transport::{
    CostMatrix, EmdScorer, NetworkSimplex, Problem, SinkhornParams, TransportSolver,
};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// A problem like POT's benchmark: `(a, b, costs)`.
fn problem(rng: &mut Rng, n: usize, dim: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut weights = || {
        let w: Vec<f64> = (0..n).map(|_| rng.next_f64() + 1e-3).collect();
        let s: f64 = w.iter().sum();
        w.into_iter().map(|x| x / s).collect::<Vec<f64>>()
    };
    let (a, b) = (weights(), weights());
    let x: Vec<f64> = (0..n * dim).map(|_| rng.normal()).collect();
    let y: Vec<f64> = (0..n * dim).map(|_| rng.normal()).collect();
    let mut cost = Vec::with_capacity(n * n);
    for xi in x.chunks_exact(dim) {
        for yj in y.chunks_exact(dim) {
            let d2: f64 = xi.iter().zip(yj).map(|(p, q)| (p - q) * (p - q)).sum();
            cost.push(d2.sqrt());
        }
    }
    (a, b, cost)
}

fn solvers(c: &mut Criterion) {
    let mut rng = Rng::seed(2016);
    let mut group = c.benchmark_group("emd");
    for n in [10, 20, 50, 100, 500] {
        let count = if n >= 200 { 4 } else { 20 };
        let data: Vec<_> = (0..count).map(|_| problem(&mut rng, n, 300)).collect();
        let problems: Vec<Problem<'_>> = data
            .iter()
            .map(|(a, b, cost)| Problem::new(a, b, CostMatrix::new(cost, n, n).unwrap()).unwrap())
            .collect();
        group.sample_size(if n >= 200 { 10 } else { 50 });
        group.throughput(Throughput::Elements(1));
        let id = format!("n={n}/m={n}/d=300");
        let mut simplex = NetworkSimplex::default();
        let mut k = 0;
        group.bench_function(BenchmarkId::new("network_simplex", &id), |bench| {
            bench.iter(|| {
                k += 1;
                black_box(simplex.solve(&problems[k % problems.len()]).unwrap())
            });
        });
        if n <= 100 {
            let mut sinkhorn = SinkhornParams::default().reg(0.05).check().unwrap();
            group.bench_function(BenchmarkId::new("sinkhorn/reg=0.05", &id), |bench| {
                bench.iter(|| {
                    k += 1;
                    black_box(sinkhorn.solve(&problems[k % problems.len()]).unwrap())
                });
            });
        }
    }
    group.finish();
}

/// A synthetic bilingual vocabulary (word `i` of both languages near one random unit vector)
/// and a corpus of sentence pairs of 10 to 30 words, half of them translations.
fn corpus(
    words: usize,
    dim: usize,
    pairs: usize,
) -> (WordVectors, WordVectors, Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut rng = Rng::seed(7);
    let (mut de, mut en) = (Vec::new(), Vec::new());
    for _ in 0..words {
        let v: Vec<f32> = (0..dim).map(|_| rng.normal() as f32).collect();
        for out in [&mut de, &mut en] {
            let mut w: Vec<f32> = v.iter().map(|x| x + 0.3 * rng.normal() as f32).collect();
            bitext::core::normalize_row(&mut w);
            out.extend(w);
        }
    }
    let names = |p: &str| (0..words).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    let de = WordVectors::new(names("de"), Embeddings::new(de, dim).unwrap()).unwrap();
    let en = WordVectors::new(names("en"), Embeddings::new(en, dim).unwrap()).unwrap();
    let (mut src, mut tgt) = (Vec::new(), Vec::new());
    for p in 0..pairs {
        let len = 10 + rng.below(21);
        let ids: Vec<usize> = (0..len).map(|_| rng.below(words)).collect();
        src.push(ids.iter().map(|i| format!("de{i}")).collect());
        let other: Vec<usize> = (0..len).map(|_| rng.below(words)).collect();
        let t = if p % 2 == 0 { &ids } else { &other };
        tgt.push(t.iter().map(|i| format!("en{i}")).collect());
    }
    (de, en, src, tgt)
}

fn scoring(c: &mut Criterion) {
    let pairs = 2000;
    let (de, en, src, tgt) = corpus(5000, 512, pairs);
    let d =
        SentenceDistance::new(Arc::new(de), Arc::new(en), None, SentenceConfig::default()).unwrap();
    let scorer = EmdScorer::new(d, &src, &tgt).unwrap();
    let index: Vec<(usize, usize)> = (0..pairs).map(|i| (i, i)).collect();
    let mut group = c.benchmark_group("emd/score");
    group.sample_size(10);
    group.throughput(Throughput::Elements(pairs as u64));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        group.bench_function(
            format!("pairs={pairs}/words=10..30/d=512/threads={threads}"),
            |bench| bench.iter(|| pool.install(|| black_box(scorer.score(&index).unwrap()))),
        );
    }
    group.finish();
}

criterion_group!(benches, solvers, scoring);
criterion_main!(benches);
