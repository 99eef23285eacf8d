//! `bitext score --model DIR`: score the aligned sentence pairs of a bicleaner-style TSV with
//! a trained neural model (the siamese classifier's probability, or an MLP similarity) and
//! append one score column (higher = more parallel).

use std::path::PathBuf;

use anyhow::{Result, bail};
use bitext_core::io::tsv::{BitextTsvReader, ScoredTsvWriter};
use bitext_neural::backend::BackendSpec;
use clap::Args;

use crate::cmd::neural::load;

/// Arguments of `bitext score`.
#[derive(Debug, Args)]
pub(crate) struct ScoreArgs {
    /// Model directory written by `bitext train`.
    #[arg(long, value_name = "DIR")]
    model: PathBuf,
    /// Input TSV: any columns, two of which hold the source and target sentences.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Output TSV: every input line unchanged, with the score appended as a last column.
    #[arg(long, value_name = "FILE")]
    output: PathBuf,
    /// 0-based column of the source sentence.
    #[arg(long, default_value_t = 0, value_name = "COL")]
    src_col: usize,
    /// 0-based column of the target sentence.
    #[arg(long, default_value_t = 1, value_name = "COL")]
    tgt_col: usize,
    /// Write scores with this many decimals (default: shortest exact form).
    #[arg(long, value_name = "N")]
    decimals: Option<usize>,
    /// Pairs read and scored at a time.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    batch: usize,
    /// Backend (flex, ndarray, wgpu; the last two need cargo features).
    #[arg(long, default_value = "flex")]
    backend: String,
    /// No summary line.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub(crate) fn run(a: &ScoreArgs) -> Result<()> {
    if a.batch == 0 {
        bail!("--batch must be at least 1");
    }
    let model = load(&a.model, BackendSpec::parse(&a.backend)?)?;
    let mut reader = BitextTsvReader::open(&a.input, a.src_col, a.tgt_col)?;
    let mut out = ScoredTsvWriter::create(&a.output)?;
    if let Some(d) = a.decimals {
        out = out.decimals(d);
    }
    let mut n = 0usize;
    loop {
        let mut recs = Vec::with_capacity(a.batch);
        while recs.len() < a.batch {
            match reader.next_record()? {
                Some(r) => recs.push(r),
                None => break,
            }
        }
        if recs.is_empty() {
            break;
        }
        let src: Vec<&str> = recs.iter().map(|r| r.src.as_str()).collect();
        let tgt: Vec<&str> = recs.iter().map(|r| r.tgt.as_str()).collect();
        let scores = model.aligned_scores(&src, &tgt).map_err(|e| {
            anyhow::anyhow!(
                "{}: lines {}–{}: {e:#}",
                a.input.display(),
                recs[0].line,
                recs[recs.len() - 1].line
            )
        })?;
        for (r, s) in recs.iter().zip(scores) {
            out.write(&r.raw, s)?;
        }
        n += recs.len();
    }
    out.commit()?;
    if !a.quiet {
        eprintln!("scored {n} pairs into {}", a.output.display());
    }
    Ok(())
}
