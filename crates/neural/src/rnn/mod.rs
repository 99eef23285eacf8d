//! Padding-correct recurrent layers: GRU and LSTM cells, one direction ([`RnnLayer`]) and the
//! bidirectional composition ([`BiRnn`]), run on [`PackedBatch`](crate::batch::PackedBatch)
//! layouts.
//!
//! burn's own `Gru`/`BiGru` take no sequence lengths (with right padding the reverse direction
//! reads the padding first) and do six small matrix products per step. These layers instead:
//!
//! - project every real token's input in **one** matrix product (`x·W_ih` for all time steps),
//!   leaving one `h·W_hh` product per step;
//! - run step `t` only on the rows still inside their sentence (the packed layout keeps them
//!   first), so padding is never computed and never enters a state: the forward direction's
//!   final state is the state after each sentence's last token, and the backward direction of a
//!   sentence starts from a zero state at its last token. A sentence's vector is therefore the
//!   same alone and in any batch (up to float rounding of differently shaped products).
//!
//! GRU equations (PyTorch's convention, "reset after"):
//! `r = σ(x W_ir + b_r + h W_hr)`, `z = σ(x W_iz + b_z + h W_hz)`,
//! `n = tanh(x W_in + b_in + r ⊙ (h W_hn + b_hn))`, `h' = (1 − z) ⊙ n + z ⊙ h`.
//! LSTM gates in the order input, forget, output, cell:
//! `c' = f ⊙ c + i ⊙ g`, `h' = o ⊙ tanh(c')`.
//!
//! Inference on the Flex CPU backend (no autodiff) runs the recurrence on the host
//! (`rnn/host.rs`: preallocated buffers, one `gemm` per step, vectorised cells in place);
//! every other device runs it as burn tensor operations. Both compute the same function
//! (tested). Training takes [`BiRnn::forward_deferred`] (`rnn/deferred.rs`), which defers the
//! gradients of the input projection to three large products.

use bitext_core::Rng;
use burn::module::{Module, Param};
use burn::tensor::activation::{sigmoid, tanh};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::init::{Init, param1, param2};

mod cell;
mod deferred;
mod host;
mod padded;

pub use deferred::InputGrads;
pub(crate) use host::HostBiRnn;
use padded::Pad;

/// The recurrent cell of a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellKind {
    /// Gated recurrent unit (3 gates).
    #[default]
    Gru,
    /// Long short-term memory (4 gates).
    Lstm,
}

impl CellKind {
    fn gates(self) -> usize {
        match self {
            CellKind::Gru => 3,
            CellKind::Lstm => 4,
        }
    }
}

/// One direction of a recurrent layer.
#[derive(Module, Debug)]
pub struct RnnLayer {
    /// Input weights `[d_input, gates × d_hidden]`.
    pub w_ih: Param<Tensor<2>>,
    /// Recurrent weights `[d_hidden, gates × d_hidden]`.
    pub w_hh: Param<Tensor<2>>,
    /// Gate biases `[gates × d_hidden]` (for the GRU, `b_hr + b_ir` and `b_hz + b_iz` folded
    /// together, and `b_in`).
    pub b_ih: Param<Tensor<1>>,
    /// GRU only: the recurrent bias of the candidate, `b_hn` `[d_hidden]` (it sits inside
    /// `r ⊙ (·)`, so it cannot be folded).
    pub b_hn: Option<Param<Tensor<1>>>,
    d_hidden: usize,
    lstm: bool,
}

