//! A second stream of pairs that trains only the aligner's sentence vectors towards a
//! teacher's ([`crate::distill`]): each sentence of such a pair is encoded alone and pulled
//! towards its teacher row, with no synthetic example and no word label drawn from it. The
//! word examples can then stay on the text whose words the aligner is to label (news), while
//! the sentence vectors also learn from text of other registers and languages (software
//! strings, dialogue, French) that would dilute the word task. Optionally the two sides of
//! each batch are also ranked against each other ([`DistillText::ranking`]): the pull towards
//! the teacher says where a sentence's vector should lie, the in-batch ranking that it should
//! lie nearer its translation's than the batch's other sentences' (the siamese student's
//! ranking loss over its pairs, which reach French the same way). Pairs after the first
//! [`DistillText::parallel`] are not translations (spans of each side of a pair,
//! [`crate::distill::span_pairs`]): they are pulled towards the teacher and not ranked.

use bitext_core::Rng;

use crate::aligner::Aligner;
use crate::batch::Bucketing;
use crate::distill::{TeacherVectors, cosine_distance, gather};
use crate::encoding::{RankingTerm, in_batch_ranking};
use crate::error::{Error, Result};
use crate::init::int1;
use crate::text::TextCodec;
use crate::text::tokens::PairTokens;
use crate::train::TrainLoss;

/// Pairs of text for
/// [`AlignerTask::with_distill_pairs`](crate::aligner::AlignerTask::with_distill_pairs), with
/// the teacher's rows of each side (one per pair given; pairs with a side the tokenizers leave
/// empty are dropped with their rows, and sentences cut to the corpus's `max_len`).
#[derive(Debug, Clone)]
pub struct DistillText<'a> {
    /// Source sentences.
    pub src: &'a [String],
    /// Target sentences, line-parallel with `src`.
    pub tgt: &'a [String],
    /// The vector each source sentence is pulled towards.
    pub src_rows: &'a TeacherVectors,
    /// The vector each target sentence is pulled towards (the same list as `src_rows` where
    /// both sentences of a pair go towards one vector; lists may share their tables).
    pub tgt_rows: &'a TeacherVectors,
    /// Pairs drawn for every epoch.
    pub per_epoch: usize,
    /// The in-batch ranking loss of each batch's source vectors against its target vectors,
    /// beside the pull towards the teacher ([`DistillPairs::ranking`]); `None`: the pull
    /// alone.
    pub ranking: Option<RankingTerm>,
    /// Whether the ranking term's gradient stops at the pooled word states
    /// ([`DistillPairs::ranking_spares_words`]).
    pub ranking_spares_words: bool,
    /// How many of the pairs, from the first, are translations of each other, which the
    /// ranking term ranks ([`DistillPairs::parallel`]): `src.len()` where all are; the pairs
    /// after them (spans of the sentences, [`crate::distill::span_pairs`]) are only pulled
    /// towards their teacher rows.
    pub parallel: usize,
}

impl DistillText<'_> {
    /// The pairs in `codec`'s tokens, cut to `max_len`, with how many were dropped for a side
    /// without tokens and how many sentences were cut.
    pub(super) fn tokens(
        &self,
        codec: &TextCodec,
        max_len: Option<usize>,
    ) -> Result<(DistillPairs, usize, usize)> {
        for (what, rows) in [("source", self.src_rows), ("target", self.tgt_rows)] {
            if rows.len() != self.src.len() {
                return Err(Error::Input(format!(
                    "{} teacher vectors of the {what} sentences of {} distillation pairs",
                    rows.len(),
                    self.src.len()
                )));
            }
        }
        if self.parallel > self.src.len() {
            return Err(Error::Input(format!(
                "{} parallel distillation pairs of {}",
                self.parallel,
                self.src.len()
            )));
        }
        let mut tokens = PairTokens::new(codec, (self.src, self.tgt), max_len, true)?;
        let truncated = tokens.cut_kept();
        let (src, tgt) = tokens.take_ids();
        let kept = tokens.kept;
        let keep = |e: &TeacherVectors| e.clone().keep(&kept);
        let pairs = DistillPairs {
            src,
            tgt,
            src_rows: keep(self.src_rows)?,
            tgt_rows: keep(self.tgt_rows)?,
            per_epoch: self.per_epoch,
            ranking: self.ranking,
            ranking_spares_words: self.ranking_spares_words,
            // `kept` ascends: the kept pairs before the first that is not parallel.
            parallel: kept.partition_point(|&k| k < self.parallel),
        };
        Ok((pairs, self.src.len() - kept.len(), truncated))
    }
}

/// Pairs of token ids, each side with the teacher vectors its sentences are pulled towards.
#[derive(Debug, Clone)]
pub struct DistillPairs {
    /// Source sentences (ids of the source vocabulary).
    pub src: Vec<Vec<u32>>,
    /// Target sentences, one per source sentence.
    pub tgt: Vec<Vec<u32>>,
    /// The vector each source sentence is pulled towards, one per pair.
    pub src_rows: TeacherVectors,
    /// The vector each target sentence is pulled towards, one per pair.
    pub tgt_rows: TeacherVectors,
    /// Pairs drawn (without replacement, afresh) for every epoch; all of them when there are
    /// fewer.
    pub per_epoch: usize,
    /// Beside the pull towards the teacher, [`RankingTerm::weight`] times the in-batch
    /// ranking loss of the batch's source against its target vectors (the aligner's and the
    /// siamese network's, with [`RankingTerm::scale`] and [`RankingTerm::margin`]): each pair
    /// against the batch's other pairs, a pair sharing a source or target sentence with
    /// another not counted as its negative. [`RankingTerm::pairs`] must be 0.
    pub ranking: Option<RankingTerm>,
    /// With a ranking term: `true` stops its gradient at the pooled word states, so that it
    /// trains the bag, its map, `P` and the n-gram convolutions of the sentence vector but not
    /// the recurrent encoders, whose word states the word labels read (the pull towards the
    /// teacher still reaches them); `false` lets it reach the whole network. Needs a network
    /// with a bag in its sentence vector.
    pub ranking_spares_words: bool,
    /// Pairs `0..parallel` are translations of each other, and the ranking term ranks those
    /// of a batch against each other; the pairs after them are not (spans of each side,
    /// [`crate::distill::span_pairs`]) and are only pulled towards the teacher. [`len`]
    /// where all are.
    ///
    /// [`len`]: DistillPairs::len
    pub parallel: usize,
}

