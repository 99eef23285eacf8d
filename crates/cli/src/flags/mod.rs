//! The CLI's shared vocabulary: the fixed choices every command spells the same way (as clap
//! `ValueEnum`s, so that `--help` lists them and a typo is refused by name), the argument groups
//! several commands flatten (the scorers' options: [`EmdArgs`], [`ModelArgs`], …; the two sides
//! of a text: [`TextPair`]), and the table of flag concepts that `bitext --help` prints
//! ([`VOCABULARY`]). One concept, one spelling: the old spellings stay as hidden aliases for one
//! release.

use clap::ValueEnum;

mod lid;
mod scorers;
mod text;
mod training;

pub(crate) use lid::LidArgs;
pub(crate) use scorers::{EmdArgs, LengthUnitArg, ModelArgs};
pub(crate) use text::{TextPair, TextPairDocs, TextPairHelp};
pub(crate) use training::{RankingArgs, SentenceVectorArgs};

/// `-q, --quiet`, one meaning in every command that takes it.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct Quiet {
    /// No progress bars or summaries on standard error (errors, and notices of what was left
    /// out, still print).
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
}

/// `--bad-lines` and `--rejects`: what a command does with an input line it cannot read. The
/// help says it of a TSV of pairs; a command that reads other inputs says what it skips in its
/// own words ([`BadLinesArgs::HELP_ID`], `mut_arg`).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct BadLinesArgs {
    /// An input line that cannot be read (not UTF-8, too few columns, an empty source or
    /// target field): `error` stops, naming the file, line and reason; `skip` leaves it out,
    /// writes it to --rejects and counts it on standard error.
    #[arg(long, value_enum, value_name = "POLICY", default_value = "error")]
    bad_lines: BadLinesArg,
    /// With --bad-lines skip: the skipped lines, `line<TAB>reason<TAB>text` each (the line
    /// number in the input, 1-based; the text verbatim, bad bytes as U+FFFD).
    #[arg(long, value_name = "FILE")]
    pub(crate) rejects: Option<std::path::PathBuf>,
}

impl BadLinesArgs {
    /// The argument id of `--bad-lines`, for a command's `mut_arg` with its own help.
    pub(crate) const HELP_ID: &'static str = "bad_lines";

    /// The policy.
    pub(crate) fn bad_lines(&self) -> bitext_core::io::rejects::BadLines {
        match self.bad_lines {
            BadLinesArg::Error => bitext_core::io::rejects::BadLines::Error,
            BadLinesArg::Skip => bitext_core::io::rejects::BadLines::Skip,
        }
    }
}

/// What an input line that cannot be read does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BadLinesArg {
    /// Stop with an error naming the file, line and reason.
    Error,
    /// Skip it, write it to --rejects and count it.
    Skip,
}

/// Recurrent cell of a neural encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Cell {
    /// Gated recurrent unit.
    Gru,
    /// Long short-term memory.
    Lstm,
}

/// Optimiser of a training run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Optimizer {
    /// Adam.
    Adam,
    /// Plain stochastic gradient descent.
    Sgd,
}

/// Network size of a neural model family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Preset {
    /// The paper's sizes.
    Paper,
    /// Half the paper's.
    Medium,
    /// A quarter: minutes on two cores.
    Small,
}

// Read only by the training commands, which need the `neural` feature.
#[cfg_attr(not(feature = "neural"), allow(dead_code))]
impl Preset {
    /// The name the model families' `preset` constructors take.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Preset::Paper => "paper",
            Preset::Medium => "medium",
            Preset::Small => "small",
        }
    }
}

/// The burn backend a neural model runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Backend {
    /// burn's Flex CPU backend (the fastest here).
    Flex,
    /// burn-ndarray (CPU).
    Ndarray,
    /// wgpu (GPU through Vulkan/Metal; needs the cargo feature `bitext-neural/wgpu`). Measured
    /// far slower than flex for these recurrent models, even on an H100 and an H200
    /// (docs/BENCHMARKS.md).
    Wgpu,
    /// CUDA (NVIDIA GPUs; needs the cargo feature `bitext-neural/cuda`, and the driver's
    /// libcuda and NVRTC at run time). The first run on a machine tunes and compiles its
    /// kernels (minutes; kept in ~/.cache/cubecl); after that, on an H200, the siamese model
    /// trained 25× and encoded 7× as fast as flex on 16 cores (docs/BENCHMARKS.md).
    Cuda,
}

impl Backend {
    /// The backend of a model spec.
    pub(crate) fn spec(self) -> bitext_encode::Backend {
        match self {
            Backend::Flex => bitext_encode::Backend::Flex,
            Backend::Ndarray => bitext_encode::Backend::Ndarray,
            Backend::Wgpu => bitext_encode::Backend::Wgpu,
            Backend::Cuda => bitext_encode::Backend::Cuda,
        }
    }
}

/// Every flag concept of the CLI, its one spelling, and the old spellings still accepted:
/// printed by `bitext --help`.
pub(crate) const VOCABULARY: &str = "\
Flag vocabulary (one spelling per concept; old spellings are accepted for one release):
  output file or directory   -o, --output            (was --out)
  text of one side           --src-text, --tgt-text  (was --src/--tgt, --src-sentences/--tgt-sentences)
  a TSV of pairs             --input with --src-col, --tgt-col (1-based; train: repeatable, was --tsv)
  embeddings of one side     --src-embeddings, --tgt-embeddings (was --trg-embeddings)
  word vectors of one side   --src-vec, --tgt-vec;  embed: --vectors; train: --init-vectors, --init-tgt-vectors (was --init-target-vectors)
  score cut-off              --threshold             (was --min-score, --rho)
  unreadable input lines     --bad-lines error|skip with --rejects FILE
  nothing to encode          --zero-unknown (embed, align-docs); any encoder spec: \"no_known_word\": \"zero\"
  calibrated cut-off         --min-precision (a precision, not a score)
  mining margin function     --margin (ratio, distance, absolute, csls)
  ranking-loss margin        --loss-margin           (was --margin in train)
  neighbourhood size         -k, --neighborhood; --src-k, --tgt-k
  negatives                  --negatives N (count); train mlp: --negative-source (was --negatives)
  candidate pairs (extract)  --pairs all|knn         (was --candidates)
  softmax samples            --softmax-samples N     (train autoencoder; was --candidates)
  span candidates (fix)      --spans N               (was --candidates)
  teacher (train, distil)    --teacher SPEC (any --encoder spec), --teacher-weight W, --distill-only
  progress bars, summaries   -q, --quiet (every command: off)
  threads                    --threads N (0: all cores)
  sharded, resumable run     --shards N --work-dir DIR [--plan-only] (mine, filter, score; steps: mine-step)
  flags from a file          --recipe FILE (JSON: {\"section\": {\"flag\": value}}; the command line wins)

Files: `-` is standard input or output for text and TSV; .gz, .xz and .zst are read and
written compressed by extension.";

#[cfg(feature = "neural")]
impl Cell {
    /// The network's cell.
    pub(crate) fn kind(self) -> bitext_neural::rnn::CellKind {
        match self {
            Cell::Gru => bitext_neural::rnn::CellKind::Gru,
            Cell::Lstm => bitext_neural::rnn::CellKind::Lstm,
        }
    }
}