impl RnnLayer {
    /// A layer with weights drawn uniformly in `±1/sqrt(d_hidden)` (PyTorch's default for
    /// recurrent layers) and zero biases; the LSTM forget-gate bias starts at 1.
    pub fn new(
        kind: CellKind,
        d_input: usize,
        d_hidden: usize,
        rng: &mut Rng,
        device: &Device,
    ) -> Self {
        let g = kind.gates() * d_hidden;
        let a = 1.0 / (d_hidden.max(1) as f64).sqrt();
        let w_ih = param2(rng, d_input, g, Init::Uniform(a), device);
        let w_hh = param2(rng, d_hidden, g, Init::Uniform(a), device);
        let b_ih = match kind {
            CellKind::Gru => param1(rng, g, Init::Zeros, device),
            CellKind::Lstm => {
                let mut b = vec![0.0f32; g];
                b[d_hidden..2 * d_hidden].fill(1.0);
                Param::from_tensor(Tensor::from_data(
                    burn::tensor::TensorData::new(b, [g]),
                    device,
                ))
            }
        };
        let b_hn = (kind == CellKind::Gru).then(|| param1(rng, d_hidden, Init::Zeros, device));
        Self {
            w_ih,
            w_hh,
            b_ih,
            b_hn,
            d_hidden,
            lstm: kind == CellKind::Lstm,
        }
    }

    /// Hidden size.
    #[must_use]
    pub fn d_hidden(&self) -> usize {
        self.d_hidden
    }

    /// Input projection of packed tokens: `[N, d_input] → [N, gates × d_hidden]`.
    fn project(&self, x: Tensor<2>) -> Tensor<2> {
        x.matmul(self.w_ih.val()) + self.b_ih.val().unsqueeze::<2>()
    }

    /// The same on the inner (non-autodiff) device: `x` must be an inner tensor.
    fn project_inner(&self, x: Tensor<2>) -> Tensor<2> {
        x.matmul(self.w_ih.val().inner()) + self.b_ih.val().inner().unsqueeze::<2>()
    }

    fn gates(&self) -> usize {
        if self.lstm { 4 } else { 3 }
    }

    /// The recurrent weights of each gate, `[H, H]` (sliced once per forward pass, so that the
    /// backward pass accumulates small per-gate gradients).
    ///
    /// Without autodiff (`fused`), one matrix `[H, gates × H]`: a single product per step,
    /// which is faster and needs no gradient bookkeeping.
    fn recurrent_weights(&self, fused: bool) -> Vec<Tensor<2>> {
        let hd = self.d_hidden;
        let w = self.w_hh.val();
        if fused {
            return vec![w];
        }
        (0..self.gates())
            .map(|g| {
                let slice = w.clone().narrow(1, g * hd, hd);
                // LSTM: a contiguous copy of each gate's columns (× 1 is exact, so values and
                // gradients are unchanged). The strided view made gemm repack it for every
                // block of the backward product `dG·W_gᵀ`: 2.4× slower per step at 32 rows,
                // and the word-alignment model's training 0.90× PyTorch's instead of ~1.1×
                // (docs/BENCHMARKS.md). The GRU models measured no gain, so they keep views.
                if self.lstm {
                    slice.mul_scalar(1.0)
                } else {
                    slice
                }
            })
            .collect()
    }

    /// One step on `n` rows: `gi[g]` `[n, H]` is gate `g`'s projected input, `h` (and `c`)
    /// `[n, H]`. GRU gates: r, z, n; LSTM gates: i, f, o, g.
    fn step(
        &self,
        gi: &[Tensor<2>],
        whh: &[Tensor<2>],
        h: Tensor<2>,
        c: Option<Tensor<2>>,
    ) -> (Tensor<2>, Option<Tensor<2>>) {
        let hd = self.d_hidden;
        let fused = (whh.len() == 1).then(|| h.clone().matmul(whh[0].clone()));
        let rec = |g: usize| match &fused {
            Some(all) => all.clone().narrow(1, g * hd, hd),
            None => h.clone().matmul(whh[g].clone()),
        };
        if self.lstm {
            let i = sigmoid(gi[0].clone() + rec(0));
            let f = sigmoid(gi[1].clone() + rec(1));
            let o = sigmoid(gi[2].clone() + rec(2));
            let cand = tanh(gi[3].clone() + rec(3));
            let c_new = match c {
                Some(c) => f * c + i * cand,
                None => i * cand,
            };
            let h_new = o * tanh(c_new.clone());
            (h_new, Some(c_new))
        } else {
            let r = sigmoid(gi[0].clone() + rec(0));
            let z = sigmoid(gi[1].clone() + rec(1));
            let mut hn = rec(2);
            if let Some(b) = &self.b_hn {
                hn = hn + b.val().unsqueeze::<2>();
            }
            let cand = tanh(gi[2].clone() + r * hn);
            let h_new = cand.clone() + z * (h - cand);
            (h_new, None)
        }
    }

