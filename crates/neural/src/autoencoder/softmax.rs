//! The decoder's output layer as a loss: the negative log-likelihood of each decoded token
//! under the full softmax (burn's `log_softmax`, or fused on the host while training), or
//! under a sampled one over candidate classes.

use std::collections::HashMap;

use bitext_core::Rng;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Int, Tensor, TensorData};

use super::Autoencoder;
use crate::error::{Error, Result};
use crate::init::{float2, int1, to_host2};
use crate::train::{Deferred, ParamGrad};

/// Rows of the decoder's full softmax computed at once when it is evaluated without autodiff
/// (bounds validation memory at `rows × vocab` floats).
const FULL_SOFTMAX_ROWS: usize = 1024;

impl Autoencoder {
    /// Negative log-likelihoods `[tokens]` of `classes` under the decoder's output layer for
    /// the states `h` `[tokens, 2·hidden]`: over the candidate classes `cand` (sorted, holding
    /// every class of `classes`), or over all classes when `cand` is `None`.
    pub(super) fn token_nll(
        &self,
        h: Tensor<2>,
        classes: &[u32],
        cand: Option<&[u32]>,
    ) -> Tensor<1> {
        let device = h.device();
        let n = classes.len();
        let (w, b, cols): (Tensor<2>, Tensor<1>, Vec<i64>) = match cand {
            Some(c) => {
                let index: HashMap<u32, i64> = c
                    .iter()
                    .enumerate()
                    .map(|(k, &id)| (id, k as i64))
                    .collect();
                let ids: Vec<usize> = c.iter().map(|&id| id as usize).collect();
                let sel = int1(&ids, &device);
                (
                    self.output.weight.val().select(1, sel.clone()),
                    self.output.bias.val().select(0, sel),
                    classes.iter().map(|c| index[c]).collect(),
                )
            }
            None => (
                self.output.weight.val(),
                self.output.bias.val(),
                classes.iter().map(|&c| i64::from(c)).collect(),
            ),
        };
        let cols = Tensor::<2, Int>::from_data(TensorData::new(cols, [n, 1]), &device);
        let logits = h.matmul(w) + b.unsqueeze::<2>();
        log_softmax(logits, 1).gather(1, cols).reshape([n]).neg()
    }

    /// The mean full-softmax negative log-likelihood of `classes` given decoder states `h`
    /// on an autodiff device, fused: the logits `h·W + b` and the products of the backward
    /// pass are matrix products on the inner device, and the log-sum-exp, the per-token loss
    /// and the gradient `(softmax − one-hot) / n` of each row are computed on the host, rows in
    /// parallel, in place in one `[n, classes]` buffer. burn's `log_softmax` makes several
    /// single-threaded passes over tensors of that size forward and backward, which kept a
    /// two-thread training step at 1.4 cores (`docs/BENCHMARKS.md`). The gradient reaches `h`
    /// through `sum(h ⊙ dh) − its detached value + the loss` (value: the loss; gradient with
    /// respect to `h`: `dh`); those of the output layer come from the returned stage.
    ///
    /// Returns the loss `[1]` to back-propagate, each token's loss, and the stage.
    pub(super) fn fused_full_nll(
        &self,
        h: Tensor<2>,
        classes: &[u32],
    ) -> Result<(Tensor<1>, Vec<f32>, Deferred)> {
        use rayon::prelude::*;
        let device = h.device();
        let n = classes.len();
        let hin = h.clone().inner();
        let w = self.output.weight.val().inner();
        let b = self.output.bias.val().inner();
        let c = w.dims()[1];
        if let Some(&bad) = classes.iter().find(|&&k| k as usize >= c) {
            return Err(Error::Input(format!(
                "class {bad} outside the {c} output classes"
            )));
        }
        let (mut z, _) = to_host2(hin.clone().matmul(w.clone()) + b.unsqueeze::<2>())?;
        let mut nll = vec![0f32; n];
        let inv_n = 1.0 / n as f64;
        z.par_chunks_mut(c)
            .zip(nll.par_iter_mut())
            .zip(classes.par_iter())
            .for_each(|((row, out), &k)| {
                let k = k as usize;
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let gold = f64::from(row[k] - max);
                let mut sum = 0f64;
                for v in row.iter_mut() {
                    *v = (*v - max).exp();
                    sum += f64::from(*v);
                }
                *out = (sum.ln() - gold) as f32;
                let scale = (inv_n / sum) as f32;
                for v in row.iter_mut() {
                    *v *= scale;
                }
                row[k] -= inv_n as f32;
            });
        let g = float2(z, [n, c], &hin.device());
        let dh = g.clone().matmul(w.transpose());
        let dw = hin.transpose().matmul(g.clone());
        let db = g.sum_dim(0).reshape([c]);
        let loss = nll.iter().map(|&x| f64::from(x)).sum::<f64>() * inv_n;
        let surrogate = (h * Tensor::from_inner(dh)).sum();
        let value = surrogate.clone() - surrogate.detach()
            + Tensor::<1>::from_data(TensorData::new(vec![loss as f32], [1]), &device);
        let (wid, bid) = (self.output.weight.id, self.output.bias.id);
        let stage: Deferred =
            Box::new(move |_grads| Ok(vec![ParamGrad::Rank2(wid, dw), ParamGrad::Rank1(bid, db)]));
        Ok((value, nll, stage))
    }

