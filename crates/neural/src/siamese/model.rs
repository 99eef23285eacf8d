//! The siamese BiRNN network: a tied-weight bidirectional encoder and the matching head
//! `h = tanh(W1 (hS ⊙ hT) + W2 |hS − hT| + b)`, `p = σ(W3 h + c)`.

use bitext_core::Rng;
use bitext_encode::Side;
use burn::module::Module;
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor};

use crate::batch::PackedBatch;
use crate::encoding::{by_side, check_ids, in_batch_ranking, with_bag};
use crate::error::{Error, Result};
use crate::init::{int1, to_host2};
use crate::layers::{Bag, Dense, Embedding, bce_with_logits, dropout};
use crate::ngrams::{HostEncoder, Ngrams};
use crate::rnn::BiRnn;
use crate::siamese::{Pooling, SiameseConfig};
use crate::train::split::{Cut, fresh_leaves, parallel_stage};
use crate::train::{Deferred, TrainLoss};
use rayon::prelude::*;

/// The siamese classifier. Both languages share the recurrent encoder; each has its own rows
/// of the embedding table unless the configuration shares them.
#[derive(Module, Debug)]
pub struct Siamese {
    /// Word embeddings: the source table, then (when not shared) the target table.
    pub embedding: Embedding,
    /// The shared bidirectional encoder.
    pub rnn: BiRnn,
    /// `[W1; W2]` `[4·hidden, ff]` applied to `[hS ⊙ hT ; |hS − hT|]`, with `b`.
    pub matching: Dense,
    /// `W3` `[ff, 1]` and `c`.
    pub output: Dense,
    /// The bag of words the sentence vector adds (see [`SiameseConfig::bag`](crate::encoder::EncoderConfig::bag)).
    pub bag: Option<Bag>,
    /// N-gram convolutions beside the recurrence (see [`SiameseConfig::ngrams`](crate::encoder::EncoderConfig::ngrams)).
    pub ngrams: Option<Ngrams>,
    max_pool: bool,
    src_vocab: usize,
    tgt_vocab: usize,
    tgt_offset: usize,
    dropout_input: f64,
    dropout_output: f64,
    frozen_embeddings: bool,
    chunks: usize,
}

/// The fewest sentences a piece of a split training batch holds ([`Siamese::with_chunks`]).
pub(crate) const MIN_CHUNK: usize = 16;

/// The most pieces `with_chunks(0)` cuts a batch into, whatever the threads: on 16 cores
/// (docs/BENCHMARKS.md), 8 pieces trained 869–907 pairs/s, 16 pieces 613–688, 4 pieces 770.
const MAX_AUTO_CHUNKS: usize = 8;

impl Siamese {
    /// A freshly initialised network on `device`, drawn from `seed`.
    ///
    /// # Errors
    /// [`Error::Config`] for an invalid configuration.
    pub fn new(config: &SiameseConfig, seed: u64, device: &Device) -> Result<Self> {
        config.check()?;
        let mut rng = Rng::seed(seed).fork(0x5137);
        let encoder = &config.encoder;
        let embedding = encoder.init_table(config.table_rows(), &mut rng, device);
        let rnn = encoder.rnn().init(&mut rng, device);
        let matching = Dense::new(2 * config.dim(), config.ff, &mut rng, device);
        let output = Dense::new(config.ff, 1, &mut rng, device);
        let bag =
            encoder
                .init_bag(config.table_rows(), device)
                .map(|bag| match config.bag_hidden {
                    0 => bag,
                    h => bag.with_hidden(h, &mut rng),
                });
        let ngrams = encoder.init_ngrams(&mut rng, device)?;
        let (tgt_vocab, tgt_offset) = if config.shared_embeddings {
            (config.src_vocab, 0)
        } else {
            (config.tgt_vocab, config.src_vocab)
        };
        Ok(Self {
            embedding,
            rnn,
            matching,
            output,
            bag,
            ngrams,
            max_pool: config.pooling == Pooling::Max,
            src_vocab: config.src_vocab,
            tgt_vocab,
            tgt_offset,
            dropout_input: config.dropout_input,
            dropout_output: config.dropout_output,
            frozen_embeddings: config.frozen_embeddings,
            chunks: 1,
        })
    }

