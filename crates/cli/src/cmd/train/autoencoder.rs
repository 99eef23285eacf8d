//! `bitext train autoencoder`: the shared-decoder autoencoder of Kim et al. (2019) on parallel
//! text (and monolingual text of the decoded language), into a model directory; resumable.
//! The arguments parse in every build; the training compiles only with the feature `neural`.

use std::path::PathBuf;

use clap::Args;

use super::{CommonArgs, PairArgs, TextArgs};
use crate::flags::{Cell, Preset, RankingArgs};

/// Arguments of `bitext train autoencoder`.
#[derive(Debug, Args)]
#[command(mut_arg(crate::flags::BadLinesArgs::HELP_ID, |a| a.help(super::pairs::BAD_LINES)))]
pub(crate) struct AutoencoderArgs {
    #[command(flatten)]
    pairs: PairArgs,
    /// Monolingual sentences of the decoded language, one per line, autoencoded besides the
    /// decoded side of the pairs (Kim et al.'s M).
    #[arg(long, value_name = "FILE")]
    mono: Option<PathBuf>,
    #[command(flatten)]
    valid: super::ValidArgs,
    /// Network size: paper (embeddings 512, 256 per encoder direction: 512-d vectors),
    /// medium (256/256: 512-d) or small (128/128: 256-d).
    #[arg(long, value_enum, default_value_t = Preset::Small)]
    preset: Preset,
    /// Recurrent cell.
    #[arg(long, value_enum, default_value_t = Cell::Gru)]
    cell: Cell,
    /// Hidden size per encoder direction instead of the preset's (the sentence vector and the
    /// decoder state have twice this).
    #[arg(long, value_name = "N")]
    hidden: Option<usize>,
    /// Embedding size instead of the preset's (with --bag: twice the hidden size unless given;
    /// e.g. the width of --init-vectors, so that they are not projected).
    #[arg(long, value_name = "N")]
    emb_dim: Option<usize>,
    /// The reverse model: decode the source language (target → source translation and source
    /// autoencoding).
    #[arg(long)]
    reverse: bool,
    /// Softmax candidates while training: the batch's target tokens plus uniform draws up to
    /// this many (default: the preset's); 0 = the full softmax.
    #[arg(long = "softmax-samples", alias = "candidates", value_name = "N")]
    candidates: Option<usize>,
    /// Add each encoder's IDF-weighted bag of its input vectors to its sentence vector
    /// (training starts at the bag of words; not in the paper). Sets the embedding size to
    /// twice the preset's hidden size, the width of the sentence vector and decoder state.
    #[arg(long)]
    bag: bool,
    /// Weight of an auxiliary in-batch ranking loss between the two encoders' vectors of the
    /// translation pairs (not in the paper; 0 = Kim et al.'s loss alone).
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "WEIGHT",
        allow_negative_numbers = true
    )]
    ranking: f64,
    #[command(flatten)]
    ranking_loss: RankingArgs,
    /// Pairs the ranking loss sees per step: the batch's translation pairs topped up with
    /// random training pairs (encoded, not decoded; 0 = the batch's pairs only).
    #[arg(long, default_value_t = 0, value_name = "N")]
    ranking_pairs: usize,
    /// Decay schedule of the paper: multiply the rate by 0.9 every 50k updates after the first
    /// 100k (otherwise constant, or --plateau, or --linear-decay).
    #[arg(long, conflicts_with_all = ["plateau", "linear_decay"])]
    step_decay: bool,
    #[command(flatten)]
    text: TextArgs,
    #[command(flatten)]
    teacher: super::teacher::TeacherArgs,
    #[command(flatten)]
    batching: super::BatchArgs,
    #[command(flatten)]
    common: CommonArgs,
}

/// The training itself, on burn (only with the cargo feature `neural`).
pub(super) mod training;
