//! `bitext fix`: divergence fixing with a word-alignment model (`bitext train aligner`): cut
//! each sentence pair of a TSV down to the source span and target span that its alignment
//! matrix says are parallel (`bitext_neural::aligner::fix`: the `--candidates` best span pairs
//! by `--objective`, each side longer than `--tau` + 1 tokens, re-encoded; the one whose
//! sentence vectors have the highest cosine is kept, or the highest `objective + W · cosine`
//! with `--rerank-weight W`; the vectors are the aligner's own or `--rerank-encoder`'s).
//!
//! Output: every input line unchanged, then six columns: the fixed source text, the fixed
//! target text, the source span, the target span, the cosine of the fixed pair and that of the
//! original pair. The fixed text is the model's tokens of the span (lowercased words unless
//! the model keeps case) joined by spaces; with a sentencepiece model its pieces are joined
//! back into words (`▁` starts a word). Spans are `start-end`, 0-based token positions with the
//! end excluded (Python's `tokens[start:end]`), over the model's tokens of the original
//! sentence.
//!
//! The arguments parse in every build; the fixing compiles only with the cargo feature
//! `neural`.

// Without the feature the arguments are parsed and never read.
#![cfg_attr(not(feature = "neural"), allow(dead_code))]

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use crate::input::ColumnArgs;

/// Arguments of `bitext fix`.
#[derive(Debug, Args)]
pub(crate) struct FixArgs {
    /// Word-alignment model directory written by `bitext train aligner`.
    #[arg(long, value_name = "DIR")]
    #[cfg_attr(
        not(feature = "neural"),
        arg(
            help = "Word-alignment model directory (not in this build: needs the cargo \
                    feature `neural`)"
        )
    )]
    model: PathBuf,
    /// Backend of the model (flex, ndarray, wgpu, cuda; the last three need cargo features).
    #[arg(long, value_enum, default_value_t = crate::flags::Backend::Flex)]
    backend: crate::flags::Backend,
    /// Input TSV: any columns, two of which hold the source and target sentences.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    #[command(flatten)]
    cols: ColumnArgs,
    /// Output TSV: every input line unchanged, then the fixed source text, the fixed target
    /// text, the source span, the target span (`start-end`: 0-based token positions, end
    /// excluded), the cosine of the fixed pair's sentence vectors and that of the original
    /// pair's.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: PathBuf,
    /// Candidate span pairs re-encoded per sentence pair (the paper's N; 1: the objective's
    /// first candidate, nothing re-ranked).
    #[arg(
        long = "spans",
        alias = "candidates",
        default_value_t = 20,
        value_name = "N"
    )]
    candidates: usize,
    /// Kept spans must have more than τ + 1 tokens on each side (a side of at most τ + 1
    /// tokens is kept whole; the paper's τ).
    #[arg(long, default_value_t = 3, value_name = "T")]
    tau: usize,
    /// What the candidate spans maximise: `words` (the sum of the kept words' divergence
    /// scores on both sides: every word the model calls divergent lowers it) or `alignment`
    /// (the draft's Σ_i max_j S(i, j) over the alignment matrix).
    #[arg(long, value_enum, default_value_t = FixObjectiveArg::Words)]
    objective: FixObjectiveArg,
    /// Re-rank the candidates by `objective + W · cosine` instead of the cosine alone (the
    /// paper's): the word scores choose and the sentence similarity decides between the
    /// candidates they hardly separate. 0 keeps the objective's first candidate. The aligners of
    /// docs/EVALUATION.md did best at 30–100 (chosen on held-out inserted pairs).
    #[arg(long, value_name = "W")]
    rerank_weight: Option<f64>,
    /// Re-rank with this sentence encoder's cosine instead of the aligner's own sentence
    /// vectors: `onnx:FILE` (a pretrained encoder), `model:DIR`, `bow:FILE` or a JSON spec, as
    /// `bitext embed --encoder`; it reads each candidate's text and the whole pair's, and the
    /// cosine columns of the output are its own.
    #[arg(long, value_name = "SPEC")]
    rerank_encoder: Option<bitext_encode::EncoderSpec>,
    /// Write cosines with this many decimals (default: shortest exact form).
    #[arg(long, value_name = "N")]
    decimals: Option<usize>,
    /// Pairs read and fixed at a time.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    batch: usize,
    /// No progress bars or summaries on standard error (errors, and notices of what was left
    /// out, still print). Without it a bar is drawn on a terminal, advanced after each batch;
    /// the input is read once before the fixing to count its pairs, which also finds a
    /// malformed line before any work.
    #[arg(long, short = 'q')]
    quiet: bool,
    #[command(flatten)]
    bad: crate::flags::BadLinesArgs,
}