    /// The same network with its embedding table replaced by `table` (`[rows, emb_dim]`
    /// row-major, e.g. from [`crate::pretrained::table_from_vectors`]).
    ///
    /// # Errors
    /// [`Error::Config`] when `table` has another size than the embedding table.
    pub fn with_embedding_table(mut self, table: Vec<f32>) -> Result<Self> {
        self.embedding.set_table(table, "siamese")?;
        Ok(self)
    }

    /// The same network with the bag-of-words weights of the table rows replaced by
    /// `weights` (see [`SiameseConfig::bag`](crate::encoder::EncoderConfig::bag); e.g. IDF over the training text, zero for rows
    /// that did not come from the vectors).
    ///
    /// # Errors
    /// [`Error::Config`] when the network has no bag of words, or for a weight vector of
    /// another length or with a negative or non-finite value.
    pub fn with_bag_weights(mut self, weights: Vec<f32>) -> Result<Self> {
        match &mut self.bag {
            Some(bag) => bag.set_weights(weights)?,
            None => {
                return Err(Error::Config(
                    "bag-of-words weights for a siamese network without a bag of words".into(),
                ));
            }
        }
        Ok(self)
    }

    /// Sentence vector size (`2 × hidden`, or the embedding size with a bag of words).
    #[must_use]
    pub fn dim(&self) -> usize {
        match &self.bag {
            Some(_) => self.embedding.dim(),
            None => 2 * self.rnn.d_hidden(),
        }
    }

    fn check_ids(&self, seqs: &[&[u32]], side: Side) -> Result<()> {
        check_ids(seqs, by_side(side, self.src_vocab, self.tgt_vocab), side)
    }

    /// Token ids of `side` as rows of the embedding table.
    fn table_ids(&self, seqs: &[&[u32]], side: Side) -> Vec<Vec<u32>> {
        let off = by_side(side, 0, self.tgt_offset as u32);
        seqs.iter()
            .map(|s| s.iter().map(|&id| id + off).collect())
            .collect()
    }

    /// Encode a packed batch: `[B, dim]` rows in the caller's order. Dropout applies when
    /// `rng` is given (training). With `deferred` (on an autodiff device), the embedding and
    /// input-projection gradients come from the returned stage. `host`, when given, runs the
    /// recurrence and, without dropout, the n-gram convolutions (inference on the CPU, reused
    /// across batches).
    fn encode_packed(
        &self,
        batch: &PackedBatch,
        mut rng: Option<&mut Rng>,
        deferred: bool,
        mut host: Option<&mut HostEncoder>,
    ) -> Result<(Tensor<2>, Option<Deferred>)> {
        let keep = self.max_pool;
        // Without dropout (inference), rows of one id are equal: projections by id.
        let by_id = rng.is_none();
        let (x, out, stage) = if deferred {
            let (x, eg) =
                self.embedding
                    .lookup_deferred(batch, self.dropout_input, rng.as_deref_mut())?;
            let (out, ig) = self
                .rnn
                .forward_deferred(x.clone(), batch.batch_sizes(), keep);
            (x, out, Some((ig, eg)))
        } else {
            let x = self.embedding.lookup(batch)?;
            let ids = by_id.then(|| batch.ids());
            let x = dropout(x, self.dropout_input, rng.as_deref_mut());
            let rnn = host.as_deref_mut().and_then(|h| h.rnn.as_mut());
            let out = self
                .rnn
                .forward_with(rnn, x.clone(), ids, batch.batch_sizes(), keep);
            (x, out, None)
        };
        let pooled = if keep { out.max_pool() } else { out.last };
        let pooled = match &self.ngrams {
            // The n-gram features beside the recurrent states (training: the looked-up rows
            // are constants on the inner device, the table being fixed).
            Some(ng) => ng.beside(
                pooled,
                x.clone(),
                batch,
                (by_id, deferred),
                host.and_then(|h| h.ngrams.as_mut()),
            ),
            None => pooled,
        };
        let device = pooled.device();
        let position = int1(batch.position(), &device);
        if self.bag.is_none() {
            // The paper's network: dropout on the sentence vector itself.
            let (v, stage) = with_bag(
                None,
                pooled,
                (x, None),
                batch,
                stage,
                self.frozen_embeddings,
            );
            return Ok((
                dropout(v.select(0, position), self.dropout_output, rng),
                stage,
            ));
        }
        let pooled = dropout(pooled, self.dropout_output, rng);
        let (v, stage) = with_bag(
            self.bag.as_ref(),
            pooled,
            (x, None),
            batch,
            stage,
            self.frozen_embeddings,
        );
        Ok((v.select(0, position), stage))
    }

