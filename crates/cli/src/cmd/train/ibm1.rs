//! `bitext train ibm1`: train IBM Model 1 in both directions on a parallel TSV and save it as a
//! model directory (`bitext_lexical::ibm1` documents the files), for `bitext score --scorer
//! ibm1 --model DIR` and `bitext filter --scorer ibm1 --model DIR`. Needs no neural feature.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use bitext_core::io::rejects::{BadLines, Rejected};
use bitext_core::io::tsv::BitextTsvReader;
use bitext_lexical::{Direction, Ibm1, Ibm1Config, Segmenter};
use bitext_tokenize::WordConfig;
use clap::Args;

use crate::input::{ColumnArgs, progress_bar};

/// Arguments of `bitext train ibm1`.
#[derive(Debug, Args)]
pub(crate) struct Ibm1Args {
    /// Training pairs: a TSV whose columns --src-col and --tgt-col hold the sentences.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    #[command(flatten)]
    cols: ColumnArgs,
    /// Model directory to write (created).
    #[arg(long, short = 'o', value_name = "DIR")]
    output: PathBuf,
    /// EM iterations in each direction.
    #[arg(long, default_value_t = 5, value_name = "N")]
    iterations: usize,
    /// No NULL word (every target word must be explained by a source word).
    #[arg(long)]
    no_null: bool,
    /// Tokens are the pieces of this sentencepiece model (default: words).
    #[arg(long, value_name = "FILE")]
    spm: Option<PathBuf>,
    /// Keep the case of words (default: lowercased).
    #[arg(long, conflicts_with = "spm")]
    keep_case: bool,
    #[command(flatten)]
    bad: crate::flags::BadLinesArgs,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
}

pub(crate) fn run(a: &Ibm1Args) -> Result<()> {
    crate::run::check_outputs([Some(a.output.as_path())])?;
    if a.iterations == 0 {
        bail!("--iterations must be at least 1");
    }
    let segmenter = Segmenter::sentencepiece_or_words(
        a.spm.clone(),
        WordConfig {
            lowercase: !a.keep_case,
            ..WordConfig::default()
        },
    );
    let segment = segmenter.build()?;
    let start = Instant::now();
    let mut rejects = crate::run::RejectSink::new(&a.bad)?;
    let skip = a.bad.bad_lines() == BadLines::Skip;
    let (mut src, mut tgt, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    let (src_col, tgt_col) = a.cols.zero_based()?;
    let mut reader =
        BitextTsvReader::open(&a.input, src_col, tgt_col)?.bad_lines(a.bad.bad_lines());
    for rec in reader.by_ref() {
        let rec = rec?;
        src.push(rec.src);
        tgt.push(rec.tgt);
        lines.push((rec.line, rec.raw));
    }
    let mut skipped = reader.take_rejected();
    let src_tokens = segment.tokens_batch(&src)?;
    let tgt_tokens = segment.tokens_batch(&tgt)?;
    let (mut src, mut tgt) = (Vec::new(), Vec::new());
    for ((s, t), (line, raw)) in src_tokens.into_iter().zip(tgt_tokens).zip(lines) {
        if s.is_empty() || t.is_empty() {
            let side = if s.is_empty() { "source" } else { "target" };
            let reason = format!("the {side} sentence has no token to align");
            if !skip {
                bail!("{}:{line}: {reason}", a.input.display());
            }
            skipped.push(Rejected {
                line,
                reason,
                text: raw,
            });
            continue;
        }
        src.push(s);
        tgt.push(t);
    }
    skipped.sort_by_key(|r| r.line);
    rejects.add(&skipped)?;
    if src.is_empty() {
        bail!("{}: no sentence pairs", a.input.display());
    }
    let config = Ibm1Config {
        iterations: a.iterations,
        null_word: !a.no_null,
    };
    let bar = progress_bar(2 * a.iterations, "EM iterations", a.quiet.quiet);
    let mut report = |r: bitext_lexical::TrainReport| {
        let dir = match r.direction {
            Direction::SrcToTgt => "src→tgt",
            Direction::TgtToSrc => "tgt→src",
        };
        bar.inc(1);
        if !a.quiet.quiet {
            bar.suspend(|| {
                eprintln!(
                    "{dir} iteration {}/{}: mean log-probability per token {:.4} ({:.2} s)",
                    r.report.iteration, r.iterations, r.report.log_prob_per_token, r.report.seconds
                );
            });
        }
    };
    let model = Ibm1::train_tokens(&config, segmenter, &src, &tgt, &mut report)?;
    bar.finish_and_clear();
    model.save(&a.output)?;
    rejects.finish(&a.input)?;
    let (f, b) = model.entries();
    eprintln!(
        "trained IBM Model 1 on {} pairs ({} + {} probabilities) in {:.1} s: {}",
        model.pairs(),
        f,
        b,
        start.elapsed().as_secs_f64(),
        a.output.display()
    );
    Ok(())
}
