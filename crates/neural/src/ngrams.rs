//! N-gram convolutions over a packed batch, max-pooled per sentence: the phrase detectors of
//! a CNN sentence encoder (as in the USE-M teacher's `CNN_layers/ngram_order_{2,3,5}`), added
//! beside a network's recurrence so that a student can read fixed phrases ("tout le monde")
//! the way a CNN teacher does.
//!
//! The packed layout (time-major, sentences longest first, see [`PackedBatch`]) is kept: the
//! window of order `k` at position `t` of a sentence gathers its positions `t, t−1, …, t−k+1`
//! (a zero row before the first token), so a convolution is `k` row gathers, one
//! concatenation and one matrix product, with no padding on the way. Only the pooling pads.
//!
//! Inference on the CPU takes another road (`Ngrams::host`): the window's product is the sum
//! of its positions' products with the filters' blocks, `[p_t; …; p_{t−k+1}]·W_k = Σ_j
//! p_{t−j}·W_k[j]`, and each `p·W_k[j]` is a function of the position's id. So each id's
//! projection and its products with every order's blocks (`Σ_k k·channels` values) are
//! computed once and kept (the crate's `IdMemo`), and a window costs `k` additions of rows:
//! no product and no gathered windows per token.

use bitext_core::Rng;
use burn::module::Module;
use burn::tensor::activation::relu;
use burn::tensor::{Device, IndexingUpdateOp, Tensor};
use gemm::Parallelism;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::batch::PackedBatch;
use crate::encoding::distinct;
use crate::error::{Error, Result};
use crate::host::{IdMemo, matmul};
use crate::init::{float2, int1, to_host1, to_host2};
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

impl Ngrams {
    /// `pooled` `[sentences, w]` with the n-gram features of the packed inputs `x` of `batch`
    /// beside it, `[sentences, w + orders·channels]`. With `deferred` (training on an autodiff
    /// device) `x` is a constant of the inner device: the table it comes from is fixed. `host`,
    /// when given, runs the convolutions by id on the host (inference: `by_id` and not
    /// `deferred`).
    pub(crate) fn beside(
        &self,
        pooled: Tensor<2>,
        x: Tensor<2>,
        batch: &PackedBatch,
        (by_id, deferred): (bool, bool),
        host: Option<&mut HostNgrams>,
    ) -> Tensor<2> {
        let x = if deferred { Tensor::from_inner(x) } else { x };
        let on_host = match host {
            Some(h) if by_id && !deferred => h.forward(x.clone(), batch),
            _ => None,
        };
        let features = on_host.unwrap_or_else(|| self.forward(x, batch, by_id));
        Tensor::cat(vec![pooled, features], 1)
    }
}

/// Check an encoder's n-gram settings: `orders` and `channels` both given or both left out,
/// and convolutions only with a bag of words (`bag`, whose projection starts at zero) over a
/// fixed table (`fixed`; `fixed_by` names the settings that make one).
///
/// # Errors
/// [`Error::Config`] naming the missing setting.
pub(crate) fn check_config(
    orders: NgramOrders,
    channels: usize,
    bag: bool,
    (fixed, fixed_by): (bool, &str),
) -> Result<()> {
    let missing = match (orders.is_empty(), channels) {
        (true, 0) => return Ok(()),
        (true, _) => "n-gram channels (ngram_channels) without n-gram orders (ngrams)".into(),
        (false, 0) => "n-gram convolutions (ngrams) need ngram_channels of at least 1".into(),
        (false, _) if !bag => "n-gram convolutions (ngrams) need the bag (bag)".into(),
        (false, _) if !fixed => format!(
            "n-gram convolutions (ngrams) need a fixed table to read ({fixed_by}): the table \
             gets no gradient through them"
        ),
        _ => return Ok(()),
    };
    Err(Error::Config(missing))
}

/// The parts of an encoder prepared for inference on the host (the CPU), reused by every
/// batch of one encoding run: the recurrence ([`crate::rnn::BiRnn::host`]) and the n-gram
/// convolutions ([`Ngrams::host`]); each `None` where it runs as tensor operations.
#[derive(Debug, Default)]
pub(crate) struct HostEncoder {
    /// The recurrence.
    pub(crate) rnn: Option<crate::rnn::HostBiRnn>,
    /// The convolutions.
    pub(crate) ngrams: Option<HostNgrams>,
}