    /// Sentence vectors `[n, dim]` of token-id sequences of one language: the forward state
    /// after the last token and the backward state after the first (or their maximum over
    /// positions, [`Pooling::Max`]), added through `P` to the bag of words when the network has
    /// one ([`SiameseConfig::bag`](crate::encoder::EncoderConfig::bag)). One batch; for many,
    /// [`TextNetwork::encode_all`](crate::text::TextNetwork::encode_all) batches them and, on the CPU, copies the recurrent weights to
    /// the host once instead of once per call.
    ///
    /// # Errors
    /// [`Error::Input`] for an empty batch, an empty sentence or an id outside the vocabulary.
    pub fn encode(&self, seqs: &[&[u32]], side: Side, rng: Option<&mut Rng>) -> Result<Tensor<2>> {
        self.encode_with(seqs, side, rng, None)
    }

    /// The recurrence and n-gram convolutions prepared for inference on the host, for
    /// [`Siamese::encode_with`] (empty off the Flex CPU device).
    pub(crate) fn host(&self) -> HostEncoder {
        HostEncoder::new(&self.rnn, self.ngrams.as_ref())
    }

    /// [`Siamese::encode`] with the parts prepared for the host ([`Siamese::host`]).
    pub(crate) fn encode_with(
        &self,
        seqs: &[&[u32]],
        side: Side,
        rng: Option<&mut Rng>,
        host: Option<&mut HostEncoder>,
    ) -> Result<Tensor<2>> {
        self.check_ids(seqs, side)?;
        let batch = PackedBatch::new(&self.table_ids(seqs, side))?;
        Ok(self.encode_packed(&batch, rng, false, host)?.0)
    }

    /// Logits `[B]` of the matching head for sentence vectors `a`, `b` `[B, dim]`.
    #[must_use]
    pub fn head(&self, a: Tensor<2>, b: Tensor<2>) -> Tensor<1> {
        let prod = a.clone() * b.clone();
        let diff = (a - b).abs();
        let h = self
            .matching
            .forward(Tensor::cat(vec![prod, diff], 1))
            .tanh();
        let [n, _] = h.dims();
        self.output.forward(h).reshape([n])
    }

    /// Probabilities `[B]` from [`Siamese::head`].
    #[must_use]
    pub fn head_probability(&self, a: Tensor<2>, b: Tensor<2>) -> Tensor<1> {
        sigmoid(self.head(a, b))
    }

    /// Logits `[B]` of pairs `(src[i], tgt[i])`. Both sides go through the shared encoder in
    /// one packed batch (same result as two calls, larger matrix products). On an autodiff
    /// device every operation is tracked: [`Siamese::pair_loss`] trains faster.
    ///
    /// # Errors
    /// As [`Siamese::encode`]; [`Error::Input`] when the sides differ in length.
    pub fn pair_logits(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        rng: Option<&mut Rng>,
    ) -> Result<Tensor<1>> {
        Ok(self.pair_logits_with(src, tgt, rng, false)?.0)
    }

    /// The training loss of pairs with 0/1 `labels`: mean binary cross-entropy of
    /// [`Siamese::pair_logits`], with the embedding and input-projection gradients deferred
    /// (see [`BiRnn::forward_deferred`](crate::rnn::BiRnn::forward_deferred)) when the model
    /// is on an autodiff device.
    ///
    /// # Errors
    /// As [`Siamese::pair_logits`]; [`Error::Input`] when `labels` has another length.
    pub fn pair_loss(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        labels: &[f32],
        rng: Option<&mut Rng>,
    ) -> Result<TrainLoss> {
        if labels.len() != src.len() {
            return Err(Error::Input(format!(
                "{} labels for {} pairs",
                labels.len(),
                src.len()
            )));
        }
        let deferred = self.embedding.weight.device().is_autodiff();
        let (z, stage) = self.pair_logits_with(src, tgt, rng, deferred)?;
        Ok(TrainLoss {
            value: bce_with_logits(z, labels),
            deferred: stage.into_iter().collect(),
        })
    }

    fn pair_logits_with(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        rng: Option<&mut Rng>,
        deferred: bool,
    ) -> Result<(Tensor<1>, Option<Deferred>)> {
        let (a, b, stage) = self.pair_vectors(src, tgt, rng, deferred)?;
        Ok((self.head(a, b), stage))
    }

