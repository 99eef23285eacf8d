//! The recurrence on a **padded** layout, for devices where every distinct tensor shape costs
//! compiled and tuned kernels (wgpu): each step runs on all `B` rows of the batch, and a mask
//! holds the state of rows outside their sentence, so every step has the same shapes.
//!
//! The packed layout ([`PackedBatch`](crate::batch::PackedBatch)) runs step `t` on the
//! `batch_sizes[t]` rows still inside their sentence: no wasted arithmetic, which is what a CPU
//! wants, but a new shape at almost every step. On a GPU through CubeCL each new shape of a
//! matrix product is a new autotuning key (candidate kernels compiled and timed), and the
//! measured first minute of training went to tuning 52–63 keys (docs/notes/benchmarks-log.md,
//! "On a GPU, and on 16 cores"). Here step `t` computes the cell on all rows and keeps
//! `h ← h + m_t ⊙ (cell(h) − h)` with `m_t` 1 inside the sentence and 0 outside (skipped
//! where every row is inside), so:
//!
//! - the forward direction holds each row's state after its last token: its final state and
//!   its outputs past the end are that state;
//! - the backward direction keeps a zero state until the row's last token, where the packed
//!   layout lets the row join with a zero state.
//!
//! The values and gradients are those of the packed layout (tested on the CPU, where both run).
//! [`Layout::for_device`] picks the layout: packed on the CPU backends, padded elsewhere;
//! `BITEXT_RNN_LAYOUT=packed|padded` overrides it (to measure one against the other).
//!
//! Measured on an H200 (docs/BENCHMARKS.md, "wgpu: the padded recurrence"): a GRU step is then
//! one matrix product, two fused element-wise kernels and a copy, 44 distinct kernels for a whole
//! encoding, but wgpu stays far slower than Flex: the GPU is busy 0.1 s of 22.5 s, the rest is
//! host work (tuning, compiling, dispatching).

use burn::tensor::{Device, Int, Tensor};

use super::RnnLayer;
use crate::init::{float2, int1};

/// How a recurrence lays out the rows of its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Step `t` on the `batch_sizes[t]` rows inside their sentence (the CPU's layout).
    Packed,
    /// Every step on all rows, a mask holding the states of the rows outside their sentence.
    Padded,
}

impl Layout {
    /// Packed on the CPU backends (Flex, ndarray), padded on every other device, unless
    /// `BITEXT_RNN_LAYOUT` names one (`packed` or `padded`; anything else is ignored).
    pub(crate) fn for_device(device: &Device) -> Self {
        #[cfg(test)]
        if let Some(forced) = tests::FORCED.get() {
            return forced;
        }
        match std::env::var("BITEXT_RNN_LAYOUT").as_deref() {
            Ok("packed") => return Self::Packed,
            Ok("padded") => return Self::Padded,
            _ => {}
        }
        let inner = device.clone().inner();
        if inner == Device::flex() {
            return Self::Packed;
        }
        #[cfg(feature = "ndarray")]
        #[allow(deprecated)]
        if inner == Device::ndarray() {
            return Self::Packed;
        }
        Self::Padded
    }
}

/// Where the rows of a packed batch sit in the padded layout `[T·B]` (step-major: row
/// `t·B + b` is packed row `starts[t] + b` when `b < batch_sizes[t]`), and each step's mask.
#[derive(Debug, Clone)]
pub(crate) struct Pad {
    rows: usize,
    batch_sizes: Vec<usize>,
    /// `[T·B]`: the packed row of each padded row, `N` (a zero row appended) for padding.
    to_padded: Tensor<1, Int>,
    /// `[N]`: the padded row of each packed row.
    to_packed: Tensor<1, Int>,
    /// Per step, `[B, 1]` of 1 inside and 0 outside the sentence; `None` where all rows are in.
    masks: Vec<Option<Tensor<2>>>,
}

