//! The recurrent layers against an independent host implementation (f64), and the padding
//! invariant: a sentence's vector is the same alone and inside any batch.

mod common;

use bitext_core::Rng;
use bitext_neural::batch::PackedBatch;
use bitext_neural::rnn::{BiRnn, BiRnnConfig, CellKind, RnnLayer};
use burn::tensor::{Tensor, TensorData};
use common::{cpu, host2, max_diff};

const D_IN: usize = 4;
const H: usize = 3;

fn sig(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

struct HostLayer {
    w_ih: Vec<f32>,
    w_hh: Vec<f32>,
    b_ih: Vec<f32>,
    b_hn: Option<Vec<f32>>,
}

fn host(layer: &RnnLayer) -> HostLayer {
    let v1 = |t: Tensor<1>| t.into_data().try_into_vec::<f32>().unwrap();
    HostLayer {
        w_ih: host2(layer.w_ih.val()),
        w_hh: host2(layer.w_hh.val()),
        b_ih: v1(layer.b_ih.val()),
        b_hn: layer.b_hn.as_ref().map(|b| v1(b.val())),
    }
}

/// `x·W` for a row vector and a row-major `[rows, cols]` matrix.
fn vecmat(x: &[f64], w: &[f32], cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; cols];
    for (i, xi) in x.iter().enumerate() {
        for (j, o) in out.iter_mut().enumerate() {
            *o += xi * f64::from(w[i * cols + j]);
        }
    }
    out
}

/// Run one direction over `xs` (in the order given); returns every step's state.
fn run_host(l: &HostLayer, lstm: bool, xs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let g = if lstm { 4 } else { 3 };
    let (mut h, mut c) = (vec![0.0; H], vec![0.0; H]);
    let mut out = Vec::new();
    for x in xs {
        let mut gi = vecmat(x, &l.w_ih, g * H);
        for (a, b) in gi.iter_mut().zip(&l.b_ih) {
            *a += f64::from(*b);
        }
        let gh = vecmat(&h, &l.w_hh, g * H);
        let mut hn = vec![0.0; H];
        for k in 0..H {
            if lstm {
                let i = sig(gi[k] + gh[k]);
                let f = sig(gi[H + k] + gh[H + k]);
                let o = sig(gi[2 * H + k] + gh[2 * H + k]);
                let cand = (gi[3 * H + k] + gh[3 * H + k]).tanh();
                c[k] = f * c[k] + i * cand;
                hn[k] = o * c[k].tanh();
            } else {
                let r = sig(gi[k] + gh[k]);
                let z = sig(gi[H + k] + gh[H + k]);
                let b = f64::from(l.b_hn.as_ref().unwrap()[k]);
                let n = (gi[2 * H + k] + r * (gh[2 * H + k] + b)).tanh();
                hn[k] = (1.0 - z) * n + z * h[k];
            }
        }
        h = hn;
        out.push(h.clone());
    }
    out
}

/// Random input vectors for each id, and a batch of sentences (id sequences).
fn setup(seed: u64) -> (Vec<Vec<f64>>, Vec<Vec<u32>>) {
    let mut rng = Rng::seed(seed);
    let table: Vec<Vec<f64>> = (0..20)
        .map(|_| (0..D_IN).map(|_| rng.uniform(-1.0, 1.0)).collect())
        .collect();
    let lens = [3, 7, 1, 5, 7, 2];
    let seqs = lens
        .iter()
        .map(|&l| (0..l).map(|_| rng.below(20) as u32).collect())
        .collect();
    (table, seqs)
}

fn packed_input(table: &[Vec<f64>], batch: &PackedBatch) -> Tensor<2> {
    let x: Vec<f32> = batch
        .ids()
        .iter()
        .flat_map(|&i| table[i as usize].iter().map(|&v| v as f32))
        .collect();
    Tensor::from_data(TensorData::new(x, [batch.tokens(), D_IN]), &cpu())
}

/// A bidirectional layer of `cell` (`D_IN` inputs, `H` states per direction) drawn from `seed`.
fn birnn(cell: CellKind, seed: u64, device: &burn::tensor::Device) -> BiRnn {
    BiRnnConfig {
        cell,
        d_input: D_IN,
        d_hidden: H,
    }
    .init(&mut Rng::seed(seed), device)
}

