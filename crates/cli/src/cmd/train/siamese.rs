//! `bitext train siamese`: the siamese BiGRU classifier (Grégoire & Langlais 2018) on parallel
//! text, into a model directory; resumable. The paper's classifier loss, or the in-batch
//! ranking loss (with a bag of the input vectors) that makes its vectors mine well. The
//! arguments parse in every build; the training compiles only with the feature `neural`.

use clap::{Args, ValueEnum};

use super::{CommonArgs, PairArgs, TextArgs, ValidArgs};
use crate::flags::{Cell, Preset, RankingArgs, SentenceVectorArgs};

/// The loss of the siamese network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SiameseObjective {
    /// The paper's: the matching head on pairs and random negatives.
    Classifier,
    /// Each pair's translation against the batch's other sentences, by cosine with an
    /// additive margin.
    Ranking,
}

/// Arguments of `bitext train siamese`.
#[derive(Debug, Args)]
pub(crate) struct SiameseArgs {
    #[command(flatten)]
    pairs: PairArgs,
    #[command(flatten)]
    valid: ValidArgs,
    /// Network size: paper (512/512/256), medium (256/256/256) or small (128/128/128).
    #[arg(long, value_enum, default_value_t = Preset::Small)]
    preset: Preset,
    /// Recurrent cell.
    #[arg(long, value_enum, default_value_t = Cell::Gru)]
    cell: Cell,
    /// Random negatives per positive pair, resampled every epoch (with `--objective ranking`:
    /// the most similar in-batch negatives per pair the matching head is trained on).
    #[arg(long, default_value_t = 7)]
    negatives: usize,
    /// The loss: `classifier` (the paper's: the matching head on pairs and random negatives)
    /// or `ranking` (each pair's translation against the batch's other sentences, by cosine
    /// with an additive margin; for vectors that mine well). With --teacher the distillation
    /// loss is added (or replaces it: --distill-only).
    #[arg(long, value_enum, default_value_t = SiameseObjective::Classifier)]
    objective: SiameseObjective,
    #[command(flatten)]
    ranking: RankingArgs,
    #[command(flatten)]
    vector: SentenceVectorArgs,
    /// With --bag: add a trained hidden layer of N units to the bag (`relu(bag·U + c)·V + d`,
    /// `V` starting at zero), so that the bag enters the sentence vector through a small
    /// network of it rather than a linear map (0: none).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "bag")]
    bag_hidden: usize,
    /// Embedding size instead of the preset's (e.g. the width of --init-vectors, so that they
    /// are not projected).
    #[arg(long, value_name = "N")]
    emb_dim: Option<usize>,
    #[command(flatten)]
    text: TextArgs,
    #[command(flatten)]
    teacher: super::teacher::TeacherArgs,
    /// With --teacher: sentences of any language (one a line; repeatable) the student learns
    /// from the teacher's vectors alone, each as a training pair with itself: a language
    /// without parallel data.
    #[arg(long, value_name = "FILE", requires = "teacher")]
    teacher_text: Vec<std::path::PathBuf>,
    /// With --teacher: N spans of 3 to 12 words from each distinct training sentence of at
    /// least 6 words (both sides, --teacher-text included), drawn with the seed, learnt from
    /// the teacher's vectors alone as --teacher-text is: short phrases in many contexts, each
    /// with the teacher's own vector of it.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "teacher")]
    teacher_spans: usize,
    #[command(flatten)]
    batching: super::BatchArgs,
    /// Encode each training batch in N pieces (each of at least 16 sentences), each on its own
    /// thread with its own backward pass: the recurrence of a whole batch keeps about one core
    /// busy. 1: the batch whole; 0: one piece per thread, at most 8 (on a GPU: the batch
    /// whole). Same gradients up to float rounding. Measured against 1: 1.3× the pairs/s on 2
    /// cores (2 pieces), 2.4× on 16 (8 pieces; docs/BENCHMARKS.md).
    #[arg(long, value_name = "N", default_value_t = 0)]
    batch_pieces: usize,
    #[command(flatten)]
    common: CommonArgs,
}

#[cfg(feature = "neural")]
pub(in crate::cmd::train) use training::train;

/// The training itself, on burn.
#[cfg(feature = "neural")]
mod training {
    use anyhow::Result;
    use bitext_core::io::text::{EmptyLines, read_lines};
    use bitext_neural::siamese::{
        Objective, SiameseConfig, SiameseTextTraining, SiameseTrainConfig, train_siamese,
    };
    use bitext_tokenize::SequenceConfig;

    use super::{SiameseArgs, SiameseObjective};
    use crate::cmd::train::training::report;

    pub(in crate::cmd::train) fn train(a: &SiameseArgs) -> Result<()> {
        let mut split = a.pairs.read_split(&a.valid, &a.common)?;
        for f in &a.teacher_text {
            let lines = read_lines(f, EmptyLines::Reject)?;
            split.0.extend(lines.iter().cloned());
            split.1.extend(lines);
        }
        if a.teacher_spans > 0 {
            let mut rng = bitext_core::Rng::seed(a.common.seed).fork(0x5A45);
            let sentences = split.0.iter().chain(&split.1).map(String::as_str);
            let spans =
                bitext_neural::distill::spans(sentences, a.teacher_spans, 3..=12, &mut rng)?;
            if !a.common.quiet {
                eprintln!("teacher: {} spans of the training sentences", spans.len());
            }
            split.0.extend(spans.iter().cloned());
            split.1.extend(spans);
        }
        let mut network = SiameseConfig::preset(a.preset.name(), 1)?;
        network.frozen_embeddings = a.text.freeze_embeddings;
        network.bag = a.vector.bag;
        network.bag_map = a.vector.bag_map;
        network.bag_hidden = a.bag_hidden;
        (network.ngrams, network.ngram_channels) = a
            .vector
            .ngrams
            .config(a.text.freeze_embeddings, "--freeze-embeddings")?;
        if a.vector.bag {
            network.dropout_input = 0.0;
        }
        network.pooling = a.vector.pooling.pooling();
        if let Some(d) = a.emb_dim {
            network.emb_dim = d;
        }
        network.cell = a.cell.kind();
        let mut train = SiameseTrainConfig::paper(a.common.seed);
        train.negatives = a.negatives;
        // Distillation alone validates as the ranking objective does (P@1 by cosine).
        if a.objective == SiameseObjective::Ranking || a.teacher.alone() {
            train.objective = Objective::Ranking {
                scale: a.ranking.scale,
                margin: a.ranking.margin,
            };
        }
        train.batching = a.batching.bucketing((128, 128 * 80));
        train.pieces = a.batch_pieces;
        train.train = a.common.train_config(15, 2e-4, Some(a.batching.clip))?;
        let max_len = a.batching.max_len(80);
        let sequence = SequenceConfig {
            max_len: Some(max_len),
            ..SequenceConfig::default()
        };
        let job = SiameseTextTraining {
            corpus: a.text.corpus(&split, sequence, max_len, a.common.quiet)?,
            network,
            train,
            teacher: a.teacher.teacher(&split, a.common.quiet)?,
        };
        let out = train_siamese(&job, &a.common.out, a.common.resume)?;
        if let (Some(r), false) = (&out.init, a.common.quiet) {
            eprintln!("embeddings initialised from the vectors: {r}");
        }
        if !a.common.quiet && out.dropped_pairs > 0 {
            eprintln!(
                "dropped {} training pairs with a side that has no tokens",
                out.dropped_pairs
            );
        }
        report(&out.fitted.state, &a.common.out, a.common.quiet);
        Ok(())
    }
}
