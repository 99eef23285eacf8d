//! The shared-decoder network of Kim et al. (2019): two bidirectional encoders, each with its
//! own embedding table, whose max-pooled states `s0` start one unidirectional decoder.

use bitext_core::Rng;
use bitext_encode::Side;
use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};

use crate::autoencoder::softmax::candidates;
use crate::autoencoder::{AutoencoderConfig, Softmax};
use crate::batch::PackedBatch;
use crate::encoding::{by_side, check_ids, encoder_stage, in_batch_ranking, with_bag};
use crate::error::{Error, Result};
use crate::init::int1;
use crate::layers::{Bag, Dense, Embedding, EmbeddingGrad, dropout};
use crate::rnn::{BiRnn, HostBiRnn, InputGrads, RnnLayer};
use crate::train::{Deferred, TrainLoss};

/// The autoencoder network (see the module docs of [`crate::autoencoder`]).
#[derive(Module, Debug)]
pub struct Autoencoder {
    /// The source encoder's word embeddings `[src_vocab, emb]`.
    pub src_embedding: Embedding,
    /// The target encoder's word embeddings `[tgt_vocab, emb]`.
    pub tgt_embedding: Embedding,
    /// The source encoder.
    pub src_encoder: BiRnn,
    /// The target encoder.
    pub tgt_encoder: BiRnn,
    /// The decoder's input embeddings `[decoded_vocab + 1, emb]`; the last row is the start
    /// symbol that precedes every decoded sentence.
    pub dec_embedding: Embedding,
    /// The shared decoder, state size `2·hidden`, started from `s0`.
    pub decoder: RnnLayer,
    /// The output layer `[2·hidden, decoded_vocab + 1]`; the last class ends a sentence.
    pub output: Dense,
    /// The source encoder's bag of words (see [`AutoencoderConfig::bag`](crate::encoder::EncoderConfig::bag)).
    pub src_bag: Option<Bag>,
    /// The target encoder's bag of words.
    pub tgt_bag: Option<Bag>,
    src_vocab: usize,
    tgt_vocab: usize,
    decode_target: bool,
    candidates: usize,
    dropout: f64,
    frozen_embeddings: bool,
}

/// The loss of one training batch.
#[derive(Debug)]
pub struct AutoencoderLoss {
    /// Mean negative log-likelihood per decoded token over both kinds of example, to
    /// back-propagate.
    pub loss: TrainLoss,
    /// Mean negative log-likelihood per token of the translation examples `[1]`.
    pub translation: Tensor<1>,
    /// Mean negative log-likelihood per token of the autoencoding examples `[1]`.
    pub autoencoding: Tensor<1>,
    /// Decoded tokens (end-of-sentence classes included) of the translation examples.
    pub translation_tokens: usize,
    /// Decoded tokens of the autoencoding examples.
    pub autoencoding_tokens: usize,
}

/// The decoder's packed input ids (start symbol first) and output classes (end class last)
/// for `sentences`, with the packing of the inputs.
fn decoder_io(sentences: &[&[u32]], end: u32) -> Result<(PackedBatch, Vec<u32>)> {
    let inputs: Vec<Vec<u32>> = sentences
        .iter()
        .map(|s| std::iter::once(end).chain(s.iter().copied()).collect())
        .collect();
    let batch = PackedBatch::new(&inputs)?;
    let mut classes = Vec::with_capacity(batch.tokens());
    for (t, &n) in batch.batch_sizes().iter().enumerate() {
        for &i in &batch.order()[..n] {
            let s = sentences[i];
            classes.push(if t < s.len() { s[t] } else { end });
        }
    }
    Ok((batch, classes))
}

