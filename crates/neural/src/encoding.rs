//! Pieces every recurrent sentence encoder of this crate shares: the id check of a side, the
//! deferred gradient stage of an embedding + BiRNN pass, and encoding many sentences in
//! length-sorted batches into an [`Embeddings`] matrix.

use bitext_core::Embeddings;
use bitext_encode::Side;
use burn::tensor::Tensor;

use crate::batch::Bucketing;
use crate::error::{Error, Result};
use crate::init::{float2, to_host1, to_host2};
use crate::layers::EmbeddingGrad;
use crate::rnn::InputGrads;
use crate::train::Deferred;

/// Every id of `seqs` below `vocab`, or [`Error::Input`] naming the side, the sentence and
/// the id.
pub(crate) fn check_ids(seqs: &[&[u32]], vocab: usize, side: Side) -> Result<()> {
    for (i, s) in seqs.iter().enumerate() {
        if let Some(&id) = s.iter().find(|&&id| id as usize >= vocab) {
            return Err(Error::Input(format!(
                "{side:?} sentence {i} has token id {id}, outside the vocabulary of {vocab}"
            )));
        }
    }
    Ok(())
}

/// The deferred stage of one embedding lookup + BiRNN pass: the input-projection gradients,
/// then (unless the table is `frozen`) the table's.
pub(crate) fn encoder_stage(ig: InputGrads, eg: EmbeddingGrad, frozen: bool) -> Deferred {
    Box::new(move |grads| {
        let (mut pg, gx) = ig.finish(grads);
        if !frozen {
            pg.push(eg.finish(gx));
        }
        Ok(pg)
    })
}

/// `dim`-dimensional vectors of any number of sentences (rows in input order): `encode` maps
/// one length-sorted batch of `batching` to its `[batch, dim]` vectors; `progress` gets the
/// sentences done so far.
pub(crate) fn encode_in_batches(
    seqs: &[&[u32]],
    dim: usize,
    batching: &Bucketing,
    progress: &mut dyn FnMut(usize),
    mut encode: impl FnMut(&[&[u32]]) -> Result<Tensor<2>>,
) -> Result<Embeddings> {
    batching.check()?;
    let mut out = Embeddings::zeros(seqs.len(), dim)?;
    let lengths: Vec<usize> = seqs.iter().map(|s| s.len()).collect();
    let mut done = 0;
    for batch in batching.plan(&lengths, None) {
        let sents: Vec<&[u32]> = batch.iter().map(|&i| seqs[i]).collect();
        let (v, _) = to_host2(encode(&sents)?)?;
        for (k, &i) in batch.iter().enumerate() {
            out.row_mut(i).copy_from_slice(&v[k * dim..(k + 1) * dim]);
        }
        done += batch.len();
        progress(done);
    }
    Ok(out)
}

/// `head(a, b)` of rows `pairs` of two matrices of `dim`-dimensional sentence vectors, in
/// chunks (the pair scorers of the models with a head over two vectors).
///
/// # Errors
/// [`Error::Input`] for a wrong dimension or an index out of range.
pub(crate) fn head_over_rows(
    src: &Embeddings,
    tgt: &Embeddings,
    pairs: &[(usize, usize)],
    dim: usize,
    device: &burn::tensor::Device,
    head: impl Fn(Tensor<2>, Tensor<2>) -> Tensor<1>,
) -> Result<Vec<f64>> {
    if src.dim() != dim || tgt.dim() != dim {
        return Err(Error::Input(format!(
            "sentence vectors of dimension {} and {} for a model of dimension {dim}",
            src.dim(),
            tgt.dim()
        )));
    }
    let mut out = Vec::with_capacity(pairs.len());
    for chunk in pairs.chunks(8192) {
        let (mut a, mut b) = (
            Vec::with_capacity(chunk.len() * dim),
            Vec::with_capacity(chunk.len() * dim),
        );
        for (k, &(i, j)) in chunk.iter().enumerate() {
            let (Some(x), Some(y)) = (src.get(i), tgt.get(j)) else {
                return Err(Error::Input(format!(
                    "pair {k} = ({i}, {j}) is outside {} × {} sentences",
                    src.len(),
                    tgt.len()
                )));
            };
            a.extend_from_slice(x);
            b.extend_from_slice(y);
        }
        let n = chunk.len();
        let h = head(float2(a, [n, dim], device), float2(b, [n, dim], device));
        out.extend(to_host1(h)?.into_iter().map(f64::from));
    }
    Ok(out)
}
