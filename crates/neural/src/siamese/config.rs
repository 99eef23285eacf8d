//! Configuration of the siamese BiRNN classifier, with the paper's defaults and smaller
//! presets for CPUs.

use serde::{Deserialize, Serialize};

use crate::batch::Bucketing;
pub use crate::encoder::Pooling;
use crate::encoder::{EncoderConfig, EncoderRules, preset_sizes};
use crate::error::{Error, Result};
use crate::rnn::CellKind;
use crate::train::{LrSchedule, OptimizerSpec, TrainConfig};

/// The network (Grégoire & Langlais 2018, §3.2 and §4.4): the encoder's settings
/// ([`EncoderConfig`], read as this type's own: `config.emb_dim`), the matching head's and
/// dropout.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiameseConfig {
    /// The encoder shared by both languages: vocabularies (`src_vocab` the whole vocabulary
    /// when `shared_embeddings`, `tgt_vocab` then ignored), word embeddings `d_e` (paper:
    /// 512), recurrent states per direction `d_h` (paper: 512; sentence vectors have twice it)
    /// of a GRU (the paper's; it beat LSTM slightly), a fixed table, the bag of words, n-gram
    /// convolutions (which need a fixed table, `frozen_embeddings`).
    #[serde(flatten)]
    pub encoder: EncoderConfig,
    /// One embedding table for both languages (a joint subword vocabulary) instead of one per
    /// language (the paper's `E^S`, `E^T`).
    pub shared_embeddings: bool,
    /// Hidden units of the fully connected layer (paper: 256).
    pub ff: usize,
    /// Dropout on the recurrent layer's inputs, the word embeddings (paper: 0.2).
    pub dropout_input: f64,
    /// Dropout on the recurrent layer's outputs, the sentence vectors (paper: 0.3).
    pub dropout_output: f64,
    /// How the recurrent states become one vector: the paper's last states, or the maximum over
    /// positions (Kim et al. 2019's `s0`). Default: the paper's.
    #[serde(default, skip_serializing_if = "Pooling::is_last")]
    pub pooling: Pooling,
    /// With the bag of words ([`EncoderConfig::bag`]): a trained hidden layer of this many
    /// units added to the bag, `relu(bag·U + c)·V + d` with `V` starting at zero (0: none). A
    /// student's bag then passes through a small network of it, as in a deep averaging
    /// network, where [`EncoderConfig::bag_map`] is linear. Default: 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bag_hidden: usize,
}

crate::encoder::encoder_settings!(SiameseConfig => crate::siamese::Siamese);

/// What the siamese network is trained to do.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Objective {
    /// The paper's: binary cross-entropy of the matching head on the parallel pairs and `m`
    /// random negatives per pair (Grégoire & Langlais §3.1).
    #[default]
    Classifier,
    /// Translation ranking with in-batch negatives, for vectors that retrieve their
    /// translation: every batch holds parallel pairs only; with the cosines `S` of its source
    /// and target vectors, the loss is the mean of the softmax cross-entropies of each row of
    /// `scale·(S − margin·I)` and of each column (additive margin, as in Yang et al. 2019's
    /// dual encoders), pairs whose other side is the same sentence left out. The matching
    /// head is trained beside it on each pair and its `m` most similar in-batch negatives,
    /// so the classifier and its scorer stay usable.
    Ranking {
        /// Inverse temperature of the softmax.
        scale: f64,
        /// Subtracted from the cosine of each parallel pair.
        margin: f64,
    },
}

