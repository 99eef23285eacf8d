//! Training the autoencoder: every mini-batch holds as many autoencoding examples as
//! translation examples (Kim et al. §3.2). The autoencoding sentences of an epoch are the
//! decoded language's side of the parallel pairs plus any monolingual sentences of that
//! language, shuffled and dealt out to the batches in turn.

use std::collections::BTreeMap;
use std::path::Path;

use bitext_core::{Embeddings, Rng};
use bitext_encode::Side;

use crate::autoencoder::{Autoencoder, AutoencoderConfig, RankingTerm};
use crate::batch::Bucketing;
use crate::distill::{Distilled, Teacher, mean_cosine};
use crate::encoding::by_side;
use crate::error::{Error, Result};
use crate::init::to_host1;
use crate::siamese::ParallelIds;
use crate::text::TextNetwork;
use crate::train::checkpoint::{Describe, Described, write_description};
use crate::train::{Task, TrainLoss, Validation};

/// A sentence to autoencode: the decoded side of a parallel pair, or a monolingual sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoRef {
    /// The decoded-language side of pair `k`.
    Pair(u32),
    /// Monolingual sentence `k`.
    Mono(u32),
}

/// One mini-batch: translation examples (pair indices) and as many autoencoding examples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoencoderBatch {
    /// Pairs whose decoded side is decoded from the other side.
    pub pairs: Vec<u32>,
    /// Sentences decoded from themselves (`auto.len() == pairs.len()`).
    pub auto: Vec<AutoRef>,
}

/// The training [`Task`] of the autoencoder.
///
/// With a teacher ([`Distilled::with_teacher`]), each encoder's vector of both sentences of a
/// translation example `k` is pulled towards the teacher's row `k` (the source sentence
/// towards the teacher's vector of itself, with [`Teacher::source`]), the distance added to
/// the loss or alone ([`Teacher::alone`]: the decoder is then not trained).
pub struct AutoencoderTask {
    config: AutoencoderConfig,
    train: ParallelIds,
    mono: Vec<Vec<u32>>,
    valid: Option<(ParallelIds, Vec<AutoencoderBatch>)>,
    batching: Bucketing,
    ranking: Option<RankingTerm>,
    describe: Option<Describe>,
    teacher: Option<Teacher>,
}

impl std::fmt::Debug for AutoencoderTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AutoencoderTask")
            .field("config", &self.config)
            .field("train_pairs", &self.train.len())
            .field("mono", &self.mono.len())
            .field("valid_pairs", &self.valid.as_ref().map(|v| v.0.len()))
            .finish_non_exhaustive()
    }
}

impl AutoencoderTask {
    /// Train on the pairs `train` and the monolingual sentences `mono` of the decoded
    /// language (may be empty: the decoded side of the pairs is autoencoded anyway); validate
    /// on `valid` (each pair translated and its decoded side autoencoded, full softmax).
    ///
    /// # Errors
    /// [`Error::Input`] when there is no training pair or a monolingual sentence is empty.
    pub fn new(
        config: AutoencoderConfig,
        train: ParallelIds,
        mono: Vec<Vec<u32>>,
        valid: Option<ParallelIds>,
        batching: Bucketing,
    ) -> Result<Self> {
        if train.is_empty() {
            return Err(Error::Input(
                "the autoencoder needs at least one training pair".into(),
            ));
        }
        if let Some(k) = mono.iter().position(Vec::is_empty) {
            return Err(Error::Input(format!(
                "monolingual sentence {k} has no tokens"
            )));
        }
        batching.check()?;
        let valid = valid.filter(|v| !v.is_empty()).map(|v| {
            let batches = pair_batches(&v, &batching, None)
                .into_iter()
                .map(|pairs| AutoencoderBatch {
                    auto: pairs.iter().map(|&k| AutoRef::Pair(k)).collect(),
                    pairs,
                })
                .collect();
            (v, batches)
        });
        Ok(Self {
            config,
            train,
            mono,
            valid,
            batching,
            ranking: None,
            describe: None,
            teacher: None,
        })
    }

    /// The distillation loss of `batch`'s translation examples (both sides, each through its
    /// own encoder) and its deferred stages.
    fn distill_loss(
        &self,
        model: &Autoencoder,
        teacher: &Teacher,
        batch: &AutoencoderBatch,
        rng: &mut Rng,
    ) -> Result<TrainLoss> {
        let (src, tgt) = (
            batch
                .pairs
                .iter()
                .map(|&k| &self.train.src[k as usize][..])
                .collect::<Vec<_>>(),
            batch
                .pairs
                .iter()
                .map(|&k| &self.train.tgt[k as usize][..])
                .collect::<Vec<_>>(),
        );
        let (a, sa) = model.encode_train(&src, Side::Source, Some(rng))?;
        let (b, sb) = model.encode_train(&tgt, Side::Target, Some(rng))?;
        let rows = || batch.pairs.iter().map(|&k| k as usize);
        Ok(TrainLoss {
            value: teacher.pull((a, rows()), (b, rows())),
            deferred: vec![sa, sb],
        })
    }

