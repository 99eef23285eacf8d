//! Configuration of the shared-decoder autoencoder (Kim et al. 2019, §3 and §4), with the
//! paper's settings and smaller presets for CPUs.

use bitext_encode::Side;
use serde::{Deserialize, Serialize};

use crate::batch::Bucketing;
use crate::encoder::{EncoderConfig, EncoderRules, preset_sizes};
pub use crate::encoding::RankingTerm;
use crate::encoding::by_side;
use crate::error::{Error, Result};
use crate::rnn::CellKind;
use crate::train::{LrSchedule, OptimizerSpec, TrainConfig};

/// How the decoder's output distribution is normalised while training (validation and
/// scoring always use the full softmax).
///
/// The output layer is a `[2·hidden, vocab + 1]` product per decoded token: with a joint
/// subword vocabulary of tens of thousands of pieces it is most of the model's arithmetic.
/// `Sampled` normalises over a candidate set instead: every token that occurs as a target in
/// the batch (and the end-of-sentence class), topped up with tokens drawn uniformly from the
/// rest of the vocabulary until `candidates` are reached. This is Jean et al. (2015)'s
/// importance-sampled softmax with a uniform proposal: the proposal's log-probability, which
/// their estimator subtracts from each logit, is then the same constant for every candidate
/// and cancels in the softmax, so the candidate softmax *is* the estimator. Its gradient pushes
/// down only the candidates' logits; the batch's own targets are always among them, so every
/// token the data uses is trained as a negative whenever it appears in a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Softmax {
    /// Over the whole vocabulary.
    Full,
    /// Over the batch's targets plus uniform draws, at least `candidates` classes (see the
    /// type's docs).
    Sampled {
        /// Size of the candidate set (when the batch's targets are fewer).
        candidates: usize,
    },
}

/// The network: two bidirectional RNN encoders with their own embedding tables, one decoder.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoencoderConfig {
    /// The two encoders' settings (read as this type's own: `config.emb_dim`): a table per
    /// language (`emb_dim` also the decoder's input size), `hidden` states per direction (the
    /// sentence vector, the max-pooled encoder states, and the decoder's state have twice
    /// it), the cell of the encoders and of the decoder, fixed tables (the three, the
    /// decoder's too), the bag of words. Each encoder's bag joins its sentence vector, `s0 =
    /// bag(x) + P·max(h)`: `s0` is still the decoder's initial state, so the bag needs
    /// `emb_dim = 2·hidden`. No map of the bags (`bag_map`), no n-gram convolutions.
    #[serde(flatten)]
    pub encoder: EncoderConfig,
    /// The language the shared decoder writes: `Target` is the paper's model (source → target
    /// NMT plus target autoencoding), `Source` the reverse one (target → source NMT plus
    /// source autoencoding, the paper's eq. 9–10).
    pub decoded: Side,
    /// Output normalisation while training.
    pub softmax: Softmax,
    /// Dropout on the embeddings of the encoders and the decoder while training (the paper
    /// names none: 0).
    #[serde(default)]
    pub dropout: f64,
}

crate::encoder::encoder_settings!(AutoencoderConfig => crate::autoencoder::Autoencoder);

impl AutoencoderConfig {
    /// The paper's network (§4): embeddings and hidden layers of 512 (256 per encoder
    /// direction, so that the max-pooled sentence vector and the decoder state are 512), GRU
    /// cells, decoding the target language, a sampled softmax of 4096 candidates.
    #[must_use]
    pub fn paper(src_vocab: usize, tgt_vocab: usize) -> Self {
        Self {
            encoder: EncoderConfig::new((src_vocab, tgt_vocab), 512, 256, CellKind::Gru),
            decoded: Side::Target,
            softmax: Softmax::Sampled { candidates: 4096 },
            dropout: 0.0,
        }
    }

    /// A preset by name: `paper` (embeddings 512, 256 per direction: 512-d vectors),
    /// `medium` (256, 256: 512-d vectors) or `small` (128, 128: 256-d vectors), with
    /// vocabularies of `vocab` tokens on both sides.
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown name.
    pub fn preset(name: &str, vocab: usize) -> Result<Self> {
        let sizes = [(512, 256, 4096), (256, 256, 2048), (128, 128, 1024)];
        let (e, h, candidates) = preset_sizes("autoencoder", name, sizes)?;
        let sampled = Self {
            softmax: Softmax::Sampled { candidates },
            ..Self::paper(vocab, vocab)
        };
        Ok(sampled.with_encoder(|x| (x.emb_dim, x.hidden) = (e, h)))
    }

    /// Sentence vector size, also the decoder's state size (`2 × hidden`; with the bag of
    /// words, `emb_dim` is the same).
    #[must_use]
    pub fn dim(&self) -> usize {
        2 * self.hidden
    }

