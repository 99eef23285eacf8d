//! `bitext train autoencoder`: the shared-decoder autoencoder of Kim et al. (2019) on parallel
//! text (and monolingual text of the decoded language), into a model directory; resumable.
//! The arguments parse in every build; the training compiles only with the feature `neural`.

use std::path::PathBuf;

use clap::Args;

use super::{CommonArgs, PairArgs, TextArgs};
use crate::flags::{Cell, Preset, RankingArgs};

/// Arguments of `bitext train autoencoder`.
#[derive(Debug, Args)]
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

#[cfg(feature = "neural")]
pub(in crate::cmd::train) use training::train;

/// The training itself, on burn.
#[cfg(feature = "neural")]
mod training {
    use crate::flags::Optimizer;
    use anyhow::Result;
    use bitext_encode::Side;
    use bitext_neural::autoencoder::{
        AutoencoderConfig, AutoencoderTextTraining, AutoencoderTrainConfig, RankingTerm, Softmax,
        train_autoencoder,
    };
    use bitext_tokenize::SequenceConfig;

    use super::AutoencoderArgs;
    use crate::cmd::train::training::report;

    pub(in crate::cmd::train) fn train(a: &AutoencoderArgs) -> Result<()> {
        let split = a.pairs.read_split(&a.valid, &a.common)?;
        let mono = match &a.mono {
            Some(p) => {
                bitext_core::io::text::read_lines(p, bitext_core::io::text::EmptyLines::Reject)?
            }
            None => Vec::new(),
        };
        let mut network = AutoencoderConfig::preset(a.preset.name(), 1)?;
        network.frozen_embeddings = a.text.freeze_embeddings;
        network.cell = a.cell.kind();
        if a.reverse {
            network.decoded = Side::Source;
        }
        if let Some(h) = a.hidden {
            network.hidden = h;
        }
        if a.bag {
            network.bag = true;
            network.emb_dim = 2 * network.hidden;
        }
        if let Some(d) = a.emb_dim {
            network.emb_dim = d;
        }
        match a.candidates {
            Some(0) => network.softmax = Softmax::Full,
            Some(c) => network.softmax = Softmax::Sampled { candidates: c },
            None => {}
        }
        let mut train = AutoencoderTrainConfig::paper(a.common.seed);
        train.batching = a.batching.bucketing((60, 60 * 124));
        let optimizer = train.train.optimizer;
        let mut config = a.common.train_config(10, 1.0, Some(a.batching.clip))?;
        if a.common.optimizer == Optimizer::Adam && a.common.lr.is_none() {
            // The paper's optimiser unless the user asks for another: SGD at 1.0.
            config.optimizer = optimizer;
        }
        if a.step_decay {
            config.schedule = train.train.schedule;
        }
        config.check()?;
        train.train = config;
        if a.ranking != 0.0 {
            train.ranking = Some(RankingTerm {
                weight: a.ranking,
                scale: a.ranking_loss.scale,
                margin: a.ranking_loss.margin,
                pairs: a.ranking_pairs,
            });
        }
        let job = AutoencoderTextTraining {
            corpus: a.text.corpus(
                &split,
                SequenceConfig::default(),
                a.batching.max_len(60),
                a.common.quiet,
            )?,
            mono: &mono,
            network,
            train,
            teacher: a.teacher.teacher(&split, a.common.quiet)?,
        };
        let out = train_autoencoder(&job, &a.common.out, a.common.resume)?;
        if !a.common.quiet {
            if let Some([s, t]) = &out.init {
                eprintln!("source embeddings initialised from the vectors: {s}");
                eprintln!("target embeddings initialised from the vectors: {t}");
            }
            let (unk, all) = out.unknown_tokens;
            eprintln!(
                "{unk} of {all} training tokens ({:.2}%) are not in the vocabulary; {} \
                 sentences cut to {} tokens; {} pairs and {} monolingual sentences dropped \
                 for having no tokens",
                100.0 * unk as f64 / all.max(1) as f64,
                out.truncated,
                a.batching.max_len(60),
                out.dropped_pairs,
                out.dropped_mono
            );
            if let Some(v) = out
                .fitted
                .state
                .history
                .get(out.fitted.state.best_epoch.wrapping_sub(1))
                .and_then(|e| e.valid.as_ref())
            {
                let m = |k: &str| v.metrics.get(k).copied().unwrap_or(f64::NAN);
                eprintln!(
                    "validation per-token loss: translation {:.4}, autoencoding {:.4}",
                    m("translation_nll"),
                    m("autoencoding_nll")
                );
            }
        }
        report(&out.fitted.state, &a.common.out, a.common.quiet);
        Ok(())
    }
}