    /// [`Self::token_nll`] over all classes in blocks of rows (no autodiff).
    pub(super) fn full_nll_chunked(&self, h: Tensor<2>, classes: &[u32]) -> Tensor<1> {
        let n = classes.len();
        let parts: Vec<Tensor<1>> = (0..n)
            .step_by(FULL_SOFTMAX_ROWS)
            .map(|start| {
                let len = FULL_SOFTMAX_ROWS.min(n - start);
                self.token_nll(
                    h.clone().narrow(0, start, len),
                    &classes[start..start + len],
                    None,
                )
            })
            .collect();
        Tensor::cat(parts, 0)
    }
}

/// The candidate classes of a sampled softmax: every class of `classes`, then classes drawn
/// uniformly from the other ones until `want` are there (or all `total`), sorted.
#[must_use]
pub fn candidates(classes: &[u32], want: usize, total: usize, rng: &mut Rng) -> Vec<u32> {
    let mut seen = vec![false; total];
    let mut out = Vec::with_capacity(want.max(classes.len()));
    for &c in classes {
        if !std::mem::replace(&mut seen[c as usize], true) {
            out.push(c);
        }
    }
    let target = want.min(total);
    // Rejection sampling while free classes are plentiful; past half the vocabulary, a walk
    // over the free ones in random order.
    if out.len() < target && target <= total / 2 {
        while out.len() < target {
            let c = rng.below(total);
            if !std::mem::replace(&mut seen[c], true) {
                out.push(c as u32);
            }
        }
    } else if out.len() < target {
        let mut free: Vec<u32> = (0..total as u32).filter(|&c| !seen[c as usize]).collect();
        rng.shuffle(&mut free);
        out.extend(free.into_iter().take(target - out.len()));
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use burn::tensor::Device;

    use super::*;
    use crate::autoencoder::{AutoencoderConfig, EncoderConfig, Softmax};
    use crate::rnn::CellKind;
    use crate::train::{backward, grads_of};

    /// The fused full softmax gives burn's `log_softmax` loss, both parts of it, and the same
    /// gradient for every parameter.
    #[test]
    fn fused_full_softmax_matches_log_softmax() {
        for cell in [CellKind::Gru, CellKind::Lstm] {
            let config = AutoencoderConfig {
                encoder: EncoderConfig::new((12, 14), 8, 6, cell),
                softmax: Softmax::Full,
                ..AutoencoderConfig::paper(12, 14)
            };
            let model = Autoencoder::new(&config, 3, &Device::flex().autodiff()).unwrap();
            let inputs: Vec<&[u32]> = vec![&[1, 2, 3], &[4, 5], &[6, 7, 8, 9, 10]];
            let outputs: Vec<&[u32]> = vec![&[2, 3], &[13, 0, 5, 7], &[1]];
            let auto: Vec<&[u32]> = vec![&[11, 12, 1], &[3]];
            let run = |fused: bool| {
                let l = model
                    .loss_with(&inputs, &outputs, &auto, None, fused)
                    .unwrap();
                let parts = [l.translation.clone(), l.autoencoding.clone()]
                    .map(|t| t.into_data().try_into_vec::<f32>().unwrap()[0]);
                let value = l
                    .loss
                    .value
                    .clone()
                    .into_data()
                    .try_into_vec::<f32>()
                    .unwrap()[0];
                let grads = backward(&model, l.loss).unwrap();
                (value, parts, grads_of(&model, &grads))
            };
            let (v1, p1, g1) = run(true);
            let (v0, p0, g0) = run(false);
            assert!((v1 - v0).abs() < 1e-5, "{cell:?}: loss {v1} vs {v0}");
            for (a, b) in p1.iter().zip(&p0) {
                assert!((a - b).abs() < 1e-5, "{cell:?}: part {a} vs {b}");
            }
            assert_eq!(g1.len(), g0.len());
            for ((id, a), (_, b)) in g1.iter().zip(&g0) {
                assert_eq!(a.len(), b.len(), "{cell:?}: gradient of {id} missing");
                assert!(!a.is_empty(), "{cell:?}: no gradient for {id}");
                let d = a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| (x - y).abs())
                    .fold(0f32, f32::max);
                assert!(d < 1e-5, "{cell:?}: gradient of {id} differs by {d}");
            }
        }
    }
}
