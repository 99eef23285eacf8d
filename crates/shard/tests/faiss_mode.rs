//! Faiss mode (feature `faiss`): an index trained once per side on a seeded sample, filled per
//! shard, each shard searched in every shard index of the other side. With an IVF-Flat index
//! probing every list the search is exhaustive, so the lists must hold the exact neighbours
//! (scores within faiss's rounding) and the mined pairs must be the exact mode's.
#![cfg(feature = "faiss")]

use std::collections::HashSet;
use std::path::Path;

use bitext_core::io::raw::{RawDtype, write_raw};
use bitext_core::{Embeddings, Rng};
use bitext_mine::{MineSpec, Miner};
use bitext_shard::{
    Format, Input, Plan, RunOptions, Sharding, Side, mined_pairs, neighbours, run_all,
};
use bitext_similarity::{MarginFunction, MarginSpec};

fn planted(dir: &Path) -> (Input, Input) {
    let mut rng = Rng::seed(9);
    let d = 16;
    let x: Vec<f32> = (0..600 * d).map(|_| rng.normal() as f32).collect();
    let mut y: Vec<f32> = (0..500 * d).map(|_| rng.normal() as f32).collect();
    for i in 0..200 * d {
        y[i] = x[i] + 0.3 * rng.normal() as f32;
    }
    let mut out = Vec::new();
    for (name, v) in [("x", x), ("y", y)] {
        let p = dir.join(name);
        write_raw(&p, Embeddings::new(v, d).unwrap().view(), RawDtype::F32).unwrap();
        out.push(Input {
            path: p,
            format: Format::RawF32,
            dim: Some(d),
        });
    }
    let y = out.pop().unwrap();
    (out.pop().unwrap(), y)
}

#[test]
fn an_exhaustive_ivf_search_mines_the_exact_pairs() {
    let d = tempfile::tempdir().unwrap();
    let (x, y) = planted(d.path());
    let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, 4));
    let exact = MineSpec::new(miner);
    let ivf = MineSpec::new(miner).index(
        r#"{"type":"faiss","factory":"IVF8,Flat","nprobe":8,"train_size":400}"#
            .parse()
            .unwrap(),
    );
    let mut results = Vec::new();
    let two = Sharding {
        shards: 3,
        index_shards: 2,
    };
    for (name, spec, sharding) in [
        ("exact", &exact, Sharding::from(3)),
        ("ivf", &ivf, Sharding::from(3)),
        ("ivf2", &ivf, two),
    ] {
        let w = d.path().join(name);
        let plan = Plan::make(&w, &x, &y, spec, sharding).unwrap();
        let report = run_all(&plan, &w, &RunOptions::default(), &mut |_, _, _, _| {}).unwrap();
        let names: Vec<&str> = report.iter().map(|(n, _)| n.as_str()).collect();
        if name != "exact" {
            assert!(names.contains(&"train-index-src") && names.contains(&"add-trg-1"));
            assert!(!names.iter().any(|n| n.starts_with("knn-")), "{names:?}");
            let adds = 2 * sharding.index_shards;
            assert_eq!(names.len(), 2 + adds + 6 + 2 + 6 + 2);
        }
        let pairs: HashSet<(usize, usize)> = mined_pairs(&plan, &w)
            .unwrap()
            .iter()
            .map(|p| (p.src, p.tgt))
            .collect();
        let lists = [Side::Src, Side::Trg].map(|s| neighbours(&plan, &w, s).unwrap());
        results.push((pairs, lists));
    }
    let (ep, el) = &results[0];
    assert!(ep.len() > 150, "{}", ep.len());
    for (ip, il) in &results[1..] {
        assert_eq!(ep, ip);
        for (e, i) in el.iter().zip(il) {
            for q in 0..e.len() {
                assert_eq!(e.ids(q), i.ids(q), "query {q}");
                for (a, b) in e.scores(q).iter().zip(i.scores(q)) {
                    assert!((a - b).abs() < 1e-5, "query {q}: {a} vs {b}");
                }
            }
        }
    }
    // Index shards are a faiss notion: refused for the exact search.
    let err = Plan::make(&d.path().join("bad"), &x, &y, &exact, two)
        .unwrap_err()
        .to_string();
    assert!(err.contains("index shards"), "{err}");
}

#[test]
fn faiss_builds_the_auto_presets() {
    for (n, d) in [(1_000_000, 1024), (1_000_000_000, 1024), (700_000, 300)] {
        let spec = bitext_shard::auto_index(n, n, d);
        assert!(spec.is_faiss(), "{spec}");
        let index = spec.build(d).unwrap();
        assert!(index.needs_training(), "{spec}");
    }
}

/// A shard larger than one add block (65,536 rows) is added in blocks with continuing ids.
#[test]
fn large_shards_are_added_in_blocks() {
    let d = tempfile::tempdir().unwrap();
    let dim = 4;
    let mut rng = Rng::seed(21);
    let mut write = |name: &str, n: usize| {
        let p = d.path().join(name);
        let v: Vec<f32> = (0..n * dim).map(|_| rng.normal() as f32).collect();
        write_raw(&p, Embeddings::new(v, dim).unwrap().view(), RawDtype::F32).unwrap();
        Input {
            path: p,
            format: Format::RawF32,
            dim: Some(dim),
        }
    };
    let (x, y) = (write("x", 40), write("y", 70_000));
    let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, 2));
    let ivf = MineSpec::new(miner).index(
        r#"{"type":"faiss","factory":"IVF2,Flat","nprobe":2}"#
            .parse()
            .unwrap(),
    );
    let mut lists = Vec::new();
    for (name, spec) in [("exact", MineSpec::new(miner)), ("ivf", ivf)] {
        let w = d.path().join(name);
        let plan = Plan::make(&w, &x, &y, &spec, 1).unwrap();
        run_all(&plan, &w, &RunOptions::default(), &mut |_, _, _, _| {}).unwrap();
        lists.push(neighbours(&plan, &w, Side::Src).unwrap());
    }
    for q in 0..40 {
        assert_eq!(lists[0].ids(q), lists[1].ids(q), "query {q}");
    }
    assert!(lists[0].all_ids().iter().any(|&id| id >= 65_536));
}
