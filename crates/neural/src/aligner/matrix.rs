//! The padded word states of a batch and the masked log-sum-exp of its alignment matrices.

use burn::tensor::Tensor;

use crate::batch::PackedBatch;
use crate::init::int1;
use crate::rnn::BiRnnOutput;

/// A value of the padding cells of an alignment matrix before the log-sum-exp: `exp` of it
/// is zero in `f32`, so padding never contributes to an aggregate.
pub(super) const MASKED: f32 = -1.0e9;

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
