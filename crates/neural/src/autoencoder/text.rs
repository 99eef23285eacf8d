//! The autoencoder on text: its model directory (`model.json` with the network and tokenizers,
//! `weights.bpk`, vocabularies or the sentencepiece model), training from parallel (and
//! monolingual) text, and the [`AutoencoderEncoder`], a `SentenceEncoder` whose vectors are
//! the max-pooled states of each language's encoder.

use std::path::Path;

use bitext_core::{Embeddings, Rng};
use bitext_encode::Side;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use crate::autoencoder::{Autoencoder, AutoencoderConfig, AutoencoderTask, AutoencoderTrainConfig};
use crate::batch::Bucketing;
use crate::distill::{Distilled, Teacher};
use crate::encoding::{by_side, encode_in_batches, side_bag_weights};
use crate::error::{Error, Result};
use crate::pretrained::{InitReport, with_extra_rows};
use crate::siamese::ParallelIds;
use crate::text::driver::{SideTables, TextFamily, text_training};
use crate::text::tokens::{PairTokens, SideTokens};
use crate::text::{TextCodec, TextConfig, TextCorpus, TextModel, TextNetwork, Trained};

/// What `model.json` of an autoencoder says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "autoencoder")]
pub struct AutoencoderDescription {
    /// The network.
    pub network: AutoencoderConfig,
    /// Its tokenizers.
    pub text: TextConfig,
    /// Training sentences were cut to this many tokens (the paper: 60).
    #[serde(default)]
    pub max_len: Option<usize>,
}

/// A trained autoencoder with its tokenizers, ready to encode text of either language.
pub type AutoencoderEncoder = TextModel<Autoencoder>;

impl TextNetwork for Autoencoder {
    type Description = AutoencoderDescription;

    const BATCHING: Bucketing = Bucketing {
        max_items: 256,
        max_tokens: 256 * 64,
    };

    fn tokenizers(description: &AutoencoderDescription, dir: &Path) -> Result<TextCodec> {
        let net = &description.network;
        TextCodec::load_for(&description.text, dir, (net.src_vocab, net.tgt_vocab))
    }

    fn build(description: &AutoencoderDescription, device: &Device) -> Result<Self> {
        Autoencoder::new(&description.network, 0, device)
    }

    fn vector_dim(&self) -> usize {
        self.dim()
    }

    fn encode_all(&self, seqs: &[&[u32]], side: Side, batching: &Bucketing) -> Result<Embeddings> {
        let mut host = self.host(side);
        encode_in_batches(seqs, self.dim(), batching, |sents| {
            self.encode_with(sents, side, host.as_mut())
        })
    }
}

/// Training text and what to do with it: [`TextTraining::run`](crate::text::TextTraining::run)
/// trains an autoencoder on the parallel (and monolingual) text, cut to `max_len` tokens.
#[derive(Debug, Clone)]
pub struct AutoencoderTextTraining<'a> {
    /// The pairs, their tokenizers, the vectors the tables start from and the cut (`max_len`,
    /// counted in [`AutoencoderTrained`]).
    pub corpus: TextCorpus<'a>,
    /// Monolingual sentences of the decoded language (autoencoded besides the decoded side of
    /// the pairs; may be empty).
    pub mono: &'a [String],
    /// The network (its vocabulary sizes are set from the tokenizers).
    pub network: AutoencoderConfig,
    /// Batches, optimiser, epochs, seed.
    pub train: AutoencoderTrainConfig,
    /// A teacher's vectors to distil from ([`crate::distill`]), one row per pair of
    /// `corpus` (and of its validation pairs); `None`: the autoencoder's own loss alone.
    pub teacher: Option<Teacher>,
}

/// What [`TextTraining::run`](crate::text::TextTraining::run) did besides training: the training outcome, the pairs dropped
/// for a side without tokens, the vocabulary sizes, how the source and target tables were
/// initialised from vectors, and the counts of [`AutoencoderCounts`].
pub type AutoencoderTrained = Trained<Autoencoder, [InitReport; 2], AutoencoderCounts>;

/// What the autoencoder's text training counts of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoencoderCounts {
    /// Monolingual sentences dropped for having no tokens.
    pub dropped_mono: usize,
    /// Training and validation sentences cut to `max_len` tokens.
    pub truncated: usize,
    /// Tokens of the training text that the vocabularies do not know (mapped to `<unk>`),
    /// and all tokens.
    pub unknown_tokens: (usize, usize),
}

