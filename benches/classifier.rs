//! Benchmarks of the pair classifier (`bitext::classify`): training from clean pairs (IBM-1
//! twice, synthetic negatives, features, the fit, the calibration) and scoring, with the
//! default features but language identification (no model file in a bench), on a seeded
//! synthetic language pair: sentences of 4–20 words over a 2,000-word dictionary, numbers and
//! punctuation copied across.

use std::hint::black_box;

use bitext::classify::{FeatureSpec, LightBackends, TrainConfig, train};
use bitext::clean::Rules;
use bitext::core::Rng;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// `n` clean pairs of the synthetic language pair.
fn pairs(n: usize, rng: &mut Rng) -> Vec<(String, String)> {
    let word = |i: usize, side: &str| format!("{side}{}w{}", ["ka", "lo", "mi", "te"][i % 4], i);
    (0..n)
        .map(|_| {
            let len = 4 + rng.below(17);
            let (mut s, mut t) = (Vec::new(), Vec::new());
            for _ in 0..len {
                let w = rng.below(2000);
                s.push(word(w, "d"));
                t.push(word(w, "e"));
            }
            if rng.bernoulli(0.3) {
                let n = rng.below(1000).to_string();
                s.push(n.clone());
                t.push(n);
            }
            (format!("{} .", s.join(" ")), format!("{} .", t.join(" ")))
        })
        .collect()
}

fn bench_classifier(c: &mut Criterion) {
    let mut rng = Rng::seed(73);
    let clean = pairs(5_000, &mut rng);
    let config = TrainConfig {
        features: FeatureSpec::defaults(None, Rules::default()),
        ..TrainConfig::default()
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let fit = || {
        train(
            &clean,
            &[],
            None,
            &config,
            dir.path(),
            &LightBackends,
            &mut |_| {},
        )
        .expect("trains")
    };
    let mut g = c.benchmark_group("classifier");
    g.sample_size(10);
    g.throughput(Throughput::Elements(clean.len() as u64));
    g.bench_function(BenchmarkId::new("train", "pairs=5000"), |b| b.iter(fit));
    let classifier = fit();
    let test = pairs(10_000, &mut rng);
    let src: Vec<&str> = test.iter().map(|p| p.0.as_str()).collect();
    let tgt: Vec<&str> = test.iter().map(|p| p.1.as_str()).collect();
    g.throughput(Throughput::Elements(test.len() as u64));
    g.bench_function(BenchmarkId::new("features", "pairs=10000"), |b| {
        b.iter(|| {
            classifier
                .features(black_box(&src), black_box(&tgt))
                .expect("scores")
        });
    });
    g.bench_function(BenchmarkId::new("score", "pairs=10000"), |b| {
        b.iter(|| {
            classifier
                .score(black_box(&src), black_box(&tgt))
                .expect("scores")
        });
    });
    g.finish();
}

criterion_group!(benches, bench_classifier);
criterion_main!(benches);
