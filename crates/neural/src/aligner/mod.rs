//! The word-alignment BiLSTM of the divergence-detection draft
//! (`word-alignment-bilstm-divergence-detection.txt`): it says *which words* of a pair are not
//! translations of each other, scores pairs, and cuts a pair down to its parallel part.
//!
//! - [`Aligner`]: a source and a target embedding table and BiLSTM (`net_s`, `net_t`); word
//!   vectors `h_i = [→h_i; ←h_i]`, sentence vectors `[→h_last; ←h_first]`; alignment scores
//!   `S(i, j) = h_i^src · h_j^tgt`, aggregated per word as
//!   `aggr_s(i) = (1/r) log Σ_j exp(r·S(i, j))` (and `aggr_t(j)` over `i`), padding masked out;
//!   the word loss `Σ_i log(1 + exp(aggr_s(i)·Y_i)) + Σ_j log(1 + exp(aggr_t(j)·Y_j))` with
//!   `Y = −1` for a parallel word and `+1` for a divergent one (eq. 3): a word is predicted
//!   divergent when its aggregate is negative. `wemb` scores a pair by the cosine of its
//!   sentence vectors (eq. 1). `semb` is the comparison head on the same encoders:
//!   `h3 = tanh(W[h_src ⊙ h_tgt; |h_src − h_tgt|] + b)`, `h_sim = w·h3 + b`, loss
//!   `log(1 + exp(h_sim·Y))` (eqs. 4–5); [`Objective`] picks either loss or their sum.
//! - [`synth`]: the synthetic examples (paired, unpaired, replace, insert) with word labels,
//!   and the word classes that stand in for part-of-speech tags.
//! - [`fix`]: divergence fixing — the best span pairs of the alignment matrix in `O(I·J²)`,
//!   or of the words' own divergence scores (a maximum subarray per side).
//! - [`AlignerModel`]: a trained model directory as a `SentenceEncoder`, per-word scores,
//!   `wemb`/`semb` scorers and fixing of text pairs; [`AlignerTextTraining`] trains one from text.
//!
//! **Choices where the draft is silent or broken.**
//! - `r`: the draft names no value. `r = 1` (the default) makes `aggr` a soft maximum that
//!   still passes gradient to every position; it is a configuration field, and
//!   `cargo xtask eval aligner` records the value used.
//! - The word loss is summed over the words of an example and averaged over the examples of a
//!   batch (the draft sums; the average keeps the learning rate independent of the batch).
//! - `semb`'s sign: with `Y = −1` for parallel pairs eq. 5 drives `h_sim` up for them, so
//!   `h_sim` is the score (higher = more parallel) and a pair is predicted divergent when it is
//!   negative, like the words.
//! - Replace examples keep word classes instead of POS tags: see [`synth`].
//! - Not in the draft, off by default: a bag of words in the sentence vector
//!   ([`AlignerConfig::bag`](crate::encoder::EncoderConfig::bag)), the in-batch ranking term ([`AlignerConfig::ranking`]) and a
//!   shift of every alignment score of a pair by its sentence similarity
//!   ([`AlignerConfig::sentence_shift`]), tried for the unpaired column (docs/notes/evaluation-log.md).
//! - Fixing: the garbled formula, as the issue restates it, is one objective
//!   ([`FixObjective::Alignment`], ties to the shorter spans); it never penalises a divergent
//!   *target* word, and it cuts parallel words whose best score is negative although their
//!   aggregate is positive. The default ([`FixObjective::Words`]) keeps the spans whose words
//!   the network itself labels parallel: see [`fix`]. The re-ranking of the N best may weigh
//!   the objective with the similarity ([`FixConfig::rerank_weight`]) and take the similarity
//!   from another sentence encoder ([`AlignerModel::fix_outputs_with`]).

mod classes;
mod config;
pub mod fix;
mod infer;
mod matrix;
mod model;
mod rerank;
mod sides;
pub mod stream;
pub mod synth;
mod text;
mod train;
mod training;

pub use crate::encoder::EncoderConfig;
pub use classes::WordClass;
pub use config::{AlignerConfig, AlignerTrainConfig, Objective, RankingTerm};
pub use fix::{FixConfig, FixObjective, SpanPair, best_spans, best_word_spans, rerank_key};
pub use infer::{Fixed, PairOutput};
pub use matrix::SHIFT_SCALE;
pub use model::{Aligner, AlignerLoss, LabeledRef};
pub use stream::{DistillPairs, DistillText};
pub use synth::{Corpus, Example, Kind, Synthesizer};
pub use text::{
    AlignerDescription, AlignerModel, LinkFn, Links, PairLinks, SembScorer, WordScores,
};
pub use train::{AlignerBatch, AlignerTask, WordAccuracy, evaluate};
pub use training::{AlignerReport, AlignerTextTraining, AlignerTrained};
