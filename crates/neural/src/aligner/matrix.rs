//! One side's encoder outputs, the padded word states of a batch, the masked log-sum-exp of
//! its alignment matrices and the sentence shift.

use burn::tensor::Tensor;

use crate::batch::PackedBatch;
use crate::encoding::unit_rows;
use crate::init::int1;
use crate::layers::{Bag, Dense};
use crate::ngrams::Ngrams;
use crate::rnn::{BiRnn, BiRnnOutput};
use crate::train::Deferred;
use crate::train::split::Cut;

/// The scale `s` of the sentence shift `s·(a·cos + c)` (see
/// [`AlignerConfig::sentence_shift`](super::AlignerConfig::sentence_shift)): `a` and `c` move
/// at the optimiser's pace (about its learning rate a step) while the shift spans the range of
/// the alignment scores within an epoch.
pub const SHIFT_SCALE: f64 = 40.0;

/// A value of the padding cells of an alignment matrix before the log-sum-exp: `exp` of it
/// is zero in `f32`, so padding never contributes to an aggregate.
pub(super) const MASKED: f32 = -1.0e9;

/// Encoder outputs of one side of a batch: padded word states `[B, T, 2H]`, sentence vectors
/// `[B, 2H]` (both in input order), the lengths and the deferred gradient stage; `ranked`,
/// when asked for, the same sentence vectors as a loss sees them whose gradient stops at the
/// pooled word states (see [`super::Aligner::side_states`]).
pub(super) struct Side3 {
    pub(super) states: Tensor<3>,
    pub(super) vectors: Tensor<2>,
    pub(super) ranked: Option<Tensor<2>>,
    pub(super) lengths: Vec<usize>,
    pub(super) stage: Option<Deferred>,
}

impl Side3 {
    /// Cut this side's states and vectors off the graph (see [`Cut`]): the side as the loss
    /// sees it and the cut sub-graph of `encoder`.
    pub(super) fn cut(
        self,
        encoder: &BiRnn,
        bag: Option<&Bag>,
        ngrams: Option<&Ngrams>,
    ) -> (Self, Cut) {
        let [b, t, w] = self.states.dims();
        let mut outputs = vec![self.states.reshape([b * t, w]), self.vectors];
        outputs.extend(self.ranked);
        let (cut, leaves) = Cut::new(encoder, outputs, self.stage);
        let cut = match bag {
            Some(bag) => cut.with_params(bag),
            None => cut,
        };
        let cut = match ngrams {
            Some(ngrams) => cut.with_params(ngrams),
            None => cut,
        };
        let mut leaves = leaves.into_iter();
        let states = leaves.next().expect("a leaf per output");
        let vectors = leaves.next().expect("a leaf per output");
        (
            Self {
                states: states.reshape([b, t, w]),
                vectors,
                ranked: leaves.next(),
                lengths: self.lengths,
                stage: None,
            },
            cut,
        )
    }
}

/// Gather the per-step outputs (packed order) into `[B, T, 2H]` rows in input order, zero rows
/// past each sentence's end.
pub(super) fn padded(out: &BiRnnOutput, batch: &PackedBatch) -> Tensor<3> {
    let device = out.last.device();
    let width = out.last.dims()[1];
    let sizes = batch.batch_sizes();
    let total: usize = sizes.iter().sum();
    let mut parts = out.steps.clone();
    parts.push(Tensor::zeros([1, width], &device));
    let all = Tensor::cat(parts, 0);
    let (b, t) = (batch.len(), batch.max_len());
    let mut starts = Vec::with_capacity(sizes.len());
    let mut s = 0;
    for &n in sizes {
        starts.push(s);
        s += n;
    }
    let mut idx = Vec::with_capacity(b * t);
    for i in 0..b {
        let p = batch.position()[i];
        let len = batch.lengths()[p];
        for (step, &start) in starts.iter().enumerate() {
            idx.push(if step < len { start + p } else { total });
        }
    }
    all.select(0, int1(&idx, &device)).reshape([b, t, width])
}

/// `[B, T]` (or `[B, T, 1]` / `[B, 1, T]` by `shape`) of `inside` where `t < lengths[b]`, else
/// `outside`.
pub(super) fn mask_values(lengths: &[usize], t: usize, inside: f32, outside: f32) -> Vec<f32> {
    let mut v = Vec::with_capacity(lengths.len() * t);
    for &len in lengths {
        v.extend((0..t).map(|k| if k < len { inside } else { outside }));
    }
    v
}

/// `(1/r) log Σ exp(r·x)` over `dim` of `x` (already masked), keeping the dimension.
pub(super) fn log_sum_exp(x: Tensor<3>, dim: usize, r: f64) -> Tensor<3> {
    let rx = x.mul_scalar(r);
    let m = rx.clone().max_dim(dim).detach();
    ((rx - m.clone()).exp().sum_dim(dim).log() + m).div_scalar(r)
}

/// The sentence shift `[B, 1, 1]` of pairs with sentence vectors `a`, `b` `[B, dim]`:
/// `SHIFT_SCALE·(w·cos(a_k, b_k) + c)` with `shift`'s weight `w` and bias `c`
/// (see [`AlignerConfig::sentence_shift`](super::AlignerConfig::sentence_shift)).
pub(super) fn sentence_shift(shift: &Dense, a: Tensor<2>, b: Tensor<2>) -> Tensor<3> {
    let cos = (unit_rows(a) * unit_rows(b)).sum_dim(1);
    let [n, _] = cos.dims();
    shift
        .forward(cos)
        .mul_scalar(SHIFT_SCALE)
        .reshape([n, 1, 1])
}
