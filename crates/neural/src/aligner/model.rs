//! The word-alignment network: one embedding table and one bidirectional encoder per language,
//! the alignment matrix `S(i, j) = h_i^src · h_j^tgt` of each pair with its log-sum-exp
//! aggregation, and the `semb` comparison head over the sentence vectors.

use bitext_core::Rng;
use bitext_encode::Side;
use burn::module::Module;
use burn::tensor::activation::softplus;
use burn::tensor::{Device, Tensor, TensorData};

use crate::aligner::AlignerConfig;
use crate::batch::PackedBatch;
use crate::distill::cosine_distance;
use crate::encoder::Pooling;
use crate::encoding::{by_side, check_ids, in_batch_ranking, with_bag};
use crate::error::{Error, Result};
use crate::init::int1;
use crate::layers::{Bag, Dense, Embedding};
use crate::ngrams::{HostEncoder, HostNgrams, Ngrams};
use crate::rnn::{BiRnn, BiRnnOutput};
use crate::train::TrainLoss;

use super::matrix::{MASKED, Side3, log_sum_exp, mask_values, sentence_shift};

/// The word-alignment BiLSTM (see the module docs of [`crate::aligner`]).
#[derive(Module, Debug)]
pub struct Aligner {
    /// Source word embeddings `[src_vocab, emb]`.
    pub src_embedding: Embedding,
    /// Target word embeddings `[tgt_vocab, emb]`.
    pub tgt_embedding: Embedding,
    /// The source encoder (`net_s`).
    pub src_encoder: BiRnn,
    /// The target encoder (`net_t`).
    pub tgt_encoder: BiRnn,
    /// `semb`: `W` `[2·dim, ff]` and `b` of `h3 = tanh(W[h1; h2] + b)`.
    pub matching: Dense,
    /// `semb`: `w` `[ff, 1]` and `b` of `h_sim = w·h3 + b`.
    pub output: Dense,
    /// The source encoder's bag of words (see [`AlignerConfig::bag`](crate::encoder::EncoderConfig::bag)).
    pub src_bag: Option<Bag>,
    /// The target encoder's bag of words.
    pub tgt_bag: Option<Bag>,
    /// The bags' own fixed table, shared by both sides (see [`AlignerConfig::bag_table`]).
    pub bag_table: Option<Embedding>,
    /// The source encoder's n-gram convolutions (see [`AlignerConfig::ngrams`](crate::encoder::EncoderConfig::ngrams)).
    pub src_ngrams: Option<Ngrams>,
    /// The target encoder's n-gram convolutions.
    pub tgt_ngrams: Option<Ngrams>,
    /// `a` `[1, 1]` and `c` of the sentence shift (see [`AlignerConfig::sentence_shift`]).
    pub shift: Option<Dense>,
    src_vocab: usize,
    tgt_vocab: usize,
    r: f64,
    words: bool,
    sentence: bool,
    pub(super) dropout: f64,
    pub(super) frozen_embeddings: bool,
    pub(super) split_sides: bool,
    ranking_weight: f64,
    ranking_scale: f64,
    ranking_margin: f64,
    pub(super) max_pool: bool,
}

/// One example with labels: `-1` for a parallel word (or pair), `+1` for a divergent one.
#[derive(Debug, Clone, Copy)]
pub struct LabeledRef<'a> {
    /// Source token ids.
    pub src: &'a [u32],
    /// Target token ids.
    pub tgt: &'a [u32],
    /// One label per source token.
    pub src_labels: &'a [f32],
    /// One label per target token.
    pub tgt_labels: &'a [f32],
    /// The pair's label.
    pub label: f32,
}

/// The loss of one batch and its parts.
#[derive(Debug)]
pub struct AlignerLoss {
    /// Word loss + sentence loss per example, to back-propagate.
    pub loss: TrainLoss,
    /// Word loss (eq. 3) summed over words, per example `[1]` (zero when not trained).
    pub words: Tensor<1>,
    /// Sentence loss (eq. 5) per example `[1]` (zero when not trained).
    pub sentence: Tensor<1>,
    /// The in-batch ranking loss of the parallel examples' sentence vectors `[1]`, unweighted
    /// (zero without [`AlignerConfig::ranking`], with a zero weight, or with fewer than two
    /// parallel examples).
    pub ranking: Tensor<1>,
    /// The distance to the teacher's vectors `[1]`, unweighted (zero without a teacher).
    pub distill: Tensor<1>,
}

