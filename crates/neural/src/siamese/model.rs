//! The siamese BiRNN network: a tied-weight bidirectional encoder and the matching head
//! `h = tanh(W1 (hS ⊙ hT) + W2 |hS − hT| + b)`, `p = σ(W3 h + c)`.

use bitext_core::Rng;
use bitext_encode::Side;
use burn::module::Module;
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor};

use crate::batch::PackedBatch;
use crate::encoding::{check_ids, encoder_stage};
use crate::error::{Error, Result};
use crate::init::int1;
use crate::layers::{Dense, Embedding, bce_with_logits, dropout};
use crate::rnn::{BiRnn, BiRnnConfig, HostBiRnn};
use crate::siamese::SiameseConfig;
use crate::train::{Deferred, TrainLoss};

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
    src_vocab: usize,
    tgt_vocab: usize,
    tgt_offset: usize,
    dropout_input: f64,
    dropout_output: f64,
    frozen_embeddings: bool,
}

impl Siamese {
    /// A freshly initialised network on `device`, drawn from `seed`.
    ///
    /// # Errors
    /// [`Error::Config`] for an invalid configuration.
    pub fn new(config: &SiameseConfig, seed: u64, device: &Device) -> Result<Self> {
        config.check()?;
        let mut rng = Rng::seed(seed).fork(0x5137);
        let embedding = Embedding::new(config.table_rows(), config.emb_dim, &mut rng, device);
        let rnn = BiRnnConfig {
            cell: config.cell,
            d_input: config.emb_dim,
            d_hidden: config.hidden,
        }
        .init(&mut rng, device);
        let matching = Dense::new(2 * config.dim(), config.ff, &mut rng, device);
        let output = Dense::new(config.ff, 1, &mut rng, device);
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
            src_vocab: config.src_vocab,
            tgt_vocab,
            tgt_offset,
            dropout_input: config.dropout_input,
            dropout_output: config.dropout_output,
            frozen_embeddings: config.frozen_embeddings,
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

    /// Sentence vector size (`2 × hidden`).
    #[must_use]
    pub fn dim(&self) -> usize {
        2 * self.rnn.d_hidden()
    }

    fn check_ids(&self, seqs: &[&[u32]], side: Side) -> Result<()> {
        let vocab = match side {
            Side::Source => self.src_vocab,
            Side::Target => self.tgt_vocab,
        };
        check_ids(seqs, vocab, side)
    }

    /// Token ids of `side` as rows of the embedding table.
    fn table_ids(&self, seqs: &[&[u32]], side: Side) -> Vec<Vec<u32>> {
        let off = match side {
            Side::Source => 0,
            Side::Target => self.tgt_offset as u32,
        };
        seqs.iter()
            .map(|s| s.iter().map(|&id| id + off).collect())
            .collect()
    }

    /// Encode a packed batch: `[B, 2·hidden]` rows in the caller's order. Dropout applies when
    /// `rng` is given (training). With `deferred` (on an autodiff device), the embedding and
    /// input-projection gradients come from the returned stage. `host`, when given, runs the
    /// recurrence (inference on the CPU, reused across batches).
    fn encode_packed(
        &self,
        batch: &PackedBatch,
        mut rng: Option<&mut Rng>,
        deferred: bool,
        host: Option<&mut HostBiRnn>,
    ) -> Result<(Tensor<2>, Option<Deferred>)> {
        let (out, stage) = if deferred {
            let (x, eg) =
                self.embedding
                    .lookup_deferred(batch, self.dropout_input, rng.as_deref_mut())?;
            let (out, ig) = self.rnn.forward_deferred(x, batch.batch_sizes(), false);
            (out, Some(encoder_stage(ig, eg, self.frozen_embeddings)))
        } else {
            let x = self.embedding.lookup(batch)?;
            let x = dropout(x, self.dropout_input, rng.as_deref_mut());
            let out = match host.and_then(|h| h.forward(x.clone(), batch.batch_sizes(), false)) {
                Some(out) => out,
                None => self.rnn.forward(x, batch.batch_sizes(), false),
            };
            (out, None)
        };
        let device = out.last.device();
        let v = out.last.select(0, int1(batch.position(), &device));
        Ok((dropout(v, self.dropout_output, rng), stage))
    }

    /// Sentence vectors `[n, 2·hidden]` of token-id sequences of one language: the forward
    /// state after the last token and the backward state after the first. One batch; for many,
    /// [`Siamese::encode_all`] batches them and, on the CPU, copies the recurrent weights to
    /// the host once instead of once per call.
    ///
    /// # Errors
    /// [`Error::Input`] for an empty batch, an empty sentence or an id outside the vocabulary.
    pub fn encode(&self, seqs: &[&[u32]], side: Side, rng: Option<&mut Rng>) -> Result<Tensor<2>> {
        self.encode_with(seqs, side, rng, None)
    }

    /// [`Siamese::encode`] with a prepared host recurrence (see [`BiRnn::host`]).
    pub(crate) fn encode_with(
        &self,
        seqs: &[&[u32]],
        side: Side,
        rng: Option<&mut Rng>,
        host: Option<&mut HostBiRnn>,
    ) -> Result<Tensor<2>> {
        self.check_ids(seqs, side)?;
        let batch = PackedBatch::new(&self.table_ids(seqs, side))?;
        Ok(self.encode_packed(&batch, rng, false, host)?.0)
    }

    /// Logits `[B]` of the matching head for sentence vectors `a`, `b` `[B, 2·hidden]`.
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
        if src.len() != tgt.len() {
            return Err(Error::Input(format!(
                "{} source but {} target sentences",
                src.len(),
                tgt.len()
            )));
        }
        self.check_ids(src, Side::Source)?;
        self.check_ids(tgt, Side::Target)?;
        let mut all = self.table_ids(src, Side::Source);
        all.extend(self.table_ids(tgt, Side::Target));
        let batch = PackedBatch::new(&all)?;
        let (v, stage) = self.encode_packed(&batch, rng, deferred, None)?;
        let n = src.len();
        let a = v.clone().narrow(0, 0, n);
        let b = v.narrow(0, n, n);
        Ok((self.head(a, b), stage))
    }
}