impl Autoencoder {
    /// A freshly initialised network on `device`, drawn from `seed`.
    ///
    /// # Errors
    /// [`Error::Config`] for an invalid configuration.
    pub fn new(config: &AutoencoderConfig, seed: u64, device: &Device) -> Result<Self> {
        config.check()?;
        let mut rng = Rng::seed(seed).fork(0xae);
        let (e, h) = (config.emb_dim, config.hidden);
        let encoder = &config.encoder;
        let (src_embedding, tgt_embedding) = encoder.init_side_tables(&mut rng, device);
        let (src_encoder, tgt_encoder) = encoder.init_side_encoders(&mut rng, device);
        let v = config.decoded_vocab();
        let dec_embedding = encoder.init_table(v + 1, &mut rng, device);
        let decoder = RnnLayer::new(config.cell, e, 2 * h, &mut rng, device);
        let output = Dense::new(2 * h, v + 1, &mut rng, device);
        Ok(Self {
            src_bag: encoder.init_bag(config.src_vocab, device),
            tgt_bag: encoder.init_bag(config.tgt_vocab, device),
            src_embedding,
            tgt_embedding,
            src_encoder,
            tgt_encoder,
            dec_embedding,
            decoder,
            output,
            src_vocab: config.src_vocab,
            tgt_vocab: config.tgt_vocab,
            decode_target: config.decoded == Side::Target,
            candidates: match config.softmax {
                Softmax::Full => 0,
                Softmax::Sampled { candidates } => candidates,
            },
            dropout: config.dropout,
            frozen_embeddings: config.frozen_embeddings,
        })
    }

    /// The same network with the embedding tables of the source encoder, the target encoder
    /// and the decoder's input replaced (row-major; the decoder's table has one more row, the
    /// start symbol), e.g. from [`crate::pretrained`].
    ///
    /// # Errors
    /// [`Error::Config`] when a table has another size.
    pub fn with_embedding_tables(
        mut self,
        src: Vec<f32>,
        tgt: Vec<f32>,
        dec: Vec<f32>,
    ) -> Result<Self> {
        self.src_embedding.set_table(src, "source")?;
        self.tgt_embedding.set_table(tgt, "target")?;
        self.dec_embedding.set_table(dec, "decoder")?;
        Ok(self)
    }

    /// The same network with the bag-of-words weights of the source and target tables'
    /// rows replaced (see [`AutoencoderConfig::bag`](crate::encoder::EncoderConfig::bag)).
    ///
    /// # Errors
    /// [`Error::Config`] when the network has no bag of words, or for weights of another
    /// length or with a negative or non-finite value.
    pub fn with_bag_weights(mut self, src: Vec<f32>, tgt: Vec<f32>) -> Result<Self> {
        crate::layers::set_side_weights(
            self.src_bag.as_mut(),
            self.tgt_bag.as_mut(),
            (src, tgt),
            "an autoencoder",
        )?;
        Ok(self)
    }

    /// Sentence vector size (`2 × hidden`).
    #[must_use]
    pub fn dim(&self) -> usize {
        2 * self.src_encoder.d_hidden()
    }

    /// The language the decoder writes.
    #[must_use]
    pub fn decoded(&self) -> Side {
        if self.decode_target {
            Side::Target
        } else {
            Side::Source
        }
    }

    /// Vocabulary size of `side`.
    #[must_use]
    pub fn vocab(&self, side: Side) -> usize {
        by_side(side, self.src_vocab, self.tgt_vocab)
    }

    fn parts(&self, side: Side) -> (&Embedding, &BiRnn, Option<&Bag>) {
        match side {
            Side::Source => (
                &self.src_embedding,
                &self.src_encoder,
                self.src_bag.as_ref(),
            ),
            Side::Target => (
                &self.tgt_embedding,
                &self.tgt_encoder,
                self.tgt_bag.as_ref(),
            ),
        }
    }

    pub(crate) fn host(&self, side: Side) -> Option<HostBiRnn> {
        self.parts(side).1.host()
    }

    fn check_ids(&self, seqs: &[&[u32]], side: Side) -> Result<()> {
        check_ids(seqs, self.vocab(side), side)
    }

