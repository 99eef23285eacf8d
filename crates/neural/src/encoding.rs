//! Pieces every recurrent sentence encoder of this crate shares: picking a side's part, the
//! id check of a side, the
//! deferred gradient stage of an embedding + BiRNN pass, and encoding many sentences in
//! length-sorted batches into an [`Embeddings`] matrix.

use std::collections::HashMap;

use bitext_core::Embeddings;
use bitext_encode::Side;
use burn::tensor::Tensor;
use serde::{Deserialize, Serialize};

use crate::batch::{Bucketing, PackedBatch};
use crate::error::{Error, Result};
use crate::init::{float2, to_host1, to_host2};
use crate::layers::{Bag, EmbeddingGrad};
use crate::rnn::InputGrads;
use crate::train::Deferred;

/// `src` or `tgt`, whichever belongs to `side`.
pub(crate) fn by_side<T>(side: Side, src: T, tgt: T) -> T {
    match side {
        Side::Source => src,
        Side::Target => tgt,
    }
}

/// `len` (the number of pairs) and `is_empty` of a type of pairs whose field `src` holds one
/// sentence per pair.
macro_rules! pair_count {
    ($pairs:ty) => {
        impl $pairs {
            /// The number of pairs.
            #[must_use]
            pub fn len(&self) -> usize {
                self.src.len()
            }

            /// Whether there are no pairs.
            #[must_use]
            pub fn is_empty(&self) -> bool {
                self.src.is_empty()
            }
        }
    };
}
pub(crate) use pair_count;

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

/// The sentence vectors of a packed batch (packed row order) from its pooled recurrent states
/// `pooled` and, when the model has one, the bag of its looked-up rows `x`: `bag(x) +
/// pooled·P` (see [`Bag`]). `grads`, the deferred gradients of the embedding lookup and the
/// recurrent pass (training on an autodiff device; `x` then has no autodiff), become the
/// returned stage, with the bag's gradient joining that of `x` before the table's unless the
/// table is `frozen`. With `own`, the rows of a fixed table of the bag's own (the packed
/// tokens' rows, constants), the bag pools those instead of `x`, and no gradient reaches them.
pub(crate) fn with_bag(
    bag: Option<&Bag>,
    pooled: Tensor<2>,
    (x, own): (Tensor<2>, Option<Tensor<2>>),
    batch: &PackedBatch,
    grads: Option<(InputGrads, EmbeddingGrad)>,
    frozen: bool,
) -> (Tensor<2>, Option<Deferred>) {
    let Some(bag) = bag else {
        return (pooled, grads.map(|(ig, eg)| encoder_stage(ig, eg, frozen)));
    };
    let fixed_bag = frozen || own.is_some();
    let (bag_x, coef) = bag.pool(own.unwrap_or(x), batch);
    let Some((ig, eg)) = grads else {
        return (bag.mapped(bag_x) + pooled.matmul(bag.proj.val()), None);
    };
    // The bag enters the autodiff graph as a leaf whose gradient joins that of `x`.
    let leaf = Tensor::from_inner(bag_x);
    let leaf = if fixed_bag { leaf } else { leaf.require_grad() };
    let v = bag.mapped(leaf.clone()) + pooled.matmul(bag.proj.val());
    let stage: Deferred = Box::new(move |grads| {
        let (mut pg, gx) = ig.finish(grads);
        if !frozen {
            let gx = match leaf.grad_remove(grads) {
                Some(g) => gx + coef.input_grad(g),
                None => gx,
            };
            pg.push(eg.finish(gx));
        }
        Ok(pg)
    });
    (v, Some(stage))
}