impl Aligner {
    /// A freshly initialised network on `device`, drawn from `seed`.
    ///
    /// # Errors
    /// [`Error::Config`] for an invalid configuration.
    pub fn new(config: &AlignerConfig, seed: u64, device: &Device) -> Result<Self> {
        config.check()?;
        let mut rng = Rng::seed(seed).fork(0xa11);
        let encoder = &config.encoder;
        let (src_embedding, tgt_embedding) = encoder.init_side_tables(&mut rng, device);
        let (src_encoder, tgt_encoder) = encoder.init_side_encoders(&mut rng, device);
        let matching = Dense::new(2 * config.dim(), config.ff, &mut rng, device);
        let output = Dense::new(config.ff, 1, &mut rng, device);
        let src_ngrams = encoder.init_ngrams(&mut rng, device)?;
        let tgt_ngrams = encoder.init_ngrams(&mut rng, device)?;
        Ok(Self {
            src_bag: encoder.init_bag(config.src_vocab, device),
            src_ngrams,
            tgt_ngrams,
            tgt_bag: encoder.init_bag(config.tgt_vocab, device),
            bag_table: config
                .bag_table
                .then(|| Embedding::zeros(config.src_vocab, config.emb_dim, device)),
            shift: config.sentence_shift.then(|| Dense::zeros(1, 1, device)),
            src_embedding,
            tgt_embedding,
            src_encoder,
            tgt_encoder,
            matching,
            output,
            src_vocab: config.src_vocab,
            tgt_vocab: config.tgt_vocab,
            r: config.r,
            words: config.objective.words(),
            sentence: config.objective.sentence(),
            dropout: config.dropout,
            frozen_embeddings: config.frozen_embeddings,
            split_sides: true,
            ranking_weight: config.ranking.map_or(0.0, |r| r.weight),
            ranking_scale: config.ranking.map_or(0.0, |r| r.scale),
            ranking_margin: config.ranking.map_or(0.0, |r| r.margin),
            max_pool: config.pooling == Pooling::Max,
        })
    }

    /// The same network with both embedding tables replaced (row-major), e.g. from
    /// [`crate::pretrained`].
    ///
    /// # Errors
    /// [`Error::Config`] when a table has another size.
    pub fn with_embedding_tables(mut self, src: Vec<f32>, tgt: Vec<f32>) -> Result<Self> {
        self.src_embedding.set_table(src, "source")?;
        self.tgt_embedding.set_table(tgt, "target")?;
        Ok(self)
    }

    /// The same network with the bag-of-words weights of the source and target tables' rows
    /// replaced (see [`AlignerConfig::bag`](crate::encoder::EncoderConfig::bag)).
    ///
    /// # Errors
    /// [`Error::Config`] when the network has no bag of words, or for weights of another
    /// length or with a negative or non-finite value.
    pub fn with_bag_weights(mut self, src: Vec<f32>, tgt: Vec<f32>) -> Result<Self> {
        crate::layers::set_side_weights(
            self.src_bag.as_mut(),
            self.tgt_bag.as_mut(),
            (src, tgt),
            "an aligner",
        )?;
        Ok(self)
    }

    /// The same network with the bags' own table replaced (`[src_vocab, emb_dim]` row-major;
    /// see [`AlignerConfig::bag_table`]).
    ///
    /// # Errors
    /// [`Error::Config`] when the network's bags have no table of their own, or for a table of
    /// another size.
    pub fn with_bag_table(mut self, table: Vec<f32>) -> Result<Self> {
        let Some(own) = self.bag_table.as_mut() else {
            return Err(Error::Config(
                "a table for the bags of an aligner whose bags read the encoders' rows".into(),
            ));
        };
        own.set_table(table, "bag-of-words")?;
        Ok(self)
    }