    /// Sentence vectors `[n, 2·hidden]` of sentences of `side` (rows in input order): the
    /// element-wise maximum of the encoder's states over each sentence's own positions
    /// (Kim et al.'s eq. 3 and 11–12; padding never enters a packed batch, so it cannot win
    /// a maximum). No dropout.
    ///
    /// # Errors
    /// [`Error::Input`] for an empty batch, an empty sentence or an id outside the vocabulary.
    pub fn encode(&self, seqs: &[&[u32]], side: Side) -> Result<Tensor<2>> {
        self.encode_with(seqs, side, None)
    }

    /// [`Autoencoder::encode`] with a prepared host recurrence of that side's encoder.
    pub(crate) fn encode_with(
        &self,
        seqs: &[&[u32]],
        side: Side,
        host: Option<&mut HostBiRnn>,
    ) -> Result<Tensor<2>> {
        self.check_ids(seqs, side)?;
        let (emb, rnn, bag) = self.parts(side);
        let batch = PackedBatch::new(seqs)?;
        let x = emb.lookup(&batch)?;
        let ids = Some(batch.ids());
        let out = rnn.forward_with(host, x.clone(), ids, batch.batch_sizes(), true);
        let device = out.last.device();
        let (v, _) = with_bag(
            bag,
            out.max_pool(),
            (x, None),
            &batch,
            None,
            self.frozen_embeddings,
        );
        Ok(v.select(0, int1(batch.position(), &device)))
    }

    /// Training encoder pass: vectors in input order and the deferred stage of the embedding
    /// and input-projection gradients.
    pub(crate) fn encode_train(
        &self,
        seqs: &[&[u32]],
        side: Side,
        rng: Option<&mut Rng>,
    ) -> Result<(Tensor<2>, Deferred)> {
        self.check_ids(seqs, side)?;
        let (emb, rnn, bag) = self.parts(side);
        let batch = PackedBatch::new(seqs)?;
        let (x, eg) = emb.lookup_deferred(&batch, self.dropout, rng)?;
        let (out, ig) = rnn.forward_deferred(x.clone(), batch.batch_sizes(), true);
        let device = out.last.device();
        let (v, stage) = with_bag(
            bag,
            out.max_pool(),
            (x, None),
            &batch,
            Some((ig, eg)),
            self.frozen_embeddings,
        );
        let stage = stage.ok_or_else(|| Error::Input("no deferred encoder stage".into()))?;
        Ok((v.select(0, int1(batch.position(), &device)), stage))
    }

    fn stage(&self, ig: InputGrads, eg: EmbeddingGrad) -> Deferred {
        encoder_stage(ig, eg, self.frozen_embeddings)
    }

    /// The decoder's states `[tokens, 2·hidden]` (packed layout of `batch`) from the
    /// initial states `s0` `[n, 2·hidden]` (input order) over the decoder inputs of `batch`;
    /// with `deferred`, on an autodiff device, the input gradients come from the stage.
    fn decode_states(
        &self,
        s0: Tensor<2>,
        batch: &PackedBatch,
        rng: Option<&mut Rng>,
        deferred: bool,
    ) -> Result<(Tensor<2>, Option<Deferred>)> {
        let device = s0.device();
        let h0 = s0.select(0, int1(batch.order(), &device));
        if deferred {
            let (x, eg) = self
                .dec_embedding
                .lookup_deferred(batch, self.dropout, rng)?;
            let (steps, ig) = self
                .decoder
                .forward_from_deferred(x, batch.batch_sizes(), h0);
            Ok((Tensor::cat(steps, 0), Some(self.stage(ig, eg))))
        } else {
            let x = dropout(self.dec_embedding.lookup(batch)?, self.dropout, rng);
            let steps = self.decoder.forward_from(x, batch.batch_sizes(), h0);
            Ok((Tensor::cat(steps, 0), None))
        }
    }