    /// Run over a packed batch whose projected inputs are `steps[t][g]` `[batch_sizes[t], H]`.
    /// Returns each row's final state `[B, H]` (packed order) and, when `keep_steps`, each
    /// step's output `[batch_sizes[t], H]` in time order.
    fn run(
        &self,
        steps: &[Vec<Tensor<2>>],
        batch_sizes: &[usize],
        reverse: bool,
        keep_steps: bool,
    ) -> (Tensor<2>, Vec<Tensor<2>>) {
        self.run_from(steps, batch_sizes, reverse, keep_steps, None)
    }

    /// [`RnnLayer::run`] with the forward direction's initial state `h0` `[B, H]` (packed
    /// order; zeros when `None`; the LSTM cell state always starts at zero).
    fn run_from(
        &self,
        steps: &[Vec<Tensor<2>>],
        batch_sizes: &[usize],
        reverse: bool,
        keep_steps: bool,
        h0: Option<Tensor<2>>,
    ) -> (Tensor<2>, Vec<Tensor<2>>) {
        let device = steps[0][0].device();
        let hd = self.d_hidden;
        let whh = self.recurrent_weights(!device.is_autodiff());
        let mut outputs = Vec::new();
        if reverse {
            let mut state: Option<(Tensor<2>, Option<Tensor<2>>)> = None;
            for t in (0..batch_sizes.len()).rev() {
                let n = batch_sizes[t];
                let rows = state.as_ref().map_or(0, |s| s.0.dims()[0]);
                let (h, c) = if n > rows {
                    // Rows whose last token is at step t join with a zero state.
                    let zeros = Tensor::<2>::zeros([n - rows, hd], &device);
                    match state {
                        None => (zeros.clone(), self.lstm.then_some(zeros)),
                        Some((h, c)) => (
                            Tensor::cat(vec![h, zeros.clone()], 0),
                            c.map(|c| Tensor::cat(vec![c, zeros], 0)),
                        ),
                    }
                } else {
                    state.expect("a packed batch starts with at least one row")
                };
                let (h, c) = self.step(&steps[t], &whh, h, c);
                if keep_steps {
                    outputs.push(h.clone());
                }
                state = Some((h, c));
            }
            outputs.reverse();
            let (h, _) = state.expect("a packed batch has at least one step");
            (h, outputs)
        } else {
            let b = batch_sizes[0];
            let zeros = Tensor::<2>::zeros([b, hd], &device);
            let mut c = self.lstm.then(|| zeros.clone());
            let mut h = h0.unwrap_or(zeros);
            let mut finished = Vec::new();
            for (t, &n) in batch_sizes.iter().enumerate() {
                let rows = h.dims()[0];
                if n < rows {
                    // Rows whose sentence ended at step t − 1 keep their state.
                    finished.push(h.clone().narrow(0, n, rows - n));
                    h = h.narrow(0, 0, n);
                    c = c.map(|c| c.narrow(0, 0, n));
                }
                let (h2, c2) = self.step(&steps[t], &whh, h, c);
                h = h2;
                c = c2;
                if keep_steps {
                    outputs.push(h.clone());
                }
            }
            finished.push(h);
            finished.reverse();
            (Tensor::cat(finished, 0), outputs)
        }
    }
}

/// Where each step's rows start in a packed layout, plus the total: `T + 1` offsets (step `t`
/// holds rows `starts[t]..starts[t + 1]`).
pub(crate) fn step_starts(batch_sizes: &[usize]) -> Vec<usize> {
    std::iter::once(0)
        .chain(batch_sizes.iter().scan(0, |off, &n| {
            *off += n;
            Some(*off)
        }))
        .collect()
}

