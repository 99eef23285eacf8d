//! The aligner on text: its model directory (`model.json` with the network and tokenizers,
//! `weights.bpk`, vocabularies), training from parallel text with synthetic examples, and
//! [`AlignerModel`]: sentence vectors (a `SentenceEncoder`), per-word divergence scores,
//! `wemb`/`semb` pair scorers and divergence fixing.

use std::path::{Path, PathBuf};

use bitext_core::{Embeddings, Rng};
use bitext_encode::{SentenceEncoder, Side};
use bitext_similarity::PairScorer;
use serde::{Deserialize, Serialize};

use crate::aligner::classes::WordClass;
use crate::aligner::stream::DistillText;
use crate::aligner::synth::{Corpus, Kind, Synthesizer};
use crate::aligner::{Aligner, AlignerConfig, AlignerTask, AlignerTrainConfig};
use crate::backend::BackendSpec;
use crate::batch::Bucketing;
use crate::distill::Teacher;
use crate::encoding::side_bag_weights;
use crate::error::{Error, Result};
use crate::pretrained::{InitReport, VectorsInit};
use crate::siamese::model_kind;
use crate::spec::CosineScorer;
use crate::text::{TextCodec, TextConfig, TextCorpus};
use crate::train::{Fitted, checkpoint, fit};

/// What `model.json` of an aligner says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "aligner")]
pub struct AlignerDescription {
    /// The network.
    pub network: AlignerConfig,
    /// Its tokenizers.
    pub text: TextConfig,
    /// The kinds of synthetic example it was trained on (`"PURI"`).
    pub kinds: String,
    /// Training sentences were cut to this many tokens.
    #[serde(default)]
    pub max_len: Option<usize>,
}

/// Word alignments `(source position, target position)` of each pair.
pub type Links = Vec<Vec<(usize, usize)>>;

/// Word alignments for the replace examples: given the training pairs and the validation
/// pairs as token texts (the model's tokens), the links of each (e.g. a symmetrised IBM-1
/// trained on the training pairs; bitext-lexical's `Ibm1`, which this crate cannot depend on,
/// is what the command line and `cargo xtask eval` pass).
pub type LinkFn<'a> = dyn Fn(
        (&[Vec<String>], &[Vec<String>]),
        (&[Vec<String>], &[Vec<String>]),
    ) -> std::result::Result<(Links, Links), String>
    + 'a;

/// Word alignments of one list of pairs of token texts.
pub type PairLinks<'a> =
    dyn Fn(&[Vec<String>], &[Vec<String>]) -> std::result::Result<Links, String> + 'a;

/// Per-word divergence scores of a pair of sentences.
#[derive(Debug, Clone, PartialEq)]
pub struct WordScores {
    /// The source tokens.
    pub src_tokens: Vec<String>,
    /// The target tokens.
    pub tgt_tokens: Vec<String>,
    /// `aggr_s(i)`: negative for a word predicted divergent.
    pub src_scores: Vec<f32>,
    /// `aggr_t(j)`.
    pub tgt_scores: Vec<f32>,
    /// `wemb`: cosine of the sentence vectors.
    pub cosine: f32,
    /// `semb`: `h_sim`.
    pub semb: f32,
}

impl WordScores {
    /// Labels `1` (divergent) or `0` per word of each side.
    #[must_use]
    pub fn labels(&self) -> (Vec<u8>, Vec<u8>) {
        let l = |s: &[f32]| s.iter().map(|&x| u8::from(x < 0.0)).collect();
        (l(&self.src_scores), l(&self.tgt_scores))
    }
}

/// Token ids and token texts of sentences.
pub(super) type Tokens = (Vec<Vec<u32>>, Vec<Vec<String>>);

/// A trained aligner with its tokenizers.
#[derive(Debug)]
pub struct AlignerModel {
    pub(super) model: Aligner,
    pub(super) text: TextCodec,
    description: AlignerDescription,
    pub(super) batching: Bucketing,
    dir: PathBuf,
}

