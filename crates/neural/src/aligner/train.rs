//! Training the aligner: every epoch draws fresh synthetic examples (as many paired examples
//! as of each negative kind, §3.1) from the training corpus; validation uses one fixed draw
//! from held-out pairs and reports the loss and the word-divergence accuracy.

use std::collections::BTreeMap;
use std::path::Path;

use bitext_core::{Embeddings, Rng};
use bitext_encode::Side;

use crate::aligner::infer::PairOutput;
use crate::aligner::model::LabeledRef;
use crate::aligner::stream::DistillPairs;
use crate::aligner::synth::{Corpus, Example, Kind, Synthesizer};
use crate::aligner::{Aligner, AlignerConfig};
use crate::batch::Bucketing;
use crate::distill::{Distilled, Teacher, mean_cosine};
use crate::encoding::by_side;
use crate::error::{Error, Result};
use crate::init::to_host1;
use crate::text::TextNetwork;
use crate::train::checkpoint::{Describe, Described, write_description};
use crate::train::{Task, TrainLoss, Validation};

/// Word-divergence accuracy counts (a word is predicted divergent when its aggregated score is
/// negative), per kind of example.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WordAccuracy {
    /// `(correct words, words)` per kind.
    pub by_kind: BTreeMap<Kind, (usize, usize)>,
    /// `(correct pairs, pairs)` of the sentence-level `semb` prediction (`h_sim < 0`:
    /// divergent).
    pub sentences: (usize, usize),
}

impl WordAccuracy {
    /// Add an example and what the network computed for it.
    pub fn add(&mut self, example: &Example, out: &PairOutput) {
        let e = self.by_kind.entry(example.kind).or_default();
        for (labels, scores) in [
            (&example.src_labels, &out.src_scores),
            (&example.tgt_labels, &out.tgt_scores),
        ] {
            for (&y, &s) in labels.iter().zip(scores) {
                e.0 += usize::from((s < 0.0) == (y > 0.0));
                e.1 += 1;
            }
        }
        self.sentences.0 += usize::from((out.semb < 0.0) == (example.label() > 0.0));
        self.sentences.1 += 1;
    }

    /// Accuracy over the words of one kind (`None` without such examples).
    #[must_use]
    pub fn kind(&self, kind: Kind) -> Option<f64> {
        self.by_kind
            .get(&kind)
            .filter(|c| c.1 > 0)
            .map(|&(a, n)| a as f64 / n as f64)
    }

    /// Accuracy over all words.
    #[must_use]
    pub fn overall(&self) -> f64 {
        let (a, n) = self
            .by_kind
            .values()
            .fold((0, 0), |(a, n), &(x, y)| (a + x, n + y));
        if n == 0 { 0.0 } else { a as f64 / n as f64 }
    }
}

/// Labelled references of examples, for [`Aligner::loss`].
pub(crate) fn refs<'a>(examples: impl Iterator<Item = &'a Example>) -> Vec<LabeledRef<'a>> {
    examples
        .map(|e| LabeledRef {
            src: &e.src,
            tgt: &e.tgt,
            src_labels: &e.src_labels,
            tgt_labels: &e.tgt_labels,
            label: e.label(),
        })
        .collect()
}

/// Batches (indices into `examples`) under `batching`, cost = both lengths.
pub(crate) fn plan(
    examples: &[Example],
    batching: &Bucketing,
    rng: Option<&mut Rng>,
) -> Vec<Vec<usize>> {
    let costs: Vec<usize> = examples.iter().map(|e| e.src.len() + e.tgt.len()).collect();
    batching.plan(&costs, rng)
}

/// One training batch of the aligner: indices into the epoch's synthetic examples, or into
/// the [`DistillPairs`] of [`AlignerTask::with_distill_pairs`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlignerBatch {
    /// Synthetic examples: the word (or sentence) loss, and the teacher's on the paired ones.
    Examples(Vec<usize>),
    /// Distillation pairs: the teacher's loss alone.
    Distill(Vec<usize>),
}

/// The training [`Task`] of the aligner.
///
/// With a teacher ([`Distilled::with_teacher`]), both sentence vectors of every paired example
/// drawn from training pair `k` are pulled towards the teacher's row `k`, the distance added
/// to the loss; validation pulls the paired examples of held-out pairs towards their rows
/// ([`AlignerTask::with_valid_pairs`]). The aligner always trains its own loss beside the
/// teacher's, and pulls both sentences of a pair towards one row: it refuses a teacher
/// [`Teacher::alone`] or with [`Teacher::source`] rows.
pub struct AlignerTask {
    config: AlignerConfig,
    train: Corpus,
    kinds: Vec<Kind>,
    per_kind: usize,
    current: Vec<Example>,
    valid: Option<(Vec<Example>, Vec<Vec<usize>>)>,
    batching: Bucketing,
    describe: Option<Describe>,
    teacher: Option<Teacher>,
    valid_pairs: Option<usize>,
    distill: Option<DistillPairs>,
}

