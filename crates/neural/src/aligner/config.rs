//! Configuration of the word-alignment BiLSTM, with the paper's settings and smaller presets for
//! CPUs.

use serde::{Deserialize, Serialize};

use crate::batch::Bucketing;
use crate::encoder::{EncoderConfig, EncoderRules, Pooling, preset_sizes};
pub use crate::encoding::RankingTerm;
use crate::error::{Error, Result};
use crate::rnn::CellKind;
use crate::train::{LrSchedule, OptimizerSpec, TrainConfig};

/// What the network is trained to predict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// The paper's `wemb`: the word-level loss over the aggregated alignment scores (eq. 3).
    Words,
    /// The paper's `semb`: the sentence-level loss of the comparison head (eq. 5).
    Sentence,
    /// The sum of both losses (one model gives word labels, `wemb` cosines and `semb` scores).
    Both,
}

impl Objective {
    /// Whether the word-level loss is part of the objective.
    #[must_use]
    pub fn words(self) -> bool {
        matches!(self, Self::Words | Self::Both)
    }

    /// Whether the sentence-level loss is part of the objective.
    #[must_use]
    pub fn sentence(self) -> bool {
        matches!(self, Self::Sentence | Self::Both)
    }
}

/// The network: two embedding tables and two bidirectional encoders (one per language), the
/// alignment matrix with its log-sum-exp aggregation, and the sentence comparison head.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlignerConfig {
    /// The two encoders' settings (read as this type's own: `config.emb_dim`): a table and a
    /// recurrence (the paper: LSTM) per language, `hidden` states per direction (word vectors
    /// and sentence vectors have twice it), fixed tables, the bag of words (not in the draft:
    /// `v = bag(x) + P·pool(h)`, IDF-weighted over each side's training text, the word
    /// examples' and any distillation pairs' sentences, `P` starting at zero, so that training
    /// starts from the bag of words and the sentence vector, `wemb`, `semb` and the ranking
    /// term, reaches the word states only through `P`; the sentence vector then has `emb_dim`
    /// components) and its map, n-gram convolutions beside each encoder's recurrence (not in
    /// the draft; they read the bags' own table, [`AlignerConfig::bag_table`], or else the
    /// encoders' rows, which must then be fixed; the word states and labels are untouched).
    #[serde(flatten)]
    pub encoder: EncoderConfig,
    /// Sharpness `r` of the aggregation `(1/r) log Σ exp(r·S)`: large `r` approaches the
    /// maximum, small `r` a sum.
    pub r: f64,
    /// Hidden units of the `semb` head `tanh(W[h1; h2] + b)`.
    pub ff: usize,
    /// The loss that is trained.
    pub objective: Objective,
    /// Dropout on the embeddings while training.
    #[serde(default)]
    pub dropout: f64,
    /// The in-batch ranking loss on the sentence vectors of the batch's parallel examples,
    /// beside the objective's losses (`pairs` must be 0: the aligner ranks its batch only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<RankingTerm>,
    /// How the word states become the sentence vector (`wemb`, `semb` and the ranking term):
    /// the final states (the default, the paper's) or their maximum over positions.
    #[serde(default)]
    pub pooling: Pooling,
    /// With the bag of words ([`EncoderConfig::bag`]): both bags read a fixed table of their
    /// own `[src_vocab, emb_dim]`, shared by the two sides (one vocabulary), instead of the
    /// encoders' input rows: e.g. a teacher's own subword vectors for the sentence vector
    /// while the recurrent encoders and the word labels keep other vectors. Not in the draft.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bag_table: bool,
    /// Shift every alignment score of a pair by a trained function of how similar its two
    /// sentences are: `S(i, j) = h_i·h_j + s·(a·cos(v_src, v_tgt) + c)` (`s` =
    /// [`SHIFT_SCALE`](super::SHIFT_SCALE)), `a` and `c` starting
    /// at zero (the untrained network's scores are the draft's). An unrelated pair then needs
    /// no word state of its own to say that every word is divergent, and the word loss trains
    /// the sentence vectors too. Not in the draft.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sentence_shift: bool,
}

crate::encoder::encoder_settings!(AlignerConfig => crate::aligner::Aligner);

impl AlignerConfig {
    /// The paper's network (§4.2.1): embeddings of 256, LSTMs of 256 per direction (512-d word
    /// and sentence vectors), `r = 1` (the paper names none; see the module docs), a 256-unit
    /// `semb` head, the word-level objective.
    #[must_use]
    pub fn paper(src_vocab: usize, tgt_vocab: usize) -> Self {
        Self {
            encoder: EncoderConfig::new((src_vocab, tgt_vocab), 256, 256, CellKind::Lstm),
            r: 1.0,
            ff: 256,
            objective: Objective::Words,
            dropout: 0.0,
            ranking: None,
            pooling: Pooling::Last,
            bag_table: false,
            sentence_shift: false,
        }
    }

    /// A preset by name: `paper` (embeddings 256, 256 per direction), `medium` (256, 128) or
    /// `small` (128, 64), with vocabularies of `vocab` tokens on both sides.
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown name.
    pub fn preset(name: &str, vocab: usize) -> Result<Self> {
        let sizes = [(256, 256, 256), (256, 128, 128), (128, 64, 64)];
        let (e, h, ff) = preset_sizes("aligner", name, sizes)?;
        let head = Self {
            ff,
            ..Self::paper(vocab, vocab)
        };
        Ok(head.with_encoder(|x| (x.emb_dim, x.hidden) = (e, h)))
    }

