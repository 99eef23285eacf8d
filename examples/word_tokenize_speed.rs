//! Word-tokenizer throughput on real text files, measured in CPU time of the tokenizing thread
//! as well as wall time (CPU time is what stays meaningful on a shared, loaded machine).
//!
//! ```sh
//! cargo run --release --example word_tokenize_speed -- ../shared/data/train/wmt-sample.en-de.de \
//!     ../shared/data/dev/newstest-dev.en-de.en ../shared/data/train/gettext.en-de.tsv
//! ```
//!
//! Every line is tokenized ten times; for a `.tsv` file each tab-separated field counts as one
//! text. Prints tokens and megabytes per CPU-second, with and without lowercasing.

use std::time::Instant;

use anyhow::{Context, Result};
use bitext::core::io::LineReader;
use bitext::tokenize::WordTokenizer;

/// CPU seconds used by this thread so far (Linux: `/proc/thread-self/stat`), if available.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn main() -> Result<()> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(!paths.is_empty(), "usage: word_tokenize_speed FILE...");
    let mut texts = Vec::new();
    for p in &paths {
        let mut r = LineReader::open(p)?;
        while r.advance().with_context(|| format!("reading {p}"))? {
            texts.extend(r.line().split('\t').map(str::to_owned));
        }
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    println!("{} texts, {:.1} MB", texts.len(), bytes as f64 / 1e6);
    const ROUNDS: usize = 10;
    for lowercase in [false, true] {
        let words = WordTokenizer::builder().lowercase(lowercase).build();
        let cpu0 = thread_cpu_seconds();
        let wall0 = Instant::now();
        let mut tokens = 0u64;
        for _ in 0..ROUNDS {
            for t in &texts {
                words.for_each_token(t, |_| tokens += 1);
            }
        }
        let wall = wall0.elapsed().as_secs_f64();
        let mb = (bytes * ROUNDS) as f64 / 1e6;
        let per = |secs: f64| {
            format!(
                "{:.2} M tokens/s, {:.0} MB/s",
                tokens as f64 / secs / 1e6,
                mb / secs
            )
        };
        let cpu = match (cpu0, thread_cpu_seconds()) {
            (Some(a), Some(b)) if b > a => format!("; per CPU-second: {}", per(b - a)),
            _ => String::new(),
        };
        println!(
            "lowercase={lowercase}: {tokens} tokens in {wall:.2} s wall: {}{cpu}",
            per(wall)
        );
    }
    Ok(())
}