impl AlignerModel {
    /// Load the model saved in `dir` onto `backend`'s inference device.
    ///
    /// # Errors
    /// Missing or malformed files, named; tokenizers that do not fit the network.
    pub fn load(dir: &Path, backend: BackendSpec) -> Result<Self> {
        let kind = model_kind(dir)?;
        if kind != "aligner" {
            return Err(Error::checkpoint(
                dir,
                format!("a model of kind {kind:?} is not an aligner"),
            ));
        }
        let description: AlignerDescription =
            checkpoint::read_json(&dir.join(checkpoint::MODEL_FILE))?;
        let net = &description.network;
        let text = TextCodec::load_for(&description.text, dir, (net.src_vocab, net.tgt_vocab))?;
        let device = backend.device()?;
        let model = Aligner::new(net, 0, &device)?;
        let model = checkpoint::load_weights(model, &dir.join(checkpoint::WEIGHTS_FILE))?;
        Ok(Self {
            model,
            text,
            description,
            batching: Bucketing {
                max_items: 64,
                max_tokens: 64 * 128,
            },
            dir: dir.to_path_buf(),
        })
    }

    /// The network.
    #[must_use]
    pub fn model(&self) -> &Aligner {
        &self.model
    }

    /// The tokenizers.
    #[must_use]
    pub fn text(&self) -> &TextCodec {
        &self.text
    }

    /// The saved description.
    #[must_use]
    pub fn description(&self) -> &AlignerDescription {
        &self.description
    }

    /// The model directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Sentence vectors `[→h_last; ←h_first]` of `sentences` of `side`.
    ///
    /// # Errors
    /// A sentence without tokens (named); tokenizer errors.
    pub fn vectors(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        let ids = self.text.encode(side, sentences)?;
        let refs: Vec<&[u32]> = ids.iter().map(Vec::as_slice).collect();
        self.model.encode_all(&refs, side, &self.batching)
    }

    pub(super) fn tokens(&self, side: Side, sentences: &[&str]) -> Result<Tokens> {
        let enc = self.text.tokenizer(side).encode_batch(sentences)?;
        let mut ids = Vec::with_capacity(enc.len());
        let mut pieces = Vec::with_capacity(enc.len());
        for (k, e) in enc.into_iter().enumerate() {
            if e.ids.is_empty() {
                return Err(Error::Input(format!(
                    "{side:?} sentence {} has no tokens: {:?}",
                    k + 1,
                    sentences[k]
                )));
            }
            ids.push(e.ids);
            pieces.push(e.pieces);
        }
        Ok((ids, pieces))
    }

    /// Pairs of sentences as a [`Corpus`] in this model's tokens (e.g. held-out pairs to draw
    /// test examples from): `links` aligns the token texts; the frequent-word class comes from
    /// these sentences.
    ///
    /// # Errors
    /// Sides of different lengths; a sentence without tokens; alignment errors; as
    /// [`Corpus::check`].
    pub fn corpus(&self, src: &[&str], tgt: &[&str], links: &PairLinks<'_>) -> Result<Corpus> {
        if src.len() != tgt.len() {
            return Err(Error::Input(format!(
                "{} source but {} target sentences",
                src.len(),
                tgt.len()
            )));
        }
        let (si, sp) = self.tokens(Side::Source, src)?;
        let (ti, tp) = self.tokens(Side::Target, tgt)?;
        let links = links(&sp, &tp).map_err(|e| Error::Input(format!("word alignment: {e}")))?;
        let unk = |side| self.text.tokenizer(side).special_ids().unk;
        let (vs, vt) = self.text.vocab_sizes();
        let corpus = Corpus {
            src_classes: classes(vs, &si, &sp, unk(Side::Source)),
            tgt_classes: classes(vt, &ti, &tp, unk(Side::Target)),
            src: si,
            tgt: ti,
            links,
        };
        corpus.check()?;
        Ok(corpus)
    }

    /// Per-word divergence scores of the pairs `(src[k], tgt[k])`.
    ///
    /// # Errors
    /// Sides of different lengths; a sentence without tokens (named); tokenizer errors.
    pub fn word_scores(&self, src: &[&str], tgt: &[&str]) -> Result<Vec<WordScores>> {
        let (si, sp) = self.tokens(Side::Source, src)?;
        let (ti, tp) = self.tokens(Side::Target, tgt)?;
        let a: Vec<&[u32]> = si.iter().map(Vec::as_slice).collect();
        let b: Vec<&[u32]> = ti.iter().map(Vec::as_slice).collect();
        let out = self.model.pairs_all(&a, &b, &self.batching)?;
        Ok(out
            .into_iter()
            .zip(sp.into_iter().zip(tp))
            .map(|(o, (s, t))| WordScores {
                src_tokens: s,
                tgt_tokens: t,
                src_scores: o.src_scores,
                tgt_scores: o.tgt_scores,
                cosine: o.cosine,
                semb: o.semb,
            })
            .collect())
    }

