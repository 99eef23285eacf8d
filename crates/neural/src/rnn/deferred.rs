//! The training pass of [`BiRnn`] with the input projection's gradients deferred
//! ([`BiRnn::forward_deferred`]) and [`InputGrads`], which turns the gradients of the per-step
//! projection leaves into the gradients of `W_ih`, `b_ih` and the input after `backward`.

use burn::module::ParamId;
use burn::tensor::{Gradients, Tensor};

use super::{BiRnn, BiRnnOutput, Pad, RnnLayer, steps_of};
use crate::train::ParamGrad;

impl BiRnn {
    /// Training forward pass with the input projection's gradients deferred: `x` is an
    /// **inner** (non-autodiff) tensor `[N, d_input]`; the projections `x·W_ih + b` are
    /// computed in one product per direction without tracking, and their per-step slices enter
    /// the recurrence as gradient leaves. After `backward`, [`InputGrads::finish`] turns the
    /// leaves' gradients into the gradients of `W_ih`, `b_ih` and `x` with three large
    /// products.
    ///
    /// This is the same computation as [`BiRnn::forward`] (the tests check the gradients
    /// agree), minus what burn's autodiff makes of slicing one large tensor once per time step:
    /// a zero-filled gradient of the whole tensor per slice, quadratic in the sentence length.
    #[must_use]
    pub fn forward_deferred(
        &self,
        x: Tensor<2>,
        batch_sizes: &[usize],
        keep_steps: bool,
    ) -> (BiRnnOutput, InputGrads) {
        let hd = self.d_hidden();
        let pad = Pad::for_device(batch_sizes, &x.device());
        let leaves = |layer: &RnnLayer| {
            as_leaves(steps_of(
                layer.project_inner(x.clone()),
                batch_sizes,
                layer,
                pad.as_ref(),
            ))
        };
        let (sf, sb) = (leaves(&self.fwd), leaves(&self.bwd));
        let out = self.recur(&sf, &sb, batch_sizes, keep_steps, pad.clone());
        let dirs = [(&self.fwd, sf), (&self.bwd, sb)]
            .into_iter()
            .map(|(layer, steps)| DirectionLeaves {
                w_ih: layer.w_ih.val().inner(),
                w_ih_id: layer.w_ih.id,
                b_ih_id: layer.b_ih.id,
                steps,
            })
            .collect();
        (out, InputGrads { x, dirs, hd, pad })
    }
}

/// Each per-step, per-gate projected input as a gradient leaf of the autodiff device.
fn as_leaves(steps: Vec<Vec<Tensor<2>>>) -> Vec<Vec<Tensor<2>>> {
    steps
        .into_iter()
        .map(|g| {
            g.into_iter()
                .map(|t| Tensor::from_inner(t).require_grad())
                .collect()
        })
        .collect()
}

impl RnnLayer {
    /// A left-to-right pass from the initial state `h0` `[B, H]` (rows in packed order; the
    /// LSTM cell state starts at zero) over packed inputs `x` `[N, d_input]` (an **inner**
    /// tensor), the input projection's gradients deferred as in [`BiRnn::forward_deferred`].
    /// Returns each step's states `[batch_sizes[t], H]` in time order (concatenated, the
    /// packed layout of `x`) and the deferred stage. This is the decoder of a sequence model
    /// whose source reaches it only through `h0` (Kim et al. 2019).
    ///
    /// # Panics
    /// When `h0` does not have `batch_sizes[0]` rows of the layer's hidden size.
    #[must_use]
    pub fn forward_from_deferred(
        &self,
        x: Tensor<2>,
        batch_sizes: &[usize],
        h0: Tensor<2>,
    ) -> (Vec<Tensor<2>>, InputGrads) {
        let (hd, pad) = self.start_from(&x, batch_sizes, &h0);
        let steps = as_leaves(steps_of(
            self.project_inner(x.clone()),
            batch_sizes,
            self,
            pad.as_ref(),
        ));
        let outputs = self.run_layout(&steps, batch_sizes, h0, pad.as_ref());
        let dirs = vec![DirectionLeaves {
            w_ih: self.w_ih.val().inner(),
            w_ih_id: self.w_ih.id,
            b_ih_id: self.b_ih.id,
            steps,
        }];
        (outputs, InputGrads { x, dirs, hd, pad })
    }

