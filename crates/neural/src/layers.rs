//! Small building blocks shared by the models: an embedding table that checks its ids, a dense
//! layer, seeded dropout and the binary cross-entropy on logits.

use bitext_core::Rng;
use burn::module::{Module, Param, ParamId};
use burn::tensor::activation::relu;
use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor, TensorData};

use crate::batch::PackedBatch;
use crate::error::{Error, Result};
use crate::init::{Init, param1, param2};
use crate::train::ParamGrad;

/// A token embedding table `[vocab, dim]`.
#[derive(Module, Debug)]
pub struct Embedding {
    /// The table.
    pub weight: Param<Tensor<2>>,
}

impl Embedding {
    /// A table drawn uniformly in `±sqrt(3 / dim)` (unit-scaling: rows of norm about 1).
    pub fn new(vocab: usize, dim: usize, rng: &mut Rng, device: &Device) -> Self {
        let a = (3.0 / dim.max(1) as f64).sqrt();
        Self {
            weight: param2(rng, vocab, dim, Init::Uniform(a), device),
        }
    }

    /// A table of zeros, to be replaced ([`Embedding::set_table`] or a checkpoint's weights)
    /// before use.
    pub fn zeros(vocab: usize, dim: usize, device: &Device) -> Self {
        Self {
            weight: Param::from_tensor(Tensor::zeros([vocab, dim], device)),
        }
    }

    /// The packed token ids of `batch` as a tensor on `device`, when every one is a row of the
    /// table.
    fn ids(&self, batch: &PackedBatch, device: &Device) -> Result<Tensor<1, Int>> {
        let vocab = self.vocab();
        if batch.max_id() as usize >= vocab {
            return Err(Error::Input(format!(
                "token id {} is outside the embedding table of {vocab} rows",
                batch.max_id()
            )));
        }
        let ids: Vec<i64> = batch.ids().iter().map(|&i| i64::from(i)).collect();
        let n = ids.len();
        Ok(Tensor::from_data(TensorData::new(ids, [n]), device))
    }

    /// Rows of the table.
    #[must_use]
    pub fn vocab(&self) -> usize {
        self.weight.dims()[0]
    }

    /// Columns of the table.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.weight.dims()[1]
    }

    /// Replace the table by `table` (`[vocab, dim]` row-major, e.g. from
    /// [`crate::pretrained`]); `name` names it in the error.
    ///
    /// # Errors
    /// [`Error::Config`] when `table` has another size.
    pub fn set_table(&mut self, table: Vec<f32>, name: &str) -> Result<()> {
        let (rows, dim) = (self.vocab(), self.dim());
        if table.len() != rows * dim {
            return Err(Error::Config(format!(
                "a {name} embedding table of {} values for {rows} × {dim}",
                table.len()
            )));
        }
        let device = self.weight.device();
        self.weight = Param::from_tensor(crate::init::float2(table, [rows, dim], &device));
        Ok(())
    }

    /// Look up the packed tokens of a batch: `[tokens, dim]`.
    ///
    /// # Errors
    /// [`Error::Input`] when an id is outside the table.
    pub fn lookup(&self, batch: &PackedBatch) -> Result<Tensor<2>> {
        let ids = self.ids(batch, &self.weight.device())?;
        Ok(self.weight.val().select(0, ids))
    }

    /// [`Embedding::lookup`] of a fixed table: the rows as constants, on the inner
    /// (non-autodiff) device when the table is on an autodiff one, so that no gradient ever
    /// reaches the table.
    ///
    /// # Errors
    /// As [`Embedding::lookup`].
    pub fn lookup_constant(&self, batch: &PackedBatch) -> Result<Tensor<2>> {
        let table = self.weight.val().inner();
        let ids = self.ids(batch, &table.device())?;
        Ok(table.select(0, ids))
    }
}

