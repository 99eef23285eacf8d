//! Training the siamese classifier: positives are the parallel pairs, and every epoch draws `m`
//! fresh random negatives `(s_k, t_j)`, `j ≠ k`, per positive (Grégoire & Langlais §3.1).

use std::collections::BTreeMap;
use std::path::Path;

use bitext_core::tune::TuneCache;
use bitext_core::{Embeddings, Rng};
use bitext_encode::Side;
use burn::tensor::Tensor;

use crate::batch::Bucketing;
use crate::distill::{Distilled, Teacher, mean_cosine};
use crate::error::{Error, Result};
use crate::init::to_host1;
use crate::layers::bce_with_logits;
use crate::siamese::{Objective, Siamese, SiameseConfig};
use crate::text::TextNetwork;
use crate::train::checkpoint::{Describe, Described, write_description};
use crate::train::{Task, TrainLoss, Validation};

/// Parallel sentences as token ids: `src[k]` translates `tgt[k]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParallelIds {
    /// Source sentences.
    pub src: Vec<Vec<u32>>,
    /// Target sentences.
    pub tgt: Vec<Vec<u32>>,
}

crate::encoding::pair_count!(ParallelIds);

impl ParallelIds {
    /// Pairs, checked: both sides equally long, no empty sentence.
    ///
    /// # Errors
    /// [`Error::Input`] naming the first bad pair.
    pub fn new(src: Vec<Vec<u32>>, tgt: Vec<Vec<u32>>) -> Result<Self> {
        Error::check_sides(src.len(), tgt.len())?;
        if let Some(k) = (0..src.len()).find(|&k| src[k].is_empty() || tgt[k].is_empty()) {
            return Err(Error::Input(format!("pair {k} has an empty sentence")));
        }
        Ok(Self { src, tgt })
    }
}

/// One labelled example: source index, target index, parallel or not.
pub type Example = (u32, u32, bool);

/// Positives plus `m` random negatives per positive. A negative whose target sentence equals
/// the positive's target (duplicates in the data) is drawn again, up to a few times.
#[must_use]
pub fn examples_with_negatives(data: &ParallelIds, m: usize, rng: &mut Rng) -> Vec<Example> {
    let n = data.len();
    let mut out = Vec::with_capacity(n * (1 + m));
    for k in 0..n {
        out.push((k as u32, k as u32, true));
        if n < 2 {
            continue;
        }
        for _ in 0..m {
            let mut j = k;
            for _ in 0..8 {
                let r = rng.below(n - 1);
                j = if r >= k { r + 1 } else { r };
                if data.tgt[j] != data.tgt[k] {
                    break;
                }
            }
            if data.tgt[j] != data.tgt[k] {
                out.push((k as u32, j as u32, false));
            }
        }
    }
    out
}

/// The training [`Task`] of the siamese classifier.
///
/// With a teacher ([`Distilled::with_teacher`]), both sentences of training pair `k` are
/// pulled towards the teacher's row `k` (the source sentence towards the teacher's vector of
/// itself, with [`Teacher::source`]), with the distillation loss added to the objective's or
/// alone ([`Teacher::alone`]: every batch then holds parallel pairs only, and the matching
/// head is not trained).
pub struct SiameseTask {
    config: SiameseConfig,
    train: ParallelIds,
    valid: Option<(ParallelIds, Vec<Vec<Example>>)>,
    negatives: usize,
    objective: Objective,
    batching: Bucketing,
    describe: Option<Describe>,
    teacher: Option<Teacher>,
    /// Where measured pieces are kept (`pieces: 0`; [`crate::siamese::Siamese::with_chunks`]).
    tune_cache: TuneCache,
}

impl std::fmt::Debug for SiameseTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SiameseTask")
            .field("config", &self.config)
            .field("train_pairs", &self.train.len())
            .field("valid_pairs", &self.valid.as_ref().map(|v| v.0.len()))
            .field("negatives", &self.negatives)
            .field("objective", &self.objective)
            .field(
                "teacher",
                &self.teacher.as_ref().map(|t| (t.weight, t.alone)),
            )
            .finish_non_exhaustive()
    }
}

