//! Training the MLP similarity on labelled embedding pairs, and scoring with it.

use std::collections::BTreeMap;
use std::path::Path;

use bitext_core::{Embeddings, Rng};
use bitext_similarity::PairScorer;
use burn::module::Module;
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::backend::BackendSpec;
use crate::error::{Error, Result};
use crate::init::to_host1;
use crate::layers::bce_with_logits;
use crate::mlp::{Mlp, MlpConfig, PairSet};
use crate::train::{Task, TrainLoss, Validation, checkpoint};

/// What `model.json` of an MLP similarity says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "mlp")]
pub struct MlpDescription {
    /// The network.
    pub network: MlpConfig,
    /// The encoder whose embeddings it was trained on (free text, e.g. a model directory).
    #[serde(default)]
    pub encoder: Option<String>,
}

/// The training [`Task`] of the MLP similarity: shuffled mini-batches of labelled pairs.
#[derive(Debug)]
pub struct MlpTask {
    description: MlpDescription,
    train: PairSet,
    valid: Option<PairSet>,
    batch_size: usize,
}

impl MlpTask {
    /// Train on `train`, validate on `valid`, in batches of `batch_size` pairs.
    ///
    /// # Errors
    /// [`Error::Input`] when the training set is empty or the dimensions differ from the
    /// network's; [`Error::Config`] for a zero batch size.
    pub fn new(
        description: MlpDescription,
        train: PairSet,
        valid: Option<PairSet>,
        batch_size: usize,
    ) -> Result<Self> {
        description.network.check()?;
        if batch_size == 0 {
            return Err(Error::Config("batch_size must be at least 1".into()));
        }
        if train.is_empty() {
            return Err(Error::Input("no training pairs for the MLP".into()));
        }
        for set in std::iter::once(&train).chain(valid.as_ref()) {
            if set.dim() != description.network.dim {
                return Err(Error::Input(format!(
                    "the MLP compares {}-dimensional embeddings, the pairs have {}",
                    description.network.dim,
                    set.dim()
                )));
            }
        }
        Ok(Self {
            description,
            train,
            valid: valid.filter(|v| !v.is_empty()),
            batch_size,
        })
    }
}

fn labels(set: &PairSet, rows: &[usize]) -> Vec<f32> {
    rows.iter()
        .map(|&i| if set.labels()[i] { 1.0 } else { 0.0 })
        .collect()
}

fn input(model: &Mlp, set: &PairSet, rows: &[usize], device: &Device) -> Result<Tensor<2>> {
    let pairs: Vec<(usize, usize)> = rows.iter().map(|&i| (i, i)).collect();
    model.pair_input(set.src(), set.tgt(), &pairs, device)
}

impl Task for MlpTask {
    type Model = Mlp;
    type Batch = Vec<usize>;

    fn epoch_batches(&mut self, _epoch: usize, rng: &mut Rng) -> Result<Vec<Vec<usize>>> {
        let mut idx: Vec<usize> = (0..self.train.len()).collect();
        rng.shuffle(&mut idx);
        Ok(idx.chunks(self.batch_size).map(<[usize]>::to_vec).collect())
    }

    fn batch_items(&self, batch: &Vec<usize>) -> usize {
        batch.len()
    }

    fn loss(&self, model: &Mlp, batch: &Vec<usize>, rng: &mut Rng) -> Result<TrainLoss> {
        let device = model.output.weight.device();
        let x = input(model, &self.train, batch, &device)?;
        Ok(bce_with_logits(model.logits(x, Some(rng)), &labels(&self.train, batch)).into())
    }

    fn validate(&self, model: &Mlp) -> Result<Option<Validation>> {
        let Some(valid) = &self.valid else {
            return Ok(None);
        };
        let device = model.output.weight.device();
        let (mut loss, mut correct) = (0.0, 0usize);
        let all: Vec<usize> = (0..valid.len()).collect();
        for rows in all.chunks(4096) {
            let z = model.logits(input(model, valid, rows, &device)?, None);
            let y = labels(valid, rows);
            loss += f64::from(to_host1(bce_with_logits(z.clone(), &y))?[0]) * rows.len() as f64;
            correct += to_host1(z)?
                .iter()
                .zip(&y)
                .filter(|(z, y)| (**z >= 0.0) == (**y > 0.5))
                .count();
        }
        let n = valid.len() as f64;
        let mut metrics = BTreeMap::new();
        metrics.insert("accuracy".to_string(), correct as f64 / n);
        Ok(Some(Validation {
            loss: loss / n,
            metrics,
        }))
    }

    fn save_description(&self, _model: &Mlp, dir: &Path) -> Result<()> {
        checkpoint::write_json(&dir.join(checkpoint::MODEL_FILE), &self.description)
    }

    fn unit(&self) -> &'static str {
        "pairs"
    }
}

/// Load an MLP similarity saved by training (`model.json` + `weights.bpk`) onto `backend`'s
/// inference device.
///
/// # Errors
/// [`Error::Checkpoint`] / I/O errors naming the file.
pub fn load_mlp(dir: &Path, backend: BackendSpec) -> Result<(Mlp, MlpDescription)> {
    let desc: MlpDescription = checkpoint::read_json(&dir.join(checkpoint::MODEL_FILE))?;
    let device = backend.device()?;
    let model = Mlp::new(&desc.network, 0, &device)?;
    let model = checkpoint::load_weights(model, &dir.join(checkpoint::WEIGHTS_FILE))?;
    Ok((model, desc))
}

/// Scores pairs of rows of two embedding matrices with an MLP similarity: `q(a_i, b_j)`, a
/// probability.
#[derive(Debug)]
pub struct MlpScorer {
    model: Mlp,
    src: Embeddings,
    tgt: Embeddings,
    chunk: usize,
}

impl MlpScorer {
    /// A scorer over `src` and `tgt` with `model` (moved to its inference copy).
    ///
    /// # Errors
    /// [`Error::Input`] when a dimension differs from the model's or a value is not finite.
    pub fn new(model: &Mlp, src: Embeddings, tgt: Embeddings) -> Result<Self> {
        if src.dim() != model.dim() || tgt.dim() != model.dim() {
            return Err(Error::Input(format!(
                "the MLP compares {}-dimensional embeddings, got {} and {}",
                model.dim(),
                src.dim(),
                tgt.dim()
            )));
        }
        src.check_finite()?;
        tgt.check_finite()?;
        Ok(Self {
            model: model.valid(),
            src,
            tgt,
            chunk: 8192,
        })
    }

    /// Probabilities of `pairs`.
    ///
    /// # Errors
    /// [`Error::Input`] for an index out of range.
    pub fn probabilities(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
        let device = self.model.output.weight.device();
        let mut out = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(self.chunk) {
            let x = self
                .model
                .pair_input(self.src.view(), self.tgt.view(), chunk, &device)?;
            out.extend(
                to_host1(self.model.probability(x))?
                    .into_iter()
                    .map(f64::from),
            );
        }
        Ok(out)
    }
}

impl PairScorer for MlpScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        Ok(self.probabilities(pairs)?)
    }
}
