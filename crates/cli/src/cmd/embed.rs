//! `bitext embed --model DIR`: sentence embeddings from a trained neural model (`bitext
//! train`), written as raw little-endian f32/f16 (LASER's format) or `.npy`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use bitext_encode::SentenceEncoder;
use bitext_neural::backend::BackendSpec;
use clap::Args;

use crate::cmd::neural::{SideArg, bar, load, read_sentences, write_embeddings};

/// Arguments of `bitext embed`.
#[derive(Debug, Args)]
pub(crate) struct EmbedArgs {
    /// Model directory written by `bitext train` (a siamese classifier, or an MLP whose
    /// encoder is used).
    #[arg(long, value_name = "DIR")]
    model: PathBuf,
    /// Sentences, one per line (or BUCC `id<TAB>sentence` with --bucc).
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// The input is a BUCC sentence file.
    #[arg(long)]
    bucc: bool,
    /// Which language the input is in.
    #[arg(long, value_enum, default_value_t = SideArg::Source)]
    side: SideArg,
    /// Output: `.npy` by extension, raw little-endian (LASER) otherwise.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// Write raw float16 instead of float32 (raw output only).
    #[arg(long)]
    fp16: bool,
    /// Backend (flex, ndarray, wgpu; the last two need cargo features).
    #[arg(long, default_value = "flex")]
    backend: String,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub(crate) fn run(a: &EmbedArgs) -> Result<()> {
    let model = load(&a.model, BackendSpec::parse(&a.backend)?)?;
    let sentences = read_sentences(&a.input, a.bucc)?;
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let pb = bar(refs.len(), "embedding", a.quiet);
    let e = model
        .encoder()
        .encode_with_progress(a.side.into(), &refs, &mut |n| pb.set_position(n as u64))
        .with_context(|| format!("embedding {}", a.input.display()))?;
    pb.finish_and_clear();
    write_embeddings(&a.output, &e, a.fp16)?;
    if !a.quiet {
        eprintln!(
            "wrote {} × {} embeddings to {}",
            e.len(),
            e.dim(),
            a.output.display()
        );
    }
    Ok(())
}
