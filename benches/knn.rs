//! kNN search: the exact backend at 1 and 2 threads, and (inner product) its bf16 and int8
//! scans with the certified re-rank, `exact_ip_bf16/…`, `exact_ip_int8/…` (the quantised copy
//! built outside the timed closure; the same results as f32) (and faiss `Flat` with `--features faiss`,
//! threads from `OMP_NUM_THREADS`). Ids carry the sizes: `exact_ip/n=100000/nq=1024/d=1024/k=4/
//! threads=1` is 1024 queries against 100,000 database rows; throughput is queries per second.
//! Data: seeded random unit vectors built outside the timed closure.

use bitext::core::{Embeddings, Rng};
use bitext::knn::{ExactIndex, ExactParams, KnnIndex, Metric, Precision};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// (database rows, queries, dimension, k)
const SIZES: &[(usize, usize, usize, usize)] = &[(10_000, 1024, 256, 4), (100_000, 1024, 1024, 4)];

fn unit_rows(n: usize, d: usize, seed: u64) -> Embeddings {
    let mut r = Rng::seed(seed);
    let mut e = Embeddings::new((0..n * d).map(|_| r.next_f32() * 2.0 - 1.0).collect(), d)
        .expect("whole rows");
    e.normalize_l2();
    e
}

fn metric_name(m: Metric) -> &'static str {
    match m {
        Metric::InnerProduct => "ip",
        Metric::L2 => "l2",
    }
}

fn exact(c: &mut Criterion) {
    let mut g = c.benchmark_group("knn");
    g.sample_size(10);
    for &(n, nq, d, k) in SIZES {
        let db = unit_rows(n, d, 1);
        let q = unit_rows(nq, d, 2);
        g.throughput(Throughput::Elements(nq as u64));
        let metrics: &[Metric] = if n <= 10_000 {
            &[Metric::InnerProduct, Metric::L2]
        } else {
            &[Metric::InnerProduct]
        };
        let mut runs: Vec<(Metric, Precision)> =
            metrics.iter().map(|&m| (m, Precision::F32)).collect();
        runs.extend([Precision::Bf16, Precision::Int8].map(|p| (Metric::InnerProduct, p)));
        for (metric, precision) in runs {
            let params = ExactParams {
                precision,
                ..ExactParams::default()
            };
            let index = ExactIndex::over(db.view(), metric)
                .expect("finite data")
                .with_params(params)
                .expect("params");
            index.quantize().expect("quantised copy");
            let suffix = match precision {
                Precision::F32 => String::new(),
                p => format!("_{p}"),
            };
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("thread pool");
                let id = format!(
                    "exact_{}{suffix}/n={n}/nq={nq}/d={d}/k={k}/threads={threads}",
                    metric_name(metric)
                );
                g.bench_function(id, |b| {
                    b.iter(|| pool.install(|| index.search(q.view(), k).expect("search")));
                });
            }
        }
        #[cfg(feature = "faiss")]
        {
            let mut flat =
                bitext::knn::FaissIndex::new(d, "Flat", Metric::InnerProduct).expect("faiss Flat");
            flat.add(db.view()).expect("add");
            let id = format!("faiss_flat_ip/n={n}/nq={nq}/d={d}/k={k}/threads=omp");
            g.bench_function(id, |b| b.iter(|| flat.search(q.view(), k).expect("search")));
        }
    }
    g.finish();
}

criterion_group!(benches, exact);
criterion_main!(benches);