/// The autoencoder's text in the tokenizers' ids: the training pairs and the indices of
/// those kept, the monolingual sentences, the validation pairs and their indices; and what
/// was counted of them.
pub(crate) struct AutoencoderData {
    train: (ParallelIds, Vec<usize>),
    mono: Vec<Vec<u32>>,
    valid: Option<(ParallelIds, Vec<usize>)>,
    counts: AutoencoderCounts,
}

text_training!(
    AutoencoderTextTraining<'_>,
    AutoencoderConfig,
    AutoencoderTrained
);

impl TextFamily for AutoencoderTextTraining<'_> {
    type Task = AutoencoderTask;
    type Data = AutoencoderData;
    type Tables = SideTables;
    type Report = AutoencoderCounts;

    fn tokenize(&self, codec: &TextCodec, network: &AutoencoderConfig) -> Result<AutoencoderData> {
        let (corpus, max_len) = (&self.corpus, self.corpus.max_len);
        let mut pairs = PairTokens::new(codec, (corpus.src, corpus.tgt), max_len, false)?;
        let mut truncated = pairs.src.cut() + pairs.tgt.cut();
        let (us, ut) = (pairs.src.unknown, pairs.tgt.unknown);
        let mut unknown = (us.0 + ut.0, us.1 + ut.1);
        let (src, tgt) = pairs.take_ids();
        let train = ParallelIds::new(src, tgt)?;
        if train.is_empty() {
            return Err(Error::Input(
                "no training pair has tokens on both sides".into(),
            ));
        }
        let tm = SideTokens::new(codec, network.decoded, self.mono, max_len, false)?;
        truncated += tm.cut();
        unknown = (unknown.0 + tm.unknown.0, unknown.1 + tm.unknown.1);
        let mono_len = tm.ids.len();
        let mono: Vec<Vec<u32>> = tm.ids.into_iter().filter(|s| !s.is_empty()).collect();
        let dropped_mono = mono_len - mono.len();
        let valid = match corpus.valid {
            Some(v) => {
                let mut pairs = PairTokens::new(codec, v, max_len, false)?;
                truncated += pairs.src.cut() + pairs.tgt.cut();
                let (src, tgt) = pairs.take_ids();
                Some((ParallelIds::new(src, tgt)?, pairs.kept))
            }
            None => None,
        };
        Ok(AutoencoderData {
            train: (train, pairs.kept),
            mono,
            valid,
            counts: AutoencoderCounts {
                dropped_mono,
                truncated,
                unknown_tokens: unknown,
            },
        })
    }

    fn kept(data: &AutoencoderData) -> (&[usize], Option<&[usize]>) {
        (&data.train.1, data.valid.as_ref().map(|v| &v.1[..]))
    }

    fn description(&self, network: AutoencoderConfig, text: TextConfig) -> AutoencoderDescription {
        AutoencoderDescription {
            network,
            text,
            max_len: self.corpus.max_len,
        }
    }

    fn with_tables(
        &self,
        model: Autoencoder,
        [src, tgt]: [Vec<f32>; 2],
        network: &AutoencoderConfig,
        rng: &mut Rng,
    ) -> Result<Autoencoder> {
        let decoded = by_side(network.decoded, &src, &tgt).clone();
        let dec = with_extra_rows(decoded, network.emb_dim, 1, rng);
        model.with_embedding_tables(src, tgt, dec)
    }

    fn bag_weights(
        &self,
        model: Autoencoder,
        network: &AutoencoderConfig,
        data: &AutoencoderData,
        known: Option<&(Vec<bool>, Vec<bool>)>,
    ) -> Result<Autoencoder> {
        // IDF of each side's rows over every sentence that side's encoder reads in training:
        // the pairs', and on the decoded side the monolingual sentences it autoencodes.
        let none: &[Vec<u32>] = &[];
        let (ms, mt) = match network.decoded {
            Side::Source => (&data.mono[..], none),
            Side::Target => (none, &data.mono[..]),
        };
        let train = &data.train.0;
        let (ws, wt) = side_bag_weights(
            (network.src_vocab, network.tgt_vocab),
            (&[&train.src, ms], &[&train.tgt, mt]),
            known,
        );
        model.with_bag_weights(ws, wt)
    }

    fn task(
        &self,
        network: AutoencoderConfig,
        data: AutoencoderData,
        (model, teacher): (&Autoencoder, Option<Teacher>),
    ) -> Result<(AutoencoderTask, Self::Report)> {
        let valid = data.valid.map(|v| v.0);
        let task =
            AutoencoderTask::new(network, data.train.0, data.mono, valid, self.train.batching)?
                .with_ranking(self.train.ranking)
                .taught(teacher, model.dim())?;
        Ok((task, data.counts))
    }
}