/// The bag-of-words weight of each of `rows` token ids: its smoothed IDF
/// ([`bitext_encode::Idf::smoothed`]) over the sentences of `docs` (each one document), zero
/// where `known` (when given) says the row did not come from the initialising vectors, as the
/// bag-of-words encoder skips unknown tokens.
pub(crate) fn bag_weights(rows: usize, docs: &[&[Vec<u32>]], known: Option<&[bool]>) -> Vec<f32> {
    let mut df = vec![0usize; rows];
    let mut last = vec![usize::MAX; rows];
    let mut n = 0;
    for sentences in docs {
        for s in *sentences {
            for &id in s {
                let r = id as usize;
                if r < rows && last[r] != n {
                    last[r] = n;
                    df[r] += 1;
                }
            }
            n += 1;
        }
    }
    df.iter()
        .enumerate()
        .map(|(r, &d)| match known {
            Some(k) if !k.get(r).copied().unwrap_or(false) => 0.0,
            _ => bitext_encode::Idf::smoothed(n, d) as f32,
        })
        .collect()
}

/// Sets of sentences (token ids) counted as one document collection, as [`bag_weights`] reads.
pub(crate) type SentenceSets<'a> = &'a [&'a [Vec<u32>]];

/// The bag-of-words weights of a model with a table per side: [`bag_weights`] of each side's
/// rows over every sentence that side reads in training (one or more sets of them), `known`
/// each table's rows that came from the initialising vectors.
pub(crate) fn side_bag_weights(
    vocab: (usize, usize),
    sentences: (SentenceSets<'_>, SentenceSets<'_>),
    known: Option<&(Vec<bool>, Vec<bool>)>,
) -> (Vec<f32>, Vec<f32>) {
    let (ks, kt) = match known {
        Some((a, b)) => (Some(&a[..]), Some(&b[..])),
        None => (None, None),
    };
    (
        bag_weights(vocab.0, sentences.0, ks),
        bag_weights(vocab.1, sentences.1, kt),
    )
}

/// An auxiliary loss beside a family's own: the in-batch translation ranking of the siamese
/// network's [`Objective::Ranking`](crate::siamese::Objective::Ranking), added with `weight`.
/// The autoencoder ranks the input encoder's vectors against the decoded language's encoder's
/// vectors of its translation examples (nothing else in Kim's objective asks a sentence's
/// vector to be nearer its translation's than other sentences'); the aligner ranks the
/// sentence vectors of its batch's parallel examples, beside the word and sentence losses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankingTerm {
    /// Weight of the ranking loss beside the family's loss (the autoencoder's mean decoding
    /// loss per token).
    pub weight: f64,
    /// Inverse temperature of the softmax.
    pub scale: f64,
    /// Subtracted from the cosine of each parallel pair.
    pub margin: f64,
    /// Autoencoder only: pairs per training step for this loss: the batch's translation pairs topped up with
    /// pairs drawn at random from the training pairs (their two encoders only, no decoding),
    /// so that the ranking sees more pairs, and more in-batch negatives, than the decoder's
    /// batch holds. 0 (or fewer than the batch's pairs): the batch's pairs only. Validation
    /// always ranks the batch's pairs.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pairs: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl RankingTerm {
    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub fn check(&self) -> Result<()> {
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        if !(ok(self.weight) && ok(self.margin) && self.scale.is_finite() && self.scale > 0.0) {
            return Err(Error::Config(format!(
                "the ranking term needs a finite weight and margin ≥ 0 and a positive \
                 finite scale, got {self:?}"
            )));
        }
        Ok(())
    }

    /// [`RankingTerm::check`] of a term that ranks only the pairs of its batch (`pairs` 0);
    /// `why` says so in the error.
    ///
    /// # Errors
    /// [`Error::Config`] naming the bad value.
    pub(crate) fn check_in_batch(&self, why: &str) -> Result<()> {
        self.check()?;
        if self.pairs != 0 {
            return Err(Error::Config(format!(
                "{why}: pairs must be 0, got {}",
                self.pairs
            )));
        }
        Ok(())
    }
}