impl SiameseTask {
    /// Train on `train`; validate on `valid` with `negatives` fixed random negatives per pair
    /// (drawn once from `seed`, so every epoch is judged on the same examples).
    ///
    /// # Errors
    /// [`Error::Input`] when there are fewer than two training pairs.
    pub fn new(
        config: SiameseConfig,
        train: ParallelIds,
        valid: Option<ParallelIds>,
        negatives: usize,
        batching: Bucketing,
        seed: u64,
    ) -> Result<Self> {
        if train.len() < 2 {
            return Err(Error::Input(
                "the siamese classifier needs at least two training pairs".into(),
            ));
        }
        batching.check()?;
        let valid = valid.filter(|v| !v.is_empty()).map(|v| {
            let mut rng = Rng::seed(seed).fork(0x7a11d);
            let ex = examples_with_negatives(&v, negatives, &mut rng);
            let batches = plan(&v, &ex, &batching, None);
            (v, batches)
        });
        Ok(Self {
            config,
            train,
            valid,
            negatives,
            objective: Objective::Classifier,
            batching,
            describe: None,
            teacher: None,
            tune_cache: TuneCache::from_env(),
        })
    }

    /// Keep a measured number of pieces in `cache` rather than the environment's
    /// ([`TuneCache::from_env`]).
    #[must_use]
    pub fn with_tune_cache(mut self, cache: TuneCache) -> Self {
        self.tune_cache = cache;
        self
    }

    /// Train with `objective` (default: the paper's classifier). With
    /// [`Objective::Ranking`], every batch holds parallel pairs only, and validation reports
    /// the ranking loss over the whole validation set (each pair against all others) with
    /// the precision at one of retrieving each side's translation by cosine.
    #[must_use]
    pub fn with_objective(mut self, objective: Objective) -> Self {
        self.objective = objective;
        self
    }

    /// The network configuration.
    #[must_use]
    pub fn config(&self) -> &SiameseConfig {
        &self.config
    }
}

fn plan(
    data: &ParallelIds,
    ex: &[Example],
    batching: &Bucketing,
    rng: Option<&mut Rng>,
) -> Vec<Vec<Example>> {
    let costs: Vec<usize> = ex
        .iter()
        .map(|&(s, t, _)| data.src[s as usize].len() + data.tgt[t as usize].len())
        .collect();
    batching
        .plan(&costs, rng)
        .into_iter()
        .map(|b| b.into_iter().map(|i| ex[i]).collect())
        .collect()
}

fn logits(
    model: &Siamese,
    data: &ParallelIds,
    batch: &[Example],
    rng: Option<&mut Rng>,
) -> Result<Tensor<1>> {
    let src: Vec<&[u32]> = batch.iter().map(|e| &data.src[e.0 as usize][..]).collect();
    let tgt: Vec<&[u32]> = batch.iter().map(|e| &data.tgt[e.1 as usize][..]).collect();
    model.pair_logits(&src, &tgt, rng)
}

fn labels(batch: &[Example]) -> Vec<f32> {
    batch.iter().map(|e| if e.2 { 1.0 } else { 0.0 }).collect()
}

/// The sentence vectors of both sides of `data`.
fn valid_vectors(
    model: &Siamese,
    data: &ParallelIds,
    batching: &Bucketing,
) -> Result<(Embeddings, Embeddings)> {
    let srcs: Vec<&[u32]> = data.src.iter().map(Vec::as_slice).collect();
    let tgts: Vec<&[u32]> = data.tgt.iter().map(Vec::as_slice).collect();
    let a = model.encode_all(&srcs, Side::Source, batching)?;
    let b = model.encode_all(&tgts, Side::Target, batching)?;
    Ok((a, b))
}