impl Objective {
    /// Ranking with the settings of the evaluation: scale 20, margin 0.2.
    #[must_use]
    pub fn ranking() -> Self {
        Self::Ranking {
            scale: 20.0,
            margin: 0.2,
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl SiameseConfig {
    /// The paper's network: embeddings 512, GRU 512 per direction, 256 hidden units, dropout
    /// 0.2 / 0.3, one embedding table per language.
    #[must_use]
    pub fn paper(src_vocab: usize, tgt_vocab: usize) -> Self {
        Self {
            encoder: EncoderConfig::new((src_vocab, tgt_vocab), 512, 512, CellKind::Gru),
            shared_embeddings: false,
            ff: 256,
            dropout_input: 0.2,
            dropout_output: 0.3,
            pooling: Pooling::Last,
            bag_hidden: 0,
        }
    }

    /// A preset by name: `paper` (512/512/256), `medium` (256/256/256) or `small`
    /// (128/128/128), all with the paper's dropout and a shared (joint) vocabulary of `vocab`.
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown name.
    pub fn preset(name: &str, vocab: usize) -> Result<Self> {
        let sizes = [(512, 512, 256), (256, 256, 256), (128, 128, 128)];
        let (e, h, ff) = preset_sizes("siamese", name, sizes)?;
        let shared = Self {
            shared_embeddings: true,
            ff,
            ..Self::paper(vocab, vocab)
        };
        Ok(shared.with_encoder(|x| (x.emb_dim, x.hidden) = (e, h)))
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

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        self.encoder.check(EncoderRules {
            family: "siamese",
            tgt_table: !self.shared_embeddings,
            fixed_table: (self.frozen_embeddings, "frozen_embeddings"),
        })?;
        if self.ff == 0 {
            return Err(Error::Config("siamese ff must be at least 1".into()));
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
        if self.bag_hidden > 0 && !self.bag {
            return Err(Error::Config(
                "a hidden layer of the bag of words (bag_hidden) needs the bag (bag)".into(),
            ));
        }
        Ok(())
    }
}

/// How the classifier is trained (besides the generic [`TrainConfig`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiameseTrainConfig {
    /// Random negatives per positive pair, resampled every epoch (paper: 7); with the ranking
    /// objective, the in-batch negatives per pair the matching head is trained on.
    pub negatives: usize,
    /// The loss (default: the paper's classifier).
    #[serde(default)]
    pub objective: Objective,
    /// Batches: the paper uses 128 examples; the token budget bounds long batches.
    pub batching: Bucketing,
    /// Optimiser, schedule, clipping, epochs, seed.
    pub train: TrainConfig,
    /// Pieces each training batch is encoded in, each on its own thread
    /// ([`Siamese::with_chunks`](crate::siamese::Siamese::with_chunks)): `1` (the default) the
    /// batch whole, `0` measured on this machine at the first batch (1, 2, 4 or 8, cached per
    /// CPU, threads, network and batch size; the same seed then gives the same bytes here).
    #[serde(default = "one_piece")]
    pub pieces: usize,
}

/// The default of [`SiameseTrainConfig::pieces`]: the batch whole.
fn one_piece() -> usize {
    1
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
            objective: Objective::Classifier,
            batching: Bucketing {
                max_items: 128,
                max_tokens: 128 * 160,
            },
            train,
            pieces: 1,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        self.batching.check()?;
        if let Objective::Ranking { scale, margin } = self.objective
            && !(scale.is_finite() && scale > 0.0 && margin.is_finite() && margin >= 0.0)
        {
            return Err(Error::Config(format!(
                "siamese ranking needs a positive finite scale and a finite margin ≥ 0, got \
                 scale {scale} and margin {margin}"
            )));
        }
        self.train.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ngrams::NgramOrders;

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
        let mut t = SiameseTrainConfig::paper(1);
        t.objective = Objective::Ranking {
            scale: 0.0,
            margin: 0.2,
        };
        assert!(t.check().is_err());
        t.objective = Objective::ranking();
        t.check().unwrap();
        let j = serde_json::to_string(&t).unwrap();
        assert!(j.contains(r#""kind":"ranking""#), "{j}");
        assert_eq!(serde_json::from_str::<SiameseTrainConfig>(&j).unwrap(), t);
        let b = SiameseConfig {
            pooling: Pooling::Max,
            ..p.with_encoder(|e| e.bag = true)
        };
        assert_eq!(b.dim(), 512);
        let j = serde_json::to_string(&b).unwrap();
        assert_eq!(serde_json::from_str::<SiameseConfig>(&j).unwrap(), b);
        // Older descriptions (no pooling, no bag) read as the paper's network.
        let old = serde_json::to_string(&p).unwrap();
        assert!(!old.contains("pooling") && !old.contains("bag"), "{old}");
        let h = SiameseConfig {
            bag_hidden: 64,
            ..b
        };
        let j = serde_json::to_string(&h).unwrap();
        assert!(j.contains(r#""bag_hidden":64"#), "{j}");
        assert_eq!(serde_json::from_str::<SiameseConfig>(&j).unwrap(), h);
        let no_bag = h.with_encoder(|e| e.bag = false);
        let e = no_bag.check().unwrap_err().to_string();
        assert!(e.contains("bag_hidden"), "{e}");
        // N-gram convolutions: written as a list, and refused without channels, without
        // the bag or over a trained table, and channels without orders.
        let n = h.with_encoder(|e| {
            e.ngrams = NgramOrders::new(&[2, 3, 5]).unwrap();
            e.ngram_channels = 16;
            e.frozen_embeddings = true;
        });
        n.check().unwrap();
        assert_eq!(n.pooled_dim(), 2 * n.hidden + 48);
        let j = serde_json::to_string(&n).unwrap();
        assert!(j.contains(r#""ngrams":[2,3,5],"ngram_channels":16"#), "{j}");
        assert_eq!(serde_json::from_str::<SiameseConfig>(&j).unwrap(), n);
        for (bad, want) in [
            (
                n.with_encoder(|e| e.ngram_channels = 0),
                "ngram_channels of at least 1",
            ),
            (
                SiameseConfig {
                    bag_hidden: 0,
                    ..n.with_encoder(|e| e.bag = false)
                },
                "need the bag",
            ),
            (
                n.with_encoder(|e| e.frozen_embeddings = false),
                "need a fixed table to read (frozen_embeddings)",
            ),
            (
                n.with_encoder(|e| e.ngrams = NgramOrders::default()),
                "without n-gram orders",
            ),
        ] {
            let e = bad.check().unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }
}