impl Embedding {
    /// Training lookup with a deferred gradient: the rows of the packed tokens on the inner
    /// (non-autodiff) device, times a dropout mask drawn from `rng` (when given), and the
    /// stage that turns the gradient of those rows into the table's gradient.
    ///
    /// # Errors
    /// As [`Embedding::lookup`].
    pub fn lookup_deferred(
        &self,
        batch: &PackedBatch,
        p: f64,
        rng: Option<&mut Rng>,
    ) -> Result<(Tensor<2>, EmbeddingGrad)> {
        let table = self.weight.val().inner();
        let device = table.device();
        let ids = self.ids(batch, &device)?;
        let (vocab, n) = (self.vocab(), ids.dims()[0]);
        let mut x = table.select(0, ids.clone());
        let mask = match rng {
            Some(r) if p > 0.0 => {
                let m = Tensor::<2>::from_data(
                    TensorData::new(dropout_mask(n * self.dim(), p, r), [n, self.dim()]),
                    &device,
                );
                x = x * m.clone();
                Some(m)
            }
            _ => None,
        };
        Ok((
            x,
            EmbeddingGrad {
                id: self.weight.id,
                ids,
                mask,
                shape: [vocab, self.dim()],
            },
        ))
    }
}

/// The deferred gradient of an [`Embedding::lookup_deferred`].
#[derive(Debug)]
pub struct EmbeddingGrad {
    id: ParamId,
    ids: Tensor<1, Int>,
    mask: Option<Tensor<2>>,
    shape: [usize; 2],
}

impl EmbeddingGrad {
    /// The table's gradient from the gradient `gx` `[tokens, dim]` of the looked-up rows.
    #[must_use]
    pub fn finish(self, gx: Tensor<2>) -> ParamGrad {
        let gx = match self.mask {
            Some(m) => gx * m,
            None => gx,
        };
        let zeros = Tensor::<2>::zeros(self.shape, &gx.device());
        ParamGrad::Rank2(
            self.id,
            zeros.select_assign(0, self.ids, gx, IndexingUpdateOp::Add),
        )
    }
}

/// The weighted bag of words of a model whose sentence vector adds the mean of its input
/// embeddings: a weight per table row (IDF over the training text, zero for rows that did not
/// come from the initialising vectors, as the bag-of-words encoder skips unknown tokens) and
/// the projection `P` `[d_states, emb_dim]` of the recurrent summary added to the bag,
/// starting at zero. Only `P` is trained; the row weights are data.
#[derive(Module, Debug)]
pub struct Bag {
    /// Weight of each embedding-table row.
    pub weight: Param<Tensor<1>>,
    /// `P`, the projection of the pooled recurrent states.
    pub proj: Param<Tensor<2>>,
    /// `W` `[emb_dim, emb_dim]`, a trained linear map of the bag itself (see
    /// [`Bag::with_map`]); `None`: the bag as it is.
    pub map: Option<Param<Tensor<2>>>,
    /// A trained hidden layer of the bag added to it (see [`Bag::with_hidden`]).
    pub hidden: Option<BagHidden>,
}

/// The hidden layer of a bag: `relu(bag·U + c)·V + d`, added to the (mapped) bag, so that
/// the bag's contribution to the sentence vector is a small network of it (a deep averaging
/// network's first layer) rather than a linear map only.
#[derive(Module, Debug)]
pub struct BagHidden {
    /// `U` `[emb_dim, hidden]` and `c`.
    pub up: Dense,
    /// `V` `[hidden, emb_dim]` and `d`, starting at zero.
    pub down: Dense,
}

impl Bag {
    /// Weights 1 for `rows` table rows, `P` `[d_states, emb_dim]` zero.
    pub fn new(rows: usize, d_states: usize, emb_dim: usize, device: &Device) -> Self {
        Self {
            weight: Param::from_tensor(Tensor::ones([rows], device)),
            proj: Param::from_tensor(Tensor::zeros([d_states, emb_dim], device)),
            map: None,
            hidden: None,
        }
    }

