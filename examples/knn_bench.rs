//! Exact kNN throughput, for side-by-side runs with faiss (`../shared/bench/bench_knn.py`).
//!
//! ```text
//! # one command, data generated in memory (seeded random unit vectors):
//! cargo run --release --example knn_bench -- --n 100000 --nq 8192 --d 1024 --k 4 --threads 1
//! # the same data for the Python script too (raw little-endian f32 + .json headers):
//! cargo run --release --example knn_bench -- --n 100000 --d 1024 --write /tmp/knn100k
//! cargo run --release --example knn_bench -- --data /tmp/knn100k --nq 8192 --threads 2
//! python bench_knn.py --data /tmp/knn100k --n-queries 8192 --threads 2 --backends faiss
//! ```
//!
//! With `--data DIR`, the database is `DIR/tgt.f32` and the queries the first `--nq` rows of
//! `DIR/src.f32`, both memory-mapped and searched in place (as `bench_knn.py` does). Prints the
//! median, min and max queries/s and GFLOP/s (2·nq·n·d per search) over `--repeat` runs, and
//! the peak resident memory. `--ids FILE` writes the neighbour ids of the last run as raw
//! little-endian i64 (nq × k), for checking results against faiss.
//!
//! `--precision bf16|int8` scans a quantised copy and re-ranks with the certificate (the copy is
//! built with the index, so its time is in "index build"); the counts of the last run are
//! printed, and `--verify` also runs the `f32` search once and says whether the ids and the
//! score bits are identical. `--candidates` sets `k'`.
//!
//! `--fp16` searches a binary16 copy of the database instead (LASER's `--fp16` files): with
//! `--data DIR`, `DIR/tgt.f16` (written beside `tgt.f32` by `--write DIR --fp16`) memory-mapped,
//! otherwise the generated rows rounded in memory; its rows are normalised as they are widened
//! (as mining normalises), never widened as a whole (`ExactIndex::over_half`); `--verify` then
//! compares with the `f32` search of the widened, normalised rows.
//!
//! `--save-quantized FILE` writes the quantised copy after building it; `--quantized FILE` maps
//! a saved one instead of quantising (`ExactIndex::with_quantized_file`): "index build" then
//! times the mapping and its checks.
//!
//! `--both` runs the both-ways search of margin mining instead (`ExactIndex::
//! search_both_with_progress`: the `k` nearest database rows of every query and the `k` nearest
//! queries of every database row, from one pass): with `--nq` as large as the source file,
//! `--data DIR --both` is the kNN of mining `DIR/src.f32` against `DIR/tgt.f32`. Its GFLOP/s
//! count the one pass (2·nq·n·d); two searches would do twice that work.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext::core::io::raw::{RawDtype, write_raw};
use bitext::core::{Embeddings, HalfView, MappedEmbeddings, MappedHalf, Rng};
use bitext::knn::{ExactIndex, ExactParams, KnnIndex, Metric, Neighbors, Precision};

struct Args {
    data: Option<PathBuf>,
    write: Option<PathBuf>,
    ids: Option<PathBuf>,
    n: usize,
    nq: usize,
    d: usize,
    k: usize,
    threads: usize,
    repeat: usize,
    metric: Metric,
    params: ExactParams,
    seed: u64,
    both: bool,
    verify: bool,
    fp16: bool,
    save_quantized: Option<PathBuf>,
    quantized: Option<PathBuf>,
}

fn parse() -> Result<Args> {
    let mut a = Args {
        data: None,
        write: None,
        ids: None,
        n: 100_000,
        nq: 8192,
        d: 1024,
        k: 4,
        threads: 1,
        repeat: 3,
        metric: Metric::InnerProduct,
        params: ExactParams::default(),
        seed: 1,
        both: false,
        verify: false,
        fp16: false,
        save_quantized: None,
        quantized: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--data" => a.data = Some(val()?.into()),
            "--write" => a.write = Some(val()?.into()),
            "--ids" => a.ids = Some(val()?.into()),
            "--n" => a.n = val()?.parse()?,
            "--nq" => a.nq = val()?.parse()?,
            "--d" => a.d = val()?.parse()?,
            "--k" | "-k" => a.k = val()?.parse()?,
            "--threads" => a.threads = val()?.parse()?,
            "--repeat" => a.repeat = val()?.parse()?,
            "--seed" => a.seed = val()?.parse()?,
            "--both" => a.both = true,
            "--query-block" => a.params.query_block = val()?.parse()?,
            "--precision" => a.params.precision = val()?.parse()?,
            "--candidates" => a.params.candidates = val()?.parse()?,
            "--verify" => a.verify = true,
            "--fp16" => a.fp16 = true,
            "--save-quantized" => a.save_quantized = Some(val()?.into()),
            "--quantized" => a.quantized = Some(val()?.into()),
            "--kernel" => a.params.kernel = serde_json::from_str(&format!("\"{}\"", val()?))?,
            "--metric" => {
                a.metric = match val()?.as_str() {
                    "ip" | "inner_product" => Metric::InnerProduct,
                    "l2" => Metric::L2,
                    m => bail!("unknown metric {m} (ip or l2)"),
                }
            }
            "-h" | "--help" => {
                println!("see the module docs of examples/knn_bench.rs");
                std::process::exit(0);
            }
            f => bail!("unknown flag {f}"),
        }
    }
    Ok(a)
}