/// Cut projected inputs `[N, G·H]` into per-step, per-gate views `[batch_sizes[t], H]`.
fn split_steps(
    gi: &Tensor<2>,
    batch_sizes: &[usize],
    gates: usize,
    hd: usize,
) -> Vec<Vec<Tensor<2>>> {
    step_starts(batch_sizes)
        .windows(2)
        .map(|w| {
            let rows = gi.clone().narrow(0, w[0], w[1] - w[0]);
            (0..gates)
                .map(|g| rows.clone().narrow(1, g * hd, hd))
                .collect()
        })
        .collect()
}

/// Per step and gate, the projected inputs `[N, G·H]` of `layer` cut for the recurrence: packed
/// views `[batch_sizes[t], H]`, or with a padded layout views `[B, H]` of the padded rows.
fn steps_of(
    gi: Tensor<2>,
    batch_sizes: &[usize],
    layer: &RnnLayer,
    pad: Option<&Pad>,
) -> Vec<Vec<Tensor<2>>> {
    let (gates, hd) = (layer.gates(), layer.d_hidden());
    match pad {
        None => split_steps(&gi, batch_sizes, gates, hd),
        Some(pad) => pad.split_steps(&pad.pad(gi), gates, hd),
    }
}

/// Whether the recurrence runs on the padded layout on `device` (a GPU; see `rnn/padded.rs`).
pub(crate) fn padded_on(device: &Device) -> bool {
    padded::Layout::for_device(device) == padded::Layout::Padded
}

/// Configuration of a bidirectional recurrent layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BiRnnConfig {
    /// GRU or LSTM.
    pub cell: CellKind,
    /// Input size (the embedding dimension).
    pub d_input: usize,
    /// Hidden size of each direction (the output has twice this).
    pub d_hidden: usize,
}

impl BiRnnConfig {
    /// Build the layer with seeded weights.
    pub fn init(&self, rng: &mut Rng, device: &Device) -> BiRnn {
        BiRnn {
            fwd: RnnLayer::new(self.cell, self.d_input, self.d_hidden, rng, device),
            bwd: RnnLayer::new(self.cell, self.d_input, self.d_hidden, rng, device),
        }
    }
}

/// A bidirectional recurrent layer made of two independent directions.
#[derive(Module, Debug)]
pub struct BiRnn {
    /// Reads each sentence left to right.
    pub fwd: RnnLayer,
    /// Reads each sentence right to left, starting at its last real token.
    pub bwd: RnnLayer,
}

/// What a [`BiRnn`] returns, rows in packed order.
#[derive(Debug, Clone)]
pub struct BiRnnOutput {
    /// `[B, 2H]`: the forward direction's state after the last token, then the backward
    /// direction's state after the first token (Grégoire & Langlais' sentence vector).
    pub last: Tensor<2>,
    /// When asked for: per time step `t`, the outputs `[batch_sizes[t], 2H]` of the rows
    /// still inside their sentence.
    pub steps: Vec<Tensor<2>>,
    /// On the padded layout, the layout and each step's output on all rows `[B, 2H]`.
    padded: Option<(Pad, Vec<Tensor<2>>)>,
}

impl BiRnnOutput {
    /// Element-wise maximum over each sentence's time steps, `[B, 2H]` (packed order); needs
    /// the steps.
    ///
    /// # Panics
    /// When the output was computed without steps.
    #[must_use]
    pub fn max_pool(&self) -> Tensor<2> {
        assert!(
            !self.steps.is_empty(),
            "max_pool needs the per-step outputs"
        );
        if let Some((pad, steps)) = &self.padded {
            return pad.max_pool(steps);
        }
        let mut acc = self.steps[0].clone();
        for s in &self.steps[1..] {
            let n = s.dims()[0];
            let rows = acc.dims()[0];
            let head = acc.clone().narrow(0, 0, n).max_pair(s.clone());
            acc = if n < rows {
                Tensor::cat(vec![head, acc.narrow(0, n, rows - n)], 0)
            } else {
                head
            };
        }
        acc
    }
}

impl BiRnn {
    /// Hidden size of each direction.
    #[must_use]
    pub fn d_hidden(&self) -> usize {
        self.fwd.d_hidden()
    }