/// The ranking loss of all validation pairs at once (each pair against every other, duplicates
/// not left out) and the share of sentences whose nearest neighbour by cosine on the other side
/// is their translation (`p@1 src→tgt`, `p@1 tgt→src`), from their vectors `a`, `b`.
fn ranking_validation(mut a: Embeddings, mut b: Embeddings, scale: f64, margin: f64) -> Validation {
    a.normalize_l2();
    b.normalize_l2();
    let n = a.len();
    let mut cos = vec![0f64; n * n];
    for i in 0..n {
        for j in 0..n {
            cos[i * n + j] = a
                .row(i)
                .iter()
                .zip(b.row(j))
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum();
        }
    }
    let logit = |i: usize, j: usize| scale * (cos[i * n + j] - if i == j { margin } else { 0.0 });
    let (mut loss, mut hits_s, mut hits_t) = (0.0, 0usize, 0usize);
    for i in 0..n {
        for (by_row, hits) in [(true, &mut hits_s), (false, &mut hits_t)] {
            let at = |j: usize| if by_row { logit(i, j) } else { logit(j, i) };
            let m = (0..n).map(at).fold(f64::NEG_INFINITY, f64::max);
            let lse = m + (0..n).map(|j| (at(j) - m).exp()).sum::<f64>().ln();
            loss += lse - at(i);
            let c = |j: usize| {
                if by_row {
                    cos[i * n + j]
                } else {
                    cos[j * n + i]
                }
            };
            let best = (0..n).fold(0, |best, j| if c(j) > c(best) { j } else { best });
            *hits += usize::from(best == i);
        }
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("p@1 src→tgt".into(), hits_s as f64 / n.max(1) as f64);
    metrics.insert("p@1 tgt→src".into(), hits_t as f64 / n.max(1) as f64);
    Validation {
        loss: loss / (2 * n.max(1)) as f64,
        metrics,
    }
}

impl SiameseTask {
    /// The validation of the classifier objective: the head's cross-entropy and its accuracy,
    /// precision and recall over the fixed validation examples.
    fn classifier_validation(&self, model: &Siamese) -> Result<Option<Validation>> {
        let Some((data, batches)) = &self.valid else {
            return Ok(None);
        };
        let (mut loss, mut n) = (0.0, 0usize);
        let (mut tp, mut fp, mut fneg, mut correct) = (0usize, 0usize, 0usize, 0usize);
        for batch in batches {
            let z = logits(model, data, batch, None)?;
            let y = labels(batch);
            let l = to_host1(bce_with_logits(z.clone(), &y))?[0];
            loss += f64::from(l) * batch.len() as f64;
            for (zi, yi) in to_host1(z)?.into_iter().zip(&y) {
                let pred = zi >= 0.0;
                let gold = *yi > 0.5;
                correct += usize::from(pred == gold);
                tp += usize::from(pred && gold);
                fp += usize::from(pred && !gold);
                fneg += usize::from(!pred && gold);
            }
            n += batch.len();
        }
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut metrics = BTreeMap::new();
        metrics.insert("accuracy".into(), ratio(correct, n));
        metrics.insert("precision".into(), ratio(tp, tp + fp));
        metrics.insert("recall".into(), ratio(tp, tp + fneg));
        Ok(Some(Validation {
            loss: loss / n.max(1) as f64,
            metrics,
        }))
    }
}

impl Described for SiameseTask {
    fn describe_mut(&mut self) -> &mut Option<Describe> {
        &mut self.describe
    }
}

impl Distilled for SiameseTask {
    fn teacher_pairs(&self) -> (usize, Option<usize>) {
        (self.train.len(), self.valid.as_ref().map(|v| v.0.len()))
    }

    fn teacher_mut(&mut self) -> &mut Option<Teacher> {
        &mut self.teacher
    }
}

impl Task for SiameseTask {
    type Model = Siamese;
    type Batch = Vec<Example>;

    fn epoch_batches(&mut self, _epoch: usize, rng: &mut Rng) -> Result<Vec<Self::Batch>> {
        let alone = self.teacher.as_ref().is_some_and(|t| t.alone);
        let ex = match self.objective {
            Objective::Classifier if !alone => {
                examples_with_negatives(&self.train, self.negatives, rng)
            }
            _ => (0..self.train.len() as u32).map(|k| (k, k, true)).collect(),
        };
        Ok(plan(&self.train, &ex, &self.batching, Some(rng)))
    }

    fn batch_items(&self, batch: &Self::Batch) -> usize {
        batch.len()
    }

    /// With `pieces: 0`, the pieces measured on this batch ([`crate::siamese`]'s `pieces`).
    fn tuned(&self, model: Siamese, batch: &Self::Batch) -> Result<Siamese> {
        if model.pieces() != 0 {
            return Ok(model);
        }
        let network = serde_json::to_value(self.config)
            .map_err(|e| Error::Config(format!("the network as JSON: {e}")))?;
        let key = (network, (self.batching.max_items, self.batching.max_tokens));
        let loss = |m: &Siamese, rng: &mut Rng| self.loss(m, batch, rng);
        super::pieces::measured(model, &self.tune_cache, key, 2 * batch.len(), &loss)
    }

    fn loss(&self, model: &Siamese, batch: &Self::Batch, rng: &mut Rng) -> Result<TrainLoss> {
        let src: Vec<&[u32]> = batch
            .iter()
            .map(|e| &self.train.src[e.0 as usize][..])
            .collect();
        let tgt: Vec<&[u32]> = batch
            .iter()
            .map(|e| &self.train.tgt[e.1 as usize][..])
            .collect();
        let Some(teacher) = &self.teacher else {
            return match self.objective {
                Objective::Classifier => model.pair_loss(&src, &tgt, &labels(batch), Some(rng)),
                Objective::Ranking { scale, margin } => {
                    model.ranking_loss(&src, &tgt, scale, margin, self.negatives, Some(rng))
                }
            };
        };
        let (a, b, stage) = model.pair_vectors(&src, &tgt, Some(rng), model.autodiff())?;
        // Each sentence towards the teacher's vector of its own pair (of itself, with the
        // teacher's source vectors).
        let distill = teacher.pull(
            (a.clone(), batch.iter().map(|e| e.0 as usize)),
            (b.clone(), batch.iter().map(|e| e.1 as usize)),
        );
        let value = if teacher.alone {
            distill
        } else {
            let own = match self.objective {
                Objective::Classifier => bce_with_logits(model.head(a, b), &labels(batch)),
                Objective::Ranking { scale, margin } => {
                    model.ranking_terms(a, b, &src, &tgt, scale, margin, self.negatives)?
                }
            };
            own + distill.mul_scalar(teacher.weight)
        };
        Ok(TrainLoss {
            value,
            deferred: stage.into_iter().collect(),
        })
    }

    fn validate(&self, model: &Siamese) -> Result<Option<Validation>> {
        let Some((data, _)) = &self.valid else {
            return Ok(None);
        };
        let ranking = match self.objective {
            Objective::Ranking { scale, margin } => Some((scale, margin)),
            Objective::Classifier => None,
        };
        let vectors = if ranking.is_some() || self.teacher.is_some() {
            Some(valid_vectors(model, data, &self.batching)?)
        } else {
            None
        };
        let own = match (ranking, &vectors) {
            (Some((scale, margin)), Some((a, b))) => {
                Some(ranking_validation(a.clone(), b.clone(), scale, margin))
            }
            _ => self.classifier_validation(model)?,
        };
        let Some(mut v) = own else {
            return Ok(None);
        };
        let (Some(teacher), Some((a, b))) = (&self.teacher, &vectors) else {
            return Ok(Some(v));
        };
        let Some((vs, vt)) = teacher.valid_sides() else {
            return Ok(Some(v));
        };
        teacher.judge(&mut v, (mean_cosine(a, vs), mean_cosine(b, vt)));
        Ok(Some(v))
    }

    fn save_description(&self, _model: &Siamese, dir: &Path) -> Result<()> {
        write_description(self.describe.as_ref(), dir, ("siamese", &self.config))
    }

    fn unit(&self) -> &'static str {
        "pairs"
    }
}