    /// The mean cosines of the validation pairs' vectors with the teacher's: (source,
    /// target).
    fn teacher_cosines(
        &self,
        model: &Autoencoder,
        (vs, vt): (&Embeddings, &Embeddings),
    ) -> Result<(f64, f64)> {
        let Some((data, _)) = &self.valid else {
            return Ok((0.0, 0.0));
        };
        let mut out = [0.0; 2];
        for (i, (side, seqs, teacher)) in
            [(Side::Source, &data.src, vs), (Side::Target, &data.tgt, vt)]
                .into_iter()
                .enumerate()
        {
            let refs: Vec<&[u32]> = seqs.iter().map(Vec::as_slice).collect();
            let v = model.encode_all(&refs, side, &self.batching)?;
            out[i] = mean_cosine(&v, teacher);
        }
        Ok((out[0], out[1]))
    }

    /// Add the auxiliary ranking loss `ranking` (see [`RankingTerm`]) to every batch's loss,
    /// and to the validation loss (then also reported as `ranking_loss`, the mean over the
    /// validation batches).
    #[must_use]
    pub fn with_ranking(mut self, ranking: Option<RankingTerm>) -> Self {
        self.ranking = ranking;
        self
    }

    /// The network configuration.
    #[must_use]
    pub fn config(&self) -> &AutoencoderConfig {
        &self.config
    }

    fn sides(&self) -> (Side, Side) {
        match self.config.decoded {
            Side::Target => (Side::Source, Side::Target),
            Side::Source => (Side::Target, Side::Source),
        }
    }

    /// The translation examples of `batch`: inputs and outputs.
    fn translations<'a>(
        &self,
        data: &'a ParallelIds,
        batch: &AutoencoderBatch,
    ) -> (Vec<&'a [u32]>, Vec<&'a [u32]>) {
        let (input, decoded) = self.sides();
        let (ins, outs) = (side_of(data, input), side_of(data, decoded));
        (
            batch.pairs.iter().map(|&k| &ins[k as usize][..]).collect(),
            batch.pairs.iter().map(|&k| &outs[k as usize][..]).collect(),
        )
    }

    fn batch_loss(
        &self,
        model: &Autoencoder,
        data: &ParallelIds,
        batch: &AutoencoderBatch,
        rng: Option<&mut Rng>,
    ) -> Result<crate::autoencoder::AutoencoderLoss> {
        let (_, decoded) = self.sides();
        let outs = side_of(data, decoded);
        let (inputs, outputs) = self.translations(data, batch);
        let auto: Vec<&[u32]> = batch
            .auto
            .iter()
            .map(|r| match *r {
                AutoRef::Pair(k) => &outs[k as usize][..],
                AutoRef::Mono(k) => &self.mono[k as usize][..],
            })
            .collect();
        model.loss(&inputs, &outputs, &auto, rng)
    }
}

fn side_of(data: &ParallelIds, side: Side) -> &[Vec<u32>] {
    by_side(side, &data.src, &data.tgt)
}

/// Length-bucketed batches of pair indices.
fn pair_batches(data: &ParallelIds, batching: &Bucketing, rng: Option<&mut Rng>) -> Vec<Vec<u32>> {
    let costs: Vec<usize> = (0..data.len())
        .map(|k| data.src[k].len() + data.tgt[k].len())
        .collect();
    batching
        .plan(&costs, rng)
        .into_iter()
        .map(|b| b.into_iter().map(|k| k as u32).collect())
        .collect()
}

/// Deal the autoencoding sentences (`pairs` pair sides, then `mono` monolingual ones,
/// shuffled) to `batches` of translation examples, one per example, cycling through them when
/// the batches need more: every batch is 1:1 (with no sentence to deal at all, the batches get
/// none).
#[must_use]
pub fn deal_autoencoding(
    batches: Vec<Vec<u32>>,
    pairs: usize,
    mono: usize,
    rng: &mut Rng,
) -> Vec<AutoencoderBatch> {
    let mut pool: Vec<AutoRef> = (0..pairs as u32)
        .map(AutoRef::Pair)
        .chain((0..mono as u32).map(AutoRef::Mono))
        .collect();
    rng.shuffle(&mut pool);
    let mut next = 0usize;
    batches
        .into_iter()
        .map(|pairs| {
            let auto = (0..if pool.is_empty() { 0 } else { pairs.len() })
                .map(|_| {
                    let r = pool[next % pool.len()];
                    next += 1;
                    r
                })
                .collect();
            AutoencoderBatch { pairs, auto }
        })
        .collect()
}

