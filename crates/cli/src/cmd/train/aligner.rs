//! `bitext train aligner`: the word-alignment BiLSTM of the divergence-detection draft
//! (`bitext_neural::aligner`) on parallel text, into a model directory; resumable. Every epoch
//! draws fresh synthetic examples (paired, unpaired, replace, insert) from the training pairs;
//! the replace examples' word links come from IBM Model 1 (`bitext_lexical::Ibm1`, default
//! options, grow-diag-final-and) trained here on the model's own tokens of the training pairs.
//! The arguments parse in every build; the training compiles only with the feature `neural`.

use clap::{Args, ValueEnum};

use super::{CommonArgs, PairArgs, TextArgs};
use crate::flags::{Cell, Preset, RankingArgs, SentenceVectorArgs};

/// What the aligner is trained to predict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ObjectiveArg {
    /// The word-level loss over the aggregated alignment scores (`wemb`; the paper's).
    Words,
    /// The sentence-level loss of the comparison head (`semb`).
    Sentence,
    /// Both losses summed: word labels, `wemb` cosines and `semb` scores from one model.
    Both,
}

/// Arguments of `bitext train aligner`.
#[derive(Debug, Args)]
#[command(mut_arg(crate::flags::BadLinesArgs::HELP_ID, |a| a.help(super::pairs::BAD_LINES)))]
pub(crate) struct AlignerArgs {
    #[command(flatten)]
    pairs: PairArgs,
    #[command(flatten)]
    valid: super::ValidArgs,
    /// Network size: paper (embeddings 256, 256 per direction: 512-d word and sentence
    /// vectors), medium (256/128: 256-d) or small (128/64: 128-d).
    #[arg(long, value_enum, default_value_t = Preset::Small)]
    preset: Preset,
    /// Recurrent cell (the paper: LSTM).
    #[arg(long, value_enum, default_value_t = Cell::Lstm)]
    cell: Cell,
    /// Embedding size instead of the preset's (e.g. 512, the width of --init-vectors, so that
    /// they are not projected).
    #[arg(long, value_name = "N")]
    emb_dim: Option<usize>,
    /// Kinds of synthetic example, by letter: P (paired), U (unpaired), R (a span replaced),
    /// I (a sentence inserted); paired examples are always included.
    #[arg(long, default_value = "PURI", value_name = "LETTERS")]
    kinds: String,
    /// Examples of each kind per epoch, drawn afresh every epoch (default: as many as there
    /// are training pairs).
    #[arg(long, value_name = "N")]
    per_kind: Option<usize>,
    /// The loss trained: `words` (the word labels and the `wemb` cosine), `sentence` (the
    /// `semb` head) or `both`.
    #[arg(long, value_enum, default_value_t = ObjectiveArg::Words)]
    objective: ObjectiveArg,
    /// Sharpness r of the aggregation (1/r) log Σ exp(r·S): large r approaches the maximum,
    /// small r a sum.
    #[arg(long = "r", default_value_t = 1.0, value_name = "R")]
    r: f64,
    /// Add the in-batch ranking loss of the parallel examples' sentence vectors, with this
    /// weight, beside the objective (the siamese network's `--objective ranking`), so that the
    /// sentence vectors mine; 0 leaves it out.
    #[arg(long, default_value_t = 0.0, value_name = "W")]
    ranking_weight: f64,
    // With --ranking-weight or --distill-ranking-weight: the ranking softmax's temperature and
    // margin.
    #[command(flatten)]
    ranking: RankingArgs,
    // Pooling, the bags (IDF over every sentence of that side in training, --distill-input's
    // included) and n-gram convolutions.
    #[command(flatten)]
    vector: SentenceVectorArgs,
    /// With --bag: both bags read a fixed table of their own, filled from these vectors (a
    /// `.vec` or, as for --init-vectors, an ONNX encoder spec naming the graph's per-piece
    /// tensor), shared by the two sides (one --spm), instead of the encoders' input rows:
    /// e.g. the teacher's own piece vectors for the sentence vector while the recurrent
    /// encoders and the word labels keep --init-vectors. Rows no vector reaches are left out
    /// of the bags. Not in the draft.
    #[arg(long, value_name = "FILE|SPEC", requires = "bag")]
    bag_vectors: Option<std::path::PathBuf>,
    /// Shift every alignment score of a pair by a trained function of its two sentence
    /// vectors' cosine, 40·(a·cos + c), starting at zero: an unrelated pair then has all its
    /// words divergent without any word state having to say so. Not in the draft.
    #[arg(long)]
    sentence_shift: bool,
    /// Dropout on the input embeddings while training (a share in [0, 1)).
    #[arg(long, default_value_t = 0.0, value_name = "P")]
    dropout: f64,
    // With --teacher: both sentence vectors of every paired example are pulled towards the
    // teacher's vector of that training pair, beside the word (or sentence) loss; needs
    // sentence vectors as wide as the teacher's (--bag --emb-dim 512 for USE-M).
    #[command(flatten)]
    teacher: super::teacher::TeacherArgs,
    /// More pairs, as TSVs (columns as --src-col/--tgt-col; repeat for several files), that
    /// train only the sentence vectors towards the teacher's (each sentence encoded alone,
    /// no synthetic example drawn from it): other registers and languages for the sentence
    /// vectors while the word examples stay on the training pairs.
    #[arg(long, value_name = "FILE", requires = "teacher")]
    distill_input: Vec<std::path::PathBuf>,
    /// With --distill-input: pairs drawn afresh for every epoch (default: --per-kind's
    /// number).
    #[arg(long, value_name = "N", requires = "distill_input")]
    distill_per_epoch: Option<usize>,
    /// With --distill-input: which sentence's teacher vector each sentence of those pairs is
    /// pulled towards: its own (`both`, for a multilingual teacher) or that of the pair's
    /// source or target sentence.
    #[arg(long, value_enum, default_value_t = super::teacher::TeacherSide::Both,
          requires = "distill_input")]
    distill_side: super::teacher::TeacherSide,
    /// With --distill-input: add the in-batch ranking loss of each batch of those pairs (its
    /// source sentences' vectors against its target sentences', as --ranking-weight ranks the
    /// paired examples), with this weight, beside the pull towards the teacher, so that a
    /// sentence's vector lies nearer its translation's than the batch's other sentences'; 0
    /// leaves it out.
    #[arg(
        long,
        default_value_t = 0.0,
        value_name = "W",
        requires = "distill_input"
    )]
    distill_ranking_weight: f64,
    /// With --distill-ranking-weight: stop that term's gradient at the pooled word states, so
    /// that it trains the bag, its map, the projection of the states and the n-gram
    /// convolutions of the sentence vector but not the recurrent encoders whose word states
    /// the word labels read (the pull towards the teacher still trains them). Needs --bag.
    #[arg(long, requires_all = ["distill_ranking_weight", "bag"])]
    distill_ranking_spares_words: bool,
    /// With --distill-input: N span pairs of each distinct pair of those files whose two
    /// sentences have at least 6 words each: a span of 3 to 12 words of each side, drawn with
    /// the seed, each pulled towards the teacher's vector of itself (so it needs
    /// --distill-side both) and never ranked, the two spans not being translations of each
    /// other. Short phrases of the other registers and languages, each with the teacher's own
    /// vector of it, as --teacher-spans gives the siamese student.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        requires = "distill_input"
    )]
    distill_spans: usize,
    #[command(flatten)]
    text: TextArgs,
    #[command(flatten)]
    batching: super::BatchArgs,
    #[command(flatten)]
    common: CommonArgs,
}

/// The training itself, on burn (only with the cargo feature `neural`).
pub(super) mod training;