/// `n` random unit vectors of dimension `d`.
fn unit_rows(n: usize, d: usize, seed: u64) -> Result<Embeddings> {
    let mut r = Rng::seed(seed);
    let mut e = Embeddings::new((0..n * d).map(|_| r.next_f32() * 2.0 - 1.0).collect(), d)?;
    e.normalize_l2();
    Ok(e)
}

fn write_matrix(dir: &Path, name: &str, e: &Embeddings) -> Result<()> {
    write_raw(dir.join(format!("{name}.f32")), e.view(), RawDtype::F32)?;
    let header = format!(
        "{{\"n\": {}, \"d\": {}, \"dtype\": \"float32\", \"byte_order\": \"little\", \"layout\": \"row-major\"}}\n",
        e.len(),
        e.dim()
    );
    std::fs::write(dir.join(format!("{name}.json")), header)?;
    Ok(())
}

fn map_matrix(dir: &Path, name: &str) -> Result<MappedEmbeddings> {
    let json = dir.join(format!("{name}.json"));
    let h: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json)?)
        .with_context(|| json.display().to_string())?;
    let d = h["d"].as_u64().context("header without d")? as usize;
    Ok(MappedEmbeddings::open_raw(
        dir.join(format!("{name}.f32")),
        d,
    )?)
}

