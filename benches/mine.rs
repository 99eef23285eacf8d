//! Benchmarks of margin mining: the one-pass exact search of both directions
//! (`bitext_knn::OnePass`), then margin scoring of both directions' candidates from the search's
//! similarities, retrieval, and greedy one-to-one selection, on seeded synthetic data.

use std::hint::black_box;

use bitext::core::{Embeddings, Rng};
use bitext::knn::{BidirectionalSearch, ExactParams, Metric, NeighborPair, Neighbors, OnePass};
use bitext::mine::{Miner, Retrieval, ScoredPair, greedy_one_to_one};
use bitext::similarity::{MarginFunction, MarginSpec};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Neighbour lists of `n` queries over `n` rows: random ids, similarities descending.
fn neighbors(n: usize, k: usize, rng: &mut Rng) -> Neighbors {
    let mut ids = Vec::with_capacity(n * k);
    let mut scores = Vec::with_capacity(n * k);
    for _ in 0..n {
        let mut s: Vec<f32> = (0..k).map(|_| 0.2 + 0.6 * rng.next_f32()).collect();
        s.sort_by(|a, b| b.total_cmp(a));
        ids.extend((0..k).map(|_| rng.below(n)));
        scores.extend(s);
    }
    Neighbors::new(k, ids, scores).expect("consistent lists")
}

fn bench_margin_and_retrieval(c: &mut Criterion) {
    let (n, k) = (100_000, 4);
    let mut rng = Rng::seed(42);
    let nb = NeighborPair::new(neighbors(n, k, &mut rng), neighbors(n, k, &mut rng));
    let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, k));
    let mut g = c.benchmark_group("mine");
    g.throughput(Throughput::Elements((2 * n) as u64));
    g.bench_function(
        BenchmarkId::new("margin_candidates", format!("n={n}/k={k}")),
        |b| {
            b.iter(|| miner.margin_candidates(black_box(&nb)).expect("valid"));
        },
    );
    let (fwd, bwd) = miner.margin_candidates(&nb).expect("valid");
    for r in [Retrieval::Intersection, Retrieval::Max] {
        let m = miner.retrieval(r);
        g.bench_function(
            BenchmarkId::new(format!("select_{}", r.name()), format!("n={n}/k={k}")),
            |b| {
                b.iter(|| m.select(black_box(&fwd), black_box(&bwd)).expect("valid"));
            },
        );
    }
    let pairs: Vec<ScoredPair> = (0..2 * n)
        .map(|_| ScoredPair::new(rng.next_f64(), rng.below(n), rng.below(n)))
        .collect();
    g.bench_function(
        BenchmarkId::new("greedy_one_to_one", format!("pairs={}", 2 * n)),
        |b| {
            b.iter(|| greedy_one_to_one(black_box(pairs.clone())).expect("finite"));
        },
    );
    g.finish();
}

/// `n` random unit rows of dimension `d`.
fn unit_rows(n: usize, d: usize, rng: &mut Rng) -> Embeddings {
    let mut e =
        Embeddings::new((0..n * d).map(|_| rng.normal() as f32).collect(), d).expect("whole rows");
    e.normalize_l2();
    e
}

fn bench_exact_both(c: &mut Criterion) {
    let (n, d, k) = (4096, 1024, 4);
    let mut rng = Rng::seed(7);
    let (x, y) = (unit_rows(n, d, &mut rng), unit_rows(n, d, &mut rng));
    let mut g = c.benchmark_group("mine");
    g.sample_size(10);
    // One pass computes n × n inner products of d dimensions: 2 n² d flop.
    g.throughput(Throughput::Elements((n * n) as u64));
    for threads in [1, 2] {
        let search = OnePass {
            metric: Metric::InnerProduct,
            params: ExactParams {
                threads,
                ..ExactParams::default()
            },
        };
        let id = format!("n={n}/d={d}/k={k}/threads={threads}");
        g.bench_function(BenchmarkId::new("one_pass", id), |b| {
            b.iter(|| {
                search
                    .search_both(x.view(), y.view(), k, k, &mut |_, _, _| {})
                    .expect("valid")
            });
        });
    }
    g.finish();
}

criterion_group!(benches, bench_margin_and_retrieval, bench_exact_both);
criterion_main!(benches);
