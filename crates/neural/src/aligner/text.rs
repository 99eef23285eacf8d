//! The aligner on text: its model directory (`model.json` with the network and tokenizers,
//! `weights.bpk`, vocabularies), training from parallel text with synthetic examples, and
//! [`AlignerModel`]: sentence vectors (a `SentenceEncoder`), per-word divergence scores,
//! `wemb`/`semb` pair scorers and divergence fixing.

use std::path::Path;

use bitext_core::Embeddings;
use bitext_encode::Side;
use bitext_similarity::PairScorer;
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use crate::aligner::classes::WordClass;
use crate::aligner::synth::Corpus;
use crate::aligner::{Aligner, AlignerConfig};
use crate::batch::Bucketing;
use crate::encoding::encode_in_batches;
use crate::error::{Error, Result};
use crate::siamese::model_kind;
use crate::spec::CosineScorer;
use crate::text::{TextCodec, TextConfig, TextModel, TextNetwork};

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
pub type AlignerModel = TextModel<Aligner>;

impl TextNetwork for Aligner {
    type Description = AlignerDescription;

    const BATCHING: Bucketing = Bucketing {
        max_items: 64,
        max_tokens: 64 * 128,
    };

    fn check_dir(dir: &Path) -> Result<()> {
        let kind = model_kind(dir)?;
        if kind != "aligner" {
            return Err(Error::checkpoint(
                dir,
                format!("a model of kind {kind:?} is not an aligner"),
            ));
        }
        Ok(())
    }

    fn tokenizers(description: &AlignerDescription, dir: &Path) -> Result<TextCodec> {
        let net = &description.network;
        TextCodec::load_for(&description.text, dir, (net.src_vocab, net.tgt_vocab))
    }

    fn build(description: &AlignerDescription, device: &Device) -> Result<Self> {
        Aligner::new(&description.network, 0, device)
    }

    fn vector_dim(&self) -> usize {
        self.dim()
    }

    fn encode_all(&self, seqs: &[&[u32]], side: Side, batching: &Bucketing) -> Result<Embeddings> {
        let mut host = self.host(side);
        encode_in_batches(seqs, self.dim(), batching, |sents| {
            self.encode_with(sents, side, Some(&mut host))
        })
    }
}

impl AlignerModel {
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
        Error::check_sides(src.len(), tgt.len())?;
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
        if semb && !self.description().network.objective.sentence() {
            return Err(Error::Config(format!(
                "the aligner in {} was trained without the sentence-level (semb) head",
                self.dir().display()
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

/// Word classes of a vocabulary of `n` ids from the token texts seen in `ids`/`pieces`.
pub(super) fn classes(
    n: usize,
    ids: &[Vec<u32>],
    pieces: &[Vec<String>],
    unk: Option<u32>,
) -> Vec<WordClass> {
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