impl Pad {
    /// The padded layout of a packed batch (`batch_sizes` non-increasing, `batch_sizes[0]`
    /// rows), its index tensors and masks on `device`.
    pub(crate) fn new(batch_sizes: &[usize], device: &Device) -> Self {
        let b = batch_sizes.first().copied().unwrap_or(0);
        let total: usize = batch_sizes.iter().sum();
        let mut to_padded = Vec::with_capacity(b * batch_sizes.len());
        let mut to_packed = Vec::with_capacity(total);
        let mut start = 0;
        for (t, &n) in batch_sizes.iter().enumerate() {
            for row in 0..b {
                to_padded.push(if row < n { start + row } else { total });
            }
            to_packed.extend((0..n).map(|row| t * b + row));
            start += n;
        }
        let masks = batch_sizes
            .iter()
            .map(|&n| {
                (n < b).then(|| {
                    let m: Vec<f32> = (0..b).map(|row| f32::from(u8::from(row < n))).collect();
                    float2(m, [b, 1], device)
                })
            })
            .collect();
        Self {
            rows: b,
            batch_sizes: batch_sizes.to_vec(),
            to_padded: int1(&to_padded, device),
            to_packed: int1(&to_packed, device),
            masks,
        }
    }

    /// The padded layout of a packed batch when [`Layout::for_device`] asks for one.
    pub(crate) fn for_device(batch_sizes: &[usize], device: &Device) -> Option<Self> {
        (Layout::for_device(device) == Layout::Padded).then(|| Self::new(batch_sizes, device))
    }

    /// Packed rows `[N, d]` → padded rows `[T·B, d]` (zero rows for padding).
    pub(crate) fn pad(&self, packed: Tensor<2>) -> Tensor<2> {
        let d = packed.dims()[1];
        let zero = Tensor::zeros([1, d], &packed.device());
        Tensor::cat(vec![packed, zero], 0).select(0, self.to_padded.clone())
    }

    /// Padded rows `[T·B, d]` → packed rows `[N, d]`.
    pub(crate) fn unpack(&self, padded: Tensor<2>) -> Tensor<2> {
        padded.select(0, self.to_packed.clone())
    }

    /// Per step and gate, the views `[B, H]` of padded projected inputs `[T·B, G·H]`.
    pub(crate) fn split_steps(
        &self,
        gi: &Tensor<2>,
        gates: usize,
        hd: usize,
    ) -> Vec<Vec<Tensor<2>>> {
        (0..self.batch_sizes.len())
            .map(|t| {
                let rows = gi.clone().narrow(0, t * self.rows, self.rows);
                (0..gates)
                    .map(|g| rows.clone().narrow(1, g * hd, hd))
                    .collect()
            })
            .collect()
    }

    /// Step `t`'s padded output `[B, w]` cut to the packed rows `[batch_sizes[t], w]`.
    pub(crate) fn packed_step(&self, t: usize, out: Tensor<2>) -> Tensor<2> {
        let n = self.batch_sizes[t];
        if n < self.rows {
            out.narrow(0, 0, n)
        } else {
            out
        }
    }

    /// The element-wise maximum over each row's steps inside its sentence, `[B, w]`, of the
    /// padded per-step outputs `[B, w]`.
    pub(crate) fn max_pool(&self, steps: &[Tensor<2>]) -> Tensor<2> {
        let mut acc: Option<Tensor<2>> = None;
        for (t, s) in steps.iter().enumerate() {
            // Outside its sentence a row's output is pushed far below any state, so the
            // maximum (and its gradient) takes only the steps inside.
            let s = match &self.masks[t] {
                Some(m) => s.clone() + m.clone().sub_scalar(1.0).mul_scalar(1.0e9),
                None => s.clone(),
            };
            acc = Some(match acc {
                Some(a) => a.max_pair(s),
                None => s,
            });
        }
        acc.expect("a padded batch has at least one step")
    }
}

