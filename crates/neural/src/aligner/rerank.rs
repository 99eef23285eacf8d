//! Divergence fixing of text with an [`AlignerModel`]: the candidate spans of each pair
//! ([`crate::aligner::fix`]) re-ranked by the cosine of the model's own sentence vectors or of
//! any other [`SentenceEncoder`]'s, which reads each candidate's decoded text (each distinct
//! span encoded once).

use std::ops::Range;

use bitext_core::Embeddings;
use bitext_encode::{SentenceEncoder, Side};
use bitext_similarity::Measure;

use crate::aligner::fix::{FixConfig, SpanPair};
use crate::aligner::infer::{Fixed, PairOutput, all_candidates, check_outputs, choose};
use crate::aligner::text::AlignerModel;
use crate::encoding::distinct;
use crate::error::{Error, Result};

impl AlignerModel {
    /// Divergence fixing of the pairs `(src[k], tgt[k])`, with the tokens of each pair: the
    /// candidates of `config` re-ranked by the cosine of this model's sentence vectors, or of
    /// `reranker`'s when given ([`AlignerModel::fix_outputs_with`]).
    ///
    /// # Errors
    /// As [`AlignerModel::word_scores`]; the re-ranking encoder's errors; a bad weight.
    #[allow(clippy::type_complexity)]
    pub fn fix(
        &self,
        src: &[&str],
        tgt: &[&str],
        config: FixConfig,
        reranker: Option<&dyn SentenceEncoder>,
    ) -> Result<Vec<(Fixed, Vec<String>, Vec<String>)>> {
        let (si, sp) = self.tokens(Side::Source, src)?;
        let (ti, tp) = self.tokens(Side::Target, tgt)?;
        let a: Vec<&[u32]> = si.iter().map(Vec::as_slice).collect();
        let b: Vec<&[u32]> = ti.iter().map(Vec::as_slice).collect();
        let fixed = match reranker {
            None => self.model.fix_all(&a, &b, config, &self.batching)?,
            Some(enc) => {
                let outputs = self.model.pairs_all(&a, &b, &self.batching)?;
                self.fix_outputs_with(&outputs, &a, &b, config, enc)?
            }
        };
        Ok(fixed
            .into_iter()
            .zip(sp.into_iter().zip(tp))
            .map(|(f, (s, t))| (f, s, t))
            .collect())
    }

    /// Divergence fixing from the pairs' outputs
    /// ([`Aligner::pairs_all`](crate::aligner::Aligner::pairs_all)), the candidates re-ranked by
    /// the cosine of `reranker`'s sentence vectors (any sentence encoder, e.g. a pretrained
    /// one): each candidate's spans and each whole pair are decoded to text by this
    /// model's tokenizers and encoded, source spans on the source side and target spans on the
    /// target side; [`Fixed`]'s cosines are then `reranker`'s.
    ///
    /// # Errors
    /// As [`Aligner::fix_outputs`](crate::aligner::Aligner::fix_outputs); token ids the
    /// tokenizers cannot decode; the encoder's errors, or vectors of another shape than asked
    /// for.
    pub fn fix_outputs_with(
        &self,
        outputs: &[PairOutput],
        src: &[&[u32]],
        tgt: &[&[u32]],
        config: FixConfig,
        reranker: &dyn SentenceEncoder,
    ) -> Result<Vec<Fixed>> {
        check_outputs(outputs, src, tgt)?;
        let cands = all_candidates(outputs, config)?;
        let text = |side: Side, ids: &[u32]| -> Result<String> {
            Ok(self.text.tokenizer(side).decode(ids)?)
        };
        let spans = |side: Side, sents: &[&[u32]], pick: &dyn Fn(&SpanPair) -> Range<usize>| {
            cands
                .iter()
                .map(|(k, c)| text(side, &sents[*k][pick(c)]))
                .collect::<Result<Vec<_>>>()
        };
        let cs = spans(Side::Source, src, &|c| c.src.clone())?;
        let ct = spans(Side::Target, tgt, &|c| c.tgt.clone())?;
        let whole = |side: Side, sents: &[&[u32]]| {
            sents
                .iter()
                .map(|ids| text(side, ids))
                .collect::<Result<Vec<_>>>()
        };
        let cosines = encoder_cosines(reranker, &cs, &ct)?;
        let originals = encoder_cosines(
            reranker,
            &whole(Side::Source, src)?,
            &whole(Side::Target, tgt)?,
        )?;
        choose(cands, &cosines, &originals, config.rerank_weight)
    }
}

/// The cosine of `enc`'s vectors of `src[n]` (source side) and `tgt[n]` (target side); each
/// distinct sentence is encoded once (candidate span pairs share their spans).
fn encoder_cosines(enc: &dyn SentenceEncoder, src: &[String], tgt: &[String]) -> Result<Vec<f32>> {
    let (a, ia) = encode_distinct(enc, Side::Source, src)?;
    let (b, ib) = encode_distinct(enc, Side::Target, tgt)?;
    if a.dim() != b.dim() || ia.len() != ib.len() {
        return Err(Error::Input(format!(
            "the re-ranking encoder gave {}-d source and {}-d target vectors for {} and {} \
             sentences",
            a.dim(),
            b.dim(),
            src.len(),
            tgt.len()
        )));
    }
    Ok(ia
        .iter()
        .zip(&ib)
        .map(|(&i, &j)| Measure::Cosine.apply(a.row(i), b.row(j)))
        .collect())
}

/// `enc`'s vectors of the distinct sentences of `texts`, and the row of each sentence.
fn encode_distinct(
    enc: &dyn SentenceEncoder,
    side: Side,
    texts: &[String],
) -> Result<(Embeddings, Vec<usize>)> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let (distinct, index) = distinct(&refs);
    let e = enc.encode(side, &distinct)?;
    if e.len() != distinct.len() {
        return Err(Error::Input(format!(
            "the re-ranking encoder gave {} vectors for {} sentences",
            e.len(),
            distinct.len()
        )));
    }
    Ok((e, index))
}