    /// The training loss of a batch (Kim et al.'s eq. 7 + 8 on one mini-batch): translation
    /// examples decode `outputs[i]` from `inputs[i]` (the other language's encoder) and
    /// autoencoding examples decode `auto[j]` from itself (the decoded language's encoder).
    /// `rng` draws dropout masks and the sampled softmax's candidates; without it the full
    /// softmax is used. On an autodiff device the embedding and input-projection gradients are
    /// deferred.
    ///
    /// # Errors
    /// [`Error::Input`] for empty batches or sentences, ids outside a vocabulary, or `inputs`
    /// and `outputs` of different lengths.
    pub fn loss(
        &self,
        inputs: &[&[u32]],
        outputs: &[&[u32]],
        auto: &[&[u32]],
        rng: Option<&mut Rng>,
    ) -> Result<AutoencoderLoss> {
        self.loss_with(inputs, outputs, auto, rng, true)
    }

    /// [`Self::loss`], with the full softmax on an autodiff device computed by
    /// [`Self::fused_full_nll`] (`fused`) or by burn's `log_softmax` (the reference the fused
    /// path is tested against).
    pub(super) fn loss_with(
        &self,
        inputs: &[&[u32]],
        outputs: &[&[u32]],
        auto: &[&[u32]],
        mut rng: Option<&mut Rng>,
        fused: bool,
    ) -> Result<AutoencoderLoss> {
        if inputs.len() != outputs.len() {
            return Err(Error::Input(format!(
                "{} translation inputs but {} outputs",
                inputs.len(),
                outputs.len()
            )));
        }
        if inputs.is_empty() || auto.is_empty() {
            return Err(Error::Input(
                "a batch needs at least one translation and one autoencoding example".into(),
            ));
        }
        let decoded = self.decoded();
        let other = match decoded {
            Side::Source => Side::Target,
            Side::Target => Side::Source,
        };
        self.check_ids(outputs, decoded)?;
        let deferred = self.output.weight.device().is_autodiff();
        let mut stages = Vec::new();
        let (a, b) = if deferred {
            let (a, sa) = self.encode_train(inputs, other, rng.as_deref_mut())?;
            let (b, sb) = self.encode_train(auto, decoded, rng.as_deref_mut())?;
            stages.extend([sa, sb]);
            (a, b)
        } else {
            (self.encode(inputs, other)?, self.encode(auto, decoded)?)
        };
        let s0 = Tensor::cat(vec![a, b], 0);
        let mut targets: Vec<&[u32]> = outputs.to_vec();
        targets.extend_from_slice(auto);
        let end = self.vocab(decoded) as u32;
        let (batch, classes) = decoder_io(&targets, end)?;
        let (h, stage) = self.decode_states(s0, &batch, rng.as_deref_mut(), deferred)?;
        stages.extend(stage);
        // Which packed tokens belong to translation examples (input index < inputs.len()).
        let n_tr = inputs.len();
        let mut is_tr = Vec::with_capacity(classes.len());
        for &n in batch.batch_sizes() {
            is_tr.extend(batch.order()[..n].iter().map(|&i| i < n_tr));
        }
        let tr_tokens = is_tr.iter().filter(|&&t| t).count();
        let ae_tokens = is_tr.len() - tr_tokens;
        let sampled = rng.is_some() && self.candidates > 0;
        if deferred && !sampled && fused {
            let (value, nll, stage) = self.fused_full_nll(h, &classes)?;
            stages.push(stage);
            let (mut tr, mut ae) = (0f64, 0f64);
            for (&t, &x) in is_tr.iter().zip(&nll) {
                if t {
                    tr += f64::from(x);
                } else {
                    ae += f64::from(x);
                }
            }
            let device = value.device();
            let mean = |sum: f64, count: usize| {
                let v = (sum / count.max(1) as f64) as f32;
                Tensor::<1>::from_data(TensorData::new(vec![v], [1]), &device)
            };
            return Ok(AutoencoderLoss {
                translation: mean(tr, tr_tokens),
                autoencoding: mean(ae, ae_tokens),
                loss: TrainLoss {
                    value,
                    deferred: stages,
                },
                translation_tokens: tr_tokens,
                autoencoding_tokens: ae_tokens,
            });
        }
        let nll = match (rng, self.candidates) {
            (Some(r), c) if c > 0 => {
                let cand = candidates(&classes, c, end as usize + 1, r);
                self.token_nll(h, &classes, Some(&cand))
            }
            _ if deferred => self.token_nll(h, &classes, None),
            _ => self.full_nll_chunked(h, &classes),
        };
        let device = nll.device();
        let weights = |tr: bool, count: usize| {
            let w: Vec<f32> = is_tr
                .iter()
                .map(|&t| if t == tr { 1.0 / count as f32 } else { 0.0 })
                .collect();
            Tensor::<1>::from_data(TensorData::new(w, [is_tr.len()]), &device)
        };
        let translation = (nll.clone() * weights(true, tr_tokens)).sum();
        let autoencoding = (nll.clone() * weights(false, ae_tokens)).sum();
        let value = nll.mean();
        Ok(AutoencoderLoss {
            loss: TrainLoss {
                value,
                deferred: stages,
            },
            translation,
            autoencoding,
            translation_tokens: tr_tokens,
            autoencoding_tokens: ae_tokens,
        })
    }