    /// Vocabulary size of the decoded language.
    #[must_use]
    pub fn decoded_vocab(&self) -> usize {
        by_side(self.decoded, self.src_vocab, self.tgt_vocab)
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        self.encoder.check(EncoderRules {
            family: "autoencoder",
            tgt_table: true,
            fixed_table: (self.frozen_embeddings, "frozen_embeddings"),
        })?;
        if self.bag_map || !self.ngrams.is_empty() {
            return Err(Error::Config(
                "the autoencoder's encoders have no map of their bags (bag_map) and no n-gram \
                 convolutions (ngrams)"
                    .into(),
            ));
        }
        if self.decoded_vocab() >= u32::MAX as usize - 1 {
            return Err(Error::Config(format!(
                "autoencoder vocabulary of {} tokens is too large",
                self.decoded_vocab()
            )));
        }
        if let Softmax::Sampled { candidates } = self.softmax
            && candidates == 0
        {
            return Err(Error::Config(
                "autoencoder sampled softmax needs at least 1 candidate".into(),
            ));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(Error::Config(format!(
                "autoencoder dropout must be in [0, 1), got {}",
                self.dropout
            )));
        }
        if self.bag && self.emb_dim != 2 * self.hidden {
            return Err(Error::Config(format!(
                "an autoencoder with a bag of words needs emb_dim = 2·hidden (the bag and the \
                 decoder state are the sentence vector), got {} and 2·{}",
                self.emb_dim, self.hidden
            )));
        }
        Ok(())
    }
}

/// How the autoencoder is trained (besides the generic [`TrainConfig`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoencoderTrainConfig {
    /// Batches of parallel pairs (each pair adds one translation and one autoencoding example,
    /// so a batch of `n` pairs decodes `2n` sentences; the paper: 120 sentences).
    pub batching: Bucketing,
    /// Optimiser, schedule, clipping, epochs, seed.
    pub train: TrainConfig,
    /// An auxiliary ranking loss (not in the paper; default: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<RankingTerm>,
}

impl AutoencoderTrainConfig {
    /// The paper's training (§4): SGD at 1.0, batches of 120 sentences (60 pairs: 60
    /// translation and 60 autoencoding examples), the rate × 0.9 every 50k updates after the
    /// first 100k, at most 800k updates; global-norm clipping at 5 (the paper names none; plain
    /// SGD at 1.0 on a recurrent network needs it).
    #[must_use]
    pub fn paper(seed: u64) -> Self {
        let mut train = TrainConfig::new(1000, 1.0, seed);
        train.optimizer = OptimizerSpec::Sgd {
            lr: 1.0,
            momentum: 0.0,
        };
        train.schedule = LrSchedule::StepDecay {
            start: 100_000,
            every: 50_000,
            factor: 0.9,
        };
        train.clip_norm = Some(5.0);
        train.max_steps = Some(800_000);
        Self {
            batching: Bucketing {
                max_items: 60,
                max_tokens: 60 * 2 * 62,
            },
            train,
            ranking: None,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        self.batching.check()?;
        if let Some(r) = &self.ranking {
            r.check()?;
        }
        self.train.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_checks() {
        let p = AutoencoderConfig::paper(100, 200);
        assert_eq!((p.dim(), p.decoded_vocab()), (512, 200));
        p.check().unwrap();
        let r = AutoencoderConfig {
            decoded: Side::Source,
            ..p
        };
        assert_eq!(r.decoded_vocab(), 100);
        let s = AutoencoderConfig::preset("small", 50).unwrap();
        assert_eq!((s.dim(), s.src_vocab, s.tgt_vocab), (256, 50, 50));
        assert!(AutoencoderConfig::preset("huge", 5).is_err());
        for bad in [
            p.with_encoder(|e| e.hidden = 0),
            p.with_encoder(|e| {
                e.bag = true;
                e.emb_dim = 512;
                e.bag_map = true;
            }),
            AutoencoderConfig { dropout: 1.0, ..p },
            AutoencoderConfig {
                softmax: Softmax::Sampled { candidates: 0 },
                ..p
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
        let j = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<AutoencoderConfig>(&j).unwrap(), p);
        AutoencoderTrainConfig::paper(1).check().unwrap();
        let bag = p.with_encoder(|e| e.bag = true);
        bag.check().unwrap();
        let j = serde_json::to_string(&bag).unwrap();
        assert_eq!(serde_json::from_str::<AutoencoderConfig>(&j).unwrap(), bag);
        assert!(
            p.with_encoder(|e| {
                e.bag = true;
                e.hidden = 128;
            })
            .check()
            .is_err()
        );
        assert!(!serde_json::to_string(&p).unwrap().contains("bag"));
        let mut t = AutoencoderTrainConfig::paper(1);
        t.ranking = Some(RankingTerm {
            weight: 1.0,
            scale: 20.0,
            margin: 0.2,
            pairs: 128,
        });
        t.check().unwrap();
        t.ranking = Some(RankingTerm {
            weight: -1.0,
            scale: 20.0,
            margin: 0.2,
            pairs: 0,
        });
        assert!(t.check().is_err());
    }
}
