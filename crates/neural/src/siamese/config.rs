//! Configuration of the siamese BiRNN classifier, with the paper's defaults and smaller
//! presets for CPUs.

use serde::{Deserialize, Serialize};

use crate::batch::Bucketing;
use crate::error::{Error, Result};
use crate::rnn::CellKind;
use crate::train::{LrSchedule, OptimizerSpec, TrainConfig};

/// The network (Grégoire & Langlais 2018, §3.2 and §4.4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiameseConfig {
    /// Source-language vocabulary size (the whole vocabulary when `shared_embeddings`).
    pub src_vocab: usize,
    /// Target-language vocabulary size (ignored when `shared_embeddings`).
    pub tgt_vocab: usize,
    /// One embedding table for both languages (a joint subword vocabulary) instead of one per
    /// language (the paper's `E^S`, `E^T`).
    pub shared_embeddings: bool,
    /// Word embedding size `d_e` (paper: 512).
    pub emb_dim: usize,
    /// Recurrent state size per direction `d_h` (paper: 512); sentence vectors have twice it.
    pub hidden: usize,
    /// Hidden units of the fully connected layer (paper: 256).
    pub ff: usize,
    /// Recurrent cell (paper: GRU, which beat LSTM slightly).
    pub cell: CellKind,
    /// Dropout on the recurrent layer's inputs, the word embeddings (paper: 0.2).
    pub dropout_input: f64,
    /// Dropout on the recurrent layer's outputs, the sentence vectors (paper: 0.3).
    pub dropout_output: f64,
    /// Keep the embedding table fixed during training (for a table initialised from
    /// bilingual embeddings, [`crate::pretrained`]); default: trained.
    #[serde(default, skip_serializing_if = "is_false")]
    pub frozen_embeddings: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SiameseConfig {
    /// The paper's network: embeddings 512, GRU 512 per direction, 256 hidden units, dropout
    /// 0.2 / 0.3, one embedding table per language.
    #[must_use]
    pub fn paper(src_vocab: usize, tgt_vocab: usize) -> Self {
        Self {
            src_vocab,
            tgt_vocab,
            shared_embeddings: false,
            emb_dim: 512,
            hidden: 512,
            ff: 256,
            cell: CellKind::Gru,
            dropout_input: 0.2,
            dropout_output: 0.3,
            frozen_embeddings: false,
        }
    }

    /// A preset by name: `paper` (512/512/256), `medium` (256/256/256) or `small`
    /// (128/128/128), all with the paper's dropout and a shared (joint) vocabulary of `vocab`.
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown name.
    pub fn preset(name: &str, vocab: usize) -> Result<Self> {
        let (e, h, f) = match name {
            "paper" => (512, 512, 256),
            "medium" => (256, 256, 256),
            "small" => (128, 128, 128),
            other => {
                return Err(Error::Config(format!(
                    "unknown siamese preset {other:?} (expected paper, medium or small)"
                )));
            }
        };
        Ok(Self {
            shared_embeddings: true,
            emb_dim: e,
            hidden: h,
            ff: f,
            ..Self::paper(vocab, vocab)
        })
    }

    /// Rows of the embedding table (both languages' tables stacked when not shared).
    #[must_use]
    pub fn table_rows(&self) -> usize {
        if self.shared_embeddings {
            self.src_vocab
        } else {
            self.src_vocab + self.tgt_vocab
        }
    }

    /// Sentence vector size (`2 × hidden`).
    #[must_use]
    pub fn dim(&self) -> usize {
        2 * self.hidden
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        let sizes = [
            ("src_vocab", self.src_vocab),
            ("emb_dim", self.emb_dim),
            ("hidden", self.hidden),
            ("ff", self.ff),
        ];
        if let Some((name, _)) = sizes.iter().find(|(_, v)| *v == 0) {
            return Err(Error::Config(format!("siamese {name} must be at least 1")));
        }
        if !self.shared_embeddings && self.tgt_vocab == 0 {
            return Err(Error::Config("siamese tgt_vocab must be at least 1".into()));
        }
        for (name, p) in [
            ("dropout_input", self.dropout_input),
            ("dropout_output", self.dropout_output),
        ] {
            if !(0.0..1.0).contains(&p) {
                return Err(Error::Config(format!(
                    "siamese {name} must be in [0, 1), got {p}"
                )));
            }
        }
        Ok(())
    }
}

/// How the classifier is trained (besides the generic [`TrainConfig`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiameseTrainConfig {
    /// Random negatives per positive pair, resampled every epoch (paper: 7).
    pub negatives: usize,
    /// Batches: the paper uses 128 examples; the token budget bounds long batches.
    pub batching: Bucketing,
    /// Optimiser, schedule, clipping, epochs, seed.
    pub train: TrainConfig,
}

impl SiameseTrainConfig {
    /// The paper's training: Adam 2e-4, batches of 128, global-norm clipping at 5, 7 negatives,
    /// 15 epochs.
    #[must_use]
    pub fn paper(seed: u64) -> Self {
        let mut train = TrainConfig::new(15, 2e-4, seed);
        train.optimizer = OptimizerSpec::adam(2e-4);
        train.schedule = LrSchedule::Constant;
        train.clip_norm = Some(5.0);
        Self {
            negatives: 7,
            batching: Bucketing {
                max_items: 128,
                max_tokens: 128 * 160,
            },
            train,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        self.batching.check()?;
        self.train.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_checks() {
        let p = SiameseConfig::paper(100, 200);
        assert_eq!((p.table_rows(), p.dim()), (300, 1024));
        p.check().unwrap();
        let s = SiameseConfig::preset("small", 50).unwrap();
        assert_eq!((s.table_rows(), s.dim(), s.ff), (50, 256, 128));
        assert!(SiameseConfig::preset("huge", 5).is_err());
        let bad = SiameseConfig {
            dropout_input: 1.0,
            ..p
        };
        assert!(bad.check().is_err());
        let j = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<SiameseConfig>(&j).unwrap(), p);
        SiameseTrainConfig::paper(1).check().unwrap();
    }
}
