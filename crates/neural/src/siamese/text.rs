//! The siamese classifier on text: its model directory (`model.json` with the network and
//! tokenizers, `weights.bpk`, vocabularies), training from parallel text, and the
//! [`SiameseEncoder`], a `SentenceEncoder` whose vectors are the encoder's (`[h→; h←]` in the
//! paper's network; see [`SiameseConfig`] for max pooling and the bag of words).

use std::path::{Path, PathBuf};

use bitext_core::{Embeddings, Rng};
use bitext_encode::{SentenceEncoder, Side};
use serde::{Deserialize, Serialize};

use crate::backend::BackendSpec;
use crate::batch::Bucketing;
use crate::distill::Teacher;
use crate::encoding::bag_weights;
use crate::error::{Error, Result};
use crate::pretrained::InitReport;
use crate::siamese::{
    ParallelIds, Siamese, SiameseConfig, SiameseScorer, SiameseTask, SiameseTrainConfig,
};
use crate::text::{TextCodec, TextConfig, TextCorpus};
use crate::train::{Fitted, checkpoint, fit};

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
#[derive(Debug)]
pub struct SiameseEncoder {
    model: Siamese,
    text: TextCodec,
    description: SiameseDescription,
    batching: Bucketing,
    dir: PathBuf,
}

impl SiameseEncoder {
    /// Load the model saved in `dir` onto `backend`'s inference device.
    ///
    /// # Errors
    /// Missing or malformed files, named.
    pub fn load(dir: &Path, backend: BackendSpec) -> Result<Self> {
        let description: SiameseDescription =
            checkpoint::read_json(&dir.join(checkpoint::MODEL_FILE))?;
        let text = TextCodec::load(&description.text, dir)?;
        let device = backend.device()?;
        let model = Siamese::new(&description.network, 0, &device)?;
        let model = checkpoint::load_weights(model, &dir.join(checkpoint::WEIGHTS_FILE))?;
        Self::from_parts(model, text, description, dir)
    }

    fn from_parts(
        model: Siamese,
        text: TextCodec,
        description: SiameseDescription,
        dir: &Path,
    ) -> Result<Self> {
        let (s, t) = text.vocab_sizes();
        let net = &description.network;
        let (ns, nt) = if net.shared_embeddings {
            (net.src_vocab, net.src_vocab)
        } else {
            (net.src_vocab, net.tgt_vocab)
        };
        if (s, t) != (ns, nt) {
            return Err(Error::checkpoint(
                dir,
                format!("tokenizers have {s}/{t} tokens but the network {ns}/{nt}"),
            ));
        }
        Ok(Self {
            model,
            text,
            description,
            batching: Bucketing {
                max_items: 256,
                max_tokens: 256 * 64,
            },
            dir: dir.to_path_buf(),
        })
    }

    /// The network (on the inference device).
    #[must_use]
    pub fn model(&self) -> &Siamese {
        &self.model
    }

    /// The tokenizers.
    #[must_use]
    pub fn text(&self) -> &TextCodec {
        &self.text
    }

    /// The saved description.
    #[must_use]
    pub fn description(&self) -> &SiameseDescription {
        &self.description
    }

    /// The model directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Batches used for encoding.
    #[must_use]
    pub fn with_batching(mut self, batching: Bucketing) -> Self {
        self.batching = batching;
        self
    }

    /// Sentence vectors of `sentences` of `side`, rows in input order.
    ///
    /// # Errors
    /// A sentence without tokens (named); tokenizer errors.
    pub fn vectors(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        let ids = self.text.encode(side, sentences)?;
        let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        self.model
            .encode_all(&refs, side, &self.batching, &mut |_| {})
    }

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

impl SentenceEncoder for SiameseEncoder {
    fn dim(&self) -> usize {
        self.model.dim()
    }

    fn encode_batch(&self, side: Side, sentences: &[&str]) -> bitext_encode::Result<Embeddings> {
        Ok(self.vectors(side, sentences)?)
    }

