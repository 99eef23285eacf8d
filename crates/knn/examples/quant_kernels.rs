//! The exact inner-product search at every reduced-precision kernel of an x86 CPU, one way and
//! both ways, at 1 and 2 threads, in one run: `f32` (AVX-512F), bf16 through `VDPBF16PS` and
//! through AMX `TDPBF16PS`, int8 through `VPDPBUSD` and through AMX `TDPBSUD`. Every result is
//! checked to be the `f32` search's bit for bit.
//!
//! ```text
//! python3 ../shared/bench/gen_embeddings.py --n-src 20000 --n-tgt 22000 --d 512 \
//!     --out /tmp/planted20k
//! cargo run --release -p bitext-knn --example quant_kernels -- /tmp/planted20k [repeat] [nq]
//! ```
//!
//! The database is `DIR/tgt.f32`, the queries `DIR/src.f32` (raw little-endian `f32`, the
//! dimension in `DIR/src.json`), or its first `nq` rows; `k = 4` both ways. Prints the median
//! wall time of `repeat` runs (default 3) per configuration; the quantised copy is built
//! before the timed runs. `ONLY=amx` (or `avx512`) runs the `f32` reference and that kernel's
//! configurations only, `PRECISION=bf16` (or `int8`) that precision's, `THREADS=1` one
//! thread count (for profiles).

use std::path::Path;
use std::time::Instant;

use bitext_core::{Embeddings, EmbeddingsView};
use bitext_knn::{ExactIndex, ExactParams, Kernel, Metric, Neighbors, Precision};

/// A raw `f32` matrix of dimension `d`.
fn read(path: &Path, d: usize) -> Embeddings {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Embeddings::new(v, d).expect("whole rows")
}

/// `"d": N` of a JSON header.
fn dim(dir: &Path) -> usize {
    let text = std::fs::read_to_string(dir.join("src.json")).expect("src.json");
    let at = text.find("\"d\"").expect("\"d\" in src.json") + 3;
    let digits: String = text[at..]
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().expect("a dimension")
}

fn bits(n: &Neighbors) -> (Vec<usize>, Vec<u32>) {
    let s = n.all_scores().iter().map(|x| x.to_bits()).collect();
    (n.all_ids().to_vec(), s)
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).map_or("/tmp/planted20k", String::as_str));
    let repeat: usize = args.get(2).map_or(3, |s| s.parse().expect("repeat"));
    let d = dim(dir);
    let db = read(&dir.join("tgt.f32"), d);
    let mut q = read(&dir.join("src.f32"), d);
    if let Some(nq) = args.get(3) {
        let nq: usize = nq.parse().expect("nq");
        q = Embeddings::new(q.as_slice()[..nq * d].to_vec(), d).expect("rows");
    }
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    println!(
        "{cpu}; database {} x {d}, queries {}, k = 4, median of {repeat}",
        db.len(),
        q.len()
    );
    let configs = [
        ("f32", Precision::F32, Kernel::Avx512),
        ("bf16", Precision::Bf16, Kernel::Avx512),
        ("bf16", Precision::Bf16, Kernel::Amx),
        ("int8", Precision::Int8, Kernel::Avx512),
        ("int8", Precision::Int8, Kernel::Amx),
    ];
    let k = 4;
    let view: EmbeddingsView<'_> = q.view();
    let only = std::env::var("ONLY").unwrap_or_default().to_lowercase();
    let prec = std::env::var("PRECISION")
        .unwrap_or_default()
        .to_lowercase();
    let thread_counts: Vec<usize> = std::env::var("THREADS").map_or(vec![1, 2], |t| {
        t.split_whitespace()
            .map(|n| n.parse().expect("THREADS"))
            .collect()
    });
    for threads in thread_counts {
        type Lists = (Vec<usize>, Vec<u32>);
        let mut reference: Option<(Lists, Lists, Lists)> = None;
        let mut f32_times = (0.0, 0.0);
        for (label, precision, kernel) in configs {
            let name = format!("{kernel:?}").to_lowercase();
            let reduced = precision != Precision::F32;
            if reduced && (!only.is_empty() && name != only || !prec.is_empty() && label != prec) {
                continue;
            }
            if !kernel.is_available() {
                println!("{label:<5} {kernel:?}: not available here");
                continue;
            }
            let params = ExactParams {
                precision,
                kernel,
                threads,
                ..ExactParams::default()
            };
            let index = ExactIndex::over(db.view(), Metric::InnerProduct)
                .and_then(|i| i.with_params(params))
                .expect("index");
            let t = Instant::now();
            index.quantize().expect("quantised copy");
            let build = t.elapsed().as_secs_f64();
            let (mut one, mut both) = (Vec::new(), Vec::new());
            let (mut got_one, mut got_both) = (None, None);
            for _ in 0..repeat {
                let t = Instant::now();
                let r = index
                    .search_certified(view, k, &mut |_| {})
                    .expect("search");
                one.push(t.elapsed().as_secs_f64());
                let t = Instant::now();
                let (f, b) = index
                    .search_both_certified(view, k, k, &mut |_| {})
                    .expect("both ways");
                both.push(t.elapsed().as_secs_f64());
                got_one = Some(r);
                got_both = Some((f, b));
            }
            let (r, (f, b)) = (got_one.expect("run"), got_both.expect("run"));
            let now = (bits(&r.neighbors), (bits(&f.neighbors), bits(&b.neighbors)));
            let (t1, t2) = (median(one), median(both));
            let same = match &reference {
                None => {
                    f32_times = (t1, t2);
                    reference = Some((now.0, now.1.0, now.1.1));
                    "reference"
                }
                Some(want) => {
                    let ok = now.0 == want.0 && now.1.0 == want.1 && now.1.1 == want.2;
                    if ok { "same as f32" } else { "DIFFERENT" }
                }
            };
            println!(
                "threads {threads} | {label:<5} {:<26} | one way {t1:7.3} s ({:4.2}x) | both ways \
                 {t2:7.3} s ({:4.2}x) | copy {build:5.2} s | {same} | {}",
                r.certification.kernel,
                f32_times.0 / t1,
                f32_times.1 / t2,
                r.certification
            );
        }
    }
}