    /// Sentence vectors of `src` and `tgt` (equally many), through the shared encoder in one
    /// packed batch.
    pub(crate) fn pair_vectors(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        rng: Option<&mut Rng>,
        deferred: bool,
    ) -> Result<(Tensor<2>, Tensor<2>, Option<Deferred>)> {
        Error::check_sides(src.len(), tgt.len())?;
        self.check_ids(src, Side::Source)?;
        self.check_ids(tgt, Side::Target)?;
        let mut all = self.table_ids(src, Side::Source);
        all.extend(self.table_ids(tgt, Side::Target));
        let chunks = if deferred { self.chunks(all.len()) } else { 1 };
        let (v, stage) = if chunks > 1 {
            self.encode_split(&all, chunks, rng)?
        } else {
            self.encode_packed(&PackedBatch::new(&all)?, rng, deferred, None)?
        };
        let n = src.len();
        let a = v.clone().narrow(0, 0, n);
        let b = v.narrow(0, n, n);
        Ok((a, b, stage))
    }

    /// How many pieces a training batch of `sentences` is encoded in ([`Siamese::with_chunks`]),
    /// each of at least [`MIN_CHUNK`] sentences.
    fn chunks(&self, sentences: usize) -> usize {
        let want = match self.chunks {
            // On a GPU (the padded layout) a piece per thread only adds kernel launches.
            0 if crate::rnn::padded_on(&self.rnn.fwd.w_hh.val().device()) => 1,
            0 => rayon::current_num_threads().min(MAX_AUTO_CHUNKS),
            k => k,
        };
        want.min(sentences / MIN_CHUNK).max(1)
    }

    /// The pieces a training batch is encoded in ([`Siamese::with_chunks`]; 0: measured at the
    /// first batch of training, or one per thread outside it).
    #[must_use]
    pub fn pieces(&self) -> usize {
        self.chunks
    }

    /// Whether the network runs on a GPU (the padded layout).
    pub(crate) fn on_gpu(&self) -> bool {
        crate::rnn::padded_on(&self.rnn.fwd.w_hh.val().device())
    }

    /// The same network, encoding each training batch in `chunks` pieces, each on its own
    /// thread of the current pool with its own autodiff sub-graph (see [`crate::train::split`]);
    /// `1` (the default) encodes the batch whole, `0` the pieces measured fastest at the first
    /// batch of training ([`crate::train::Task::tuned`]), and outside training one piece per
    /// thread, at most 8, on the CPU backends (on a GPU, the batch whole). The gradients
    /// are the same up to float rounding (the pieces' products are shaped differently); with
    /// dropout, the pieces draw their masks from generators of their own.
    #[must_use]
    pub fn with_chunks(mut self, chunks: usize) -> Self {
        self.chunks = chunks;
        self
    }

    /// Training vectors of the table-id sequences `all` (rows in order), encoded in `chunks`
    /// contiguous pieces on the threads of the current pool: each piece's recurrence and its
    /// backward pass run on their own thread, cut off the loss (see [`Cut`]), so that a batch
    /// uses every core instead of the one a chain of small products keeps busy.
    fn encode_split(
        &self,
        all: &[Vec<u32>],
        chunks: usize,
        rng: Option<&mut Rng>,
    ) -> Result<(Tensor<2>, Option<Deferred>)> {
        let size = all.len().div_ceil(chunks);
        // Each piece draws its dropout masks from its own generator, seeded from `rng`.
        let rngs: Vec<Option<Rng>> = match rng {
            Some(r) => (0..chunks).map(|_| Some(Rng::seed(r.next_u64()))).collect(),
            None => (0..chunks).map(|_| None).collect(),
        };
        let pieces: Vec<(&[Vec<u32>], Option<Rng>)> = all.chunks(size).zip(rngs).collect();
        let encoded: Vec<Result<(Cut, Vec<Tensor<2>>)>> = pieces
            .into_par_iter()
            .map(|(seqs, mut rng)| {
                // Each piece on its own copy of the parameters, so that the pieces' graphs
                // stay apart (see `fresh_leaves`).
                let replica = fresh_leaves(self.clone());
                let (v, stage) =
                    replica.encode_packed(&PackedBatch::new(seqs)?, rng.as_mut(), true, None)?;
                Ok(Cut::new(&replica, vec![v], stage))
            })
            .collect();
        let mut cuts = Vec::with_capacity(encoded.len());
        let mut leaves = Vec::with_capacity(encoded.len());
        for piece in encoded {
            let (cut, leaf) = piece?;
            cuts.push(cut);
            leaves.extend(leaf);
        }
        Ok((Tensor::cat(leaves, 0), Some(parallel_stage(cuts))))
    }

