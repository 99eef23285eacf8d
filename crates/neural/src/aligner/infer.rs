//! Inference with the aligner over many sentences or pairs: sentence vectors and pair outputs
//! in batches, `semb` scores of vector pairs, and divergence fixing of token-id pairs.

use bitext_core::Embeddings;
use bitext_encode::Side;
use bitext_similarity::Measure;

use crate::aligner::Aligner;
use crate::aligner::fix::{
    FixConfig, FixObjective, SpanPair, best_spans, best_word_spans, rerank_key,
};
use crate::batch::Bucketing;
use crate::encoding::{distinct, head_over_rows};
use crate::error::{Error, Result};
use crate::text::TextNetwork;

/// What the network computes for a batch of pairs, in input order (inference).
#[derive(Debug, Clone)]
pub struct PairOutput {
    /// Alignment scores `S(i, j)`, row-major `[I, J]`.
    pub alignment: Vec<f32>,
    /// Source length `I`.
    pub src_len: usize,
    /// Target length `J`.
    pub tgt_len: usize,
    /// `aggr_s(i)` per source word (divergent when negative).
    pub src_scores: Vec<f32>,
    /// `aggr_t(j)` per target word.
    pub tgt_scores: Vec<f32>,
    /// `wemb`: the cosine of the two sentence vectors.
    pub cosine: f32,
    /// `semb`: `h_sim`, higher for more parallel pairs (eq. 5 with `Y = −1` for parallel
    /// pairs pushes it up; a pair is predicted divergent when it is negative).
    pub semb: f32,
}

impl Aligner {
    /// Alignment matrices, word scores, `wemb` cosines and `semb` scores of pairs
    /// `(src[k], tgt[k])`, in input order (inference; one batch).
    ///
    /// # Errors
    /// As [`Aligner::loss`]; [`Error::Input`] when the sides differ in length.
    pub fn pairs(&self, src: &[&[u32]], tgt: &[&[u32]]) -> Result<Vec<PairOutput>> {
        Error::check_sides(src.len(), tgt.len())?;
        let s = self.side_states(src, Side::Source, None, false)?;
        let t = self.side_states(tgt, Side::Target, None, false)?;
        let (scores, aggr_s, aggr_t) = self.align(&s, &t);
        let semb = self.head(s.vectors.clone(), t.vectors.clone());
        let cos = crate::init::to_host2(s.vectors)?;
        let cot = crate::init::to_host2(t.vectors)?;
        let [b, i, j] = scores.dims();
        let (scores, _) = crate::init::to_host2(scores.reshape([b * i, j]))?;
        let (aggr_s, _) = crate::init::to_host2(aggr_s)?;
        let (aggr_t, _) = crate::init::to_host2(aggr_t)?;
        let semb = crate::init::to_host1(semb)?;
        let d = cos.1[1];
        let mut out = Vec::with_capacity(b);
        for k in 0..b {
            let (il, jl) = (s.lengths[k], t.lengths[k]);
            let mut alignment = Vec::with_capacity(il * jl);
            for r in 0..il {
                let row = (k * i + r) * j;
                alignment.extend_from_slice(&scores[row..row + jl]);
            }
            let (va, vb) = (&cos.0[k * d..(k + 1) * d], &cot.0[k * d..(k + 1) * d]);
            out.push(PairOutput {
                alignment,
                src_len: il,
                tgt_len: jl,
                src_scores: aggr_s[k * i..k * i + il].to_vec(),
                tgt_scores: aggr_t[k * j..k * j + jl].to_vec(),
                cosine: Measure::Cosine.apply(va, vb),
                semb: semb[k],
            });
        }
        Ok(out)
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
        Error::check_sides(src.len(), tgt.len())?;
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
    /// [`TextNetwork::encode_all`](crate::text::TextNetwork::encode_all) (higher: more parallel).
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
        check_outputs(outputs, src, tgt)?;
        let cands = all_candidates(outputs, config)?;
        let cs: Vec<&[u32]> = cands.iter().map(|(k, c)| &src[*k][c.src.clone()]).collect();
        let ct: Vec<&[u32]> = cands.iter().map(|(k, c)| &tgt[*k][c.tgt.clone()]).collect();
        // Candidates share most of their spans: each distinct span is encoded once.
        let (ds, is) = distinct(&cs);
        let (dt, it) = distinct(&ct);
        let vs = self.encode_all(&ds, Side::Source, batching)?;
        let vt = self.encode_all(&dt, Side::Target, batching)?;
        let cosines: Vec<f32> = is
            .iter()
            .zip(&it)
            .map(|(&i, &j)| Measure::Cosine.apply(vs.row(i), vt.row(j)))
            .collect();
        let originals: Vec<f32> = outputs.iter().map(|o| o.cosine).collect();
        choose(cands, &cosines, &originals, config.rerank_weight)
    }
}

/// Checks that `outputs` are those of the pairs `(src[k], tgt[k])` (their lengths).
pub(crate) fn check_outputs(outputs: &[PairOutput], src: &[&[u32]], tgt: &[&[u32]]) -> Result<()> {
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
    Ok(())
}

/// Every pair's candidates by `config.objective` ([`PairOutput::fix_candidates`]), each with
/// the index of its pair, pair by pair and best first.
pub(crate) fn all_candidates(
    outputs: &[PairOutput],
    config: FixConfig,
) -> Result<Vec<(usize, SpanPair)>> {
    let mut cands = Vec::new();
    for (k, o) in outputs.iter().enumerate() {
        for c in o.fix_candidates(config)? {
            cands.push((k, c));
        }
    }
    Ok(cands)
}

/// For each of the `originals.len()` pairs, the candidate of [`all_candidates`] with the
/// highest [`rerank_key`] (ties: the earlier, better-ranked candidate); `cosines[n]` is the
/// similarity of candidate `n`, `originals[k]` that of the whole pair `k`.
///
/// # Errors
/// [`Error::Config`] for a bad weight; [`Error::Input`] when the counts disagree or a pair has
/// no candidate.
pub(crate) fn choose(
    cands: Vec<(usize, SpanPair)>,
    cosines: &[f32],
    originals: &[f32],
    weight: Option<f64>,
) -> Result<Vec<Fixed>> {
    if cosines.len() != cands.len() {
        return Err(Error::Input(format!(
            "{} similarities for {} candidates",
            cosines.len(),
            cands.len()
        )));
    }
    let mut best: Vec<Option<(f64, Fixed)>> = vec![None; originals.len()];
    for ((k, c), &sim) in cands.into_iter().zip(cosines) {
        let key = rerank_key(c.score, sim, weight)?;
        let slot = best.get_mut(k).ok_or_else(|| {
            Error::Input(format!(
                "a candidate of pair {k} of {} pairs",
                originals.len()
            ))
        })?;
        if slot.as_ref().is_none_or(|(b, _)| key > *b) {
            *slot = Some((
                key,
                Fixed {
                    spans: c,
                    cosine: sim,
                    original: originals[k],
                },
            ));
        }
    }
    best.into_iter()
        .enumerate()
        .map(|(k, b)| {
            b.map(|(_, f)| f)
                .ok_or_else(|| Error::Input(format!("pair {k} has no candidate span pair")))
        })
        .collect()
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
