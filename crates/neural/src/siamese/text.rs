//! The siamese classifier on text: its model directory (`model.json` with the network and
//! tokenizers, `weights.bpk`, vocabularies), training from parallel text, and the
//! [`SiameseEncoder`], a `SentenceEncoder` whose vectors are the encoder's (`[h→; h←]` in the
//! paper's network; see [`SiameseConfig`] for max pooling and the bag of words).

use std::path::Path;

use bitext_core::{Embeddings, Rng};
use bitext_encode::Side;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use crate::batch::Bucketing;
use crate::distill::{Distilled, Teacher};
use crate::encoding::bag_weights;
use crate::encoding::encode_in_batches;
use crate::error::{Error, Result};
use crate::pretrained::InitReport;
use crate::siamese::{
    ParallelIds, Siamese, SiameseConfig, SiameseScorer, SiameseTask, SiameseTrainConfig,
};
use crate::text::driver::{StackedTable, TextFamily, text_training};
use crate::text::tokens::PairTokens;
use crate::text::{TextCodec, TextConfig, TextCorpus, TextModel, TextNetwork, Trained};
use crate::train::checkpoint;

/// What `model.json` of a siamese classifier says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "siamese")]
pub struct SiameseDescription {
    /// The network.
    pub network: SiameseConfig,
    /// Its tokenizers.
    pub text: TextConfig,
}

/// The `kind` of the model saved in `dir` (`"siamese"`, `"mlp"`).
///
/// # Errors
/// When `model.json` is missing or has no `kind`.
pub fn model_kind(dir: &Path) -> Result<String> {
    let path = dir.join(checkpoint::MODEL_FILE);
    let v: serde_json::Value = checkpoint::read_json(&path)?;
    v.get("kind")
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| Error::checkpoint(path, "no \"kind\" field"))
}

/// A trained siamese classifier with its tokenizers, ready to encode and classify text.
pub type SiameseEncoder = TextModel<Siamese>;

impl TextNetwork for Siamese {
    type Description = SiameseDescription;

    const BATCHING: Bucketing = Bucketing {
        max_items: 256,
        max_tokens: 256 * 64,
    };

    fn tokenizers(description: &SiameseDescription, dir: &Path) -> Result<TextCodec> {
        TextCodec::load(&description.text, dir)
    }

    fn build(description: &SiameseDescription, device: &Device) -> Result<Self> {
        Siamese::new(&description.network, 0, device)
    }

    fn check_loaded(description: &SiameseDescription, text: &TextCodec, dir: &Path) -> Result<()> {
        let net = &description.network;
        let tgt = if net.shared_embeddings {
            net.src_vocab
        } else {
            net.tgt_vocab
        };
        text.check_fits(dir, (net.src_vocab, tgt))
    }

    fn vector_dim(&self) -> usize {
        self.dim()
    }

    fn encode_all(&self, seqs: &[&[u32]], side: Side, batching: &Bucketing) -> Result<Embeddings> {
        let mut host = self.host();
        encode_in_batches(seqs, self.dim(), batching, |sents| {
            self.encode_with(sents, side, None, Some(&mut host))
        })
    }
}

impl SiameseEncoder {
    /// A pair scorer (the classifier's probability) over two lists of sentences.
    ///
    /// # Errors
    /// As [`SiameseEncoder::vectors`].
    pub fn scorer(&self, src: &[&str], tgt: &[&str]) -> Result<SiameseScorer> {
        Ok(SiameseScorer::from_vectors(
            &self.model,
            self.vectors(Side::Source, src)?,
            self.vectors(Side::Target, tgt)?,
        ))
    }
}

/// Parallel training text and what to do with it: [`TextTraining::run`](crate::text::TextTraining::run)
/// trains a siamese classifier on it (word vocabularies built, or reused when resuming).
#[derive(Debug, Clone)]
pub struct SiameseTextTraining<'a> {
    /// The pairs, their tokenizers and the vectors the embedding table starts from.
    pub corpus: TextCorpus<'a>,
    /// The network (its vocabulary sizes are set from the vocabularies built).
    pub network: SiameseConfig,
    /// Negatives, batches, optimiser, epochs, seed.
    pub train: SiameseTrainConfig,
    /// A teacher's vectors to distil from ([`crate::distill`]), one row per pair of
    /// `corpus` (and of its validation pairs); `None`: the objective alone.
    pub teacher: Option<Teacher>,
}

