//! The choice rule with injected timings, and the cache's keys.

use super::*;

fn cand(precision: Precision) -> Candidate {
    Candidate {
        precision,
        kernel: Kernel::Portable,
    }
}

fn timing(build_per_row: f64, search_per_pair: f64) -> Timing {
    Timing {
        build_per_row,
        search_per_pair,
    }
}

#[test]
fn the_fastest_runs_and_near_ties_go_to_f32() {
    let f32_t = (cand(Precision::F32), timing(0.0, 1.0e-9));
    // bf16 4% faster: a near-tie, f32.
    let near = [f32_t, (cand(Precision::Bf16), timing(0.0, 0.96e-9))];
    assert_eq!(choose(&near, 1000, 1000).precision, Precision::F32);
    // bf16 20% faster: bf16.
    let far = [f32_t, (cand(Precision::Bf16), timing(0.0, 0.8e-9))];
    assert_eq!(choose(&far, 1000, 1000).precision, Precision::Bf16);
    // The slower reduced precision never wins; the order of the list does not matter.
    let three = [
        (cand(Precision::Int8), timing(0.0, 0.7e-9)),
        (cand(Precision::Bf16), timing(0.0, 0.8e-9)),
        f32_t,
    ];
    assert_eq!(choose(&three, 1000, 1000).precision, Precision::Int8);
    // The copy's cost decides small searches: per row 1e-6 s is 1000 queries' worth of scan.
    let copy = [f32_t, (cand(Precision::Bf16), timing(1.0e-6, 0.5e-9))];
    assert_eq!(choose(&copy, 10_000, 100).precision, Precision::F32);
    assert_eq!(choose(&copy, 10_000, 100_000).precision, Precision::Bf16);
    // Nothing timed, or nothing finite: f32.
    assert_eq!(choose(&[], 10, 10).precision, Precision::F32);
    let nan = [(cand(Precision::Bf16), timing(f64::NAN, 1.0))];
    assert_eq!(choose(&nan, 10, 10).precision, Precision::F32);
    // f32 slower than everything but within 5%: still f32, with its own kernel.
    let slow = [
        (cand(Precision::F32), timing(0.0, 1.04e-9)),
        (cand(Precision::Int8), timing(0.0, 1.0e-9)),
    ];
    assert_eq!(choose(&slow, 100, 100), cand(Precision::F32));
}

#[test]
fn keys_name_this_machine_and_the_search() {
    let key = AutoKey::here(64, Metric::InnerProduct, 2, false);
    assert_eq!(key.version, env!("CARGO_PKG_VERSION"));
    assert_eq!(&key.cpu, bitext_core::tune::cpu());
    let dir = tempfile::tempdir().unwrap();
    let cache = TuneCache::at(dir.path().join("auto.json"));
    let entry = Entry {
        timings: vec![(cand(Precision::F32), timing(0.0, 1.0))],
        sample: (10, 10),
        cost_s: 0.5,
    };
    cache.put(&key, &entry).unwrap();
    assert_eq!(key.cached(&cache), Some(entry));
    for other in [
        AutoKey::here(65, Metric::InnerProduct, 2, false),
        AutoKey::here(64, Metric::L2, 2, false),
        AutoKey::here(64, Metric::InnerProduct, 1, false),
        AutoKey::here(64, Metric::InnerProduct, 2, true),
        AutoKey {
            version: "0.0.0-other".into(),
            ..key.clone()
        },
    ] {
        assert!(other.cached(&cache).is_none(), "{other:?}");
    }
}