impl std::fmt::Debug for AlignerTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlignerTask")
            .field("config", &self.config)
            .field("train_pairs", &self.train.len())
            .field("kinds", &Kind::set_name(&self.kinds))
            .field("per_kind", &self.per_kind)
            .finish_non_exhaustive()
    }
}

impl AlignerTask {
    /// Train on examples of `kinds` drawn from `train` (`per_kind` of each kind per epoch;
    /// paired examples are always included), validate on `valid` (fixed examples, e.g. from
    /// [`Synthesizer::epoch`] over held-out pairs).
    ///
    /// # Errors
    /// As [`Corpus::check`]; [`Error::Config`] for `per_kind == 0`.
    pub fn new(
        config: AlignerConfig,
        train: Corpus,
        kinds: &[Kind],
        per_kind: usize,
        valid: Option<Vec<Example>>,
        batching: Bucketing,
    ) -> Result<Self> {
        train.check()?;
        batching.check()?;
        if per_kind == 0 {
            return Err(Error::Config(
                "the aligner needs at least 1 example of each kind per epoch".into(),
            ));
        }
        let mut kinds = kinds.to_vec();
        if !kinds.contains(&Kind::Paired) {
            kinds.push(Kind::Paired);
        }
        kinds.sort();
        kinds.dedup();
        let valid = valid.filter(|v| !v.is_empty()).map(|v| {
            let b = plan(&v, &batching, None);
            (v, b)
        });
        Ok(Self {
            config,
            train,
            kinds,
            per_kind,
            current: Vec::new(),
            valid,
            batching,
            describe: None,
            teacher: None,
            valid_pairs: None,
            distill: None,
        })
    }

    /// The number of held-out pairs the validation examples were drawn from (their
    /// [`Example::pair`]s), which a teacher has validation rows of
    /// ([`Distilled::with_teacher`]; without it the teacher's vectors are not validated).
    #[must_use]
    pub fn with_valid_pairs(mut self, pairs: usize) -> Self {
        self.valid_pairs = Some(pairs);
        self
    }

    /// Also train on `pairs` ([`crate::aligner::stream`]): every epoch draws
    /// [`DistillPairs::per_epoch`] of them, whose batches, shuffled among the synthetic
    /// examples' batches, train only the sentence vectors towards their teacher rows, with the
    /// teacher's weight. Call after [`Distilled::with_teacher`].
    ///
    /// # Errors
    /// [`Error::Config`] without a teacher; as [`DistillPairs::check`] against `dim`, the
    /// sentence-vector size.
    pub fn with_distill_pairs(mut self, pairs: DistillPairs, dim: usize) -> Result<Self> {
        if self.teacher.is_none() {
            return Err(Error::Config(
                "distillation pairs train towards a teacher's vectors: give a teacher too".into(),
            ));
        }
        pairs.check(dim)?;
        self.distill = Some(pairs);
        Ok(self)
    }

    /// The mean cosines of the validation paired examples' vectors with the teacher's rows of
    /// their pairs: (source, target).
    fn teacher_cosines(&self, model: &Aligner, teacher: &Embeddings) -> Result<Option<(f64, f64)>> {
        let Some((examples, _)) = &self.valid else {
            return Ok(None);
        };
        let paired: Vec<&Example> = examples.iter().filter(|e| e.label() < 0.0).collect();
        if paired.is_empty() {
            return Ok(None);
        }
        let rows = Embeddings::from_rows(paired.iter().map(|e| teacher.row(e.pair)), teacher.dim())
            .map_err(Error::Core)?;
        let mut out = [0.0; 2];
        for (k, side) in [Side::Source, Side::Target].into_iter().enumerate() {
            let seqs: Vec<&[u32]> = paired
                .iter()
                .map(|e| by_side(side, &e.src[..], &e.tgt[..]))
                .collect();
            out[k] = mean_cosine(&model.encode_all(&seqs, side, &self.batching)?, &rows);
        }
        Ok(Some((out[0], out[1])))
    }

    /// The network configuration.
    #[must_use]
    pub fn config(&self) -> &AlignerConfig {
        &self.config
    }
}

/// Mean loss and word accuracy of `model` over `examples` in `batches`.
///
/// # Errors
/// As [`Aligner::loss`].
pub fn evaluate(
    model: &Aligner,
    examples: &[Example],
    batches: &[Vec<usize>],
) -> Result<(f64, WordAccuracy)> {
    let (mut loss, mut acc) = (0.0, WordAccuracy::default());
    for batch in batches {
        let ex: Vec<&Example> = batch.iter().map(|&i| &examples[i]).collect();
        let l = model.loss(&refs(ex.iter().copied()), None)?;
        loss += f64::from(to_host1(l.loss.value)?[0]) * ex.len() as f64;
        let src: Vec<&[u32]> = ex.iter().map(|e| &e.src[..]).collect();
        let tgt: Vec<&[u32]> = ex.iter().map(|e| &e.tgt[..]).collect();
        for (e, out) in ex.iter().zip(model.pairs(&src, &tgt)?) {
            acc.add(e, &out);
        }
    }
    Ok((loss / examples.len().max(1) as f64, acc))
}

