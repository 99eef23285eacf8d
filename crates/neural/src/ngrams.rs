//! N-gram convolutions over a packed batch, max-pooled per sentence: the phrase detectors of
//! a CNN sentence encoder (as in the USE-M teacher's `CNN_layers/ngram_order_{2,3,5}`), added
//! beside a network's recurrence so that a student can read fixed phrases ("tout le monde")
//! the way a CNN teacher does.
//!
//! The packed layout (time-major, sentences longest first, see [`PackedBatch`]) is kept: the
//! window of order `k` at position `t` of a sentence gathers its positions `t, t−1, …, t−k+1`
//! (a zero row before the first token), so a convolution is `k` row gathers, one
//! concatenation and one matrix product, with no padding on the way. Only the pooling pads.

use bitext_core::Rng;
use burn::module::Module;
use burn::tensor::activation::relu;
use burn::tensor::{Device, IndexingUpdateOp, Tensor};
use serde::{Deserialize, Serialize};

use crate::batch::PackedBatch;
use crate::encoding::distinct;
use crate::error::{Error, Result};
use crate::init::int1;
use crate::layers::Dense;

/// `relu(x·A + a)` into `channels`, then per order `k` a convolution
/// `relu([p_t; p_{t−1}; …; p_{t−k+1}]·W_k + b_k)` of `channels` filters, max-pooled over each
/// sentence's positions; the orders' pools side by side, `[sentences, orders·channels]`.
#[derive(Module, Debug)]
pub struct Ngrams {
    /// `A` `[d_input, channels]` and `a`: the input projection.
    pub input: Dense,
    /// `W_k` `[k·channels, channels]` and `b_k`, one per order.
    pub convs: Vec<Dense>,
}

impl Ngrams {
    /// Convolutions of the given `orders` with `channels` filters over inputs of `d_input`,
    /// drawn from `rng` (unit scaling).
    ///
    /// # Errors
    /// [`Error::Config`] for no order or no channel.
    pub fn new(
        d_input: usize,
        orders: NgramOrders,
        channels: usize,
        rng: &mut Rng,
        device: &Device,
    ) -> Result<Self> {
        if orders.is_empty() {
            return Err(Error::Config("n-gram convolutions need an order".into()));
        }
        if channels == 0 {
            return Err(Error::Config(
                "n-gram convolutions need at least one channel".into(),
            ));
        }
        Ok(Self {
            input: Dense::new(d_input, channels, rng, device),
            convs: orders
                .orders()
                .into_iter()
                .map(|k| Dense::new(k * channels, channels, rng, device))
                .collect(),
        })
    }