impl RnnLayer {
    /// One direction over padded projected inputs `steps[t][g]` `[B, H]`: each row's final
    /// state `[B, H]` (its state after its last token, forward; after its first, backward)
    /// and, when `keep_steps`, each step's padded output `[B, H]` in time order. `h0` is the
    /// forward direction's initial state (zeros when `None`).
    pub(crate) fn run_padded(
        &self,
        steps: &[Vec<Tensor<2>>],
        pad: &Pad,
        reverse: bool,
        keep_steps: bool,
        h0: Option<Tensor<2>>,
    ) -> (Tensor<2>, Vec<Tensor<2>>) {
        let device = steps[0][0].device();
        let zeros = Tensor::<2>::zeros([pad.rows, self.d_hidden()], &device);
        let whh = self.recurrent_weights(!device.is_autodiff());
        let mut c = self.lstm.then(|| zeros.clone());
        let mut h = h0.unwrap_or(zeros);
        let mut outputs = Vec::new();
        let order: Box<dyn Iterator<Item = usize>> = if reverse {
            Box::new((0..steps.len()).rev())
        } else {
            Box::new(0..steps.len())
        };
        for t in order {
            let (h2, c2) = self.step(&steps[t], &whh, h.clone(), c.clone());
            match &pad.masks[t] {
                None => {
                    h = h2;
                    c = c2;
                }
                Some(m) => {
                    h = h.clone() + (h2 - h) * m.clone();
                    c = c.zip(c2).map(|(c, c2)| c.clone() + (c2 - c) * m.clone());
                }
            }
            if keep_steps {
                outputs.push(h.clone());
            }
        }
        if reverse {
            outputs.reverse();
        }
        (h, outputs)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    use bitext_core::Rng;
    use burn::tensor::{Device, Tensor};

    use super::Layout;
    use crate::batch::PackedBatch;
    use crate::init::{float2, to_host2};
    use crate::rnn::{BiRnnConfig, CellKind, RnnLayer};
    use crate::train::ParamGrad;

    thread_local! {
        /// The layout [`Layout::for_device`] answers on this thread (tests only).
        pub(crate) static FORCED: Cell<Option<Layout>> = const { Cell::new(None) };
    }

    /// Run `f` with `layout` forced on this thread.
    fn with_layout<R>(layout: Layout, f: impl FnOnce() -> R) -> R {
        FORCED.set(Some(layout));
        let r = f();
        FORCED.set(None);
        r
    }

    fn host(t: Tensor<2>) -> (Vec<f32>, [usize; 2]) {
        to_host2(t).unwrap()
    }

    fn max_diff(a: Tensor<2>, b: Tensor<2>) -> f32 {
        let ((a, da), (b, db)) = (host(a), host(b));
        assert_eq!(da, db);
        a.iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    /// Sentences of lengths with ties, a length-1 row and a full-length tail.
    fn batch() -> PackedBatch {
        let seqs: Vec<Vec<u32>> = [5usize, 1, 9, 9, 3, 7, 2]
            .iter()
            .map(|&n| (0..n as u32).collect())
            .collect();
        PackedBatch::new(&seqs).unwrap()
    }

    fn input(rng: &mut Rng, rows: usize, d: usize, device: &Device) -> Tensor<2> {
        let v = (0..rows * d)
            .map(|_| rng.uniform(-2.0, 2.0) as f32)
            .collect();
        float2(v, [rows, d], device)
    }

    /// Without autodiff: the same final states, per-step outputs and max-pooled vectors.
    #[test]
    fn padded_and_packed_layouts_compute_the_same_outputs() {
        let device = Device::flex();
        let batch = batch();
        let sizes = batch.batch_sizes();
        let tokens: usize = sizes.iter().sum();
        let mut rng = Rng::seed(5);
        for cell in [CellKind::Gru, CellKind::Lstm] {
            let rnn = BiRnnConfig {
                cell,
                d_input: 6,
                d_hidden: 11,
            }
            .init(&mut rng, &device);
            let x = input(&mut rng, tokens, 6, &device);
            let packed = with_layout(Layout::Packed, || {
                rnn.forward_tensors(x.clone(), sizes, true)
            });
            let padded = with_layout(Layout::Padded, || {
                rnn.forward_tensors(x.clone(), sizes, true)
            });
            assert!(packed.padded.is_none() && padded.padded.is_some());
            let d = max_diff(packed.last.clone(), padded.last.clone());
            assert!(d < 1e-5, "{cell:?}: final states differ by {d}");
            let d = max_diff(packed.max_pool(), padded.max_pool());
            assert!(d < 1e-5, "{cell:?}: pooled vectors differ by {d}");
            assert_eq!(packed.steps.len(), padded.steps.len());
            for (t, (a, b)) in packed.steps.iter().zip(&padded.steps).enumerate() {
                let d = max_diff(a.clone(), b.clone());
                assert!(d < 1e-5, "{cell:?}: step {t} differs by {d}");
            }
            // A decoder's pass from an initial state.
            let layer: &RnnLayer = &rnn.fwd;
            let h0 = input(&mut rng, sizes[0], 11, &device);
            let run =
                |layout| with_layout(layout, || layer.forward_from(x.clone(), sizes, h0.clone()));
            for (t, (a, b)) in run(Layout::Packed)
                .into_iter()
                .zip(run(Layout::Padded))
                .enumerate()
            {
                let d = max_diff(a, b);
                assert!(d < 1e-5, "{cell:?}: decoder step {t} differs by {d}");
            }
        }
    }

    /// The training pass: the same gradients of the recurrent weights, of the deferred input
    /// projection and of the input, through the final states, the pooled vector and the
    /// per-step outputs.
    #[test]
    fn padded_and_packed_layouts_give_the_same_gradients() {
        let device = Device::flex().autodiff();
        let inner = Device::flex();
        let batch = batch();
        let sizes = batch.batch_sizes();
        let tokens: usize = sizes.iter().sum();
        let mut rng = Rng::seed(9);
        for cell in [CellKind::Gru, CellKind::Lstm] {
            let rnn = BiRnnConfig {
                cell,
                d_input: 5,
                d_hidden: 7,
            }
            .init(&mut rng, &device);
            let x = input(&mut rng, tokens, 5, &inner);
            let r_last = input(&mut rng, sizes[0], 14, &device);
            let r_pool = input(&mut rng, sizes[0], 14, &device);
            let r_steps = input(&mut rng, tokens, 14, &device);
            let grads = |layout| {
                with_layout(layout, || {
                    let (out, ig) = rnn.forward_deferred(x.clone(), sizes, true);
                    let loss = (out.last.clone() * r_last.clone()).sum()
                        + (out.max_pool() * r_pool.clone()).sum()
                        + (Tensor::cat(out.steps.clone(), 0) * r_steps.clone()).sum();
                    let mut g = loss.backward();
                    let mut all: Vec<Tensor<2>> = Vec::new();
                    for layer in [&rnn.fwd, &rnn.bwd] {
                        all.push(layer.w_hh.val().grad(&g).unwrap());
                        if let Some(b) = &layer.b_hn {
                            all.push(b.val().grad(&g).unwrap().unsqueeze());
                        }
                    }
                    let (params, gx) = ig.finish(&mut g);
                    for p in params {
                        all.push(match p {
                            ParamGrad::Rank1(_, t) => t.unsqueeze(),
                            ParamGrad::Rank2(_, t) => t,
                        });
                    }
                    all.push(gx);
                    all
                })
            };
            let (a, b) = (grads(Layout::Packed), grads(Layout::Padded));
            assert_eq!(a.len(), b.len());
            for (k, (a, b)) in a.into_iter().zip(b).enumerate() {
                let scale = host(a.clone())
                    .0
                    .iter()
                    .fold(1e-3f32, |m, v| m.max(v.abs()));
                let d = max_diff(a, b);
                assert!(
                    d <= 1e-5 * scale,
                    "{cell:?}: gradient {k} differs by {d} ({scale})"
                );
            }
        }
    }
}