impl HostEncoder {
    /// The host parts of `rnn` and `ngrams`.
    pub(crate) fn new(rnn: &crate::rnn::BiRnn, ngrams: Option<&Ngrams>) -> Self {
        Self {
            rnn: rnn.host(),
            ngrams: ngrams.and_then(Ngrams::host),
        }
    }
}

impl Ngrams {
    /// The convolutions prepared for inference on the host, when they live on the Flex CPU
    /// device without autodiff (`None` otherwise, or when a weight cannot be read back):
    /// reuse it for the batches of one encoding run over one embedding table.
    pub(crate) fn host(&self) -> Option<HostNgrams> {
        let device = self.input.weight.val().device();
        if !crate::host::on_host(&device) {
            return None;
        }
        let (a, [d, c]) = to_host2(self.input.weight.val()).ok()?;
        let a_bias = to_host1(self.input.bias.val()).ok()?;
        let mut orders = Vec::with_capacity(self.convs.len());
        let mut convs = Vec::with_capacity(self.convs.len());
        let mut biases = Vec::with_capacity(self.convs.len() * c);
        for conv in &self.convs {
            let (w, [rows, _]) = to_host2(conv.weight.val()).ok()?;
            biases.extend(to_host1(conv.bias.val()).ok()?);
            orders.push(rows / c);
            convs.push(w);
        }
        // Block (order k, shift j) of `blocks` `[c, Σ k·c]` is `W_k[j]`: the rows of `W_k`
        // that multiply the position `j` back.
        let width: usize = orders.iter().map(|k| k * c).sum();
        let mut blocks = vec![0.0; c * width];
        let mut base = 0;
        for (w, &k) in convs.iter().zip(&orders) {
            for j in 0..k {
                for q in 0..c {
                    let dst = q * width + base + j * c;
                    blocks[dst..dst + c].copy_from_slice(&w[(j * c + q) * c..(j * c + q + 1) * c]);
                }
            }
            base += k * c;
        }
        Some(HostNgrams {
            memo: IdMemo::new(width, NGRAM_MEMO_FLOATS),
            a,
            a_bias,
            blocks,
            biases,
            orders,
            d,
            c,
        })
    }
}

/// Most values in the memo of [`HostNgrams`] (128 MiB: 26,214 ids of orders 2, 3 and 5 with
/// 128 filters each).
const NGRAM_MEMO_FLOATS: usize = 1 << 25;

/// [`Ngrams`] prepared for inference on the host (see the module doc): the weights copied once,
/// each id's products kept for the following batches.
pub(crate) struct HostNgrams {
    /// `A` `[d, c]` and `a`.
    a: Vec<f32>,
    a_bias: Vec<f32>,
    /// Every order's filter blocks side by side, `[c, Σ k·c]`.
    blocks: Vec<f32>,
    /// `b_k` of every order, `[orders·c]`.
    biases: Vec<f32>,
    orders: Vec<usize>,
    d: usize,
    c: usize,
    /// `relu(x·A + a)·blocks` by id.
    memo: IdMemo,
}

impl std::fmt::Debug for HostNgrams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostNgrams")
            .field("orders", &self.orders)
            .field("channels", &self.c)
            .finish_non_exhaustive()
    }
}

