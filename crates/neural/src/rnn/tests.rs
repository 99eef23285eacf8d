//! Tests of the bidirectional recurrence: the host path against the tensor-operation path.

use super::*;
use crate::batch::PackedBatch;
use crate::init::{float2, to_host2};

/// The host recurrence and the tensor-operation path (which every non-CPU device takes)
/// agree on final states and per-step outputs, with the input projections computed per
/// row or kept by id (a memo that holds them all, and one that fills up).
#[test]
fn host_and_tensor_paths_agree() {
    let device = Device::flex();
    let mut rng = Rng::seed(77);
    // Ids repeat within and across sentences; each input row is its id's row of a table.
    let seqs: Vec<Vec<u32>> = [5usize, 1, 9, 9, 3, 7]
        .iter()
        .enumerate()
        .map(|(s, &n)| (0..n as u32).map(|t| (t * 3 + s as u32) % 11).collect())
        .collect();
    let batch = PackedBatch::new(&seqs).unwrap();
    let tokens: usize = batch.batch_sizes().iter().sum();
    let d_in = 6;
    let table: Vec<f32> = (0..11 * d_in)
        .map(|_| rng.uniform(-2.0, 2.0) as f32)
        .collect();
    let xv: Vec<f32> = (batch.ids().iter())
        .flat_map(|&id| table[id as usize * d_in..(id as usize + 1) * d_in].to_vec())
        .collect();
    assert_eq!(xv.len(), tokens * d_in);
    for cell in [CellKind::Gru, CellKind::Lstm] {
        let rnn = BiRnnConfig {
            cell,
            d_input: d_in,
            d_hidden: 19,
        }
        .init(&mut rng, &device);
        let x = float2(xv.clone(), [tokens, d_in], &device);
        // The prepared recurrence serves a larger batch first: reused buffers must not leak
        // into the next one.
        let mut host = rnn.host().unwrap();
        let big: Vec<Vec<u32>> = (0..9).map(|i| (0..12 - i).collect()).collect();
        let big = PackedBatch::new(&big).unwrap();
        let n_big: usize = big.batch_sizes().iter().sum();
        let xb = float2(vec![0.5; n_big * d_in], [n_big, d_in], &device);
        assert!(host.forward(xb, None, big.batch_sizes(), true).is_some());
        let fast = host
            .forward(x.clone(), None, batch.batch_sizes(), true)
            .unwrap();
        let ids = Some(batch.ids());
        // The memo fills on the first pass and serves the second.
        let memo = host.forward(x.clone(), ids, batch.batch_sizes(), true);
        let again = host.forward(x.clone(), ids, batch.batch_sizes(), true);
        // A memo of 7 ids fills up: the later ids are computed for their group only.
        let mut small = rnn.host().unwrap();
        small.set_memo_floats(7 * rnn.fwd.gates() * 19);
        small.set_projection_floats(8 * rnn.fwd.gates() * 19);
        let capped = small.forward(x.clone(), ids, batch.batch_sizes(), true);
        let slow = rnn.forward_tensors(x.clone(), batch.batch_sizes(), true);
        let diff = |a: Tensor<2>, b: Tensor<2>| {
            let (a, da) = to_host2(a).unwrap();
            let (b, db) = to_host2(b).unwrap();
            assert_eq!(da, db);
            a.iter()
                .zip(&b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max)
        };
        // And with the input projection cut into groups of at most 8 rows (≥ 1 step).
        host.set_projection_floats(8 * rnn.fwd.gates() * 19);
        let grouped = host
            .forward(x.clone(), None, batch.batch_sizes(), true)
            .unwrap();
        let (memo, again, capped) = (memo.unwrap(), again.unwrap(), capped.unwrap());
        for fast in [fast, grouped, memo, again, capped] {
            let d = diff(fast.last.clone(), slow.last.clone());
            assert!(d < 1e-5, "{cell:?}: final states differ by {d}");
            assert_eq!(fast.steps.len(), slow.steps.len());
            for (t, (a, b)) in fast.steps.into_iter().zip(slow.steps.clone()).enumerate() {
                let d = diff(a, b);
                assert!(d < 1e-5, "{cell:?}: step {t} differs by {d}");
            }
        }
    }
}