impl Described for AutoencoderTask {
    fn describe_mut(&mut self) -> &mut Option<Describe> {
        &mut self.describe
    }
}

impl Distilled for AutoencoderTask {
    fn teacher_pairs(&self) -> (usize, Option<usize>) {
        (self.train.len(), self.valid.as_ref().map(|v| v.0.len()))
    }

    fn teacher_mut(&mut self) -> &mut Option<Teacher> {
        &mut self.teacher
    }
}

impl Task for AutoencoderTask {
    type Model = Autoencoder;
    type Batch = AutoencoderBatch;

    fn epoch_batches(&mut self, _epoch: usize, rng: &mut Rng) -> Result<Vec<Self::Batch>> {
        let batches = pair_batches(&self.train, &self.batching, Some(rng));
        Ok(deal_autoencoding(
            batches,
            self.train.len(),
            self.mono.len(),
            rng,
        ))
    }

    fn batch_items(&self, batch: &Self::Batch) -> usize {
        batch.pairs.len() + batch.auto.len()
    }

    fn loss(&self, model: &Autoencoder, batch: &Self::Batch, rng: &mut Rng) -> Result<TrainLoss> {
        if let Some(t) = self.teacher.as_ref().filter(|t| t.alone) {
            return self.distill_loss(model, t, batch, rng);
        }
        let mut loss = self.batch_loss(model, &self.train, batch, Some(rng))?.loss;
        if let Some(t) = &self.teacher {
            let d = self.distill_loss(model, t, batch, rng)?;
            loss.value = loss.value + d.value.mul_scalar(t.weight);
            loss.deferred.extend(d.deferred);
        }
        if let Some(r) = self.ranking {
            let (mut inputs, mut outputs) = self.translations(&self.train, batch);
            // Topped up with random training pairs (see `RankingTerm::pairs`).
            let (input, decoded) = self.sides();
            let (ins, outs) = (side_of(&self.train, input), side_of(&self.train, decoded));
            while inputs.len() < r.pairs {
                let k = rng.below(self.train.len());
                inputs.push(&ins[k]);
                outputs.push(&outs[k]);
            }
            let extra = model.ranking_loss(&inputs, &outputs, r.scale, r.margin, Some(rng))?;
            loss.value = loss.value + extra.value.mul_scalar(r.weight);
            loss.deferred.extend(extra.deferred);
        }
        Ok(loss)
    }

    fn validate(&self, model: &Autoencoder) -> Result<Option<Validation>> {
        let Some((data, batches)) = &self.valid else {
            return Ok(None);
        };
        let (mut tr, mut ae, mut ntr, mut nae) = (0f64, 0f64, 0usize, 0usize);
        let mut ranking = 0f64;
        for batch in batches {
            if let Some(r) = self.ranking {
                let (inputs, outputs) = self.translations(data, batch);
                let l = model.ranking_loss(&inputs, &outputs, r.scale, r.margin, None)?;
                ranking += f64::from(to_host1(l.value)?[0]) / batches.len() as f64;
            }
            let l = self.batch_loss(model, data, batch, None)?;
            tr += f64::from(to_host1(l.translation)?[0]) * l.translation_tokens as f64;
            ae += f64::from(to_host1(l.autoencoding)?[0]) * l.autoencoding_tokens as f64;
            ntr += l.translation_tokens;
            nae += l.autoencoding_tokens;
        }
        let mut metrics = BTreeMap::new();
        metrics.insert("translation_nll".into(), tr / ntr.max(1) as f64);
        metrics.insert("autoencoding_nll".into(), ae / nae.max(1) as f64);
        let mut loss = (tr + ae) / (ntr + nae).max(1) as f64;
        if let Some(r) = self.ranking {
            metrics.insert("ranking_loss".into(), ranking);
            loss += r.weight * ranking;
        }
        let mut v = Validation { loss, metrics };
        if let Some(t) = &self.teacher
            && let Some(sides) = t.valid_sides()
        {
            t.judge(&mut v, self.teacher_cosines(model, sides)?);
        }
        Ok(Some(v))
    }

    fn save_description(&self, _model: &Autoencoder, dir: &Path) -> Result<()> {
        write_description(self.describe.as_ref(), dir, ("autoencoder", &self.config))
    }

    fn unit(&self) -> &'static str {
        "sentences"
    }
}
