//! A second stream of pairs that trains only the aligner's sentence vectors towards a
//! teacher's ([`crate::distill`]): each sentence of such a pair is encoded alone and pulled
//! towards its teacher row, with no synthetic example and no word label drawn from it. The
//! word examples can then stay on the text whose words the aligner is to label (news), while
//! the sentence vectors also learn from text of other registers and languages (software
//! strings, dialogue, French) that would dilute the word task. Optionally the two sides of
//! each batch are also ranked against each other ([`DistillText::ranking`]): the pull towards
//! the teacher says where a sentence's vector should lie, the in-batch ranking that it should
//! lie nearer its translation's than the batch's other sentences' (the siamese student's
//! ranking loss over its pairs, which reach French the same way).

use bitext_core::{Embeddings, Rng};

use crate::aligner::Aligner;
use crate::aligner::text::tokenize_pairs;
use crate::batch::Bucketing;
use crate::distill::{cosine_distance, gather};
use crate::encoding::{RankingTerm, in_batch_ranking};
use crate::error::{Error, Result};
use crate::text::TextCodec;
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
    pub src_rows: &'a Embeddings,
    /// The vector each target sentence is pulled towards (the same rows as `src_rows` where
    /// both sentences of a pair go towards one vector: no copy is needed).
    pub tgt_rows: &'a Embeddings,
    /// Pairs drawn for every epoch.
    pub per_epoch: usize,
    /// The in-batch ranking loss of each batch's source vectors against its target vectors,
    /// beside the pull towards the teacher ([`DistillPairs::ranking`]); `None`: the pull
    /// alone.
    pub ranking: Option<RankingTerm>,
    /// Whether the ranking term's gradient stops at the pooled word states
    /// ([`DistillPairs::ranking_spares_words`]).
    pub ranking_spares_words: bool,
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
        let (src, tgt, _, _, kept, truncated) = tokenize_pairs(codec, self.src, self.tgt, max_len)?;
        let keep = |e: &Embeddings| {
            Embeddings::from_rows(kept.iter().map(|&k| e.row(k)), e.dim()).map_err(Error::Core)
        };
        let pairs = DistillPairs {
            src,
            tgt,
            src_rows: keep(self.src_rows)?,
            tgt_rows: keep(self.tgt_rows)?,
            per_epoch: self.per_epoch,
            ranking: self.ranking,
            ranking_spares_words: self.ranking_spares_words,
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
    /// The vector each source sentence is pulled towards, one row per pair.
    pub src_rows: Embeddings,
    /// The vector each target sentence is pulled towards, one row per pair.
    pub tgt_rows: Embeddings,
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
}

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
            rows.check_finite().map_err(Error::Core)?;
        }
        if self.per_epoch == 0 {
            return Err(Error::Config(
                "at least 1 distillation pair per epoch".into(),
            ));
        }
        if let Some(r) = &self.ranking {
            r.check()?;
            if r.pairs != 0 {
                return Err(Error::Config(format!(
                    "the distillation pairs' ranking term ranks each batch's pairs only: pairs \
                     must be 0, got {}",
                    r.pairs
                )));
            }
        }
        Ok(())
    }

    /// The number of pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether there are no pairs.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
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
    /// [`DistillPairs::ranking`] when it has a weight and the batch two pairs; dropout masks
    /// from `rng`.
    pub(super) fn loss(
        &self,
        model: &Aligner,
        batch: &[usize],
        weight: f64,
        rng: &mut Rng,
    ) -> Result<TrainLoss> {
        let src: Vec<&[u32]> = batch.iter().map(|&k| &self.src[k][..]).collect();
        let tgt: Vec<&[u32]> = batch.iter().map(|&k| &self.tgt[k][..]).collect();
        let ranking = self.ranking.filter(|r| r.weight > 0.0 && batch.len() >= 2);
        let spare = ranking.is_some() && self.ranking_spares_words;
        let (s, t, deferred) = model.both_sides(&src, &tgt, Some(rng), spare)?;
        let a = gather(&self.src_rows, batch.iter().copied(), &s.vectors);
        let b = gather(&self.tgt_rows, batch.iter().copied(), &t.vectors);
        let d = (cosine_distance(s.vectors.clone(), a) + cosine_distance(t.vectors.clone(), b))
            .div_scalar(2.0);
        let mut value = d.mul_scalar(weight);
        if let Some(r) = ranking {
            // A sentence repeated in the batch is not a negative of its copies.
            let same = |i: usize, j: usize| i != j && (src[i] == src[j] || tgt[i] == tgt[j]);
            let (a, b) = (s.ranked.unwrap_or(s.vectors), t.ranked.unwrap_or(t.vectors));
            let (l, _) = in_batch_ranking(a, b, r.scale, r.margin, same);
            value = value + l.mul_scalar(r.weight);
        }
        Ok(TrainLoss { value, deferred })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aligner::{AlignerConfig, Objective};
    use crate::init::to_host1;
    use crate::siamese::Pooling;
    use bitext_encode::Side;
    use burn::tensor::Device;

    fn ranking(weight: f64) -> RankingTerm {
        RankingTerm {
            weight,
            scale: 7.0,
            margin: 0.3,
            pairs: 0,
        }
    }

    fn pairs(n: usize, per_epoch: usize) -> DistillPairs {
        let rows = Embeddings::from_rows((0..n).map(|k| [k as f32 + 1.0, 1.0]), 2).unwrap();
        DistillPairs {
            src: (0..n).map(|k| vec![1; 1 + k % 5]).collect(),
            tgt: (0..n).map(|k| vec![2; 1 + k % 3]).collect(),
            src_rows: rows.clone(),
            tgt_rows: rows,
            per_epoch,
            ranking: None,
            ranking_spares_words: false,
        }
    }

    /// An epoch draws `per_epoch` distinct pairs (all when there are fewer), each in one
    /// batch, and another draw next time.
    #[test]
    fn an_epoch_draws_distinct_pairs_into_batches() {
        let batching = Bucketing {
            max_items: 4,
            max_tokens: 40,
        };
        let mut rng = Rng::seed(3);
        let p = pairs(50, 20);
        let draw = |rng: &mut Rng| {
            let batches = p.epoch(&batching, rng);
            assert!(batches.iter().all(|b| !b.is_empty() && b.len() <= 4));
            let mut all: Vec<usize> = batches.concat();
            all.sort_unstable();
            all
        };
        let (a, b) = (draw(&mut rng), draw(&mut rng));
        for d in [&a, &b] {
            assert_eq!(d.len(), 20);
            assert!(d.windows(2).all(|w| w[0] < w[1]) && d[19] < 50, "{d:?}");
        }
        assert_ne!(a, b);
        let few = pairs(7, 20);
        let mut all = few.epoch(&batching, &mut rng).concat();
        all.sort_unstable();
        assert_eq!(all, (0..7).collect::<Vec<_>>());
    }

    /// Mismatched counts, an empty side, another width, a non-finite row and no pairs per
    /// epoch are errors that say which.
    #[test]
    fn bad_pairs_are_errors_naming_the_fault() {
        assert!(pairs(5, 2).check(2).is_ok());
        let mut p = pairs(5, 2);
        p.tgt.pop();
        let cases: Vec<(DistillPairs, usize, &str)> = vec![
            (p, 2, "4 target sentences"),
            (
                DistillPairs {
                    src: vec![vec![1], vec![]],
                    ..pairs(2, 1)
                },
                2,
                "pair 2 has a side without tokens",
            ),
            (pairs(5, 2), 3, "2 dimensions but the student's 3"),
            (
                DistillPairs {
                    tgt_rows: Embeddings::from_rows([[f32::NAN, 0.0]], 2).unwrap(),
                    ..pairs(1, 1)
                },
                2,
                "",
            ),
            (pairs(5, 0), 2, "per epoch"),
            (pairs(0, 1), 2, "no distillation pairs"),
            (
                DistillPairs {
                    ranking: Some(RankingTerm {
                        pairs: 64,
                        ..ranking(1.0)
                    }),
                    ..pairs(5, 2)
                },
                2,
                "pairs must be 0, got 64",
            ),
            (
                DistillPairs {
                    ranking: Some(RankingTerm {
                        scale: 0.0,
                        ..ranking(1.0)
                    }),
                    ..pairs(5, 2)
                },
                2,
                "positive finite scale",
            ),
        ];
        for (p, dim, want) in cases {
            let e = p.check(dim).unwrap_err().to_string();
            assert!(e.contains(want), "{want}: {e}");
        }
    }

    /// The in-batch ranking loss by its definition, on host vectors: the mean over pairs of
    /// the cross-entropies of row `i` and column `i` of `scale·(S − margin·I)`, with the
    /// entries `same` names left out.
    fn ranking_reference(
        a: &Embeddings,
        b: &Embeddings,
        r: &RankingTerm,
        same: impl Fn(usize, usize) -> bool,
    ) -> f64 {
        let n = a.len();
        let logit = |i: usize, j: usize| {
            let c = f64::from(bitext_similarity::cosine(a.row(i), b.row(j)));
            r.scale * (c - if i == j { r.margin } else { 0.0 })
        };
        let xent = |i: usize, row: bool| {
            let at = |j: usize| if row { logit(i, j) } else { logit(j, i) };
            let lse = (0..n)
                .filter(|&j| j == i || !same(i, j))
                .map(|j| at(j).exp())
                .sum::<f64>()
                .ln();
            lse - at(i)
        };
        (0..n).map(|i| xent(i, true) + xent(i, false)).sum::<f64>() / (2.0 * n as f64)
    }

    /// With a ranking term, a batch's loss is the teacher's weighted distance plus the term's
    /// weight times the in-batch ranking of its source against its target vectors, pairs that
    /// repeat a sentence not counted as each other's negatives; a batch of one pair has no
    /// ranking term.
    #[test]
    fn the_ranking_term_adds_the_batchs_in_batch_ranking_to_the_pull() {
        let config = AlignerConfig {
            emb_dim: 6,
            hidden: 5,
            ff: 4,
            objective: Objective::Words,
            pooling: Pooling::Max,
            bag: true,
            bag_map: true,
            ..AlignerConfig::paper(12, 12)
        };
        let model = Aligner::new(&config, 5, &Device::flex()).unwrap();
        // Pairs 0 and 3 share their source sentence, 1 and 4 their target sentence.
        let src: Vec<Vec<u32>> = vec![
            vec![1, 2, 3],
            vec![4, 5],
            vec![6, 7, 8],
            vec![1, 2, 3],
            vec![9],
        ];
        let tgt: Vec<Vec<u32>> = vec![
            vec![2, 9],
            vec![3, 4, 5],
            vec![10, 11],
            vec![7],
            vec![3, 4, 5],
        ];
        let dim = model.dim();
        let mut rng = Rng::seed(8);
        let rows = Embeddings::from_rows(
            (0..src.len()).map(|_| (0..dim).map(|_| rng.normal() as f32).collect::<Vec<_>>()),
            dim,
        )
        .unwrap();
        let mut p = DistillPairs {
            src: src.clone(),
            tgt: tgt.clone(),
            src_rows: rows.clone(),
            tgt_rows: rows,
            per_epoch: 5,
            ranking: None,
            ranking_spares_words: false,
        };
        let batch = [0, 1, 2, 3, 4];
        let value = |p: &DistillPairs, batch: &[usize]| {
            let l = p.loss(&model, batch, 2.0, &mut Rng::seed(1)).unwrap();
            f64::from(to_host1(l.value).unwrap()[0])
        };
        let pull = value(&p, &batch);
        let r = ranking(1.5);
        p.ranking = Some(r);
        let with = value(&p, &batch);
        fn seqs(s: &[Vec<u32>]) -> Vec<&[u32]> {
            s.iter().map(|x| &x[..]).collect()
        }
        let bucketing = Bucketing::default();
        let a = model
            .encode_all(&seqs(&src), Side::Source, &bucketing)
            .unwrap();
        let b = model
            .encode_all(&seqs(&tgt), Side::Target, &bucketing)
            .unwrap();
        let same = |i: usize, j: usize| i != j && (src[i] == src[j] || tgt[i] == tgt[j]);
        let want = ranking_reference(&a, &b, &r, same);
        assert!(want > 0.1, "{want}");
        let got = (with - pull) / r.weight;
        assert!((got - want).abs() < 1e-4, "{got} vs {want}");
        // Counting the repeats as negatives would give another loss.
        let all = ranking_reference(&a, &b, &r, |_, _| false);
        assert!((all - want).abs() > 1e-3, "{all} vs {want}");
        // One pair: nothing to rank against.
        p.ranking = None;
        let one = value(&p, &[2]);
        p.ranking = Some(r);
        assert!((value(&p, &[2]) - one).abs() < 1e-6);
    }

    /// Every float parameter's gradient of `grads` in `module`, in visiting order.
    fn grads_of<M: burn::module::Module>(
        module: &M,
        grads: &burn::optim::GradientsParams,
    ) -> Vec<Vec<f32>> {
        crate::train::grads_of(module, grads)
            .into_iter()
            .map(|(_, g)| g)
            .collect()
    }

    fn max_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .map(|(x, y)| {
                assert_eq!(x.len(), y.len(), "a gradient missing on one side");
                x.iter()
                    .zip(y)
                    .map(|(p, q)| (p - q).abs())
                    .fold(0f32, f32::max)
            })
            .fold(0f32, f32::max)
    }

    /// A ranking term that spares the word states has the full term's value, gives the bags
    /// (their weights, maps and `P`) and the n-gram convolutions the full term's gradient, and
    /// leaves the recurrent encoders the gradient of the pull alone, with the sides split on
    /// two threads or in one graph; a network without a bag refuses it.
    #[test]
    fn a_ranking_term_that_spares_the_words_leaves_the_encoders_to_the_pull() {
        use bitext_core::Rng as R;
        use burn::module::Param;
        use burn::tensor::{Tensor, TensorData};
        let config = AlignerConfig {
            emb_dim: 6,
            hidden: 5,
            ff: 4,
            objective: Objective::Words,
            pooling: Pooling::Max,
            bag: true,
            bag_map: true,
            ngrams: crate::ngrams::NgramOrders::new(&[1, 2]).unwrap(),
            ngram_channels: 3,
            frozen_embeddings: true,
            ..AlignerConfig::paper(12, 12)
        };
        let device = Device::flex().autodiff();
        let mut model = Aligner::new(&config, 5, &device).unwrap();
        // P starts at zero, which would hide any gradient through it: draw it.
        let mut rng = R::seed(4);
        for bag in [model.src_bag.as_mut(), model.tgt_bag.as_mut()]
            .into_iter()
            .flatten()
        {
            let [h, d] = bag.proj.dims();
            let v: Vec<f32> = (0..h * d).map(|_| rng.normal() as f32).collect();
            bag.proj = Param::from_tensor(Tensor::from_data(TensorData::new(v, [h, d]), &device));
        }
        let src: Vec<Vec<u32>> = vec![vec![1, 2, 3], vec![4, 5], vec![6, 7, 8, 2], vec![9]];
        let tgt: Vec<Vec<u32>> = vec![vec![2, 9], vec![3, 4, 5], vec![10, 11], vec![7, 1]];
        let dim = model.dim();
        let rows = Embeddings::from_rows(
            (0..src.len()).map(|_| (0..dim).map(|_| rng.normal() as f32).collect::<Vec<_>>()),
            dim,
        )
        .unwrap();
        let base = DistillPairs {
            src,
            tgt,
            src_rows: rows.clone(),
            tgt_rows: rows,
            per_epoch: 4,
            ranking: None,
            ranking_spares_words: false,
        };
        let batch = [0, 1, 2, 3];
        for split in [true, false] {
            let model = model.clone().with_split_sides(split);
            let run = |ranking: Option<RankingTerm>, spare: bool| {
                let p = DistillPairs {
                    ranking,
                    ranking_spares_words: spare,
                    ..base.clone()
                };
                let l = p.loss(&model, &batch, 2.0, &mut Rng::seed(1)).unwrap();
                let value = l.value.clone().into_data().try_into_vec::<f32>().unwrap()[0];
                let g = crate::train::backward(&model, l).unwrap();
                let encoders = [&model.src_encoder, &model.tgt_encoder]
                    .map(|e| grads_of(e, &g))
                    .concat();
                let mut sentence = Vec::new();
                for bag in [&model.src_bag, &model.tgt_bag].into_iter().flatten() {
                    sentence.extend(grads_of(bag, &g));
                }
                for ng in [&model.src_ngrams, &model.tgt_ngrams].into_iter().flatten() {
                    sentence.extend(grads_of(ng, &g));
                }
                (value, encoders, sentence)
            };
            let r = Some(ranking(1.5));
            let (v0, enc0, sent0) = run(None, false);
            let (v1, enc1, sent1) = run(r, false);
            let (v2, enc2, sent2) = run(r, true);
            assert!(
                (v1 - v0).abs() > 0.01,
                "{split}: the term adds nothing: {v0} {v1}"
            );
            assert!((v2 - v1).abs() < 1e-5, "{split}: {v2} vs {v1}");
            assert!(
                enc0.iter().all(|g| !g.is_empty()),
                "{split}: an encoder has no gradient"
            );
            assert!(
                max_diff(&enc1, &enc0) > 1e-4,
                "{split}: the full term misses the encoders"
            );
            let d = max_diff(&enc2, &enc0);
            assert!(
                d < 1e-6,
                "{split}: the spared encoders' gradient moved by {d}"
            );
            assert!(max_diff(&sent1, &sent0) > 1e-4, "{split}");
            let d = max_diff(&sent2, &sent1);
            assert!(
                d < 1e-5,
                "{split}: the bags' gradient differs from the full term's by {d}"
            );
            // A batch of one pair has no term, so nothing to spare.
            let p = DistillPairs {
                ranking: r,
                ranking_spares_words: true,
                ..base.clone()
            };
            assert!(p.loss(&model, &[1], 2.0, &mut Rng::seed(1)).is_ok());
        }
        let plain = Aligner::new(
            &AlignerConfig {
                bag: false,
                bag_map: false,
                ngrams: crate::ngrams::NgramOrders::default(),
                ngram_channels: 0,
                ..config
            },
            5,
            &device,
        )
        .unwrap();
        let p = DistillPairs {
            ranking: Some(ranking(1.0)),
            ranking_spares_words: true,
            ..base
        };
        let e = p.loss(&plain, &batch, 2.0, &mut Rng::seed(1)).unwrap_err();
        assert!(e.to_string().contains("needs a bag"), "{e}");
    }
}