/// What [`TextTraining::run`](crate::text::TextTraining::run) did besides training: the training outcome, the pairs dropped for
/// a side without tokens, the vocabulary sizes, how the embedding table was initialised from
/// vectors.
pub type SiameseTrained = Trained<Siamese, InitReport>;

/// The training and validation pairs in the tokenizers' ids, with the indices of the pairs
/// kept.
pub(crate) struct PairIds {
    train: (ParallelIds, Vec<usize>),
    valid: Option<(ParallelIds, Vec<usize>)>,
}

/// The pairs `text` as token ids, without those with a side that has no tokens, and the
/// indices of the pairs kept.
fn pair_ids(
    codec: &TextCodec,
    text: (&[String], &[String]),
    max_len: Option<usize>,
) -> Result<(ParallelIds, Vec<usize>)> {
    let mut pairs = PairTokens::new(codec, text, max_len, false)?;
    let (src, tgt) = pairs.take_ids();
    Ok((ParallelIds::new(src, tgt)?, pairs.kept))
}

text_training!(SiameseTextTraining<'_>, SiameseConfig, SiameseTrained);

impl TextFamily for SiameseTextTraining<'_> {
    type Task = SiameseTask;
    type Data = PairIds;
    type Tables = StackedTable;
    type Report = ();

    fn for_tokenizers(&self, network: SiameseConfig, codec: &TextCodec) -> SiameseConfig {
        SiameseConfig {
            shared_embeddings: codec.shared(),
            ..network
        }
    }

    fn tokenize(&self, codec: &TextCodec, _: &SiameseConfig) -> Result<PairIds> {
        let max_len = self.corpus.max_len;
        Ok(PairIds {
            train: pair_ids(codec, (self.corpus.src, self.corpus.tgt), max_len)?,
            valid: self
                .corpus
                .valid
                .map(|v| pair_ids(codec, v, max_len))
                .transpose()?,
        })
    }

    fn kept(data: &PairIds) -> (&[usize], Option<&[usize]>) {
        (&data.train.1, data.valid.as_ref().map(|v| &v.1[..]))
    }

    fn description(&self, network: SiameseConfig, text: TextConfig) -> SiameseDescription {
        SiameseDescription { network, text }
    }

    fn model(&self, network: &SiameseConfig, seed: u64, device: &Device) -> Result<Siamese> {
        Ok(Siamese::new(network, seed, device)?.with_chunks(self.train.pieces))
    }

    fn with_tables(
        &self,
        model: Siamese,
        table: Vec<f32>,
        _: &SiameseConfig,
        _: &mut Rng,
    ) -> Result<Siamese> {
        model.with_embedding_table(table)
    }

    fn bag_weights(
        &self,
        model: Siamese,
        network: &SiameseConfig,
        data: &PairIds,
        known: Option<&Vec<bool>>,
    ) -> Result<Siamese> {
        // IDF over the training sentences: both sides' for a shared table, else each side's.
        let train = &data.train.0;
        let w = if network.shared_embeddings {
            bag_weights(
                network.src_vocab,
                &[&train.src, &train.tgt],
                known.map(|k| &k[..]),
            )
        } else {
            let (ks, kt) = match known {
                Some(k) => {
                    let (a, b) = k.split_at(network.src_vocab);
                    (Some(a), Some(b))
                }
                None => (None, None),
            };
            let mut w = bag_weights(network.src_vocab, &[&train.src], ks);
            w.extend(bag_weights(network.tgt_vocab, &[&train.tgt], kt));
            w
        };
        model.with_bag_weights(w)
    }

    fn task(
        &self,
        network: SiameseConfig,
        data: PairIds,
        (model, teacher): (&Siamese, Option<Teacher>),
    ) -> Result<(SiameseTask, ())> {
        let task = SiameseTask::new(
            network,
            data.train.0,
            data.valid.map(|v| v.0),
            self.train.negatives,
            self.train.batching,
            self.train.train.seed,
        )?
        .with_objective(self.train.objective)
        .taught(teacher, model.dim())?;
        Ok((task, ()))
    }
}

/// Split `n` items into a random validation part of `fraction` and the rest: `(train, valid)`
/// index lists.
#[must_use]
pub fn split_indices(n: usize, fraction: f64, rng: &mut Rng) -> (Vec<usize>, Vec<usize>) {
    let mut idx: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut idx);
    let nv = ((n as f64) * fraction.clamp(0.0, 1.0)).round() as usize;
    let valid = idx[..nv].to_vec();
    let mut train = idx[nv..].to_vec();
    train.sort_unstable();
    (train, valid)
}