    /// A scorer over `src × tgt`: `semb`'s `h_sim` when `semb`, else the `wemb` cosine.
    ///
    /// # Errors
    /// An encoding error; `semb` asked of a model whose head was not trained.
    pub fn scorer(&self, src: &[&str], tgt: &[&str], semb: bool) -> Result<Box<dyn PairScorer>> {
        if semb && !self.description.network.objective.sentence() {
            return Err(Error::Config(format!(
                "the aligner in {} was trained without the sentence-level (semb) head",
                self.dir.display()
            )));
        }
        let (a, b) = (
            self.vectors(Side::Source, src)?,
            self.vectors(Side::Target, tgt)?,
        );
        Ok(if semb {
            Box::new(SembScorer {
                model: self.model.clone(),
                src: a,
                tgt: b,
            })
        } else {
            Box::new(CosineScorer::new(a, b)?)
        })
    }
}

impl SentenceEncoder for AlignerModel {
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

/// The `semb` score (`h_sim`, higher: more parallel) of pairs of sentences, each encoded once.
#[derive(Debug)]
pub struct SembScorer {
    model: Aligner,
    src: Embeddings,
    tgt: Embeddings,
}

impl PairScorer for SembScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        Ok(self.model.semb_vectors(&self.src, &self.tgt, pairs)?)
    }
}

/// Parallel training text and what to do with it.
pub struct AlignerTextTraining<'a> {
    /// The pairs (validation examples are drawn once, seeded, from its held-out pairs), their
    /// tokenizers, the vectors the tables start from and the cut.
    pub corpus: TextCorpus<'a>,
    /// The network (vocabulary sizes are set from the tokenizers).
    pub network: AlignerConfig,
    /// Batches, optimiser, epochs, seed.
    pub train: AlignerTrainConfig,
    /// Kinds of synthetic example (paired examples are always included).
    pub kinds: Vec<Kind>,
    /// Examples of each kind per epoch.
    pub per_kind: usize,
    /// Word alignments of the training and validation pairs.
    pub links: &'a LinkFn<'a>,
    /// A teacher's vectors to distil from ([`crate::distill`]), one row per pair of
    /// [`TextCorpus::src`] (and of its validation pairs): see [`AlignerTask::with_teacher`].
    pub teacher: Option<Teacher>,
    /// More pairs that train only the sentence vectors towards the teacher's (needs
    /// `teacher`): see [`AlignerTask::with_distill_pairs`].
    pub distill: Option<DistillText<'a>>,
    /// The vectors of the bags' own table (needed with [`AlignerConfig::bag_table`]; one
    /// shared tokenizer): every row a vector reaches, the rest drawn at the table's scale and
    /// left out of the bags (weight 0), as the encoders' rows without a vector are.
    pub bag_init: Option<VectorsInit>,
}

/// What [`train_aligner`] did besides training.
#[derive(Debug)]
pub struct AlignerTrained {
    /// The training outcome.
    pub fitted: Fitted<Aligner>,
    /// Pairs dropped because a side had no tokens.
    pub dropped_pairs: usize,
    /// Distillation pairs dropped because a side had no tokens.
    pub dropped_distill: usize,
    /// Sentences cut to `max_len` tokens.
    pub truncated: usize,
    /// Vocabulary sizes (source, target).
    pub vocab_sizes: (usize, usize),
    /// How the embedding tables were initialised from vectors.
    pub init: Option<[InitReport; 2]>,
    /// How the bags' own table was initialised from vectors.
    pub bag_init: Option<InitReport>,
    /// The held-out pairs as a corpus (token ids, links, classes), for test examples.
    pub valid: Option<Corpus>,
}