    /// [`RnnLayer::forward_from_deferred`] without autodiff bookkeeping (any device; for
    /// inference and validation): the per-step states `[batch_sizes[t], H]`.
    ///
    /// # Panics
    /// As [`RnnLayer::forward_from_deferred`].
    #[must_use]
    pub fn forward_from(
        &self,
        x: Tensor<2>,
        batch_sizes: &[usize],
        h0: Tensor<2>,
    ) -> Vec<Tensor<2>> {
        let (_, pad) = self.start_from(&x, batch_sizes, &h0);
        let steps = steps_of(self.project(x), batch_sizes, self, pad.as_ref());
        self.run_layout(&steps, batch_sizes, h0, pad.as_ref())
    }

    /// The hidden size and the padded layout (`None`: packed) of a pass from `h0` over the
    /// packed inputs `x` laid out by `batch_sizes`.
    ///
    /// # Panics
    /// When `h0` does not have `batch_sizes[0]` rows of the layer's hidden size.
    fn start_from(
        &self,
        x: &Tensor<2>,
        batch_sizes: &[usize],
        h0: &Tensor<2>,
    ) -> (usize, Option<Pad>) {
        let hd = self.d_hidden();
        assert_eq!(
            h0.dims(),
            [batch_sizes[0], hd],
            "initial state of the wrong shape"
        );
        (hd, Pad::for_device(batch_sizes, &x.device()))
    }

    /// The forward pass from `h0` on either layout: each step's packed states.
    fn run_layout(
        &self,
        steps: &[Vec<Tensor<2>>],
        batch_sizes: &[usize],
        h0: Tensor<2>,
        pad: Option<&Pad>,
    ) -> Vec<Tensor<2>> {
        match pad {
            None => self.run_from(steps, batch_sizes, false, true, Some(h0)).1,
            Some(pad) => {
                let (_, out) = self.run_padded(steps, pad, false, true, Some(h0));
                (out.into_iter().enumerate())
                    .map(|(t, s)| pad.packed_step(t, s))
                    .collect()
            }
        }
    }
}

struct DirectionLeaves {
    w_ih: Tensor<2>,
    w_ih_id: ParamId,
    b_ih_id: ParamId,
    steps: Vec<Vec<Tensor<2>>>,
}

/// The deferred part of a [`BiRnn::forward_deferred`] pass: turns the gradients of the
/// per-step projection leaves into parameter and input gradients.
pub struct InputGrads {
    x: Tensor<2>,
    dirs: Vec<DirectionLeaves>,
    hd: usize,
    /// The padded layout the leaves are in, if any.
    pad: Option<Pad>,
}

impl std::fmt::Debug for InputGrads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InputGrads")
            .field("x", &self.x.dims())
            .finish_non_exhaustive()
    }
}

impl InputGrads {
    /// After `loss.backward()`: the gradients of both directions' `W_ih` and `b_ih`, and the
    /// gradient of the input `x` `[N, d_input]` (inner tensors).
    #[must_use]
    pub fn finish(self, grads: &mut Gradients) -> (Vec<ParamGrad>, Tensor<2>) {
        let mut out = Vec::new();
        let mut gx: Option<Tensor<2>> = None;
        for dir in self.dirs {
            let gates = dir.steps.first().map_or(0, Vec::len);
            let per_gate: Vec<Tensor<2>> = (0..gates)
                .map(|g| {
                    let rows: Vec<Tensor<2>> = dir
                        .steps
                        .iter()
                        .map(|step| {
                            step[g].grad_remove(grads).unwrap_or_else(|| {
                                let [n, h] = step[g].dims();
                                Tensor::zeros([n, h], &self.x.device())
                            })
                        })
                        .collect();
                    Tensor::cat(rows, 0)
                })
                .collect();
            let mut gg = Tensor::cat(per_gate, 1); // [N, G·H] (padded: [T·B, G·H])
            if let Some(pad) = &self.pad {
                gg = pad.unpack(gg);
            }
            let gw = self.x.clone().transpose().matmul(gg.clone());
            let gb = gg.clone().sum_dim(0).reshape([gates * self.hd]);
            let dx = gg.matmul(dir.w_ih.transpose());
            gx = Some(match gx {
                Some(a) => a + dx,
                None => dx,
            });
            out.push(ParamGrad::Rank2(dir.w_ih_id, gw));
            out.push(ParamGrad::Rank1(dir.b_ih_id, gb));
        }
        let gx = gx.unwrap_or_else(|| self.x.zeros_like());
        (out, gx)
    }
}