    /// The ranking loss of parallel pairs `(src[i], tgt[i])` ([`Objective::Ranking`]): the
    /// in-batch softmax cross-entropy of each row and each column of `scale·(S − margin·I)`,
    /// `S` the cosines of the batch's source and target vectors, with the pairs `(i, j)`,
    /// `i ≠ j`, where `src[i] = src[j]` or `tgt[i] = tgt[j]` left out (they are not negatives);
    /// plus the matching head's binary cross-entropy on every pair and on each pair's
    /// `negatives` most similar in-batch negatives. Gradients deferred as in
    /// [`Siamese::pair_loss`].
    ///
    /// [`Objective::Ranking`]: crate::siamese::Objective::Ranking
    ///
    /// # Errors
    /// As [`Siamese::pair_logits`].
    pub fn ranking_loss(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        scale: f64,
        margin: f64,
        negatives: usize,
        rng: Option<&mut Rng>,
    ) -> Result<TrainLoss> {
        let deferred = self.embedding.weight.device().is_autodiff();
        let (a, b, stage) = self.pair_vectors(src, tgt, rng, deferred)?;
        Ok(TrainLoss {
            value: self.ranking_terms(a, b, src, tgt, scale, margin, negatives)?,
            deferred: stage.into_iter().collect(),
        })
    }

    /// [`Siamese::ranking_loss`] of the vectors `a`, `b` of the pairs `(src[i], tgt[i])`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ranking_terms(
        &self,
        a: Tensor<2>,
        b: Tensor<2>,
        src: &[&[u32]],
        tgt: &[&[u32]],
        scale: f64,
        margin: f64,
        negatives: usize,
    ) -> Result<Tensor<1>> {
        let n = src.len();
        let device = a.device();
        let same = |i: usize, j: usize| i != j && (src[i] == src[j] || tgt[i] == tgt[j]);
        let (ranking, cos) = in_batch_ranking(a.clone(), b.clone(), scale, margin, same);
        // The head: each pair, and its most similar in-batch negatives.
        let (c, _) = to_host2(cos.detach())?;
        let (mut ia, mut ib, mut labels) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            ia.push(i);
            ib.push(i);
            labels.push(1.0);
            let mut others: Vec<usize> = (0..n).filter(|&j| j != i && !same(i, j)).collect();
            others.sort_by(|&x, &y| c[i * n + y].total_cmp(&c[i * n + x]).then(x.cmp(&y)));
            for &j in others.iter().take(negatives) {
                ia.push(i);
                ib.push(j);
                labels.push(0.0);
            }
        }
        let z = self.head(
            a.select(0, int1(&ia, &device)),
            b.select(0, int1(&ib, &device)),
        );
        Ok(ranking + bce_with_logits(z, &labels))
    }

    /// Whether the network is on an autodiff device (training: gradients deferred).
    pub(crate) fn autodiff(&self) -> bool {
        self.embedding.weight.device().is_autodiff()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A training batch is whole by default; with `0` it is cut into one piece per thread (at most
    /// `MAX_AUTO_CHUNKS`), each of at least `MIN_CHUNK` sentences; a set count wins over the threads, never over the
    /// minimum.
    #[test]
    fn pieces_follow_the_threads_and_the_minimum() {
        let config = SiameseConfig::preset("small", 10).unwrap();
        let model = Siamese::new(&config, 1, &Device::flex()).unwrap();
        let pool = |n: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        assert_eq!(pool(4).install(|| model.chunks(256)), 1);
        let model = model.with_chunks(0);
        assert_eq!(pool(4).install(|| model.chunks(256)), 4);
        assert_eq!(pool(16).install(|| model.chunks(512)), MAX_AUTO_CHUNKS);
        assert_eq!(pool(4).install(|| model.chunks(40)), 2);
        assert_eq!(pool(4).install(|| model.chunks(20)), 1);
        assert_eq!(pool(1).install(|| model.chunks(256)), 1);
        let model = model.with_chunks(8);
        assert_eq!(pool(2).install(|| model.chunks(256)), 8);
        assert_eq!(pool(2).install(|| model.chunks(64)), 4);
    }
}