    /// The same bag with a trained hidden layer of `hidden` units added to it (see
    /// [`BagHidden`]): `U` drawn from `rng` (unit scaling), `V` zero, so the untrained network
    /// is unchanged.
    #[must_use]
    pub fn with_hidden(mut self, hidden: usize, rng: &mut Rng) -> Self {
        let d = self.proj.dims()[1];
        let device = self.proj.device();
        self.hidden = Some(BagHidden {
            up: Dense::new(d, hidden, rng, &device),
            down: Dense::zeros(hidden, d, &device),
        });
        self
    }

    /// The same bag with a trained linear map `W` of it, starting at the identity (so the
    /// untrained network is still the bag of words): `bag(x)·W + P·pool(h)`.
    #[must_use]
    pub fn with_map(mut self) -> Self {
        let d = self.proj.dims()[1];
        let mut eye = vec![0f32; d * d];
        for i in 0..d {
            eye[i * d + i] = 1.0;
        }
        let device = self.proj.device();
        self.map = Some(Param::from_tensor(Tensor::from_data(
            TensorData::new(eye, [d, d]),
            &device,
        )));
        self
    }

    /// `bag` through the map `W` when the bag has one, plus its hidden layer when it has
    /// one.
    #[must_use]
    pub fn mapped(&self, bag: Tensor<2>) -> Tensor<2> {
        let hidden = self
            .hidden
            .as_ref()
            .map(|h| h.down.forward(relu(h.up.forward(bag.clone()))));
        let mapped = match &self.map {
            Some(w) => bag.matmul(w.val()),
            None => bag,
        };
        match hidden {
            Some(h) => mapped + h,
            None => mapped,
        }
    }

    /// Replace the row weights (finite, ≥ 0, one per table row).
    ///
    /// # Errors
    /// [`Error::Config`] for another length or a negative or non-finite weight.
    pub fn set_weights(&mut self, weights: Vec<f32>) -> Result<()> {
        let rows = self.weight.dims()[0];
        if weights.len() != rows {
            return Err(Error::Config(format!(
                "{} bag-of-words weights for an embedding table of {rows} rows",
                weights.len()
            )));
        }
        if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(Error::Config(format!(
                "bag-of-words weight {} of row {i} is not a finite number ≥ 0",
                weights[i]
            )));
        }
        let device = self.weight.device();
        self.weight =
            Param::from_tensor(Tensor::from_data(TensorData::new(weights, [rows]), &device));
        Ok(())
    }

    /// The bag of each sentence of a packed batch, in packed row order: `Σ_t w(id_t)·x_t /
    /// Σ_t w(id_t)` over its tokens (zero when all its weights are zero), from the looked-up
    /// rows `x` `[tokens, emb_dim]` (on `x`'s device, the weights detached). Also returns what
    /// [`BagCoefficients::input_grad`] needs to turn the bag's gradient into the gradient of `x`.
    #[must_use]
    pub fn pool(&self, x: Tensor<2>, batch: &PackedBatch) -> (Tensor<2>, BagCoefficients) {
        let device = x.device();
        let [n_tok, dim] = x.dims();
        let rows: Vec<i64> = batch
            .batch_sizes()
            .iter()
            .flat_map(|&n| 0..n as i64)
            .collect();
        let ids: Vec<i64> = batch.ids().iter().map(|&i| i64::from(i)).collect();
        // The weights are constants: computed without autodiff, whatever `x`'s device.
        let table = self.weight.val().inner();
        let inner = table.device();
        let int =
            |v: Vec<i64>, d: &Device| Tensor::<1, Int>::from_data(TensorData::new(v, [n_tok]), d);
        let rows_inner = int(rows.clone(), &inner);
        let w = table.select(0, int(ids, &inner));
        let b = batch.len();
        let total = Tensor::<1>::zeros([b], &inner).select_assign(
            0,
            rows_inner.clone(),
            w.clone(),
            IndexingUpdateOp::Add,
        );
        let coef = (w / total.select(0, rows_inner.clone()).clamp_min(1e-12)).reshape([n_tok, 1]);
        let bag = Tensor::<2>::zeros([b, dim], &device).select_assign(
            0,
            int(rows, &device),
            x * coef.clone(),
            IndexingUpdateOp::Add,
        );
        (
            bag,
            BagCoefficients {
                rows: rows_inner,
                coef,
            },
        )
    }
}

