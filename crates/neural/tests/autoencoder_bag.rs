//! The autoencoder's bag of words (`AutoencoderConfig::bag`) and auxiliary ranking loss
//! (`RankingTerm`): the untrained network's `s0` is the IDF-weighted bag of each encoder's own
//! input vectors, gradients reach every trained parameter through both losses, the ranking
//! loss equals its definition computed on the host, and the ranking term trains.

mod common;

use bitext_core::Rng;
use bitext_encode::Side;
use bitext_neural::autoencoder::{Autoencoder, AutoencoderConfig, AutoencoderTask, RankingTerm};
use bitext_neural::batch::Bucketing;
use bitext_neural::rnn::CellKind;
use bitext_neural::train::backward;
use common::{
    ae_toy_pairs, assert_weighted_bags, bag_row_weights, cpu, draw_bag_projections, grad_norms,
    host2, params, refs,
};

/// Embeddings 8 = 2 × 4 per direction, as a bag needs.
fn tiny() -> AutoencoderConfig {
    common::tiny_autoencoder(4, CellKind::Gru).with_encoder(|e| e.bag = true)
}

#[test]
fn the_untrained_s0_is_each_encoders_weighted_bag() {
    let config = tiny();
    let (ws, wt) = (bag_row_weights(12, 1), bag_row_weights(14, 2));
    let model = Autoencoder::new(&config, 5, &cpu())
        .unwrap()
        .with_bag_weights(ws.clone(), wt.clone())
        .unwrap();
    let p = params(&model);
    let sents: [&[u32]; 3] = [&[1, 2, 3], &[5, 7, 7, 9], &[4, 8]];
    assert_weighted_bags(
        |s, side| host2(model.encode(s, side).unwrap()),
        [(Side::Source, &p[0].1, &ws), (Side::Target, &p[1].1, &wt)],
        &sents,
        8,
    );
    // Sentence 2 of the source side has only zero-weight rows (4 and 8).
    let v = host2(model.encode(&[&[4, 8]], Side::Source).unwrap());
    assert!(v.iter().all(|&x| x == 0.0), "{v:?}");
    assert!(
        Autoencoder::new(&tiny().with_encoder(|e| e.bag = false), 5, &cpu())
            .unwrap()
            .with_bag_weights(ws, wt)
            .is_err()
    );
}

#[test]
fn gradients_reach_every_trained_parameter_through_both_losses() {
    let device = cpu().autodiff();
    let model = Autoencoder::new(&tiny(), 7, &device)
        .unwrap()
        .with_bag_weights(bag_row_weights(12, 1), bag_row_weights(14, 2))
        .unwrap();
    let mut model = model;
    draw_bag_projections([model.src_bag.as_mut(), model.tgt_bag.as_mut()], &device);
    let data = ae_toy_pairs(6, 4);
    let (src, tgt) = (refs(&data.src), refs(&data.tgt));
    let mut rng = Rng::seed(9);
    let mut loss = model.loss(&src, &tgt, &tgt, Some(&mut rng)).unwrap().loss;
    let ranking = model
        .ranking_loss(&src, &tgt, 10.0, 0.1, Some(&mut rng))
        .unwrap();
    loss.value = loss.value + ranking.value;
    loss.deferred.extend(ranking.deferred);
    let grads = backward(&model, loss).unwrap();
    let bag_weights = [
        model.src_bag.as_ref().unwrap().weight.id,
        model.tgt_bag.as_ref().unwrap().weight.id,
    ];
    for (k, (n, (id, _))) in grad_norms(&model, &grads)
        .iter()
        .zip(params(&model))
        .enumerate()
    {
        if bag_weights.contains(&id) {
            assert!(n.is_none(), "bag weights {k} got a gradient");
        } else {
            assert!(
                n.is_some_and(|n| n > 0.0 && n.is_finite()),
                "parameter {k} got gradient {n:?}"
            );
        }
    }
}

#[test]
fn the_ranking_loss_is_its_definition() {
    let mut model = Autoencoder::new(&tiny(), 8, &cpu())
        .unwrap()
        .with_bag_weights(bag_row_weights(12, 1), bag_row_weights(14, 2))
        .unwrap();
    draw_bag_projections([model.src_bag.as_mut(), model.tgt_bag.as_mut()], &cpu());
    let data = ae_toy_pairs(7, 5);
    let (src, mut tgt) = (refs(&data.src), refs(&data.tgt));
    tgt[5] = tgt[1];
    let (scale, margin) = (12.0, 0.25);
    let got = model.ranking_loss(&src, &tgt, scale, margin, None).unwrap();
    let got = f64::from(got.value.into_data().try_into_vec::<f32>().unwrap()[0]);
    let a = host2(model.encode(&src, Side::Source).unwrap());
    let b = host2(model.encode(&tgt, Side::Target).unwrap());
    let n = src.len();
    let unit = |v: &[f32]| {
        let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        v.iter().map(|x| f64::from(*x) / norm).collect::<Vec<f64>>()
    };
    let (ua, ub): (Vec<Vec<f64>>, Vec<Vec<f64>>) = (
        (0..n).map(|i| unit(&a[i * 8..(i + 1) * 8])).collect(),
        (0..n).map(|i| unit(&b[i * 8..(i + 1) * 8])).collect(),
    );
    let logit = |i: usize, j: usize| {
        let c: f64 = ua[i].iter().zip(&ub[j]).map(|(x, y)| x * y).sum();
        scale * (c - if i == j { margin } else { 0.0 })
    };
    let same = |i: usize, j: usize| i != j && (src[i] == src[j] || tgt[i] == tgt[j]);
    let mut want = 0.0;
    for i in 0..n {
        let keep: Vec<usize> = (0..n).filter(|&j| !same(i, j)).collect();
        let row: f64 = keep.iter().map(|&j| logit(i, j).exp()).sum::<f64>().ln();
        let col: f64 = keep.iter().map(|&j| logit(j, i).exp()).sum::<f64>().ln();
        want += row + col - 2.0 * logit(i, i);
    }
    want /= 2.0 * n as f64;
    assert!((got - want).abs() < 1e-4 * want.max(1.0), "{got} vs {want}");
}

#[test]
fn the_ranking_term_trains_and_is_reported() {
    // On the batch's own pairs, and topped up with random training pairs.
    for pairs in [0, 20] {
        let config = tiny();
        let batching = Bucketing {
            max_items: 12,
            max_tokens: 400,
        };
        let ranking = RankingTerm {
            weight: 1.0,
            scale: 10.0,
            margin: 0.1,
            pairs,
        };
        let mut task = AutoencoderTask::new(
            config,
            ae_toy_pairs(24, 1),
            Vec::new(),
            Some(ae_toy_pairs(12, 2)),
            batching,
        )
        .unwrap()
        .with_ranking(Some(ranking));
        let model = Autoencoder::new(&config, 42, &cpu().autodiff()).unwrap();
        let fitted = common::fit_clipped(&mut task, model, 12, 42);
        let h = &fitted.state.history;
        let r = |k: usize| h[k].valid.as_ref().unwrap().metrics["ranking_loss"];
        let best = fitted.state.best_epoch - 1;
        assert!(
            r(best) < 0.8 * r(0),
            "{pairs} pairs: validation ranking loss {} → {}",
            r(0),
            r(best)
        );
    }
}