/// `--objective` of `bitext fix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FixObjectiveArg {
    /// The words' divergence scores, summed over both spans.
    Words,
    /// The draft's alignment objective over the matrix.
    Alignment,
}

/// Fix the pairs of `a.input` into `a.output`.
#[cfg(feature = "neural")]
pub(crate) fn run(a: &FixArgs) -> Result<()> {
    crate::run::check_outputs([Some(a.output.as_path())])?;
    crate::neural::start_neural_command();
    fixing::run(a)
}

/// `bitext fix` in a binary without the neural models: the error that says how to get them.
#[cfg(not(feature = "neural"))]
pub(crate) fn run(_: &FixArgs) -> Result<()> {
    Err(crate::run::neural_unavailable("`bitext fix`"))
}

/// The fixing itself, on burn.
#[cfg(feature = "neural")]
mod fixing {
    use std::io::Write;
    use std::time::Instant;

    use anyhow::{Context, Result, bail};
    use bitext_core::io::AtomicFile;
    use bitext_core::io::tsv::{BitextRecord, BitextTsvReader};
    use bitext_neural::aligner::{AlignerModel, FixConfig, FixObjective};
    use bitext_neural::backend::BackendSpec;
    use bitext_tokenize::TokenizerSpec;

    use super::FixArgs;
    use crate::input::progress_bar;

    /// The sentencepiece word-start marker.
    const WORD_START: char = '\u{2581}';

    /// The text of tokens: sentencepiece pieces joined back into words, other tokens joined by
    /// spaces.
    pub(super) fn detokenize(tokens: &[String], pieces: bool) -> String {
        if pieces {
            let text: String = tokens.concat().replace(WORD_START, " ");
            text.trim().to_string()
        } else {
            tokens.join(" ")
        }
    }

    fn number(x: f32, decimals: Option<usize>) -> String {
        match decimals {
            Some(d) => format!("{x:.d$}"),
            None => x.to_string(),
        }
    }