/// The in-batch translation-ranking loss of sentence vectors `a` (one language) and `b` (their
/// translations, row for row): the mean of the softmax cross-entropies of each row and each
/// column of `scale·(S − margin·I)`, `S` the cosines of the rows of `a` and `b`, leaving out the
/// pairs `(i, j)`, `i ≠ j`, that `same` says are not negatives (a repeated sentence). Returns
/// the loss `[1]` and `S` (on `a`'s device).
pub(crate) fn in_batch_ranking(
    a: Tensor<2>,
    b: Tensor<2>,
    scale: f64,
    margin: f64,
    same: impl Fn(usize, usize) -> bool,
) -> (Tensor<1>, Tensor<2>) {
    use burn::tensor::activation::log_softmax;
    let n = a.dims()[0];
    let device = a.device();
    let mut offset = vec![0f32; n * n];
    let mut eye = vec![0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            if i == j {
                offset[i * n + j] = -(scale * margin) as f32;
                eye[i * n + j] = 1.0;
            } else if same(i, j) {
                offset[i * n + j] = -1e4;
            }
        }
    }
    let cos = unit_rows(a).matmul(unit_rows(b).transpose());
    let logits = cos.clone().mul_scalar(scale) + float2(offset, [n, n], &device);
    let rows = log_softmax(logits.clone(), 1);
    let cols = log_softmax(logits.transpose(), 1);
    let eye = float2(eye, [n, n], &device);
    let loss = ((rows + cols) * eye).sum().div_scalar(-2.0 * n as f64);
    (loss, cos)
}

/// Rows scaled to unit length (rows of norm below 1e-6 are divided by 1e-6).
pub(crate) fn unit_rows(x: Tensor<2>) -> Tensor<2> {
    // Clamped before the root: a zero row then has a zero gradient, not 0 · ∞.
    let norm = (x.clone() * x.clone()).sum_dim(1).clamp_min(1e-12).sqrt();
    x / norm
}

/// `dim`-dimensional vectors of any number of sentences (rows in input order): `encode` maps
/// one length-sorted batch of `batching` to its `[batch, dim]` vectors.
pub(crate) fn encode_in_batches(
    seqs: &[&[u32]],
    dim: usize,
    batching: &Bucketing,
    mut encode: impl FnMut(&[&[u32]]) -> Result<Tensor<2>>,
) -> Result<Embeddings> {
    batching.check()?;
    let mut out = Embeddings::zeros(seqs.len(), dim)?;
    let lengths: Vec<usize> = seqs.iter().map(|s| s.len()).collect();
    for batch in batching.plan(&lengths, None) {
        let sents: Vec<&[u32]> = batch.iter().map(|&i| seqs[i]).collect();
        let (v, _) = to_host2(encode(&sents)?)?;
        for (k, &i) in batch.iter().enumerate() {
            out.row_mut(i).copy_from_slice(&v[k * dim..(k + 1) * dim]);
        }
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
/// The distinct items of `items` in order of first appearance, and for each item the index of
/// its first appearance among them: the one deduplication of the fixing's candidate spans,
/// which share most of their spans (token ids in the aligner's fixing, their text in
/// [`AlignerModel::fix_outputs_with`](crate::aligner::AlignerModel::fix_outputs_with)), and
/// the token ids of a batch whose n-gram input projection is computed once per id.
pub(crate) fn distinct<'a, T: std::hash::Hash + Eq + ?Sized>(
    items: &[&'a T],
) -> (Vec<&'a T>, Vec<usize>) {
    let mut rows: HashMap<&T, usize> = HashMap::new();
    let mut distinct: Vec<&T> = Vec::new();
    let index = items
        .iter()
        .map(|&t| {
            *rows.entry(t).or_insert_with(|| {
                distinct.push(t);
                distinct.len() - 1
            })
        })
        .collect();
    (distinct, index)
}

#[cfg(test)]
mod tests {
    use super::distinct;

    #[test]
    fn distinct_items_keep_their_first_order_and_every_item_its_row() {
        let ids: [&[u32]; 5] = [&[1, 2], &[3], &[1, 2], &[], &[3]];
        let (d, index) = distinct(&ids);
        assert_eq!(d, vec![&[1u32, 2][..], &[3][..], &[][..]]);
        assert_eq!(index, vec![0, 1, 0, 2, 1]);
        for (item, &i) in ids.iter().zip(&index) {
            assert_eq!(d[i], *item);
        }
        let (none, index) = distinct::<str>(&[]);
        assert!(none.is_empty() && index.is_empty());
    }
}