    /// Width of the output: orders × channels.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.convs.len() * self.channels()
    }

    fn channels(&self) -> usize {
        self.input.weight.dims()[1]
    }

    /// The pooled n-gram features `[sentences, orders·channels]` of the packed inputs `x`
    /// `[tokens, d_input]` of `batch`, rows in packed sentence order (as the recurrence's
    /// pooled states). With `by_id` (inference: the rows of one id of `batch` are equal), the
    /// input projection is computed once per distinct id and its rows gathered.
    #[must_use]
    pub fn forward(&self, x: Tensor<2>, batch: &PackedBatch, by_id: bool) -> Tensor<2> {
        let device = x.device();
        let c = self.channels();
        let sizes = batch.batch_sizes();
        let (n, b, l) = (batch.tokens(), batch.len(), sizes.len());
        let offsets = crate::rnn::step_starts(sizes);
        let p = if by_id {
            let ids: Vec<&u32> = batch.ids().iter().collect();
            let (once, row) = distinct(&ids);
            // Distinct ids come in order of first appearance: the first row of the k-th is
            // where the running count of them reaches k.
            let mut first = Vec::with_capacity(once.len());
            for (i, &k) in row.iter().enumerate() {
                if k == first.len() {
                    first.push(i);
                }
            }
            let once = relu(self.input.forward(x.select(0, int1(&first, &device))));
            once.select(0, int1(&row, &device))
        } else {
            relu(self.input.forward(x))
        };
        // A zero row (index n) stands before every sentence's first token.
        let ext = Tensor::cat(vec![p.clone(), Tensor::zeros([1, c], &device)], 0);
        // Packed row (t, i) → padded row i·l + t, for the pooling.
        let padded: Vec<usize> = sizes
            .iter()
            .enumerate()
            .flat_map(|(t, &m)| (0..m).map(move |i| i * l + t))
            .collect();
        let padded = int1(&padded, &device);
        // The rows `j` positions back, gathered once for every order that reaches them.
        let orders: Vec<usize> = self
            .convs
            .iter()
            .map(|conv| conv.weight.dims()[0] / c)
            .collect();
        let longest = orders.iter().copied().max().unwrap_or(1);
        let mut shifted = vec![p];
        for j in 1..longest {
            let rows: Vec<usize> = sizes
                .iter()
                .enumerate()
                .flat_map(|(t, &m)| {
                    let back = t.checked_sub(j).map(|s| offsets[s]);
                    (0..m).map(move |i| back.map_or(n, |o| o + i))
                })
                .collect();
            shifted.push(ext.clone().select(0, int1(&rows, &device)));
        }
        let mut pools = Vec::with_capacity(self.convs.len());
        for (conv, &k) in self.convs.iter().zip(&orders) {
            let window = shifted[..k].to_vec();
            let h = relu(conv.forward(Tensor::cat(window, 1)));
            // Every value is ≥ 0 after the relu, so the zero padding never wins a maximum
            // over a sentence's own positions (each sentence has at least one).
            let grid = Tensor::<2>::zeros([b * l, c], &device).select_assign(
                0,
                padded.clone(),
                h,
                IndexingUpdateOp::Add,
            );
            pools.push(grid.reshape([b, l, c]).max_dim(1).reshape([b, c]));
        }
        Tensor::cat(pools, 1)
    }
}

/// The n-gram orders of a network's convolutions: each from 1 to [`NgramOrders::MAX`], each
/// once, in ascending order; none by default. Written as a list (`[2, 3, 5]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "Vec<usize>", into = "Vec<usize>")]
pub struct NgramOrders(u16);

impl NgramOrders {
    /// The largest order.
    pub const MAX: usize = 16;

    /// The set of `orders`.
    ///
    /// # Errors
    /// [`Error::Config`] for an order of 0 or above [`NgramOrders::MAX`], or one given twice.
    pub fn new(orders: &[usize]) -> Result<Self> {
        let mut bits = 0u16;
        for &k in orders {
            if k == 0 || k > Self::MAX {
                return Err(Error::Config(format!(
                    "n-gram order {k}: orders run from 1 to {}",
                    Self::MAX
                )));
            }
            let bit = 1u16 << (k - 1);
            if bits & bit != 0 {
                return Err(Error::Config(format!("n-gram order {k} is given twice")));
            }
            bits |= bit;
        }
        Ok(Self(bits))
    }

    /// The orders, ascending.
    #[must_use]
    pub fn orders(&self) -> Vec<usize> {
        (1..=Self::MAX)
            .filter(|k| self.0 & (1 << (k - 1)) != 0)
            .collect()
    }

    /// Whether there is no order (no convolutions).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }
}

impl TryFrom<Vec<usize>> for NgramOrders {
    type Error = Error;

    fn try_from(orders: Vec<usize>) -> Result<Self> {
        Self::new(&orders)
    }
}

