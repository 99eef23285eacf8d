//! Inference with the aligner over many sentences or pairs: sentence vectors and pair outputs
//! in batches, `semb` scores of vector pairs, and divergence fixing of token-id pairs.

use bitext_core::Embeddings;
use bitext_encode::Side;
use bitext_similarity::Measure;

use crate::aligner::Aligner;
use crate::aligner::fix::{FixConfig, FixObjective, SpanPair, best_spans, best_word_spans};
use crate::aligner::model::PairOutput;
use crate::batch::Bucketing;
use crate::encoding::{encode_in_batches, head_over_rows};
use crate::error::{Error, Result};

impl Aligner {
    /// Sentence vectors of any number of sentences of `side` (rows in input order), encoded
    /// in length-sorted batches; call on an inference model.
    ///
    /// # Errors
    /// As [`Aligner::encode`].
    pub fn encode_all(
        &self,
        seqs: &[&[u32]],
        side: Side,
        batching: &Bucketing,
    ) -> Result<Embeddings> {
        let mut host = self.host(side);
        encode_in_batches(seqs, self.dim(), batching, &mut |_| {}, |sents| {
            self.encode_with(sents, side, host.as_mut())
        })
    }

    /// [`Aligner::pairs`] over any number of pairs, in batches; outputs in input order.
    ///
    /// # Errors
    /// As [`Aligner::pairs`].
    pub fn pairs_all(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        batching: &Bucketing,
    ) -> Result<Vec<PairOutput>> {
        if src.len() != tgt.len() {
            return Err(Error::Input(format!(
                "{} source but {} target sentences",
                src.len(),
                tgt.len()
            )));
        }
        let costs: Vec<usize> = src
            .iter()
            .zip(tgt)
            .map(|(a, b)| a.len() + b.len())
            .collect();
        let mut out: Vec<Option<PairOutput>> = vec![None; src.len()];
        for batch in batching.plan(&costs, None) {
            let s: Vec<&[u32]> = batch.iter().map(|&i| src[i]).collect();
            let t: Vec<&[u32]> = batch.iter().map(|&i| tgt[i]).collect();
            for (&i, o) in batch.iter().zip(self.pairs(&s, &t)?) {
                out[i] = Some(o);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// `semb`'s `h_sim` of rows `pairs` of two matrices of sentence vectors from
    /// [`Aligner::encode_all`] (higher: more parallel).
    ///
    /// # Errors
    /// [`Error::Input`] for a wrong dimension or an index out of range.
    pub fn semb_vectors(
        &self,
        src: &Embeddings,
        tgt: &Embeddings,
        pairs: &[(usize, usize)],
    ) -> Result<Vec<f64>> {
        let device = self.matching.weight.device();
        head_over_rows(src, tgt, pairs, self.dim(), &device, |a, b| self.head(a, b))
    }

    /// Divergence fixing of token-id pairs: the `config.candidates` best span pairs of each
    /// pair by `config.objective` ([`PairOutput::fix_candidates`]), re-encoded, and the one
    /// whose sentence vectors have the highest cosine. Outputs in input order.
    ///
    /// # Errors
    /// As [`Aligner::pairs_all`] and [`PairOutput::fix_candidates`].
    pub fn fix_all(
        &self,
        src: &[&[u32]],
        tgt: &[&[u32]],
        config: FixConfig,
        batching: &Bucketing,
    ) -> Result<Vec<Fixed>> {
        let outputs = self.pairs_all(src, tgt, batching)?;
        self.fix_outputs(&outputs, src, tgt, config, batching)
    }

    /// [`Aligner::fix_all`] from the pairs' outputs of [`Aligner::pairs_all`], already computed
    /// (e.g. to fix the same pairs with several configurations).
    ///
    /// # Errors
    /// As [`Aligner::fix_all`]; [`Error::Input`] when the outputs are not those of the pairs.
    pub fn fix_outputs(
        &self,
        outputs: &[PairOutput],
        src: &[&[u32]],
        tgt: &[&[u32]],
        config: FixConfig,
        batching: &Bucketing,
    ) -> Result<Vec<Fixed>> {
        let lengths = |k: usize| (src[k].len(), tgt[k].len());
        if outputs.len() != src.len()
            || src.len() != tgt.len()
            || outputs
                .iter()
                .enumerate()
                .any(|(k, o)| (o.src_len, o.tgt_len) != lengths(k))
        {
            return Err(Error::Input(format!(
                "{} pair outputs for {} source and {} target sentences of other lengths",
                outputs.len(),
                src.len(),
                tgt.len()
            )));
        }
        let mut cands: Vec<(usize, SpanPair)> = Vec::new();
        for (k, o) in outputs.iter().enumerate() {
            for c in o.fix_candidates(config)? {
                cands.push((k, c));
            }
        }
        let cs: Vec<&[u32]> = cands.iter().map(|(k, c)| &src[*k][c.src.clone()]).collect();
        let ct: Vec<&[u32]> = cands.iter().map(|(k, c)| &tgt[*k][c.tgt.clone()]).collect();
        let vs = self.encode_all(&cs, Side::Source, batching)?;
        let vt = self.encode_all(&ct, Side::Target, batching)?;
        let mut best: Vec<Option<Fixed>> = vec![None; src.len()];
        for (n, (k, c)) in cands.into_iter().enumerate() {
            let sim = Measure::Cosine.apply(vs.row(n), vt.row(n));
            if best[k].as_ref().is_none_or(|b| sim > b.cosine) {
                best[k] = Some(Fixed {
                    spans: c,
                    cosine: sim,
                    original: outputs[k].cosine,
                });
            }
        }
        Ok(best.into_iter().flatten().collect())
    }
}

impl PairOutput {
    /// The `config.candidates` best span pairs of this pair by `config.objective`: over its
    /// alignment matrix ([`best_spans`]) or its word scores ([`best_word_spans`]), best first.
    ///
    /// # Errors
    /// As [`best_spans`] and [`best_word_spans`].
    pub fn fix_candidates(&self, config: FixConfig) -> Result<Vec<SpanPair>> {
        match config.objective {
            FixObjective::Alignment => {
                best_spans(&self.alignment, self.src_len, self.tgt_len, config)
            }
            FixObjective::Words => best_word_spans(&self.src_scores, &self.tgt_scores, config),
        }
    }
}

/// The result of fixing one pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixed {
    /// The spans kept (token positions) and their alignment objective.
    pub spans: SpanPair,
    /// `wemb` cosine of the kept spans.
    pub cosine: f32,
    /// `wemb` cosine of the whole pair.
    pub original: f32,
}
