//! `bitext lid`: the language of each line of a text, with its probability, from a fastText
//! language-identification model read natively (`bitext_lid`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, bail};
use bitext_core::io::{AtomicFile, LineReader};
use clap::Args;

use crate::flags::{BadLinesArgs, LidArgs, Quiet};
use crate::run::RejectSink;

/// Lines identified at a time (on all cores).
const BATCH: usize = 8192;

/// What `--bad-lines` says in `bitext lid --help`.
const BAD_LINES: &str = "An input line that is not UTF-8: `error` stops, naming the file, line \
    and reason; `skip` leaves it out, writes it to --rejects and counts it on standard error. The \
    output then has one row per line kept, in order: the rejects file's line numbers say which \
    lines have no row";

/// Arguments of `bitext lid`.
#[derive(Debug, Args)]
#[command(mut_arg(BadLinesArgs::HELP_ID, |a| a.help(BAD_LINES)))]
pub(crate) struct LidCommandArgs {
    /// Text, one sentence a line (`-`: standard input); an empty line gets the model's answer
    /// for no words.
    #[arg(long, value_name = "FILE", default_value = "-")]
    input: PathBuf,
    /// Output: for each input line, `lang<TAB>probability` (the K most likely, tab-separated,
    /// with -k); `-` (the default) is standard output.
    #[arg(long, short = 'o', value_name = "FILE", default_value = "-")]
    output: PathBuf,
    /// How many languages per line, most likely first.
    #[arg(short = 'k', long, value_name = "K", default_value_t = 1)]
    k: usize,
    #[command(flatten)]
    model: LidArgs,
    #[command(flatten)]
    bad: BadLinesArgs,
    #[command(flatten)]
    quiet: Quiet,
}

pub(crate) fn run(a: &LidCommandArgs) -> Result<()> {
    crate::run::check_outputs([Some(a.output.as_path())])?;
    if a.k == 0 {
        bail!("-k must be at least 1");
    }
    let mut rejects = RejectSink::new(&a.bad)?;
    let lid = a.model.open()?;
    let start = std::time::Instant::now();
    let mut reader = LineReader::open(&a.input)?;
    let mut out = AtomicFile::create_text(&a.output)?;
    let mut batch: Vec<String> = Vec::with_capacity(BATCH);
    let mut lines = 0usize;
    let mut skipped = Vec::new();
    loop {
        batch.clear();
        // Every line that reads is kept: only one that is not UTF-8 can be skipped.
        while batch.len() < BATCH
            && reader.advance_skipping(rejects.bad_lines(), &mut skipped, |_, _| Ok(()))?
        {
            batch.push(reader.line().to_string());
        }
        rejects.add(&skipped)?;
        skipped.clear();
        if batch.is_empty() {
            break;
        }
        let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
        for guesses in lid.predict_batch(&refs, a.k) {
            let cols: Vec<String> = guesses
                .iter()
                .map(|g| format!("{}\t{:.4}", g.lang, g.probability))
                .collect();
            writeln!(out, "{}", cols.join("\t")).map_err(|e| out.err(e))?;
        }
        lines += batch.len();
    }
    if reader.line_number() == 0 {
        bail!("{}: file is empty: no lines", a.input.display());
    }
    out.commit()?;
    rejects.finish(&a.input)?;
    if !a.quiet.quiet {
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "identified {lines} lines in {secs:.2} s ({:.0} lines/s)",
            lines as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}