    /// Run both directions over packed inputs `x` `[N, d_input]` laid out by `batch_sizes`
    /// (see [`PackedBatch`](crate::batch::PackedBatch)), with automatic differentiation
    /// through everything when `x` lives on an autodiff device. For training prefer
    /// [`BiRnn::forward_deferred`], which computes the same values and gradients faster.
    #[must_use]
    pub fn forward(&self, x: Tensor<2>, batch_sizes: &[usize], keep_steps: bool) -> BiRnnOutput {
        if let Some(out) = self
            .host()
            .and_then(|mut h| h.forward(x.clone(), None, batch_sizes, keep_steps))
        {
            return out;
        }
        self.forward_tensors(x, batch_sizes, keep_steps)
    }

    /// [`BiRnn::forward`] through `host`, a recurrence already prepared for host inference
    /// ([`BiRnn::host`]) with the packed inputs' token `ids` when it may look rows up by id,
    /// when there is one and it runs; else as [`BiRnn::forward`].
    pub(crate) fn forward_with(
        &self,
        host: Option<&mut HostBiRnn>,
        x: Tensor<2>,
        ids: Option<&[u32]>,
        batch_sizes: &[usize],
        keep_steps: bool,
    ) -> BiRnnOutput {
        match host.and_then(|h| h.forward(x.clone(), ids, batch_sizes, keep_steps)) {
            Some(out) => out,
            None => self.forward(x, batch_sizes, keep_steps),
        }
    }

    /// The recurrence prepared for host inference, when this layer lives on the Flex CPU
    /// device without autodiff (`None` otherwise): reuse it across batches.
    pub(crate) fn host(&self) -> Option<HostBiRnn> {
        let device = self.fwd.w_hh.val().device();
        if !crate::host::on_host(&device) {
            return None;
        }
        HostBiRnn::new(self)
    }

    /// [`BiRnn::forward`] as burn tensor operations (any device, with or without autodiff).
    fn forward_tensors(
        &self,
        x: Tensor<2>,
        batch_sizes: &[usize],
        keep_steps: bool,
    ) -> BiRnnOutput {
        let pad = Pad::for_device(batch_sizes, &x.device());
        let sf = steps_of(
            self.fwd.project(x.clone()),
            batch_sizes,
            &self.fwd,
            pad.as_ref(),
        );
        let sb = steps_of(self.bwd.project(x), batch_sizes, &self.bwd, pad.as_ref());
        self.recur(&sf, &sb, batch_sizes, keep_steps, pad)
    }

    fn recur(
        &self,
        sf: &[Vec<Tensor<2>>],
        sb: &[Vec<Tensor<2>>],
        batch_sizes: &[usize],
        keep_steps: bool,
        pad: Option<Pad>,
    ) -> BiRnnOutput {
        let run = |layer: &RnnLayer, steps: &[Vec<Tensor<2>>], reverse: bool| match &pad {
            None => layer.run(steps, batch_sizes, reverse, keep_steps),
            Some(pad) => layer.run_padded(steps, pad, reverse, keep_steps, None),
        };
        // Without autodiff the two directions are independent pure computations: run them on
        // two threads (each step's products are too small for gemm to split well). With
        // autodiff they run in turn, so the graph is recorded in one order.
        let ((lf, of), (lb, ob)) = if sf[0][0].device().is_autodiff() {
            (run(&self.fwd, sf, false), run(&self.bwd, sb, true))
        } else {
            rayon::join(|| run(&self.fwd, sf, false), || run(&self.bwd, sb, true))
        };
        let both: Vec<Tensor<2>> = of
            .into_iter()
            .zip(ob)
            .map(|(f, b)| Tensor::cat(vec![f, b], 1))
            .collect();
        let last = Tensor::cat(vec![lf, lb], 1);
        match pad {
            None => BiRnnOutput {
                last,
                steps: both,
                padded: None,
            },
            Some(pad) => BiRnnOutput {
                last,
                steps: (both.iter().cloned().enumerate())
                    .map(|(t, s)| pad.packed_step(t, s))
                    .collect(),
                padded: Some((pad, both)),
            },
        }
    }
}

#[cfg(test)]
mod tests;