    /// The same network, training its two encoders' backward passes one after the other in
    /// one autodiff graph (`false`) or each in its own graph, on two threads of the current
    /// pool (`true`, the default: see [`crate::train::split`]). Both give the same gradients.
    #[must_use]
    pub fn with_split_sides(mut self, split: bool) -> Self {
        self.split_sides = split;
        self
    }

    /// Sentence vector size: `2 × hidden`, or the embedding size with a bag of words.
    #[must_use]
    pub fn dim(&self) -> usize {
        match &self.src_bag {
            Some(bag) => bag.proj.dims()[1],
            None => 2 * self.src_encoder.d_hidden(),
        }
    }

    /// The aggregation's sharpness `r`.
    #[must_use]
    pub fn r(&self) -> f64 {
        self.r
    }

    /// Vocabulary size of `side`.
    #[must_use]
    pub fn vocab(&self, side: Side) -> usize {
        by_side(side, self.src_vocab, self.tgt_vocab)
    }

    pub(super) fn parts(&self, side: Side) -> (&Embedding, &BiRnn, Option<&Bag>, Option<&Ngrams>) {
        match side {
            Side::Source => (
                &self.src_embedding,
                &self.src_encoder,
                self.src_bag.as_ref(),
                self.src_ngrams.as_ref(),
            ),
            Side::Target => (
                &self.tgt_embedding,
                &self.tgt_encoder,
                self.tgt_bag.as_ref(),
                self.tgt_ngrams.as_ref(),
            ),
        }
    }

    /// The recurrence and n-gram convolutions of `side` prepared for inference on the host.
    pub(crate) fn host(&self, side: Side) -> HostEncoder {
        let (_, rnn, _, ngrams) = self.parts(side);
        HostEncoder::new(rnn, ngrams)
    }

    pub(super) fn check_ids(&self, seqs: &[&[u32]], side: Side) -> Result<()> {
        check_ids(seqs, self.vocab(side), side)
    }

    /// Sentence vectors `[n, dim]` of sentences of `side` (rows in input order): the forward
    /// state after the last word and the backward state after the first (or their maximum over
    /// positions) and any n-gram features, added through `P` to the bag of words when the
    /// network has one.
    ///
    /// # Errors
    /// [`Error::Input`] for an empty batch, an empty sentence or an id outside the vocabulary.
    pub fn encode(&self, seqs: &[&[u32]], side: Side) -> Result<Tensor<2>> {
        self.encode_with(seqs, side, None)
    }

    /// [`Aligner::encode`] with a prepared host recurrence of that side's encoder.
    pub(crate) fn encode_with(
        &self,
        seqs: &[&[u32]],
        side: Side,
        host: Option<&mut HostEncoder>,
    ) -> Result<Tensor<2>> {
        self.check_ids(seqs, side)?;
        let (emb, rnn, bag, _) = self.parts(side);
        let batch = PackedBatch::new(seqs)?;
        let x = emb.lookup(&batch)?;
        let keep = self.max_pool;
        let (rnn_host, ngrams_host) = match host {
            Some(h) => (h.rnn.as_mut(), h.ngrams.as_mut()),
            None => (None, None),
        };
        let ids = Some(batch.ids());
        let out = rnn.forward_with(rnn_host, x.clone(), ids, batch.batch_sizes(), keep);
        let device = out.last.device();
        let own = self.bag_rows(&batch)?;
        let pooled = self.pooled(&out);
        let pooled = self.with_ngrams(side, pooled, (&x, &own), &batch, (true, false), ngrams_host);
        let (v, _) = with_bag(bag, pooled, (x, own), &batch, None, self.frozen_embeddings);
        Ok(v.select(0, int1(batch.position(), &device)))
    }

    /// The packed tokens' rows of the bags' own table, as constants (`None` without one).
    pub(super) fn bag_rows(&self, batch: &PackedBatch) -> Result<Option<Tensor<2>>> {
        self.bag_table
            .as_ref()
            .map(|t| t.lookup_constant(batch))
            .transpose()
    }