    /// Word vector size (`2 × hidden`).
    #[must_use]
    pub fn word_dim(&self) -> usize {
        2 * self.hidden
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        self.encoder.check(EncoderRules {
            family: "aligner",
            tgt_table: true,
            fixed_table: (
                self.bag_table || self.frozen_embeddings,
                "bag_table or frozen_embeddings",
            ),
        })?;
        if self.ff == 0 {
            return Err(Error::Config("aligner ff must be at least 1".into()));
        }
        if !(self.r.is_finite() && self.r > 0.0) {
            return Err(Error::Config(format!(
                "aligner aggregation sharpness r must be positive and finite, got {}",
                self.r
            )));
        }
        if let Some(r) = &self.ranking {
            r.check_in_batch(
                "the aligner's ranking term ranks its batch's parallel examples only",
            )?;
        }
        if self.bag_table && !self.bag {
            return Err(Error::Config(
                "the bag of words' own table (bag_table) needs the bag (bag)".into(),
            ));
        }
        if self.bag_table && self.src_vocab != self.tgt_vocab {
            return Err(Error::Config(format!(
                "the bags' own table (bag_table) is shared by both sides: it needs one \
                 vocabulary, got {} source and {} target tokens",
                self.src_vocab, self.tgt_vocab
            )));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(Error::Config(format!(
                "aligner dropout must be in [0, 1), got {}",
                self.dropout
            )));
        }
        Ok(())
    }
}

/// How the aligner is trained (besides the generic [`TrainConfig`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlignerTrainConfig {
    /// Batches of examples (cost of an example: its two lengths).
    pub batching: Bucketing,
    /// Optimiser, schedule, clipping, epochs, seed.
    pub train: TrainConfig,
}

impl AlignerTrainConfig {
    /// The paper's training (§4.2.1): SGD with global-norm clipping (at 5: the paper names no
    /// threshold), batches of 32 examples, the rate × 0.8 when the validation loss worsens,
    /// 10 epochs.
    #[must_use]
    pub fn paper(seed: u64) -> Self {
        let mut train = TrainConfig::new(10, 1.0, seed);
        train.optimizer = OptimizerSpec::Sgd {
            lr: 1.0,
            momentum: 0.0,
        };
        train.schedule = LrSchedule::Plateau { factor: 0.8 };
        train.clip_norm = Some(5.0);
        Self {
            batching: Bucketing {
                max_items: 32,
                max_tokens: 32 * 160,
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
    use crate::ngrams::NgramOrders;

    #[test]
    fn presets_and_checks() {
        let p = AlignerConfig::paper(100, 200);
        assert_eq!(p.dim(), 512);
        p.check().unwrap();
        let s = AlignerConfig::preset("small", 50).unwrap();
        assert_eq!((s.dim(), s.src_vocab, s.tgt_vocab), (128, 50, 50));
        assert!(AlignerConfig::preset("huge", 5).is_err());
        let ranked = |weight, scale, pairs| AlignerConfig {
            ranking: Some(RankingTerm {
                weight,
                scale,
                margin: 0.2,
                pairs,
            }),
            ..p
        };
        for bad in [
            p.with_encoder(|e| e.hidden = 0),
            AlignerConfig { r: 0.0, ..p },
            AlignerConfig { r: f64::NAN, ..p },
            AlignerConfig { dropout: 1.0, ..p },
            p.with_encoder(|e| e.bag_map = true),
            AlignerConfig {
                bag_table: true,
                ..p
            },
            AlignerConfig {
                bag_table: true,
                ..p.with_encoder(|e| e.bag = true)
            },
            ranked(-1.0, 20.0, 0),
            ranked(1.0, 0.0, 0),
            ranked(1.0, 20.0, 64),
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
        let j = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<AlignerConfig>(&j).unwrap(), p);
        assert!(!j.contains("bag"), "{j}");
        let bag = AlignerConfig {
            bag_table: true,
            ..AlignerConfig::paper(100, 100).with_encoder(|e| {
                e.bag = true;
                e.bag_map = true;
            })
        };
        bag.check().unwrap();
        assert_eq!((bag.dim(), bag.word_dim()), (256, 512));
        let j = serde_json::to_string(&bag).unwrap();
        assert_eq!(serde_json::from_str::<AlignerConfig>(&j).unwrap(), bag);
        assert!(!j.contains("ngram"), "{j}");
        let ng = bag.with_encoder(|e| {
            e.ngrams = NgramOrders::new(&[2, 3, 5]).unwrap();
            e.ngram_channels = 16;
        });
        ng.check().unwrap();
        assert_eq!((ng.pooled_dim(), ng.dim()), (512 + 48, 256));
        let j = serde_json::to_string(&ng).unwrap();
        assert!(j.contains(r#""ngrams":[2,3,5],"ngram_channels":16"#), "{j}");
        assert_eq!(serde_json::from_str::<AlignerConfig>(&j).unwrap(), ng);
        // Without the bags' own table the encoders' rows must be fixed.
        let rows = AlignerConfig {
            bag_table: false,
            ..ng
        };
        let e = rows.check().unwrap_err().to_string();
        assert!(e.contains("bag_table or frozen_embeddings"), "{e}");
        rows.with_encoder(|e| e.frozen_embeddings = true)
            .check()
            .unwrap();
        for (bad, want) in [
            (
                AlignerConfig {
                    bag_table: false,
                    ..ng.with_encoder(|e| {
                        e.bag = false;
                        e.bag_map = false;
                    })
                },
                "need the bag",
            ),
            (ng.with_encoder(|e| e.ngram_channels = 0), "at least 1"),
        ] {
            let e = bad.check().unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        AlignerTrainConfig::paper(1).check().unwrap();
        assert!(Objective::Both.words() && Objective::Both.sentence());
        assert!(!Objective::Words.sentence() && !Objective::Sentence.words());
    }
}
