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

use bitext_core::Rng;
use burn::module::{Module, Param};
use burn::tensor::activation::{sigmoid, tanh};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::init::{Init, param1, param2};

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

    /// One step on `n` rows: `gi` `[n, G·H]` is the projected input, `h` (and `c`) `[n, H]`.
    fn step(
        &self,
        gi: Tensor<2>,
        h: Tensor<2>,
        c: Option<Tensor<2>>,
    ) -> (Tensor<2>, Option<Tensor<2>>) {
        let hd = self.d_hidden;
        let gh = h.clone().matmul(self.w_hh.val());
        if self.lstm {
            let g = gi + gh;
            let ifo = sigmoid(g.clone().narrow(1, 0, 3 * hd));
            let cand = tanh(g.narrow(1, 3 * hd, hd));
            let i = ifo.clone().narrow(1, 0, hd);
            let f = ifo.clone().narrow(1, hd, hd);
            let o = ifo.narrow(1, 2 * hd, hd);
            let c_prev = c.unwrap_or_else(|| h.zeros_like());
            let c_new = f * c_prev + i * cand;
            let h_new = o * tanh(c_new.clone());
            (h_new, Some(c_new))
        } else {
            let rz = sigmoid(gi.clone().narrow(1, 0, 2 * hd) + gh.clone().narrow(1, 0, 2 * hd));
            let r = rz.clone().narrow(1, 0, hd);
            let z = rz.narrow(1, hd, hd);
            let mut hn = gh.narrow(1, 2 * hd, hd);
            if let Some(b) = &self.b_hn {
                hn = hn + b.val().unsqueeze::<2>();
            }
            let cand = tanh(gi.narrow(1, 2 * hd, hd) + r * hn);
            let h_new = cand.clone() + z * (h - cand);
            (h_new, None)
        }
    }

    /// Run over a packed batch whose projected inputs are `gi` `[N, G·H]`. Returns each row's
    /// final state `[B, H]` (packed order) and, when `keep_steps`, each step's output
    /// `[batch_sizes[t], H]` in time order.
    fn run(
        &self,
        gi: &Tensor<2>,
        batch_sizes: &[usize],
        reverse: bool,
        keep_steps: bool,
    ) -> (Tensor<2>, Vec<Tensor<2>>) {
        let device = gi.device();
        let hd = self.d_hidden;
        let mut offsets = Vec::with_capacity(batch_sizes.len());
        let mut acc = 0;
        for &n in batch_sizes {
            offsets.push(acc);
            acc += n;
        }
        let mut steps = Vec::new();
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
                let g = gi.clone().narrow(0, offsets[t], n);
                let (h, c) = self.step(g, h, c);
                if keep_steps {
                    steps.push(h.clone());
                }
                state = Some((h, c));
            }
            steps.reverse();
            let (h, _) = state.expect("a packed batch has at least one step");
            (h, steps)
        } else {
            let b = batch_sizes[0];
            let mut h = Tensor::<2>::zeros([b, hd], &device);
            let mut c = self.lstm.then(|| h.clone());
            let mut finished = Vec::new();
            for (t, &n) in batch_sizes.iter().enumerate() {
                let rows = h.dims()[0];
                if n < rows {
                    // Rows whose sentence ended at step t − 1 keep their state.
                    finished.push(h.clone().narrow(0, n, rows - n));
                    h = h.narrow(0, 0, n);
                    c = c.map(|c| c.narrow(0, 0, n));
                }
                let g = gi.clone().narrow(0, offsets[t], n);
                let (h2, c2) = self.step(g, h, c);
                h = h2;
                c = c2;
                if keep_steps {
                    steps.push(h.clone());
                }
            }
            finished.push(h);
            finished.reverse();
            (Tensor::cat(finished, 0), steps)
        }
    }
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
    /// (see [`PackedBatch`](crate::batch::PackedBatch)).
    #[must_use]
    pub fn forward(&self, x: Tensor<2>, batch_sizes: &[usize], keep_steps: bool) -> BiRnnOutput {
        let gf = self.fwd.project(x.clone());
        let gb = self.bwd.project(x);
        let (lf, sf) = self.fwd.run(&gf, batch_sizes, false, keep_steps);
        let (lb, sb) = self.bwd.run(&gb, batch_sizes, true, keep_steps);
        let steps = sf
            .into_iter()
            .zip(sb)
            .map(|(f, b)| Tensor::cat(vec![f, b], 1))
            .collect();
        BiRnnOutput {
            last: Tensor::cat(vec![lf, lb], 1),
            steps,
        }
    }
}