/// Replace the row weights of a model's source and target bags (see [`Bag::set_weights`]).
///
/// # Errors
/// [`Error::Config`] when the model (named `model`) has no bags, or for bad weights.
pub fn set_side_weights(
    src: Option<&mut Bag>,
    tgt: Option<&mut Bag>,
    (ws, wt): (Vec<f32>, Vec<f32>),
    model: &str,
) -> Result<()> {
    match (src, tgt) {
        (Some(a), Some(b)) => {
            a.set_weights(ws)?;
            b.set_weights(wt)
        }
        _ => Err(Error::Config(format!(
            "bag-of-words weights for {model} without a bag of words"
        ))),
    }
}

/// Each packed token's sentence row and weight in its bag (see [`Bag::pool`]), without
/// autodiff.
#[derive(Debug, Clone)]
pub struct BagCoefficients {
    rows: Tensor<1, Int>,
    coef: Tensor<2>,
}

impl BagCoefficients {
    /// The gradient of the looked-up rows `[tokens, emb_dim]` from the gradient of the bags
    /// `[sentences, emb_dim]` (packed order; tensors without autodiff).
    #[must_use]
    pub fn input_grad(&self, g_bag: Tensor<2>) -> Tensor<2> {
        g_bag.select(0, self.rows.clone()) * self.coef.clone()
    }
}

/// A dense layer `y = x·W + b`.
#[derive(Module, Debug)]
pub struct Dense {
    /// Weights `[d_in, d_out]`.
    pub weight: Param<Tensor<2>>,
    /// Bias `[d_out]`.
    pub bias: Param<Tensor<1>>,
}

impl Dense {
    /// Weights uniform in `±sqrt(3 / d_in)` (unit scaling), zero bias.
    pub fn new(d_in: usize, d_out: usize, rng: &mut Rng, device: &Device) -> Self {
        Self {
            weight: param2(rng, d_in, d_out, Init::UnitScaling, device),
            bias: param1(rng, d_out, Init::Zeros, device),
        }
    }

    /// All-zero weights and bias (a map that starts at nothing).
    pub fn zeros(d_in: usize, d_out: usize, device: &Device) -> Self {
        Self {
            weight: Param::from_tensor(Tensor::zeros([d_in, d_out], device)),
            bias: Param::from_tensor(Tensor::zeros([d_out], device)),
        }
    }

    /// Apply to `[B, d_in]`.
    #[must_use]
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        x.matmul(self.weight.val()) + self.bias.val().unsqueeze::<2>()
    }
}

/// Inverted dropout with a host-drawn mask: each value is zeroed with probability `p` and the
/// rest scaled by `1 / (1 − p)`. `p = 0` or no generator returns `x` unchanged.
#[must_use]
pub fn dropout(x: Tensor<2>, p: f64, rng: Option<&mut Rng>) -> Tensor<2> {
    let Some(rng) = rng else { return x };
    if p <= 0.0 {
        return x;
    }
    let [r, c] = x.dims();
    let mask = dropout_mask(r * c, p, rng);
    let device = x.device();
    x * Tensor::<2>::from_data(TensorData::new(mask, [r, c]), &device)
}