    fn batch_size(&self) -> usize {
        4096
    }
}

/// Parallel training text and what to do with it.
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

/// What [`train_siamese`] did besides training.
#[derive(Debug)]
pub struct SiameseTrained {
    /// The training outcome (best model, history).
    pub fitted: Fitted<Siamese>,
    /// Training pairs dropped because a side had no tokens.
    pub dropped_pairs: usize,
    /// Vocabulary sizes (source, target).
    pub vocab_sizes: (usize, usize),
    /// How the embedding table was initialised from vectors, when it was.
    pub init: Option<InitReport>,
}

/// The pairs as token ids, without those with a side that has no tokens, and the indices of
/// the pairs kept.
fn to_ids(
    codec: &TextCodec,
    src: &[String],
    tgt: &[String],
    max_len: Option<usize>,
) -> Result<(ParallelIds, Vec<usize>)> {
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt.iter().map(String::as_str).collect();
    let ids_s = codec.tokenizer(Side::Source).encode_batch_ids(&s)?;
    let ids_t = codec.tokenizer(Side::Target).encode_batch_ids(&t)?;
    let (mut a, mut b, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for (k, (mut x, mut y)) in ids_s.into_iter().zip(ids_t).enumerate() {
        if let Some(n) = max_len {
            x.truncate(n);
            y.truncate(n);
        }
        if !x.is_empty() && !y.is_empty() {
            a.push(x);
            b.push(y);
            kept.push(k);
        }
    }
    Ok((ParallelIds::new(a, b)?, kept))
}

/// Train a siamese classifier on parallel text into the model directory `out`: build the word
/// vocabularies (or reuse those of `out` when resuming), tokenize, train with validation,
/// save the best model. Pairs with an empty side are dropped and counted.
///
/// # Errors
/// Invalid configuration or data; I/O errors with their paths; [`Error::Diverged`].
pub fn train_siamese(
    job: &SiameseTextTraining<'_>,
    out: &Path,
    resume: bool,
) -> Result<SiameseTrained> {
    job.train.check()?;
    let corpus = &job.corpus;
    let (text, codec, resuming) = corpus.tokenizers(out, resume)?;
    let (vs, vt) = codec.vocab_sizes();
    let network = SiameseConfig {
        src_vocab: vs,
        tgt_vocab: vt,
        shared_embeddings: codec.shared(),
        ..job.network
    };
    network.check()?;
    let (train, kept) = to_ids(&codec, corpus.src, corpus.tgt, corpus.max_len)?;
    let dropped = corpus.src.len() - kept.len();
    let valid = corpus
        .valid
        .map(|(s, t)| to_ids(&codec, s, t, corpus.max_len))
        .transpose()?;
    let teacher = corpus.teacher_rows(
        job.teacher.as_ref(),
        &kept,
        valid.as_ref().map(|v| &v.1[..]),
    )?;
    let valid = valid.map(|v| v.0);
    let description = SiameseDescription {
        network,
        text: text.clone(),
    };
    let seed = job.train.train.seed;
    let device = job.train.train.backend.autodiff_device()?;
    let mut model = Siamese::new(&network, seed, &device)?.with_chunks(job.train.pieces);
    let mut init = None;
    let mut known = None;
    if let (Some(vectors), false) = (&corpus.init, resuming) {
        let mut rng = Rng::seed(seed).fork(0xe3b);
        let (table, filled, report) =
            vectors.stacked_table_filled(&codec, network.emb_dim, &mut rng)?;
        model = model.with_embedding_table(table)?;
        init = Some(report);
        known = Some(filled);
    }
    if network.bag && !resuming {
        // IDF over the training sentences: both sides' for a shared table, else each side's.
        let known = known.as_deref();
        let w = if network.shared_embeddings {
            bag_weights(network.src_vocab, &[&train.src, &train.tgt], known)
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
        model = model.with_bag_weights(w)?;
    }
    let task = SiameseTask::new(
        network,
        train,
        valid,
        job.train.negatives,
        job.train.batching,
        seed,
    )?
    .with_objective(job.train.objective);
    let task = match teacher {
        Some(t) => task.with_teacher(t, model.dim())?,
        None => task,
    };
    let desc = description.clone();
    let mut task = task.with_description(Box::new(move |dir: &Path| {
        checkpoint::write_json(&dir.join(checkpoint::MODEL_FILE), &desc)
    }));
    let fitted = fit(&mut task, model, &job.train.train, out, resume)?;
    Ok(SiameseTrained {
        fitted,
        dropped_pairs: dropped,
        vocab_sizes: (vs, vt),
        init,
    })
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