fn check_cell(cell: CellKind) {
    let (table, seqs) = setup(11);
    let rnn = birnn(cell, 5, &cpu());
    let (hf, hb) = (host(&rnn.fwd), host(&rnn.bwd));
    let lstm = cell == CellKind::Lstm;
    let batch = PackedBatch::new(&seqs).unwrap();
    let out = rnn.forward(packed_input(&table, &batch), batch.batch_sizes(), true);
    let last = host2(out.last.clone());
    let pooled = host2(out.max_pool());
    for (i, s) in seqs.iter().enumerate() {
        let xs: Vec<Vec<f64>> = s.iter().map(|&id| table[id as usize].clone()).collect();
        let fwd = run_host(&hf, lstm, &xs);
        let rev: Vec<Vec<f64>> = xs.iter().rev().cloned().collect();
        let mut bwd = run_host(&hb, lstm, &rev);
        bwd.reverse(); // bwd[t] is the backward state at token t
        let r = batch.position()[i];
        let mut want: Vec<f64> = fwd.last().unwrap().clone();
        want.extend(&bwd[0]);
        let got = &last[r * 2 * H..(r + 1) * 2 * H];
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (f64::from(*g) - w).abs() < 1e-5,
                "{cell:?} sentence {i}: {got:?} vs {want:?}"
            );
        }
        // Max over the sentence's own steps only.
        for k in 0..2 * H {
            let m = (0..s.len())
                .map(|t| if k < H { fwd[t][k] } else { bwd[t][k - H] })
                .fold(f64::NEG_INFINITY, f64::max);
            let g = f64::from(pooled[r * 2 * H + k]);
            assert!(
                (g - m).abs() < 1e-5,
                "{cell:?} max-pool sentence {i}: {g} vs {m}"
            );
        }
    }
}

#[test]
fn gru_matches_a_host_implementation_with_lengths() {
    check_cell(CellKind::Gru);
}

#[test]
fn lstm_matches_a_host_implementation_with_lengths() {
    check_cell(CellKind::Lstm);
}

#[test]
fn a_sentence_vector_is_the_same_alone_and_padded_in_a_batch() {
    let (table, seqs) = setup(23);
    let rnn = birnn(CellKind::Gru, 9, &cpu());
    let batch = PackedBatch::new(&seqs).unwrap();
    let all = host2(
        rnn.forward(packed_input(&table, &batch), batch.batch_sizes(), false)
            .last,
    );
    for (i, s) in seqs.iter().enumerate() {
        let alone = PackedBatch::new(std::slice::from_ref(s)).unwrap();
        let v = host2(
            rnn.forward(packed_input(&table, &alone), alone.batch_sizes(), false)
                .last,
        );
        let r = batch.position()[i];
        let d = max_diff(&v, &all[r * 2 * H..(r + 1) * 2 * H]);
        assert!(
            d < 1e-6,
            "sentence {i} (length {}): differs by {d}",
            s.len()
        );
    }
}

/// Without autodiff the layers take a faster path (one fused recurrent product per step, the
/// two directions on two threads); with autodiff, per-gate products in turn. Same values.
#[test]
fn inference_and_autodiff_paths_agree() {
    for cell in [CellKind::Gru, CellKind::Lstm] {
        let (table, seqs) = setup(31);
        let rnn = birnn(cell, 13, &cpu());
        let batch = PackedBatch::new(&seqs).unwrap();
        let x = packed_input(&table, &batch);
        assert!(!x.is_autodiff());
        let plain = rnn.forward(x.clone(), batch.batch_sizes(), true);
        let ad_device = cpu().autodiff();
        let ad_rnn = birnn(cell, 13, &ad_device);
        let x_ad = Tensor::<2>::from_data(x.into_data(), &ad_device);
        let tracked = ad_rnn.forward(x_ad, batch.batch_sizes(), true);
        assert!(tracked.last.is_autodiff());
        let d = max_diff(&host2(plain.last.clone()), &host2(tracked.last.clone()));
        assert!(d < 1e-6, "{cell:?}: last states differ by {d}");
        let d = max_diff(&host2(plain.max_pool()), &host2(tracked.max_pool()));
        assert!(d < 1e-6, "{cell:?}: pooled states differ by {d}");
    }
}