/// `n` values of an inverted-dropout mask: 0 with probability `p`, else `1 / (1 − p)`.
fn dropout_mask(n: usize, p: f64, rng: &mut Rng) -> Vec<f32> {
    let keep = 1.0 / (1.0 - p) as f32;
    // 16-bit uniforms, four per draw: plenty of resolution for a dropout rate.
    let cut = (p * 65536.0).round() as u64;
    let mut mask = Vec::with_capacity(n);
    while mask.len() < n {
        let mut bits = rng.next_u64();
        for _ in 0..4 {
            if mask.len() == n {
                break;
            }
            mask.push(if bits & 0xFFFF < cut { 0.0 } else { keep });
            bits >>= 16;
        }
    }
    mask
}

/// Mean binary cross-entropy of `logits` `[B]` against 0/1 `labels`, computed stably as
/// `max(x, 0) − x·y + log(1 + exp(−|x|))`.
#[must_use]
pub fn bce_with_logits(logits: Tensor<1>, labels: &[f32]) -> Tensor<1> {
    let device = logits.device();
    let y = Tensor::<1>::from_data(TensorData::new(labels.to_vec(), [labels.len()]), &device);
    let relu = logits.clone().clamp_min(0.0);
    let soft = logits.clone().abs().neg().exp().log1p();
    (relu - logits * y + soft).mean()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::to_host1;

    #[test]
    fn bce_matches_hand_values() {
        let d = Device::flex();
        let x = Tensor::<1>::from_data(TensorData::new(vec![0.0f32, 2.0, -3.0], [3]), &d);
        let l = to_host1(bce_with_logits(x, &[1.0, 0.0, 0.0]))
            .unwrap()
            .remove(0);
        // −log σ(0) = ln 2; −log(1 − σ(2)) = 2 + ln(1 + e^−2); −log(1 − σ(−3)) = ln(1 + e^−3).
        let want =
            (2f64.ln() + 2.0 + (1.0 + (-2f64).exp()).ln() + (1.0 + (-3f64).exp()).ln()) / 3.0;
        assert!((f64::from(l) - want).abs() < 1e-6, "{l} {want}");
    }

    #[test]
    fn dropout_rate_and_scale() {
        let d = Device::flex();
        let x = Tensor::<2>::ones([100, 100], &d);
        let y = crate::init::to_host2(dropout(x, 0.25, Some(&mut Rng::seed(5))))
            .unwrap()
            .0;
        let zeros = y.iter().filter(|&&v| v == 0.0).count();
        assert!((2200..2800).contains(&zeros), "{zeros}");
        assert!(y.iter().all(|&v| v == 0.0 || (v - 1.0 / 0.75).abs() < 1e-6));
    }

    #[test]
    fn a_bag_hidden_layer_starts_at_nothing_and_adds_relu_of_the_bag() {
        let d = Device::flex();
        let mut rng = Rng::seed(3);
        let bag = Bag::new(5, 2, 3, &d).with_map().with_hidden(4, &mut rng);
        let x = Tensor::<2>::from_data(
            TensorData::new(vec![1.0f32, -2.0, 0.5, 0.0, 3.0, -1.0], [2, 3]),
            &d,
        );
        let host = |t: Tensor<2>| t.into_data().try_to_vec::<f32>().unwrap();
        // V is zero and W the identity: the bag itself.
        assert_eq!(host(bag.mapped(x.clone())), host(x.clone()));
        // With V set, the layer adds relu(x·U + c)·V + d.
        let mut bag = bag;
        let h = bag.hidden.as_mut().unwrap();
        h.down.weight = Param::from_tensor(Tensor::ones([4, 3], &d));
        let u = host(h.up.weight.val());
        let xs = host(x.clone());
        let got = host(bag.mapped(x));
        for r in 0..2 {
            let hidden: f32 = (0..4)
                .map(|k| {
                    (0..3)
                        .map(|j| xs[r * 3 + j] * u[j * 4 + k])
                        .sum::<f32>()
                        .max(0.0)
                })
                .sum();
            for j in 0..3 {
                let want = xs[r * 3 + j] + hidden;
                assert!((got[r * 3 + j] - want).abs() < 1e-5, "{got:?}");
            }
        }
    }
}
