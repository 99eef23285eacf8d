//! The autoencoder on text: its model directory (`model.json` with the network and tokenizers,
//! `weights.bpk`, vocabularies or the sentencepiece model), training from parallel (and
//! monolingual) text, and the [`AutoencoderEncoder`], a `SentenceEncoder` whose vectors are
//! the max-pooled states of each language's encoder.

use std::path::{Path, PathBuf};

use bitext_core::{Embeddings, Rng};
use bitext_encode::{SentenceEncoder, Side};
use serde::{Deserialize, Serialize};

use crate::autoencoder::{Autoencoder, AutoencoderConfig, AutoencoderTask, AutoencoderTrainConfig};
use crate::backend::BackendSpec;
use crate::batch::Bucketing;
use crate::distill::Teacher;
use crate::encoding::{encode_in_batches, side_bag_weights};
use crate::error::{Error, Result};
use crate::pretrained::{InitReport, with_extra_rows};
use crate::siamese::ParallelIds;
use crate::text::{TextCodec, TextConfig, TextCorpus};
use crate::train::{Fitted, checkpoint, fit};

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

impl Autoencoder {
    /// Sentence vectors of any number of sentences of `side` (rows in input order), encoded
    /// in length-sorted batches under `batching`; call on an inference model.
    ///
    /// # Errors
    /// As [`Autoencoder::encode`].
    pub fn encode_all(
        &self,
        seqs: &[&[u32]],
        side: Side,
        batching: &Bucketing,
        progress: &mut dyn FnMut(usize),
    ) -> Result<Embeddings> {
        let mut host = self.host(side);
        encode_in_batches(seqs, self.dim(), batching, progress, |sents| {
            self.encode_with(sents, side, host.as_mut())
        })
    }
}

/// A trained autoencoder with its tokenizers, ready to encode text of either language.
#[derive(Debug)]
pub struct AutoencoderEncoder {
    model: Autoencoder,
    text: TextCodec,
    description: AutoencoderDescription,
    batching: Bucketing,
    dir: PathBuf,
}