/// Token ids and token texts of both sides, pairs with an empty side dropped, cut to
/// `max_len`: `(src ids, tgt ids, src pieces, tgt pieces, kept pairs' indices, truncated)`.
#[allow(clippy::type_complexity)]
pub(super) fn tokenize_pairs(
    codec: &TextCodec,
    src: &[String],
    tgt: &[String],
    max_len: Option<usize>,
) -> Result<(
    Vec<Vec<u32>>,
    Vec<Vec<u32>>,
    Vec<Vec<String>>,
    Vec<Vec<String>>,
    Vec<usize>,
    usize,
)> {
    if src.len() != tgt.len() {
        return Err(Error::Input(format!(
            "{} source but {} target sentences",
            src.len(),
            tgt.len()
        )));
    }
    let enc = |side: Side, text: &[String]| {
        let refs: Vec<&str> = text.iter().map(String::as_str).collect();
        codec.tokenizer(side).encode_batch(&refs)
    };
    let (es, et) = (enc(Side::Source, src)?, enc(Side::Target, tgt)?);
    let (mut si, mut ti, mut sp, mut tp) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut kept, mut truncated) = (Vec::new(), 0);
    for (k, (mut a, mut b)) in es.into_iter().zip(et).enumerate() {
        if a.ids.is_empty() || b.ids.is_empty() {
            continue;
        }
        kept.push(k);
        if let Some(m) = max_len {
            for e in [&mut a, &mut b] {
                if e.ids.len() > m {
                    e.ids.truncate(m);
                    e.pieces.truncate(m);
                    truncated += 1;
                }
            }
        }
        si.push(a.ids);
        ti.push(b.ids);
        sp.push(a.pieces);
        tp.push(b.pieces);
    }
    Ok((si, ti, sp, tp, kept, truncated))
}

/// Word classes of a vocabulary of `n` ids from the token texts seen in `ids`/`pieces`.
fn classes(n: usize, ids: &[Vec<u32>], pieces: &[Vec<String>], unk: Option<u32>) -> Vec<WordClass> {
    let mut text = vec![String::new(); n];
    for (s, p) in ids.iter().zip(pieces) {
        for (&id, piece) in s.iter().zip(p) {
            if Some(id) != unk && text[id as usize].is_empty() {
                text[id as usize].clone_from(piece);
            }
        }
    }
    WordClass::table(&text, ids, 100)
}

