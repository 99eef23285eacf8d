//! Sentencepiece encoding throughput on real text: our backend on one thread and on all cores,
//! and Debian's `spm_encode` on the same lines when it is installed, in one run (feature
//! `sentencepiece`).
//!
//! ```sh
//! cargo run --release --features sentencepiece --example spm_encode_speed -- \
//!     ../shared/data/spm/use-multilingual-v3-128k.model ../shared/data/train/gettext.en-de.tsv
//! ```
//!
//! For a `.tsv` file each tab-separated field counts as one sentence. Each configuration runs
//! `ROUNDS` times and the fastest wall time is reported, with CPU time beside it (on a shared,
//! loaded machine CPU time is the steadier number). The load average is printed before and
//! after.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use bitext::core::io::LineReader;
use bitext::tokenize::{Sentencepiece, Tokenizer, set_parallelism};

const ROUNDS: usize = 3;

/// `(utime + stime)` of this process's threads (`self`) or its waited-for children, seconds.
fn cpu_seconds(children: bool) -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let f: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let (u, s) = if children { (13, 14) } else { (11, 12) };
    let u: f64 = f.get(u)?.parse().ok()?;
    let s: f64 = f.get(s)?.parse().ok()?;
    Some((u + s) / 100.0)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Best of `ROUNDS`: (wall seconds, CPU seconds) of `f`, which returns the token count.
fn best(children: bool, mut f: impl FnMut() -> Result<usize>) -> Result<(f64, f64, usize)> {
    let mut out = (f64::INFINITY, f64::INFINITY, 0);
    for _ in 0..ROUNDS {
        let cpu0 = cpu_seconds(children).unwrap_or(0.0);
        let t = Instant::now();
        let tokens = f()?;
        let wall = t.elapsed().as_secs_f64();
        let cpu = cpu_seconds(children).unwrap_or(0.0) - cpu0;
        if wall < out.0 {
            out = (wall, cpu, tokens);
        }
    }
    Ok(out)
}

fn report(what: &str, n: usize, (wall, cpu, tokens): (f64, f64, usize)) {
    println!(
        "{what:28} {wall:7.2} s wall {cpu:7.2} s CPU | {:>9.0} sentences/s {:>6.2} M tokens/s \
         (wall) | {:>9.0} sentences/s per CPU-second",
        n as f64 / wall,
        tokens as f64 / wall / 1e6,
        n as f64 / cpu.max(1e-9),
    );
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model_path, files @ ..] = &args[..] else {
        bail!("usage: spm_encode_speed MODEL FILE...");
    };
    if files.is_empty() {
        bail!("usage: spm_encode_speed MODEL FILE...");
    }
    let mut texts = Vec::new();
    for p in files {
        let mut r = LineReader::open(p)?;
        let tsv = p.ends_with(".tsv");
        while r.advance().with_context(|| format!("reading {p}"))? {
            if tsv {
                texts.extend(r.line().split('\t').map(str::to_owned));
            } else {
                texts.push(r.line().to_owned());
            }
        }
    }
    let model = Sentencepiece::open(model_path)?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "model {model_path}: {} pieces; {} sentences, {:.1} MB; {cores} cores; load {}",
        model.vocab_size(),
        texts.len(),
        bytes as f64 / 1e6,
        load()
    );

    set_parallelism(false);
    let one = best(false, || {
        let mut tokens = 0;
        for t in &refs {
            tokens += model.encode_ids(t)?.len();
        }
        Ok(tokens)
    })?;
    report("bitext, ids, 1 thread", texts.len(), one);
    let pieces = best(false, || {
        let mut tokens = 0;
        for t in &refs {
            tokens += model.encode(t)?.len();
        }
        Ok(tokens)
    })?;
    report("bitext, ids+pieces, 1 thread", texts.len(), pieces);

    set_parallelism(true);
    let all = best(false, || {
        let mut tokens = 0;
        for chunk in refs.chunks(8192) {
            tokens += model
                .encode_batch_ids(chunk)?
                .iter()
                .map(Vec::len)
                .sum::<usize>();
        }
        Ok(tokens)
    })?;
    report(&format!("bitext, ids, {cores} threads"), texts.len(), all);

    match which("spm_encode") {
        Some(bin) => {
            let input = std::env::temp_dir().join(format!("spm_speed_{}.txt", std::process::id()));
            std::fs::write(&input, texts.join("\n") + "\n")?;
            let run = || -> Result<usize> {
                // Without cargo's LD_LIBRARY_PATH: Debian's binary with Debian's library.
                let status = Command::new(&bin)
                    .env_remove("LD_LIBRARY_PATH")
                    .arg(format!("--model={model_path}"))
                    .arg("--output_format=id")
                    .arg(format!("--input={}", input.display()))
                    .arg("--output=/dev/null")
                    .status()?;
                anyhow::ensure!(status.success(), "spm_encode failed");
                Ok(one.2)
            };
            let spm = best(true, run);
            let _ = std::fs::remove_file(&input);
            report("spm_encode --output_format=id", texts.len(), spm?);
        }
        None => println!("spm_encode not installed: no side-by-side run"),
    }
    println!("load after: {}", load());
    Ok(())
}

fn which(program: &str) -> Option<std::path::PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|p| p.join(program))
        .find(|p| p.is_file())
}
