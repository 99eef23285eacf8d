//! The `bitext` command-line tool. Each subcommand lives in its own module under `cmd/`; this
//! file only parses arguments and reports errors.

mod cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Mine and filter parallel sentences with bilingual sentence embeddings.
#[derive(Debug, Parser)]
#[command(name = "bitext", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate mined pairs against gold alignments.
    #[command(subcommand)]
    Eval(cmd::eval::EvalCommand),
    /// Exact Earth Mover's Distance: check the solver, translate words.
    #[command(subcommand)]
    Emd(cmd::emd::EmdCommand),
    /// Score aligned sentence pairs of a TSV (a score column is appended).
    Score(cmd::score::ScoreArgs),
    /// Train sentencepiece models; encode and decode text with them.
    #[command(subcommand)]
    Tokenize(cmd::tokenize::TokenizeCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Eval(c) => cmd::eval::run(c),
        Command::Emd(c) => cmd::emd::run(c),
        Command::Score(a) => cmd::score::run(&a),
        Command::Tokenize(c) => cmd::tokenize::run(c),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