    /// `pooled` with `side`'s n-gram features beside it (itself without convolutions), over
    /// the bags' own rows `own` when the network has them, else the encoder's rows `x`; `flags`
    /// and `host` as [`Ngrams::beside`]'s.
    pub(super) fn with_ngrams(
        &self,
        side: Side,
        pooled: Tensor<2>,
        (x, own): (&Tensor<2>, &Option<Tensor<2>>),
        batch: &PackedBatch,
        flags: (bool, bool),
        host: Option<&mut HostNgrams>,
    ) -> Tensor<2> {
        match self.parts(side).3 {
            Some(ng) => ng.beside(
                pooled,
                own.as_ref().unwrap_or(x).clone(),
                batch,
                flags,
                host,
            ),
            None => pooled,
        }
    }

    /// The sentence vectors of a pass (packed order): the final states, or with max pooling
    /// the maximum of the per-step states.
    pub(super) fn pooled(&self, out: &BiRnnOutput) -> Tensor<2> {
        if self.max_pool {
            out.max_pool()
        } else {
            out.last.clone()
        }
    }

    /// Alignment matrices `[B, I, J]` (with the sentence shift when the network has one) and
    /// the aggregates `aggr_s` `[B, I]`, `aggr_t` `[B, J]` (padding positions hold
    /// meaningless values; mask them).
    pub(super) fn align(&self, s: &Side3, t: &Side3) -> (Tensor<3>, Tensor<2>, Tensor<2>) {
        let device = s.states.device();
        let [b, i, _] = s.states.dims();
        let j = t.states.dims()[1];
        let mut scores = s.states.clone().matmul(t.states.clone().swap_dims(1, 2));
        if let Some(shift) = &self.shift {
            scores = scores + sentence_shift(shift, s.vectors.clone(), t.vectors.clone());
        }
        let bias = |lengths: &[usize], n: usize, shape: [usize; 3]| {
            Tensor::<3>::from_data(
                TensorData::new(mask_values(lengths, n, 0.0, MASKED), shape),
                &device,
            )
        };
        let over_j = scores.clone() + bias(&t.lengths, j, [b, 1, j]);
        let over_i = scores.clone() + bias(&s.lengths, i, [b, i, 1]);
        let aggr_s = log_sum_exp(over_j, 2, self.r).reshape([b, i]);
        let aggr_t = log_sum_exp(over_i, 1, self.r).reshape([b, j]);
        (scores, aggr_s, aggr_t)
    }

    /// `semb`'s `h_sim` `[B]` for sentence vectors `a`, `b` `[B, dim]`.
    #[must_use]
    pub fn head(&self, a: Tensor<2>, b: Tensor<2>) -> Tensor<1> {
        let h1 = a.clone() * b.clone();
        let h2 = (a - b).abs();
        let h3 = self.matching.forward(Tensor::cat(vec![h1, h2], 1)).tanh();
        let [n, _] = h3.dims();
        self.output.forward(h3).reshape([n])
    }

