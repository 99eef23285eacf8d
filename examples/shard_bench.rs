//! Sharded mining in exact mode and with an approximate (faiss) index, side by side on one data
//! set: the time of each step kind, the recall of the exact top-k in the approximate lists, and
//! the BUCC-style F1 (best threshold) of both runs' pairs against the planted gold.
//!
//! ```text
//! python ../shared/bench/gen_embeddings.py --n-src 100000 --n-tgt 100000 --d 1024 --out DATA
//! cargo run --release --features faiss --example shard_bench -- --data DATA --shards 4 \
//!     --work /tmp/shardwork --index '{"type":"faiss","factory":"OPQ64,IVF1024,PQ64","nprobe":128,"train_size":65536}'
//! ```
//!
//! `--data DIR` holds `src.f32`, `tgt.f32` (raw f32, dimension in `src.json`) and `gold.tsv`
//! (source row, target row). The exact run's work directory is `WORK/exact`, the other's
//! `WORK/approx`; both are reused when rerun (steps done are skipped, so `--index` can change
//! without searching exactly again). `--threads` sizes rayon's pool (faiss uses OpenMP's).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext::eval::bucc::GoldSet;
use bitext::knn::{IndexSpec, Neighbors};
use bitext::mine::{MineSpec, Miner, Retrieval};
use bitext::shard::{
    Format, Input, Outcome, Plan, RunOptions, Side, mined_pairs, neighbours, run_all,
};
use bitext::similarity::{MarginFunction, MarginSpec};

struct Args {
    data: PathBuf,
    work: PathBuf,
    shards: usize,
    index: String,
    k: usize,
    threads: usize,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        data: PathBuf::new(),
        work: PathBuf::from("/tmp/shardwork"),
        shards: 4,
        index: String::new(),
        k: 4,
        threads: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--data" => a.data = val()?.into(),
            "--work" => a.work = val()?.into(),
            "--shards" => a.shards = val()?.parse()?,
            "--index" => a.index = val()?,
            "-k" => a.k = val()?.parse()?,
            "--threads" => a.threads = val()?.parse()?,
            f => bail!("unknown flag {f} (see the module docs)"),
        }
    }
    if a.data.as_os_str().is_empty() || a.index.is_empty() {
        bail!("give --data DIR and --index SPEC");
    }
    Ok(a)
}

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let l = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            l.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Run the plan of `index`; returns it with the seconds spent per step kind.
fn run(a: &Args, name: &str, index: IndexSpec) -> Result<(Plan, PathBuf, BTreeMap<String, f64>)> {
    let dim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.data.join("src.json"))?)?;
    let dim = dim["d"].as_u64().context("src.json without d")? as usize;
    let input = |f: &str| Input {
        path: a.data.join(f),
        format: Format::RawF32,
        dim: Some(dim),
    };
    let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, a.k)).retrieval(Retrieval::Max);
    let spec = MineSpec::new(miner).index(index);
    let dir = a.work.join(name);
    let t = Instant::now();
    let plan = Plan::make(&dir, &input("src.f32"), &input("tgt.f32"), &spec, a.shards)?;
    let mut times = BTreeMap::from([("plan".to_string(), t.elapsed().as_secs_f64())]);
    let mut last = Instant::now();
    run_all(
        &plan,
        &dir,
        &RunOptions::default(),
        &mut |step, outcome, _, _| {
            let kind = step.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-');
            let kind = kind.trim_end_matches("-src").trim_end_matches("-trg");
            if outcome == Outcome::Ran {
                *times.entry(kind.to_string()).or_default() += last.elapsed().as_secs_f64();
            }
            last = Instant::now();
        },
    )?;
    Ok((plan, dir, times))
}

/// Mean share of each exact list's ids found in the approximate list.
fn recall(exact: &Neighbors, approx: &Neighbors) -> f64 {
    let n = exact.len();
    let hit: usize = (0..n)
        .map(|q| {
            let got: HashSet<usize> = approx.ids(q).iter().copied().collect();
            exact.ids(q).iter().filter(|id| got.contains(id)).count()
        })
        .sum();
    hit as f64 / (n * exact.k()) as f64
}

fn gold(path: &Path) -> Result<GoldSet<usize>> {
    let text = std::fs::read_to_string(path)?;
    let pairs: Vec<(usize, usize)> = text
        .lines()
        .map(|l| {
            let mut f = l.split('\t');
            Ok((
                f.next().context("src")?.parse()?,
                f.next().context("tgt")?.parse()?,
            ))
        })
        .collect::<Result<_>>()?;
    Ok(GoldSet::new(pairs)?)
}

fn main() -> Result<()> {
    let a = parse()?;
    if a.threads > 0 {
        rayon::ThreadPoolBuilder::new()
            .num_threads(a.threads)
            .build_global()?;
    }
    let approx_spec: IndexSpec = a.index.parse()?;
    let gold = gold(&a.data.join("gold.tsv"))?;
    let mut results = Vec::new();
    for (name, spec) in [("exact", IndexSpec::default()), ("approx", approx_spec)] {
        let (plan, dir, times) = run(&a, name, spec.clone())?;
        let pairs = mined_pairs(&plan, &dir)?;
        let scored: Vec<(f64, usize, usize)> =
            pairs.iter().map(|p| (p.score, p.src, p.tgt)).collect();
        let best = gold.best_threshold(&scored)?;
        let lists = (
            neighbours(&plan, &dir, Side::Src)?,
            neighbours(&plan, &dir, Side::Trg)?,
        );
        let (src, trg) = plan.layouts(&dir)?;
        println!(
            "{name} ({spec}), {} shards of {} x {} sentences: steps that ran {times:.1?} s; {} pairs; \
             best-threshold F1 {}",
            a.shards,
            src.rows,
            trg.rows,
            pairs.len(),
            best.map_or("none".into(), |b| format!(
                "{:.4} (P {:.4}, R {:.4}, threshold {:.4})",
                b.prf.f1, b.prf.precision, b.prf.recall, b.threshold
            ))
        );
        results.push(lists);
    }
    let (exact, approx) = (&results[0], &results[1]);
    println!(
        "recall of the exact top-{}: source→target {:.4}, target→source {:.4}; peak RSS {:.0} MiB",
        a.k,
        recall(&exact.0, &approx.0),
        recall(&exact.1, &approx.1),
        peak_rss_mib()
    );
    Ok(())
}