/// Train an aligner on parallel text into the model directory `out`: build the tokenizers
/// (or reuse those of `out` when resuming), tokenize, align the words (`job.links`), draw
/// validation examples from the held-out pairs, initialise the tables from vectors when asked,
/// train, save the best model.
///
/// # Errors
/// Invalid configuration or data; alignment errors; I/O errors with their paths;
/// [`Error::Diverged`].
pub fn train_aligner(
    job: &AlignerTextTraining<'_>,
    out: &Path,
    resume: bool,
) -> Result<AlignerTrained> {
    job.train.check()?;
    let corpus = &job.corpus;
    let (text, codec, resuming) = corpus.tokenizers(out, resume)?;
    let (vs, vt) = codec.vocab_sizes();
    let network = AlignerConfig {
        src_vocab: vs,
        tgt_vocab: vt,
        ..job.network
    };
    network.check()?;
    let (si, ti, sp, tp, kept, mut truncated) =
        tokenize_pairs(&codec, corpus.src, corpus.tgt, corpus.max_len)?;
    let dropped = corpus.src.len() - kept.len();
    let (vsi, vti, vsp, vtp, vkept) = match corpus.valid {
        Some((s, t)) => {
            let (a, b, c, d, k, tr) = tokenize_pairs(&codec, s, t, corpus.max_len)?;
            truncated += tr;
            (a, b, c, d, Some(k))
        }
        None => Default::default(),
    };
    let teacher = corpus.teacher_rows(job.teacher.as_ref(), &kept, vkept.as_deref())?;
    let (links, vlinks) = (job.links)((&sp, &tp), (&vsp, &vtp))
        .map_err(|e| Error::Input(format!("word alignment: {e}")))?;
    let unk = |side| codec.tokenizer(side).special_ids().unk;
    let src_classes = classes(vs, &si, &sp, unk(Side::Source));
    let tgt_classes = classes(vt, &ti, &tp, unk(Side::Target));
    let train = Corpus {
        src: si,
        tgt: ti,
        links,
        src_classes: src_classes.clone(),
        tgt_classes: tgt_classes.clone(),
    };
    let seed = job.train.train.seed;
    let valid_corpus = if vsi.len() >= 2 {
        Some(Corpus {
            src: vsi,
            tgt: vti,
            links: vlinks,
            src_classes,
            tgt_classes,
        })
    } else {
        None
    };
    let valid = match &valid_corpus {
        Some(c) => {
            let per_kind = c.len().min(500);
            Some(Synthesizer::new(c)?.epoch(
                &job.kinds,
                per_kind,
                &mut Rng::seed(seed).fork(0x7a1),
            )?)
        }
        None => None,
    };
    let description = AlignerDescription {
        network,
        text: text.clone(),
        kinds: Kind::set_name(&job.kinds),
        max_len: corpus.max_len,
    };
    let device = job.train.train.backend.autodiff_device()?;
    let mut model = Aligner::new(&network, seed, &device)?;
    let mut init = None;
    let mut known = None;
    if let (Some(vectors), false) = (&corpus.init, resuming) {
        let mut rng = Rng::seed(seed).fork(0xe3b);
        let [(src, ks, rs), (tgt, kt, rt)] =
            vectors.side_tables_filled(&codec, network.emb_dim, &mut rng)?;
        model = model.with_embedding_tables(src, tgt)?;
        init = Some([rs, rt]);
        known = Some((ks, kt));
    }
    let mut bag_init = None;
    match (&job.bag_init, network.bag_table) {
        (Some(_), false) => {
            return Err(Error::Config(
                "vectors for the bags' own table, but the network's bags read the encoders' rows \
                 (bag_table is off)"
                    .into(),
            ));
        }
        (None, true) if !resuming => {
            return Err(Error::Config(
                "the bags read their own table (bag_table): give its vectors".into(),
            ));
        }
        (Some(_), true) if !codec.shared() => {
            return Err(Error::Config(
                "the bags' own table is shared by both sides: it needs one tokenizer for both \
                 languages"
                    .into(),
            ));
        }
        (Some(v), true) if !resuming => {
            let (table, k, report) =
                v.stacked_table_filled(&codec, network.emb_dim, &mut Rng::seed(seed).fork(0xba9))?;
            model = model.with_bag_table(table)?;
            bag_init = Some(report);
            known = Some((k.clone(), k));
        }
        _ => {}
    }
    let distill = match &job.distill {
        Some(d) => {
            let (pairs, dropped, cut) = d.tokens(&codec, corpus.max_len)?;
            truncated += cut;
            Some((pairs, dropped))
        }
        None => None,
    };
    if network.bag && !resuming {
        // IDF of each side's rows over every sentence that side reads in training: the word
        // examples' and the distillation pairs' (another register, another language: French
        // function words would otherwise weigh as rare German pieces do).
        let none: &[Vec<u32>] = &[];
        let (ds, dt) = distill
            .as_ref()
            .map_or((none, none), |(p, _)| (&p.src[..], &p.tgt[..]));
        let (ws, wt) = side_bag_weights(
            (network.src_vocab, network.tgt_vocab),
            (&[&train.src, ds], &[&train.tgt, dt]),
            known.as_ref(),
        );
        model = model.with_bag_weights(ws, wt)?;
    }
    let valid_pairs = valid_corpus.as_ref().map(Corpus::len);
    let task = AlignerTask::new(
        network,
        train,
        &job.kinds,
        job.per_kind,
        valid,
        job.train.batching,
    )?;
    let task = match teacher {
        Some(t) => task.with_teacher(t, model.dim(), valid_pairs)?,
        None => task,
    };
    let (task, dropped_distill) = match distill {
        Some((pairs, dropped)) => (task.with_distill_pairs(pairs, model.dim())?, dropped),
        None => (task, 0),
    };
    let desc = description.clone();
    let mut task = task.with_description(Box::new(move |dir: &Path| {
        checkpoint::write_json(&dir.join(checkpoint::MODEL_FILE), &desc)
    }));
    let fitted = fit(&mut task, model, &job.train.train, out, resume)?;
    Ok(AlignerTrained {
        fitted,
        dropped_pairs: dropped,
        dropped_distill,
        truncated,
        vocab_sizes: (vs, vt),
        init,
        bag_init,
        valid: valid_corpus,
    })
}
