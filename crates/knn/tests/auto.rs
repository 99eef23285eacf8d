//! `auto` by measurement: the choice follows the timings (injected here, so that it is
//! deterministic), is cached by key and read back by a later tuner, searches too small to
//! measure run `f32`, and whatever runs, one way or both ways, the neighbours are the `f32`
//! search's bit for bit.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bitext_core::{Embeddings, Rng};
use bitext_knn::auto::{AutoKey, Candidate, Source, Timing, TuneCache, Tuner, candidates};
use bitext_knn::{ExactIndex, ExactParams, KnnIndex, Metric, Precision};
use common::{Shape, bits, data, f32_index};

/// A clock where `fast` takes half of every other candidate's time, counting its calls.
fn clock(fast: Precision, calls: Arc<AtomicUsize>) -> Arc<bitext_knn::auto::Clock> {
    Arc::new(move |c: Candidate| {
        calls.fetch_add(1, Ordering::SeqCst);
        let per_pair = if c.precision == fast { 1.0e-9 } else { 2.0e-9 };
        Timing {
            build_per_row: 1.0e-9,
            search_per_pair: per_pair,
        }
    })
}

fn index_with(db: &Embeddings, tuner: Arc<Tuner>) -> ExactIndex<'_> {
    ExactIndex::over(db.view(), Metric::InnerProduct)
        .unwrap()
        .with_tuner(tuner)
}

#[test]
fn the_measured_choice_runs_is_cached_and_returns_the_f32_result() {
    let mut rng = Rng::seed(7);
    let (db, q) = (
        data(Shape::Unit, 3000, 40, &mut rng),
        data(Shape::Unit, 300, 40, &mut rng),
    );
    let f32_index = f32_index(&db);
    let want = f32_index.search(q.view(), 5).unwrap();
    let (want_f, want_b) = f32_index
        .search_both_with_progress(q.view(), 5, 3, &mut |_| {})
        .unwrap();
    let cands = candidates();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("auto.json");
    for (i, fast) in [Precision::F32, Precision::Bf16, Precision::Int8]
        .into_iter()
        .enumerate()
    {
        let calls = Arc::new(AtomicUsize::new(0));
        let cache = TuneCache::at(dir.path().join(format!("auto-{i}.json")));
        let tuner = Arc::new(
            Tuner::new(cache.clone())
                .with_min_ratio(0.0)
                .with_clock(clock(fast, calls.clone())),
        );
        let index = index_with(&db, tuner);
        let got = index.search_certified(q.view(), 5, &mut |_| {}).unwrap();
        assert_eq!(bits(&got.neighbors), bits(&want), "{fast}");
        let c = got.certification;
        let report = c.auto.expect("auto reports how it chose");
        if cands.len() < 2 {
            assert_eq!(report.source, Source::OnlyF32);
            continue;
        }
        let offered = cands.iter().any(|c| c.precision == fast);
        let expect = if offered { fast } else { Precision::F32 };
        assert_eq!(
            (c.precision, report.chosen.precision),
            (expect, expect),
            "{c}"
        );
        assert!(matches!(report.source, Source::Measured { .. }), "{c}");
        assert_eq!(calls.load(Ordering::SeqCst), cands.len());
        assert!(c.to_string().contains("by measuring here"), "{c}");
        // The same search again: remembered, not measured.
        let again = index.search_certified(q.view(), 5, &mut |_| {}).unwrap();
        assert_eq!(again.certification.precision, expect);
        assert_eq!(calls.load(Ordering::SeqCst), cands.len());
        // A new tuner over the same file reads the cache and measures nothing.
        let calls2 = Arc::new(AtomicUsize::new(0));
        let tuner2 = Tuner::new(cache.clone())
            .with_min_ratio(0.0)
            .with_clock(clock(Precision::F32, calls2.clone()));
        let index2 = index_with(&db, Arc::new(tuner2));
        let cached = index2.search_certified(q.view(), 5, &mut |_| {}).unwrap();
        assert_eq!(cached.certification.auto.unwrap().source, Source::Cached);
        assert_eq!(cached.certification.precision, expect);
        assert_eq!(calls2.load(Ordering::SeqCst), 0);
        assert_eq!(bits(&cached.neighbors), bits(&want));
        // Both ways is another key: measured again, and still the f32 lists.
        let (f, b) = index2
            .search_both_certified(q.view(), 5, 3, &mut |_| {})
            .unwrap();
        assert_eq!(calls2.load(Ordering::SeqCst), cands.len());
        assert_eq!(
            f.certification.precision,
            Precision::F32,
            "f32 was timed fastest"
        );
        assert_eq!(bits(&f.neighbors), bits(&want_f));
        assert_eq!(bits(&b.neighbors), bits(&want_b));
        let key = AutoKey::here(40, Metric::InnerProduct, rayon::current_num_threads(), true);
        assert!(key.cached(&cache).is_some());
    }
    assert!(!file.exists());
}