impl Described for AlignerTask {
    fn describe_mut(&mut self) -> &mut Option<Describe> {
        &mut self.describe
    }
}

impl Distilled for AlignerTask {
    fn teacher_pairs(&self) -> (usize, Option<usize>) {
        (self.train.len(), self.valid_pairs)
    }

    fn teacher_mut(&mut self) -> &mut Option<Teacher> {
        &mut self.teacher
    }

    fn accepts(&self, teacher: &Teacher) -> Result<()> {
        if teacher.alone {
            return Err(Error::Config(
                "the aligner trains its word or sentence loss beside the teacher's: it cannot \
                 learn from the teacher alone"
                    .into(),
            ));
        }
        if teacher.source.is_some() {
            return Err(Error::Config(
                "the aligner pulls both sentences of a paired example towards one teacher \
                 vector: it takes no separate vectors of the source sentences (a teacher side \
                 of both)"
                    .into(),
            ));
        }
        if let (Some((examples, _)), Some(n)) = (&self.valid, self.valid_pairs)
            && let Some(e) = examples.iter().find(|e| e.pair >= n)
        {
            return Err(Error::Input(format!(
                "a validation example of held-out pair {} but only {n} pairs",
                e.pair
            )));
        }
        Ok(())
    }
}

impl Task for AlignerTask {
    type Model = Aligner;
    type Batch = AlignerBatch;

    fn epoch_batches(&mut self, _epoch: usize, rng: &mut Rng) -> Result<Vec<Self::Batch>> {
        self.current = Synthesizer::new(&self.train)?.epoch(&self.kinds, self.per_kind, rng)?;
        let mut batches: Vec<AlignerBatch> = plan(&self.current, &self.batching, Some(rng))
            .into_iter()
            .map(AlignerBatch::Examples)
            .collect();
        if let Some(d) = &self.distill {
            batches.extend(
                d.epoch(&self.batching, rng)
                    .into_iter()
                    .map(AlignerBatch::Distill),
            );
            rng.shuffle(&mut batches);
        }
        Ok(batches)
    }

    fn batch_items(&self, batch: &Self::Batch) -> usize {
        match batch {
            AlignerBatch::Examples(b) | AlignerBatch::Distill(b) => b.len(),
        }
    }

    fn loss(&self, model: &Aligner, batch: &Self::Batch, rng: &mut Rng) -> Result<TrainLoss> {
        let batch = match batch {
            AlignerBatch::Examples(b) => b,
            AlignerBatch::Distill(b) => {
                let (Some(d), Some(t)) = (&self.distill, &self.teacher) else {
                    return Err(Error::Config(
                        "a batch of distillation pairs without the pairs and their teacher".into(),
                    ));
                };
                return d.loss(model, b, t.weight, rng);
            }
        };
        let r = refs(batch.iter().map(|&i| &self.current[i]));
        let teacher = self.teacher.as_ref().map(|t| {
            let paired = batch
                .iter()
                .map(|&i| &self.current[i])
                .filter(|e| e.label() < 0.0)
                .map(|e| e.pair);
            (t.rows(paired, &model.src_embedding.weight.val()), t.weight)
        });
        Ok(model.loss_distilled(&r, Some(rng), teacher)?.loss)
    }

    fn validate(&self, model: &Aligner) -> Result<Option<Validation>> {
        let Some((examples, batches)) = &self.valid else {
            return Ok(None);
        };
        let (loss, acc) = evaluate(model, examples, batches)?;
        let mut metrics = BTreeMap::new();
        metrics.insert("word_accuracy".into(), acc.overall());
        for k in Kind::ALL {
            if let Some(a) = acc.kind(k) {
                metrics.insert(format!("word_accuracy_{}", k.letter()), a);
            }
        }
        if self.config.objective.sentence() {
            let (a, n) = acc.sentences;
            metrics.insert("pair_accuracy".into(), a as f64 / n.max(1) as f64);
        }
        let mut v = Validation { loss, metrics };
        if let Some(t) = &self.teacher
            && let Some(tv) = &t.valid
            && let Some(cosines) = self.teacher_cosines(model, tv)?
        {
            t.judge(&mut v, cosines);
        }
        Ok(Some(v))
    }

    fn save_description(&self, _model: &Aligner, dir: &Path) -> Result<()> {
        write_description(self.describe.as_ref(), dir, ("aligner", &self.config))
    }

    fn unit(&self) -> &'static str {
        "pairs"
    }
}