crate::encoding::pair_count!(DistillPairs);

impl DistillPairs {
    /// Check the pairs against a student of `dim`-wide sentence vectors.
    ///
    /// # Errors
    /// [`Error::Input`] for no pairs, sides or rows of different counts, an empty sentence
    /// or a non-finite row; [`Error::Config`] for another width, `per_epoch == 0` or a bad
    /// ranking term.
    pub fn check(&self, dim: usize) -> Result<()> {
        let n = self.src.len();
        if n == 0 {
            return Err(Error::Input(
                "no distillation pairs (none given, or none with tokens on both sides)".into(),
            ));
        }
        if self.tgt.len() != n || self.src_rows.len() != n || self.tgt_rows.len() != n {
            return Err(Error::Input(format!(
                "distillation pairs: {n} source and {} target sentences, {} source and {} \
                 target teacher rows",
                self.tgt.len(),
                self.src_rows.len(),
                self.tgt_rows.len()
            )));
        }
        if let Some(k) = (0..n).find(|&k| self.src[k].is_empty() || self.tgt[k].is_empty()) {
            return Err(Error::Input(format!(
                "distillation pair {} has a side without tokens",
                k + 1
            )));
        }
        for (what, rows) in [("source", &self.src_rows), ("target", &self.tgt_rows)] {
            if rows.dim() != dim {
                return Err(Error::Config(format!(
                    "the teacher's {what} vectors of the distillation pairs have {} dimensions \
                     but the student's {dim}",
                    rows.dim()
                )));
            }
            rows.check_finite()?;
        }
        if self.per_epoch == 0 {
            return Err(Error::Config(
                "at least 1 distillation pair per epoch".into(),
            ));
        }
        if self.parallel > n {
            return Err(Error::Input(format!(
                "{} parallel distillation pairs of {n}",
                self.parallel
            )));
        }
        if let Some(r) = &self.ranking {
            r.check_in_batch("the distillation pairs' ranking term ranks each batch's pairs only")?;
        }
        Ok(())
    }

    /// The batches of one epoch: [`DistillPairs::per_epoch`] pairs drawn from `rng`, grouped
    /// by `batching` (cost: both lengths).
    pub(super) fn epoch(&self, batching: &Bucketing, rng: &mut Rng) -> Vec<Vec<usize>> {
        let picked = rng.sample_indices(self.len(), self.per_epoch.min(self.len()));
        let costs: Vec<usize> = picked
            .iter()
            .map(|&k| self.src[k].len() + self.tgt[k].len())
            .collect();
        batching
            .plan(&costs, Some(rng))
            .into_iter()
            .map(|b| b.into_iter().map(|i| picked[i]).collect())
            .collect()
    }

    /// `weight` times the mean cosine distance of the student's vectors of pairs `batch` to
    /// their teacher rows (both sides averaged), plus the weighted ranking term of
    /// [`DistillPairs::ranking`] when it has a weight and the batch two parallel pairs (the
    /// others take no part in it); dropout masks from `rng`.
    pub(super) fn loss(
        &self,
        model: &Aligner,
        batch: &[usize],
        weight: f64,
        rng: &mut Rng,
    ) -> Result<TrainLoss> {
        let src: Vec<&[u32]> = batch.iter().map(|&k| &self.src[k][..]).collect();
        let tgt: Vec<&[u32]> = batch.iter().map(|&k| &self.tgt[k][..]).collect();
        // The batch's positions of parallel pairs, which alone are ranked.
        let ranked: Vec<usize> = (0..batch.len())
            .filter(|&i| batch[i] < self.parallel)
            .collect();
        let ranking = self.ranking.filter(|r| r.weight > 0.0 && ranked.len() >= 2);
        let spare = ranking.is_some() && self.ranking_spares_words;
        let (s, t, deferred) = model.both_sides(&src, &tgt, Some(rng), spare)?;
        let a = gather(&self.src_rows, batch.iter().copied(), &s.vectors);
        let b = gather(&self.tgt_rows, batch.iter().copied(), &t.vectors);
        let d = (cosine_distance(s.vectors.clone(), a) + cosine_distance(t.vectors.clone(), b))
            .div_scalar(2.0);
        let mut value = d.mul_scalar(weight);
        if let Some(r) = ranking {
            // A sentence repeated in the batch is not a negative of its copies.
            let same = |i: usize, j: usize| {
                let (i, j) = (ranked[i], ranked[j]);
                i != j && (src[i] == src[j] || tgt[i] == tgt[j])
            };
            let (mut a, mut b) = (s.ranked.unwrap_or(s.vectors), t.ranked.unwrap_or(t.vectors));
            if ranked.len() < batch.len() {
                let rows = int1(&ranked, &a.device());
                (a, b) = (a.select(0, rows.clone()), b.select(0, rows));
            }
            let (l, _) = in_batch_ranking(a, b, r.scale, r.margin, same);
            value = value + l.mul_scalar(r.weight);
        }
        Ok(TrainLoss { value, deferred })
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