/// CPU seconds used by this process so far (user + system), from `/proc/self/stat`.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    // Fields 14 and 15 (utime, stime, in clock ticks of 1/100 s) are the 12th and 13th after
    // the command name.
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok());
    tick(11)
        .zip(tick(12))
        .map_or(f64::NAN, |(u, s)| (u + s) / 100.0)
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() -> Result<()> {
    let a = parse()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()?;
    if let Some(dir) = &a.write {
        std::fs::create_dir_all(dir)?;
        write_matrix(dir, "src", &unit_rows(a.n, a.d, a.seed)?)?;
        let tgt = unit_rows(a.n, a.d, a.seed + 1)?;
        write_matrix(dir, "tgt", &tgt)?;
        if a.fp16 {
            write_raw(dir.join("tgt.f16"), tgt.view(), RawDtype::F16)?;
        }
        println!(
            "wrote {n}×{d} src.f32 / tgt.f32 to {}",
            dir.display(),
            n = a.n,
            d = a.d
        );
        return Ok(());
    }
    let (maps, owned, half_map, half_owned);
    let (db, queries) = match &a.data {
        Some(dir) => {
            maps = (map_matrix(dir, "tgt")?, map_matrix(dir, "src")?);
            let nq = a.nq.min(maps.1.len());
            (maps.0.view(), maps.1.view().slice_rows(0..nq))
        }
        None => {
            owned = (
                unit_rows(a.n, a.d, a.seed + 1)?,
                unit_rows(a.nq, a.d, a.seed)?,
            );
            (owned.0.view(), owned.1.view())
        }
    };
    // The binary16 database of --fp16: mapped from DIR/tgt.f16, or rounded in memory.
    let half: Option<HalfView<'_>> = if !a.fp16 {
        None
    } else if let Some(dir) = &a.data {
        half_map = MappedHalf::open(dir.join("tgt.f16"), db.dim())?;
        Some(half_map.view())
    } else {
        half_owned = db
            .as_slice()
            .iter()
            .map(|&x| half::f16::from_f32(x).to_bits())
            .collect::<Vec<u16>>();
        Some(HalfView::new(&half_owned, db.dim())?)
    };
    let t = Instant::now();
    let mut index = pool
        .install(|| match half {
            Some(h) => ExactIndex::over_half(h, a.metric, true),
            None => ExactIndex::over(db, a.metric),
        })?
        .with_params(a.params)?;
    if let Some(path) = &a.quantized {
        index = pool.install(|| index.with_quantized_file(path))?;
    }
    let quant_bytes = pool.install(|| index.quantize())?;
    let build = t.elapsed().as_secs_f64();
    if let Some(path) = &a.save_quantized {
        let t = Instant::now();
        index.save_quantized(path)?;
        println!(
            "saved the quantised copy to {} in {:.3} s",
            path.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let (n, nq, d) = (db.len(), queries.len(), db.dim());
    let flop = 2.0 * nq as f64 * n as f64 * d as f64;
    let mut times = Vec::new();
    let mut last = None;
    let cpu0 = cpu_seconds();
    for _ in 0..a.repeat.max(1) {
        let t = Instant::now();
        last = Some(pool.install(|| {
            if a.both {
                index
                    .search_both_certified(queries, a.k, a.k, &mut |_| {})
                    .map(|(fwd, bwd)| (fwd, Some(bwd)))
            } else {
                index
                    .search_certified(queries, a.k, &mut |_| {})
                    .map(|fwd| (fwd, None))
            }
        })?);
        times.push(t.elapsed().as_secs_f64());
    }
    let cpu = cpu_seconds() - cpu0;
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let med = sorted[sorted.len() / 2];
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "bitext exact{}{}{} {} {:?} kernel={:?} block={} n_q={nq} n_db={n} d={d} k={} threads={}: median \
         {:.0} q/s ({:.0}..{:.0}), {:.1} GFLOP/s median, {:.1} best; index build {build:.3} s; \
         times {times:.3?}; {:.1} GFLOP per CPU-second; peak RSS {:.0} MiB; loadavg {}",
        if a.both { " both-ways" } else { "" },
        if a.fp16 { " fp16-db" } else { "" },
        if index.quantized_is_mapped() {
            " mapped-copy"
        } else {
            ""
        },
        index.params().precision,
        a.metric,
        a.params.kernel.resolve()?,
        a.params.query_block,
        a.k,
        a.threads,
        nq as f64 / med,
        nq as f64 / sorted[sorted.len() - 1],
        nq as f64 / sorted[0],
        flop / med / 1e9,
        flop / sorted[0] / 1e9,
        flop * times.len() as f64 / cpu / 1e9,
        peak_rss_mib().unwrap_or(f64::NAN),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
    );
    let (fwd, bwd) = last.context("no run")?;
    println!(
        "quantised copy {:.1} MiB; forward: {}",
        quant_bytes.max(index.quantized_bytes()) as f64 / (1 << 20) as f64,
        fwd.certification
    );
    if let Some(b) = &bwd {
        println!("backward: {}", b.certification);
    }
    if a.verify {
        let widened = half
            .map(|h| {
                let mut out = vec![0f32; h.len() * h.dim()];
                for (i, row) in out.chunks_exact_mut(h.dim()).enumerate() {
                    h.row_into(i, true, row);
                }
                Embeddings::new(out, h.dim())
            })
            .transpose()?;
        let db = widened.as_ref().map_or(db, Embeddings::view);
        let f32_index = ExactIndex::over(db, a.metric)?.with_params(ExactParams {
            precision: Precision::F32,
            ..a.params
        })?;
        let (want, want_b) = pool.install(|| {
            if a.both {
                f32_index
                    .search_both_with_progress(queries, a.k, a.k, &mut |_| {})
                    .map(|(f, b)| (f, Some(b)))
            } else {
                f32_index.search(queries, a.k).map(|f| (f, None))
            }
        })?;
        let bits = |n: &Neighbors| {
            let s: Vec<u32> = n.all_scores().iter().map(|x| x.to_bits()).collect();
            (n.all_ids().to_vec(), s)
        };
        let same = bits(&fwd.neighbors) == bits(&want)
            && bwd.map(|b| bits(&b.neighbors)) == want_b.as_ref().map(bits);
        println!(
            "identical to the f32 search (ids and score bits): {}",
            if same { "yes" } else { "NO" }
        );
        if !same {
            bail!("the results differ from the f32 search");
        }
    }
    let nn = fwd.neighbors;
    if let Some(path) = &a.ids {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        for &id in nn.all_ids() {
            f.write_all(&(id as i64).to_le_bytes())?;
        }
        f.flush()?;
    }
    Ok(())
}