impl HostNgrams {
    /// [`Ngrams::forward`] of the packed inputs `x` of `batch`, whose rows are functions of
    /// their ids in the table the memo was filled from (no dropout). `None` when `x` cannot be
    /// read back as `f32`.
    ///
    /// # Panics
    /// When `x` has another width than the convolutions' input.
    pub(crate) fn forward(&mut self, x: Tensor<2>, batch: &PackedBatch) -> Option<Tensor<2>> {
        let device = x.device();
        let (c, d) = (self.c, self.d);
        let width = self.blocks.len() / c.max(1);
        let ids = batch.ids();
        let threads = rayon::current_num_threads();
        let par = if threads > 1 {
            Parallelism::Rayon(threads)
        } else {
            Parallelism::None
        };
        let (a, a_bias, blocks) = (&self.a, &self.a_bias, &self.blocks);
        self.memo
            .fill(ids, |first, out| {
                if first.is_empty() {
                    return Ok(());
                }
                let (xs, [f, dx]) = to_host2(x.select(0, int1(first, &device)))?;
                assert_eq!(dx, d, "input of the wrong width");
                let mut p = Vec::with_capacity(f * c);
                for _ in 0..f {
                    p.extend_from_slice(a_bias);
                }
                matmul(&mut p, &xs, a, [f, d, c], true, par);
                for v in &mut p {
                    *v = v.max(0.0);
                }
                out.resize(f * width, 0.0);
                matmul(out, &p, blocks, [f, c, width], false, par);
                Ok::<_, Error>(())
            })
            .ok()?;
        let sizes = batch.batch_sizes();
        let offsets = crate::rnn::step_starts(sizes);
        let oc = self.orders.len() * c;
        let mut pooled = vec![0.0f32; batch.len() * oc];
        let (memo, orders, biases) = (&self.memo, &self.orders, &self.biases);
        // Every response is ≥ 0 after the relu, so the pools start at 0.
        pooled
            .par_chunks_mut(oc.max(1))
            .enumerate()
            .for_each(|(i, out)| {
                let len = sizes.iter().take_while(|&&m| m > i).count();
                let rows: Vec<&[f32]> = (0..len).map(|t| memo.row(ids[offsets[t] + i])).collect();
                let mut z = vec![0.0f32; c];
                let mut base = 0;
                for (o, &k) in orders.iter().enumerate() {
                    let (bias, pool) = (&biases[o * c..(o + 1) * c], &mut out[o * c..(o + 1) * c]);
                    for t in 0..len {
                        z.copy_from_slice(bias);
                        for j in 0..k.min(t + 1) {
                            let block = &rows[t - j][base + j * c..base + (j + 1) * c];
                            for (z, &v) in z.iter_mut().zip(block) {
                                *z += v;
                            }
                        }
                        for (m, &z) in pool.iter_mut().zip(&z) {
                            *m = m.max(z);
                        }
                    }
                    base += k * c;
                }
            });
        Some(float2(pooled, [batch.len(), oc], &device))
    }

    /// Cap the memo at `floats` values (tests: a memo that fills up).
    #[cfg(test)]
    fn set_memo_floats(&mut self, floats: usize) {
        self.memo.set_cap(floats);
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

    /// The host path gives the tensor path's features, batch after batch (ids repeating within
    /// and across sentences and batches), with a memo that keeps every id and one that fills.
    #[test]
    fn the_host_path_matches_the_tensor_path() {
        let device = Device::flex();
        let mut rng = Rng::seed(5);
        let (d, c) = (6, 4);
        let orders = NgramOrders::new(&[2, 3, 5]).unwrap();
        let net = Ngrams::new(d, orders, c, &mut rng, &device).unwrap();
        let row = |id: u32| -> Vec<f32> {
            (0..d)
                .map(|j| ((id as usize * 37 + j * 11) % 23) as f32 / 7.0 - 1.5)
                .collect()
        };
        let batches: [Vec<Vec<u32>>; 3] = [
            vec![
                vec![0, 1, 2, 1, 0, 3],
                vec![4, 1],
                vec![5, 6, 7, 1, 2, 3, 4],
            ],
            vec![vec![8, 1, 9], vec![0, 0, 0, 0, 0, 0]],
            vec![(10..20).collect(), vec![1], vec![19, 18]],
        ];
        // Orders 2, 3 and 5 keep 10·c values an id: a memo of 5 ids fills in the first batch.
        for cap in [None, Some(5 * 10 * c)] {
            let mut host = net.host().unwrap();
            if let Some(cap) = cap {
                host.set_memo_floats(cap);
            }
            for seqs in &batches {
                let batch = PackedBatch::new(seqs).unwrap();
                let flat: Vec<f32> = batch.ids().iter().flat_map(|&id| row(id)).collect();
                let x = float2(flat, [batch.tokens(), d], &device);
                let (want, dims) = to_host2(net.forward(x.clone(), &batch, false)).unwrap();
                let (got, got_dims) = to_host2(host.forward(x, &batch).unwrap()).unwrap();
                assert_eq!(got_dims, dims);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert!((g - w).abs() < 1e-5, "cap {cap:?}, value {i}: {g} vs {w}");
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