#[test]
fn a_real_measurement_times_every_candidate_and_changes_nothing_but_speed() {
    let mut rng = Rng::seed(8);
    let (db, q) = (
        data(Shape::Unit, 3000, 24, &mut rng),
        data(Shape::Unit, 200, 24, &mut rng),
    );
    let dir = tempfile::tempdir().unwrap();
    let cache = TuneCache::at(dir.path().join("auto.json"));
    // 2,048 of the 3,000 rows sampled (gathered), and all 200 queries for the backward lists.
    let tuner = Tuner::new(cache.clone())
        .with_sample(2048, 64)
        .with_min_ratio(0.0);
    let index = index_with(&db, Arc::new(tuner));
    let f32_index = f32_index(&db);
    let want = f32_index.search(q.view(), 4).unwrap();
    let (want_f, want_b) = f32_index
        .search_both_with_progress(q.view(), 4, 3, &mut |_| {})
        .unwrap();
    let got = index.search_certified(q.view(), 4, &mut |_| {}).unwrap();
    assert_eq!(bits(&got.neighbors), bits(&want));
    let (f, b) = index
        .search_both_certified(q.view(), 4, 3, &mut |_| {})
        .unwrap();
    assert_eq!(bits(&f.neighbors), bits(&want_f));
    assert_eq!(bits(&b.neighbors), bits(&want_b));
    let report = got.certification.auto.unwrap();
    if candidates().len() < 2 {
        assert_eq!(report.source, Source::OnlyF32);
        return;
    }
    assert!(matches!(report.source, Source::Measured { .. }), "{report}");
    let both = f.certification.auto.unwrap();
    assert!(matches!(both.source, Source::Measured { .. }), "{both}");
    let threads = rayon::current_num_threads();
    for both_ways in [false, true] {
        let key = AutoKey::here(24, Metric::InnerProduct, threads, both_ways);
        let entry = key.cached(&cache).expect("the measurement is cached");
        assert_eq!(entry.sample, (2048, 64));
        assert_eq!(entry.timings.len(), candidates().len());
        for (c, t) in &entry.timings {
            assert!(
                t.search_per_pair > 0.0 && t.search_per_pair.is_finite(),
                "{c:?}"
            );
            assert!(t.build_per_row >= 0.0, "{c:?}");
        }
    }
    let estimates: Vec<_> = report.estimates.iter().flatten().collect();
    assert_eq!(estimates.len(), candidates().len());
    // All rows searched: the index's own rows, not a copy.
    let all = Tuner::new(TuneCache::off())
        .with_sample(4096, 64)
        .with_min_ratio(0.0);
    let index = index_with(&db, Arc::new(all));
    let got = index.search_certified(q.view(), 4, &mut |_| {}).unwrap();
    assert_eq!(bits(&got.neighbors), bits(&want));
}

#[test]
fn searches_too_small_to_repay_a_measurement_run_f32_without_one() {
    let mut rng = Rng::seed(9);
    let (db, q) = (
        data(Shape::Unit, 500, 16, &mut rng),
        data(Shape::Unit, 50, 16, &mut rng),
    );
    let calls = Arc::new(AtomicUsize::new(0));
    let tuner = Tuner::new(TuneCache::off()).with_clock(clock(Precision::Bf16, calls.clone()));
    let index = index_with(&db, Arc::new(tuner));
    let got = index.search_certified(q.view(), 3, &mut |_| {}).unwrap();
    let c = got.certification;
    assert_eq!(c.precision, Precision::F32);
    let want = if candidates().len() < 2 {
        Source::OnlyF32
    } else {
        Source::TooSmall
    };
    assert_eq!(c.auto.unwrap().source, want, "{c}");
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // An explicit precision reports no auto choice.
    let explicit = index
        .with_params(ExactParams {
            precision: Precision::F32,
            ..ExactParams::default()
        })
        .unwrap();
    let got = explicit.search_certified(q.view(), 3, &mut |_| {}).unwrap();
    assert!(got.certification.auto.is_none());
}