    /// The training loss of a batch: eq. 3 summed over each example's words and eq. 5, both
    /// averaged over the examples, for the parts the objective names; plus, when
    /// [`AlignerConfig::ranking`] has a weight, that weight times the in-batch ranking loss of
    /// the parallel examples' sentence vectors. Dropout masks come from
    /// `rng`. On an autodiff device the embedding and input-projection gradients are deferred.
    ///
    /// # Errors
    /// [`Error::Input`] for an empty batch or sentence, an id outside a vocabulary, or labels
    /// that do not match the sentences.
    pub fn loss(&self, batch: &[LabeledRef<'_>], rng: Option<&mut Rng>) -> Result<AlignerLoss> {
        self.loss_distilled(batch, rng, None)
    }

    /// [`Aligner::loss`] plus, with `teacher = (rows, weight)`, `weight` times the distance
    /// of both sentence vectors of the batch's parallel examples to the teacher's (one row per
    /// parallel example, in batch order; [`crate::distill`]).
    ///
    /// # Errors
    /// As [`Aligner::loss`]; [`Error::Input`] when `rows` has another number of rows.
    pub fn loss_distilled(
        &self,
        batch: &[LabeledRef<'_>],
        rng: Option<&mut Rng>,
        teacher: Option<(Tensor<2>, f64)>,
    ) -> Result<AlignerLoss> {
        for (k, ex) in batch.iter().enumerate() {
            if ex.src_labels.len() != ex.src.len() || ex.tgt_labels.len() != ex.tgt.len() {
                return Err(Error::Input(format!(
                    "example {k} has {}/{} labels for {}/{} tokens",
                    ex.src_labels.len(),
                    ex.tgt_labels.len(),
                    ex.src.len(),
                    ex.tgt.len()
                )));
            }
        }
        let src: Vec<&[u32]> = batch.iter().map(|e| e.src).collect();
        let tgt: Vec<&[u32]> = batch.iter().map(|e| e.tgt).collect();
        let (s, t, stages) = self.both_sides(&src, &tgt, rng, false)?;
        let device = s.vectors.device();
        let n = batch.len();
        let zero = || Tensor::<1>::zeros([1], &device);
        let mut total = zero();
        let words = if self.words {
            let (_, aggr_s, aggr_t) = self.align(&s, &t);
            let labels = |side_len: usize, source: bool| {
                let mut y = Vec::with_capacity(n * side_len);
                for e in batch {
                    let l = if source { e.src_labels } else { e.tgt_labels };
                    y.extend((0..side_len).map(|k| l.get(k).copied().unwrap_or(0.0)));
                }
                Tensor::<2>::from_data(TensorData::new(y, [n, side_len]), &device)
            };
            let valid = |lengths: &[usize], len: usize| {
                Tensor::<2>::from_data(
                    TensorData::new(mask_values(lengths, len, 1.0, 0.0), [n, len]),
                    &device,
                )
            };
            let (i, j) = (aggr_s.dims()[1], aggr_t.dims()[1]);
            let ls = softplus(aggr_s * labels(i, true), 1.0) * valid(&s.lengths, i);
            let lt = softplus(aggr_t * labels(j, false), 1.0) * valid(&t.lengths, j);
            let w = (ls.sum() + lt.sum()).div_scalar(n as f64);
            total = total + w.clone();
            w
        } else {
            zero()
        };
        let sentence = if self.sentence {
            let y: Vec<f32> = batch.iter().map(|e| e.label).collect();
            let y = Tensor::<1>::from_data(TensorData::new(y, [n]), &device);
            let l = softplus(self.head(s.vectors.clone(), t.vectors.clone()) * y, 1.0).mean();
            total = total + l.clone();
            l
        } else {
            zero()
        };
        // The ranking term over the parallel examples (label −1), each against the batch's
        // other parallel sentences; a repeated sentence is not a negative of its copies.
        let parallel: Vec<usize> = (0..n).filter(|&k| batch[k].label < 0.0).collect();
        let ranking = if self.ranking_weight > 0.0 && parallel.len() >= 2 {
            let idx = int1(&parallel, &device);
            let (a, b) = (
                s.vectors.clone().select(0, idx.clone()),
                t.vectors.clone().select(0, idx),
            );
            let same = |i: usize, j: usize| {
                let (x, y) = (&batch[parallel[i]], &batch[parallel[j]]);
                i != j && (x.src == y.src || x.tgt == y.tgt)
            };
            let (l, _) = in_batch_ranking(a, b, self.ranking_scale, self.ranking_margin, same);
            total = total + l.clone().mul_scalar(self.ranking_weight);
            l
        } else {
            zero()
        };
        let distill = match teacher {
            Some((rows, _)) if rows.dims()[0] != parallel.len() => {
                return Err(Error::Input(format!(
                    "{} teacher rows for {} parallel examples",
                    rows.dims()[0],
                    parallel.len()
                )));
            }
            Some((rows, weight)) if !parallel.is_empty() => {
                let idx = int1(&parallel, &device);
                let (a, b) = (s.vectors.select(0, idx.clone()), t.vectors.select(0, idx));
                let d =
                    (cosine_distance(a, rows.clone()) + cosine_distance(b, rows)).div_scalar(2.0);
                total = total + d.clone().mul_scalar(weight);
                d
            }
            _ => zero(),
        };
        Ok(AlignerLoss {
            loss: TrainLoss {
                value: total,
                deferred: stages,
            },
            words,
            sentence,
            ranking,
            distill,
        })
    }
}