    pub(super) fn run(a: &FixArgs) -> Result<()> {
        if a.batch == 0 {
            bail!("--batch must be at least 1");
        }
        if a.candidates == 0 {
            bail!("--spans must be at least 1");
        }
        if let Some(w) = a.rerank_weight
            && !(w.is_finite() && w >= 0.0)
        {
            bail!("--rerank-weight must be a finite number ≥ 0, not {w}");
        }
        let (src_col, tgt_col) = a.cols.zero_based()?;
        let config = FixConfig {
            candidates: a.candidates,
            tau: a.tau,
            objective: match a.objective {
                super::FixObjectiveArg::Words => FixObjective::Words,
                super::FixObjectiveArg::Alignment => FixObjective::Alignment,
            },
            rerank_weight: a.rerank_weight,
        };
        let reranker = match &a.rerank_encoder {
            Some(spec) => Some(
                crate::build::encoder(spec, None::<&[&str]>)
                    .context("loading the --rerank-encoder")?,
            ),
            None => None,
        };
        let model = AlignerModel::load(&a.model, BackendSpec::from(a.backend.spec()))
            .with_context(|| format!("loading the aligner {}", a.model.display()))?;
        // Which sides' tokens are sentencepiece pieces (one tokenizer for both sides when the
        // model has no target tokenizer).
        let text = model.text().config();
        let pieces = |spec: &TokenizerSpec| matches!(spec, TokenizerSpec::Sentencepiece { .. });
        let src_pieces = pieces(&text.source);
        let tgt_pieces = pieces(text.target.as_ref().unwrap_or(&text.source));
        let start = Instant::now();
        // A first pass counts the pairs (for the progress bar) and checks every line before
        // minutes of fixing; standard input is held in memory for it.
        if bitext_core::io::is_stdio(&a.input) {
            bitext_core::io::stream::hold_stdin()?;
        }
        let mut rejects = crate::run::RejectSink::new(&a.bad)?;
        let open = || -> Result<_> {
            let r = BitextTsvReader::open(&a.input, src_col, tgt_col)?;
            Ok(r.bad_lines(a.bad.bad_lines()))
        };
        let mut pairs = 0usize;
        let mut counting = open()?;
        while counting.next_record()?.is_some() {
            pairs += 1;
        }
        if pairs == 0 {
            bail!("{}: no sentence pairs", a.input.display());
        }
        let bar = progress_bar(pairs, "fixing", a.quiet);
        let mut reader = open()?;
        let mut out = AtomicFile::create_text(&a.output)?;
        let mut batch: Vec<BitextRecord> = Vec::with_capacity(a.batch);
        let (mut total, mut cut) = (0usize, 0usize);
        let (mut before, mut after) = (0.0f64, 0.0f64);
        while reader.next_batch(a.batch, &mut batch)? {
            rejects.add(&reader.take_rejected())?;
            let src: Vec<&str> = batch.iter().map(|r| r.src.as_str()).collect();
            let tgt: Vec<&str> = batch.iter().map(|r| r.tgt.as_str()).collect();
            let lines = || reader.batch_lines(&batch);
            let fixed = model
                .fix(&src, &tgt, config, reranker.as_deref())
                .with_context(lines)?;
            if fixed.len() != batch.len() {
                bail!(
                    "{}: fixing gave {} results for {} pairs",
                    lines(),
                    fixed.len(),
                    batch.len()
                );
            }
            for (rec, (f, st, tt)) in batch.iter().zip(&fixed) {
                let (s, t) = (&f.spans.src, &f.spans.tgt);
                if s.len() < st.len() || t.len() < tt.len() {
                    cut += 1;
                }
                before += f64::from(f.original);
                after += f64::from(f.cosine);
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}-{}\t{}-{}\t{}\t{}",
                    rec.raw,
                    detokenize(&st[s.clone()], src_pieces),
                    detokenize(&tt[t.clone()], tgt_pieces),
                    s.start,
                    s.end,
                    t.start,
                    t.end,
                    number(f.cosine, a.decimals),
                    number(f.original, a.decimals)
                )
                .map_err(|e| out.err(e))?;
            }
            total += batch.len();
            bar.set_position(total as u64);
        }
        bar.finish_and_clear();
        rejects.add(&reader.take_rejected())?;
        if total == 0 {
            bail!("{}: no sentence pairs", a.input.display());
        }
        out.commit()?;
        rejects.finish(&a.input)?;
        let n = total as f64;
        eprintln!(
            "fixed {total} pairs in {:.1} s: {cut} cut down; mean cosine {:.4} → {:.4}; {}",
            start.elapsed().as_secs_f64(),
            before / n,
            after / n,
            a.output.display()
        );
        Ok(())
    }
}

#[cfg(all(test, feature = "neural"))]
mod tests {
    use super::fixing::detokenize;

    #[test]
    fn tokens_become_text() {
        let t = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        assert_eq!(detokenize(&t(&["das", "haus", "."]), false), "das haus .");
        assert_eq!(
            detokenize(&t(&["▁Das", "▁Ha", "us", "."]), true),
            "Das Haus."
        );
        assert_eq!(detokenize(&t(&["us", "▁ist"]), true), "us ist");
    }
}