impl From<NgramOrders> for Vec<usize> {
    fn from(o: NgramOrders) -> Self {
        o.orders()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::to_host2;

    /// Each sentence's pooled features equal a direct computation on its own tokens: every
    /// window of order k ending at each position (zeros before the start), the filters, the
    /// relu and the maximum over positions; whatever the other sentences of the batch, and
    /// with the input projection computed per row or once per id.
    #[test]
    fn pools_match_a_direct_computation_per_sentence() {
        let device = Device::flex();
        let mut rng = Rng::seed(3);
        let (d, c) = (5, 4);
        let orders = NgramOrders::new(&[3, 1, 2]).unwrap();
        let net = Ngrams::new(d, orders, c, &mut rng, &device).unwrap();
        let seqs: Vec<Vec<u32>> = vec![vec![0, 1], vec![2, 3, 4, 5, 6], vec![7], vec![8, 9, 0]];
        let batch = PackedBatch::new(&seqs).unwrap();
        // A vector per id, laid out in packed order.
        let vec_of = |id: u32| -> Vec<f32> {
            (0..d)
                .map(|j| ((id as usize * 7 + j * 3) % 11) as f32 / 5.0 - 1.0)
                .collect()
        };
        let flat: Vec<f32> = batch.ids().iter().flat_map(|&id| vec_of(id)).collect();
        let x = Tensor::<2>::from_data(
            burn::tensor::TensorData::new(flat, [batch.tokens(), d]),
            &device,
        );
        // Per row, and with the input projection once per id (id 0 appears twice).
        let (got, [_, cols]) = to_host2(net.forward(x.clone(), &batch, false)).unwrap();
        let (by_id, _) = to_host2(net.forward(x, &batch, true)).unwrap();
        assert_eq!(cols, 3 * c);
        assert!(
            (got.iter().zip(&by_id)).all(|(a, b)| (a - b).abs() < 1e-6),
            "by id: {by_id:?} against {got:?}"
        );
        let (a, _) = to_host2(net.input.weight.val()).unwrap();
        let (ab, _) = to_host2(net.input.bias.val().unsqueeze::<2>()).unwrap();
        for (row, &s) in batch.order().iter().enumerate() {
            let proj: Vec<Vec<f32>> = seqs[s]
                .iter()
                .map(|&id| {
                    let v = vec_of(id);
                    (0..c)
                        .map(|o| {
                            (ab[o] + (0..d).map(|j| v[j] * a[j * c + o]).sum::<f32>()).max(0.0)
                        })
                        .collect()
                })
                .collect();
            for (g, conv) in net.convs.iter().enumerate() {
                let k = g + 1;
                let (w, _) = to_host2(conv.weight.val()).unwrap();
                let (bias, _) = to_host2(conv.bias.val().unsqueeze::<2>()).unwrap();
                for o in 0..c {
                    let mut best = f32::MIN;
                    for t in 0..proj.len() {
                        let mut z = bias[o];
                        for j in 0..k {
                            if let Some(src) = t.checked_sub(j) {
                                z += (0..c)
                                    .map(|q| proj[src][q] * w[(j * c + q) * c + o])
                                    .sum::<f32>();
                            }
                        }
                        best = best.max(z.max(0.0));
                    }
                    let v = got[row * cols + g * c + o];
                    assert!(
                        (v - best).abs() < 1e-4,
                        "sentence {s} order {k} filter {o}: {v} vs {best}"
                    );
                }
            }
        }
    }

    #[test]
    fn bad_orders_and_channels_are_refused() {
        for (orders, want) in [
            (&[2, 0][..], "order 0"),
            (&[17][..], "order 17"),
            (&[2, 3, 2][..], "order 2 is given twice"),
        ] {
            let e = NgramOrders::new(orders).unwrap_err().to_string();
            assert!(e.contains(want), "{orders:?}: {e}");
        }
        let (device, mut rng) = (Device::flex(), Rng::seed(1));
        let none = Ngrams::new(4, NgramOrders::default(), 4, &mut rng, &device);
        assert!(none.unwrap_err().to_string().contains("an order"));
        let two = NgramOrders::new(&[2]).unwrap();
        let e = Ngrams::new(4, two, 0, &mut rng, &device).unwrap_err();
        assert!(e.to_string().contains("channel"), "{e}");
        // Written as a list, read back the same; a bad list is refused when read.
        let o = NgramOrders::new(&[5, 2, 3]).unwrap();
        assert_eq!(o.orders(), [2, 3, 5]);
        let j = serde_json::to_string(&o).unwrap();
        assert_eq!(j, "[2,3,5]");
        assert_eq!(serde_json::from_str::<NgramOrders>(&j).unwrap(), o);
        let e = serde_json::from_str::<NgramOrders>("[0]")
            .unwrap_err()
            .to_string();
        assert!(e.contains("order 0"), "{e}");
    }
}
