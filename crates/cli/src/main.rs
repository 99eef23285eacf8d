//! The `bitext` command-line tool. Each subcommand lives in its own module under `cmd/`; this
//! file only parses arguments and reports errors.

mod build;
mod cmd;
mod index;
mod input;
#[cfg(feature = "neural")]
mod neural;
mod recipe;
mod rows;
mod run;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod flags;

/// Mine and filter parallel sentences with bilingual sentence embeddings.
#[derive(Debug, Parser)]
#[command(
    name = "bitext",
    version,
    about,
    long_about = None,
    propagate_version = true,
    after_help = flags::VOCABULARY
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Take flags from a recipe: a JSON object of this command's flags by long name, in
    /// sections of your choosing; flags on the command line win; relative paths are from the
    /// recipe's directory (committed examples in `recipes/`).
    // Replaced by the recipe's flags before parsing (`recipe::expand`); here for `--help`.
    #[arg(long, global = true, value_name = "FILE")]
    recipe: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate mined pairs against gold alignments.
    #[command(subcommand)]
    Eval(cmd::eval::EvalCommand),
    /// Embed sentences: bag-of-words encoder (mean of bilingual word vectors), a trained model,
    /// or a pretrained ONNX graph (`--encoder onnx:FILE`).
    Embed(Box<cmd::embed::EmbedArgs>),
    /// List the pretrained encoders this machine has by name (ONNX models in the Hugging Face
    /// cache, `--encoder hf:ORG/NAME`; the USE-M graph of $USEM_ONNX) and what each needs;
    /// `--download` fetches models from the hub.
    Encoders(cmd::encoders::EncodersArgs),
    /// Align the sentences of documents that translate each other, in order (vecalign's
    /// method, any encoder): beads of up to 4 sentences, deletions, long documents coarse to
    /// fine.
    AlignDocs(Box<cmd::align_docs::AlignDocsArgs>),
    /// Mine translation pairs from two embedding matrices (LASER `mine_bitexts.py` options).
    Mine(Box<cmd::mine::MineArgs>),
    /// Run steps of a sharded plan (`bitext mine`, `filter` or `score` with `--shards N
    /// --work-dir DIR --plan-only` writes it): what an engine such as Ray calls.
    MineStep(cmd::mine_step::MineStepArgs),
    /// Score a noisy parallel corpus (TSV) and keep its best lines within a budget.
    Filter(Box<cmd::filter::FilterArgs>),
    /// Clean a crawled TSV: rule filters (bicleaner-hardrules' kind), language
    /// identification and near-duplicates, each removed line with its step, rule and reason.
    Clean(Box<cmd::clean::CleanArgs>),
    /// Identify the language of each line (fastText's lid.176 model, read natively).
    Lid(Box<cmd::lid::LidCommandArgs>),
    /// Extract one-to-one pairs scoring at least ρ with a classifier (Grégoire & Langlais).
    Extract(Box<cmd::extract::ExtractArgs>),
    /// Exact Earth Mover's Distance: check the solver, translate words.
    #[command(subcommand)]
    Emd(cmd::emd::EmdCommand),
    /// Score aligned sentence pairs of a TSV (a score column is appended).
    Score(Box<cmd::score::ScoreArgs>),
    /// Cut sentence pairs of a TSV down to their parallel parts with a word-alignment model
    /// (`bitext train aligner`).
    #[cfg_attr(
        not(feature = "neural"),
        command(
            about = "Cut sentence pairs down to their parallel parts (not in this build: needs \
                     the cargo feature `neural`)"
        )
    )]
    Fix(Box<cmd::fix::FixArgs>),
    /// Calibrate scores on labelled pairs: estimated precision, thresholds, intervals (JSON).
    Calibrate(Box<cmd::calibrate::CalibrateArgs>),
    /// Train sentencepiece models; encode and decode text with them.
    #[command(subcommand)]
    Tokenize(cmd::tokenize::TokenizeCommand),
    /// Train a model into a model directory: IBM Model 1, a neural model (siamese classifier,
    /// shared-decoder autoencoder, word-alignment BiLSTM, MLP similarity).
    #[command(subcommand)]
    #[cfg_attr(
        not(feature = "neural"),
        command(
            about = "Train a model: IBM Model 1 (the neural models are not in this build: they \
                     need the cargo feature `neural`)"
        )
    )]
    Train(cmd::train::TrainCommand),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    #[command(hide = true)]
    Completions(cmd::completions::CompletionsArgs),
    /// Print the manual page bitext.1, or write every command's page into a directory.
    #[command(hide = true)]
    Man(cmd::man::ManArgs),
}

fn main() -> ExitCode {
    // Process-wide settings (the allocator's) are made by the commands that need them.
    // `--encoder hf:ORG/NAME` resolves in the Hugging Face cache (before any spec is parsed).
    #[cfg(feature = "onnx")]
    bitext_onnx::hub::install();
    let argv = match recipe::expand(&Cli::command(), std::env::args_os().collect()) {
        Ok(argv) => argv,
        Err(e) => {
            eprintln!("error: {e:#}");
            return ExitCode::from(2);
        }
    };
    let cli = Cli::parse_from(argv);
    let result = match cli.command {
        Command::Eval(c) => cmd::eval::run(c),
        Command::Embed(a) => cmd::embed::run(&a),
        Command::Encoders(a) => cmd::encoders::run(&a),
        Command::AlignDocs(a) => cmd::align_docs::run(&a),
        Command::Mine(a) => cmd::mine::run(&a),
        Command::MineStep(a) => cmd::mine_step::run(&a),
        Command::Filter(a) => cmd::filter::run(&a),
        Command::Clean(a) => cmd::clean::run(&a),
        Command::Lid(a) => cmd::lid::run(&a),
        Command::Extract(a) => cmd::extract::run(&a),
        Command::Emd(c) => cmd::emd::run(c),
        Command::Score(a) => cmd::score::run(&a),
        Command::Fix(a) => cmd::fix::run(&a),
        Command::Calibrate(a) => cmd::calibrate::run(&a),
        Command::Tokenize(c) => cmd::tokenize::run(c),
        Command::Train(c) => cmd::train::run(&c),
        Command::Completions(a) => cmd::completions::run(&a, Cli::command()),
        Command::Man(a) => cmd::man::run(&a, Cli::command()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // Standard output closed by its reader (`bitext … | head -1`): the reader has what it
        // wanted; stop quietly, as Unix filters do.
        Err(e) if closed_stdout(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` is a write to a standard output whose reader has gone (`EPIPE`).
fn closed_stdout(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let io = match c.downcast_ref::<bitext_core::Error>() {
            Some(bitext_core::Error::Io { error, path }) => {
                Some(error).filter(|_| path.as_os_str() == bitext_core::io::stream::STDOUT_NAME)
            }
            _ => c.downcast_ref::<std::io::Error>(),
        };
        io.is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