    /// The auxiliary ranking loss ([`RankingTerm`](crate::autoencoder::RankingTerm)) of
    /// translation pairs: `inputs` through the input language's encoder, `outputs` through
    /// the decoded language's, the in-batch ranking of the two (pairs whose input or output
    /// sentence repeats are not each other's negatives). Gradients deferred on an autodiff
    /// device.
    ///
    /// # Errors
    /// As [`Self::loss`].
    pub fn ranking_loss(
        &self,
        inputs: &[&[u32]],
        outputs: &[&[u32]],
        scale: f64,
        margin: f64,
        mut rng: Option<&mut Rng>,
    ) -> Result<TrainLoss> {
        if inputs.len() != outputs.len() || inputs.is_empty() {
            return Err(Error::Input(format!(
                "{} translation inputs and {} outputs for the ranking loss",
                inputs.len(),
                outputs.len()
            )));
        }
        let decoded = self.decoded();
        let other = match decoded {
            Side::Source => Side::Target,
            Side::Target => Side::Source,
        };
        let (a, b, stages) = if self.output.weight.device().is_autodiff() {
            let (a, sa) = self.encode_train(inputs, other, rng.as_deref_mut())?;
            let (b, sb) = self.encode_train(outputs, decoded, rng)?;
            (a, b, vec![sa, sb])
        } else {
            (
                self.encode(inputs, other)?,
                self.encode(outputs, decoded)?,
                Vec::new(),
            )
        };
        let same =
            |i: usize, j: usize| i != j && (inputs[i] == inputs[j] || outputs[i] == outputs[j]);
        let (value, _) = in_batch_ranking(a, b, scale, margin, same);
        Ok(TrainLoss {
            value,
            deferred: stages,
        })
    }

    /// Mean negative log-likelihood per decoded token (full softmax, end class included) of
    /// writing `outputs` (the decoded language) from the sentence vectors `s0` `[n, 2·hidden]`
    /// alone: the decoder has no other access to an input sentence (no attention), so this is
    /// the translation loss of any input whose vector is `s0`.
    ///
    /// # Errors
    /// [`Error::Input`] for a row count that differs from `outputs`, empty sentences or ids
    /// outside the decoded vocabulary.
    pub fn decode_nll(&self, s0: Tensor<2>, outputs: &[&[u32]]) -> Result<Tensor<1>> {
        if s0.dims()[0] != outputs.len() || s0.dims()[1] != self.dim() {
            return Err(Error::Input(format!(
                "{:?} sentence vectors for {} outputs of a {}-dimensional model",
                s0.dims(),
                outputs.len(),
                self.dim()
            )));
        }
        let decoded = self.decoded();
        self.check_ids(outputs, decoded)?;
        let (batch, classes) = decoder_io(outputs, self.vocab(decoded) as u32)?;
        let (h, _) = self.decode_states(s0, &batch, None, false)?;
        Ok(self.full_nll_chunked(h, &classes).mean())
    }
}