impl AutoencoderEncoder {
    /// Load the model saved in `dir` onto `backend`'s inference device.
    ///
    /// # Errors
    /// Missing or malformed files, named; tokenizers that do not fit the network.
    pub fn load(dir: &Path, backend: BackendSpec) -> Result<Self> {
        let description: AutoencoderDescription =
            checkpoint::read_json(&dir.join(checkpoint::MODEL_FILE))?;
        let net = &description.network;
        let text = TextCodec::load_for(&description.text, dir, (net.src_vocab, net.tgt_vocab))?;
        let device = backend.device()?;
        let model = Autoencoder::new(net, 0, &device)?;
        let model = checkpoint::load_weights(model, &dir.join(checkpoint::WEIGHTS_FILE))?;
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
    pub fn model(&self) -> &Autoencoder {
        &self.model
    }

    /// The tokenizers.
    #[must_use]
    pub fn text(&self) -> &TextCodec {
        &self.text
    }

    /// The saved description.
    #[must_use]
    pub fn description(&self) -> &AutoencoderDescription {
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

    /// Sentence vectors of `sentences` of `side` (that language's encoder), rows in input
    /// order.
    ///
    /// # Errors
    /// A sentence without tokens (named); tokenizer errors.
    pub fn vectors(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        let ids = self.text.encode(side, sentences)?;
        let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        self.model
            .encode_all(&refs, side, &self.batching, &mut |_| {})
    }
}

impl SentenceEncoder for AutoencoderEncoder {
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

/// Training text and what to do with it.
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

/// What [`train_autoencoder`] did besides training.
#[derive(Debug)]
pub struct AutoencoderTrained {
    /// The training outcome (best model, history).
    pub fitted: Fitted<Autoencoder>,
    /// Training pairs dropped because a side had no tokens.
    pub dropped_pairs: usize,
    /// Monolingual sentences dropped for having no tokens.
    pub dropped_mono: usize,
    /// Training and validation sentences cut to `max_len` tokens.
    pub truncated: usize,
    /// Tokens of the training text that the vocabularies do not know (mapped to `<unk>`),
    /// and all tokens.
    pub unknown_tokens: (usize, usize),
    /// Vocabulary sizes (source, target).
    pub vocab_sizes: (usize, usize),
    /// How the source and target embedding tables were initialised from vectors.
    pub init: Option<[InitReport; 2]>,
}

/// Token ids of text, cut and counted.
struct Tokenized {
    ids: Vec<Vec<u32>>,
    truncated: usize,
    unknown: usize,
    tokens: usize,
}

fn tokenize(
    codec: &TextCodec,
    side: Side,
    text: &[String],
    max_len: Option<usize>,
) -> Result<Tokenized> {
    let refs: Vec<&str> = text.iter().map(String::as_str).collect();
    let tok = codec.tokenizer(side);
    let unk = tok.special_ids().unk;
    let mut ids = tok.encode_batch_ids(&refs)?;
    let (mut truncated, mut unknown, mut tokens) = (0, 0, 0);
    for s in &mut ids {
        if let Some(m) = max_len
            && s.len() > m
        {
            s.truncate(m);
            truncated += 1;
        }
        tokens += s.len();
        unknown += s.iter().filter(|&&id| Some(id) == unk).count();
    }
    Ok(Tokenized {
        ids,
        truncated,
        unknown,
        tokens,
    })
}

/// Pairs of ids with both sides non-empty, and the indices of the pairs kept.
fn pairs(a: Tokenized, b: Tokenized) -> Result<(ParallelIds, Vec<usize>)> {
    let (mut s, mut t, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for (k, (x, y)) in a.ids.into_iter().zip(b.ids).enumerate() {
        if !x.is_empty() && !y.is_empty() {
            s.push(x);
            t.push(y);
            kept.push(k);
        }
    }
    Ok((ParallelIds::new(s, t)?, kept))
}

/// Train an autoencoder on parallel (and monolingual) text into the model directory `out`:
/// build the tokenizers (or reuse those of `out` when resuming), tokenize and cut to
/// `max_len`, initialise the tables from vectors when asked, train with validation, save the
/// best model.
///
/// # Errors
/// Invalid configuration or data (sides of different lengths, no pair left); I/O errors with
/// their paths; [`Error::Diverged`].
pub fn train_autoencoder(
    job: &AutoencoderTextTraining<'_>,
    out: &Path,
    resume: bool,
) -> Result<AutoencoderTrained> {
    job.train.check()?;
    let corpus = &job.corpus;
    let (text, codec, resuming) = corpus.tokenizers(out, resume)?;
    let (vs, vt) = codec.vocab_sizes();
    let network = AutoencoderConfig {
        src_vocab: vs,
        tgt_vocab: vt,
        ..job.network
    };
    network.check()?;
    let ts = tokenize(&codec, Side::Source, corpus.src, corpus.max_len)?;
    let tt = tokenize(&codec, Side::Target, corpus.tgt, corpus.max_len)?;
    let mut truncated = ts.truncated + tt.truncated;
    let mut unknown = (ts.unknown + tt.unknown, ts.tokens + tt.tokens);
    let (train, kept) = pairs(ts, tt)?;
    let dropped = corpus.src.len() - kept.len();
    if train.is_empty() {
        return Err(Error::Input(
            "no training pair has tokens on both sides".into(),
        ));
    }
    let tm = tokenize(&codec, network.decoded, job.mono, corpus.max_len)?;
    truncated += tm.truncated;
    unknown = (unknown.0 + tm.unknown, unknown.1 + tm.tokens);
    let mono_len = tm.ids.len();
    let mono: Vec<Vec<u32>> = tm.ids.into_iter().filter(|s| !s.is_empty()).collect();
    let dropped_mono = mono_len - mono.len();
    let valid = match corpus.valid {
        Some((s, t)) => {
            let (a, b) = (
                tokenize(&codec, Side::Source, s, corpus.max_len)?,
                tokenize(&codec, Side::Target, t, corpus.max_len)?,
            );
            truncated += a.truncated + b.truncated;
            Some(pairs(a, b)?)
        }
        None => None,
    };
    let teacher = corpus.teacher_rows(
        job.teacher.as_ref(),
        &kept,
        valid.as_ref().map(|v| &v.1[..]),
    )?;
    let valid = valid.map(|v| v.0);
    let description = AutoencoderDescription {
        network,
        text: text.clone(),
        max_len: corpus.max_len,
    };
    let seed = job.train.train.seed;
    let device = job.train.train.backend.autodiff_device()?;
    let mut model = Autoencoder::new(&network, seed, &device)?;
    let mut init = None;
    let mut known = None;
    if let (Some(vectors), false) = (&corpus.init, resuming) {
        let mut rng = Rng::seed(seed).fork(0xe3b);
        let [(src, ks, rs), (tgt, kt, rt)] =
            vectors.side_tables_filled(&codec, network.emb_dim, &mut rng)?;
        let decoded = match network.decoded {
            Side::Source => src.clone(),
            Side::Target => tgt.clone(),
        };
        let dec = with_extra_rows(decoded, network.emb_dim, 1, &mut rng);
        model = model.with_embedding_tables(src, tgt, dec)?;
        init = Some([rs, rt]);
        known = Some((ks, kt));
    }
    if network.bag && !resuming {
        // IDF of each side's rows over every sentence that side's encoder reads in training:
        // the pairs', and on the decoded side the monolingual sentences it autoencodes.
        let none: &[Vec<u32>] = &[];
        let (ms, mt) = match network.decoded {
            Side::Source => (&mono[..], none),
            Side::Target => (none, &mono[..]),
        };
        let (ws, wt) = side_bag_weights(
            (network.src_vocab, network.tgt_vocab),
            (&[&train.src, ms], &[&train.tgt, mt]),
            known.as_ref(),
        );
        model = model.with_bag_weights(ws, wt)?;
    }
    let task = AutoencoderTask::new(network, train, mono, valid, job.train.batching)?
        .with_ranking(job.train.ranking);
    let task = match teacher {
        Some(t) => task.with_teacher(t, model.dim())?,
        None => task,
    };
    let desc = description.clone();
    let mut task = task.with_description(Box::new(move |dir: &Path| {
        checkpoint::write_json(&dir.join(checkpoint::MODEL_FILE), &desc)
    }));
    let fitted = fit(&mut task, model, &job.train.train, out, resume)?;
    Ok(AutoencoderTrained {
        fitted,
        dropped_pairs: dropped,
        dropped_mono,
        truncated,
        unknown_tokens: unknown,
        vocab_sizes: (vs, vt),
        init,
    })
}
