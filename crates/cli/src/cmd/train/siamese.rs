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
#[command(mut_arg(crate::flags::BadLinesArgs::HELP_ID, |a| a.help(super::pairs::BAD_LINES)))]
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
    /// least 6 words (both sides, --teacher-text included), drawn with the seed and the
    /// sentence (a sentence keeps its spans whatever else the text holds, so the teacher's
    /// cached vectors of them serve a new split), learnt from the teacher's vectors alone as
    /// --teacher-text is: short phrases in many contexts, each with the teacher's own vector
    /// of it.
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

/// The training itself, on burn (only with the cargo feature `neural`).
pub(super) mod training;
