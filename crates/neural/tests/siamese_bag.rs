//! The siamese network's bag of words and max pooling (`SiameseConfig::bag`, `pooling`) and its
//! ranking objective: the untrained network with a bag is exactly the IDF-weighted bag of its
//! input vectors, the deferred gradients equal burn's own, the ranking loss equals its
//! definition computed on the host, and ranking training learns to retrieve translations.

mod common;

use bitext_core::Rng;
use bitext_encode::Side;
use bitext_neural::batch::Bucketing;
use bitext_neural::rnn::CellKind;
use bitext_neural::siamese::{Objective, Pooling, Siamese, SiameseConfig, SiameseTask};
use bitext_neural::train::backward;
use burn::module::Param;
use burn::tensor::{Device, Tensor, TensorData};
use common::{
    cpu, grad_norms, host2, params, siamese_plain_and_deferred_grads, tiny_siamese, toy_pairs,
};

/// The common tiny network (GRU) with `pooling` and a bag of words.
fn tiny(pooling: Pooling, shared: bool) -> SiameseConfig {
    SiameseConfig {
        pooling,
        ..tiny_siamese(CellKind::Gru, shared)
    }
    .with_encoder(|e| e.bag = true)
}

/// Seeded bag weights: some rows weigh nothing (unknown to the vectors).
fn weights(rows: usize) -> Vec<f32> {
    common::bag_row_weights_every(rows, 11, 5)
}

/// A network whose projection `P` is drawn (it starts at zero), so the recurrent path counts.
fn with_drawn_projection(mut model: Siamese, seed: u64, device: &Device) -> Siamese {
    let bag = model.bag.as_mut().unwrap();
    let [r, c] = bag.proj.dims();
    let mut rng = Rng::seed(seed);
    let v: Vec<f32> = (0..r * c).map(|_| rng.uniform(-0.5, 0.5) as f32).collect();
    bag.proj = Param::from_tensor(Tensor::from_data(TensorData::new(v, [r, c]), device));
    model
}

#[test]
fn the_untrained_network_is_the_weighted_bag_of_its_input_vectors() {
    for (pooling, shared) in [(Pooling::Last, false), (Pooling::Max, true)] {
        let config = tiny(pooling, shared);
        let w = weights(config.table_rows());
        let model = Siamese::new(&config, 5, &cpu())
            .unwrap()
            .with_bag_weights(w.clone())
            .unwrap();
        assert_eq!(model.dim(), 8);
        let table = params(&model)[0].1.clone();
        // Sentence 2 holds only rows of weight 0 (ids 5 and 10 on the source side).
        let sents: [&[u32]; 4] = [&[1, 2, 3], &[4, 4, 7, 9, 11], &[5, 10], &[6]];
        for side in [Side::Source, Side::Target] {
            let offset = if shared || side == Side::Source {
                0
            } else {
                12
            };
            let got = host2(model.encode(&sents, side, None).unwrap());
            for (i, s) in sents.iter().enumerate() {
                let mut want = [0f64; 8];
                let total: f64 = s.iter().map(|&id| f64::from(w[id as usize + offset])).sum();
                for &id in *s {
                    let r = id as usize + offset;
                    for (k, o) in want.iter_mut().enumerate() {
                        *o += f64::from(w[r]) * f64::from(table[r * 8 + k]);
                    }
                }
                for (k, o) in want.iter().enumerate() {
                    let want = if total > 0.0 { o / total } else { 0.0 };
                    let g = f64::from(got[i * 8 + k]);
                    assert!(
                        (g - want).abs() < 1e-5,
                        "{pooling:?} {side:?} sentence {i} component {k}: {g} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn bag_weights_are_checked() {
    let model = Siamese::new(&tiny(Pooling::Last, true), 5, &cpu()).unwrap();
    assert!(model.with_bag_weights(vec![1.0; 3]).is_err());
    let model = Siamese::new(&tiny(Pooling::Last, true), 5, &cpu()).unwrap();
    let mut w = vec![1.0; 14];
    w[3] = f32::NAN;
    let e = model.with_bag_weights(w).unwrap_err().to_string();
    assert!(e.contains("row 3"), "{e}");
    let plain = tiny(Pooling::Last, true).with_encoder(|e| e.bag = false);
    let model = Siamese::new(&plain, 5, &cpu()).unwrap();
    assert!(model.with_bag_weights(vec![1.0; 14]).is_err());
}

#[test]
fn deferred_gradients_equal_plain_autodiff_with_a_bag() {
    for (pooling, shared) in [(Pooling::Max, false), (Pooling::Last, true)] {
        let config = common::with_dropout(tiny(pooling, shared));
        let device = cpu().autodiff();
        let model = Siamese::new(&config, 4, &device)
            .unwrap()
            .with_bag_weights(weights(config.table_rows()))
            .unwrap();
        let model = with_drawn_projection(model, 9, &device);
        let (a, b, _) = siamese_plain_and_deferred_grads(&model);
        let bag_weight = model.bag.as_ref().unwrap().weight.id;
        for ((x, y), (id, _)) in a.iter().zip(&b).zip(params(&model)) {
            if id == bag_weight {
                // The bag's row weights are data: no gradient on either path.
                assert!(
                    x.is_none() && y.is_none(),
                    "{pooling:?}: bag weights got a gradient"
                );
            }
        }
        // Every other parameter has a gradient on both paths, and they agree.
        let compared = common::assert_same_grads(&a, &b, &format!("{pooling:?}"));
        assert_eq!(
            compared,
            a.len() - 1,
            "{pooling:?}: parameters without a gradient"
        );
        // Every other parameter learns.
        for (k, (g, (id, _))) in b.iter().zip(params(&model)).enumerate() {
            let n = g
                .as_ref()
                .map(|g| g.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt());
            if id != bag_weight {
                assert!(
                    n.is_some_and(|n| n > 0.0 && n.is_finite()),
                    "{pooling:?}: parameter {k} got gradient {n:?}"
                );
            }
        }
    }
}

#[test]
fn a_frozen_table_gets_no_gradient_through_the_bag() {
    let config = tiny(Pooling::Max, true).with_encoder(|e| e.frozen_embeddings = true);
    let device = cpu().autodiff();
    let model = Siamese::new(&config, 4, &device).unwrap();
    let model = with_drawn_projection(model, 2, &device);
    let data = toy_pairs(5, 3);
    let src: Vec<&[u32]> = data.src.iter().map(Vec::as_slice).collect();
    let tgt: Vec<&[u32]> = data.tgt.iter().map(Vec::as_slice).collect();
    let loss = model.ranking_loss(&src, &tgt, 10.0, 0.1, 2, None).unwrap();
    let grads = backward(&model, loss).unwrap();
    let norms = grad_norms(&model, &grads);
    assert!(norms[0].is_none(), "the frozen table got {:?}", norms[0]);
    assert!(
        norms[1].is_some_and(|n| n > 0.0),
        "the encoder got no gradient"
    );
}

/// The ranking loss computed on the host from the vectors `encode` gives and the head's
/// probabilities.
fn ranking_by_hand(
    model: &Siamese,
    src: &[&[u32]],
    tgt: &[&[u32]],
    scale: f64,
    margin: f64,
    negatives: usize,
) -> f64 {
    let n = src.len();
    let d = model.dim();
    let a = host2(model.encode(src, Side::Source, None).unwrap());
    let b = host2(model.encode(tgt, Side::Target, None).unwrap());
    let same = |i: usize, j: usize| i != j && (src[i] == src[j] || tgt[i] == tgt[j]);
    let ranking = common::in_batch_ranking_by_hand(&a, &b, d, &same, scale, margin);
    let unit = |v: &[f32]| {
        let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        v.iter().map(|x| f64::from(*x) / norm).collect::<Vec<f64>>()
    };
    let (ua, ub): (Vec<Vec<f64>>, Vec<Vec<f64>>) = (
        (0..n).map(|i| unit(&a[i * d..(i + 1) * d])).collect(),
        (0..n).map(|i| unit(&b[i * d..(i + 1) * d])).collect(),
    );
    let cos = |i: usize, j: usize| ua[i].iter().zip(&ub[j]).map(|(x, y)| x * y).sum::<f64>();
    // The head: each pair and its most similar in-batch negatives.
    let mut head = Vec::new();
    for i in 0..n {
        head.push((i, i, 1.0));
        let mut others: Vec<usize> = (0..n).filter(|&j| j != i && !same(i, j)).collect();
        others.sort_by(|&x, &y| cos(i, y).total_cmp(&cos(i, x)).then(x.cmp(&y)));
        head.extend(others.iter().take(negatives).map(|&j| (i, j, 0.0)));
    }
    let rows = |v: &[f32], idx: Vec<usize>| {
        let data: Vec<f32> = idx
            .iter()
            .flat_map(|&i| v[i * d..(i + 1) * d].to_vec())
            .collect();
        Tensor::<2>::from_data(TensorData::new(data, [idx.len(), d]), &cpu())
    };
    let p = model.head_probability(
        rows(&a, head.iter().map(|h| h.0).collect()),
        rows(&b, head.iter().map(|h| h.1).collect()),
    );
    let p = p.into_data().try_into_vec::<f32>().unwrap();
    let bce: f64 = head
        .iter()
        .zip(&p)
        .map(|(h, &p)| {
            let p = f64::from(p);
            if h.2 > 0.5 { -p.ln() } else { -(1.0 - p).ln() }
        })
        .sum::<f64>()
        / head.len() as f64;
    ranking + bce
}

#[test]
fn the_ranking_loss_is_its_definition() {
    for (config, weights_on) in [
        (tiny(Pooling::Max, true), true),
        (
            tiny(Pooling::Last, false).with_encoder(|e| e.bag = false),
            false,
        ),
    ] {
        let mut model = Siamese::new(&config, 6, &cpu()).unwrap();
        if weights_on {
            model = with_drawn_projection(
                model
                    .with_bag_weights(weights(config.table_rows()))
                    .unwrap(),
                4,
                &cpu(),
            );
        }
        let data = toy_pairs(9, 5);
        let src: Vec<&[u32]> = data.src.iter().map(Vec::as_slice).collect();
        let mut tgt: Vec<&[u32]> = data.tgt.iter().map(Vec::as_slice).collect();
        // Two pairs share a target sentence: neither is the other's negative.
        tgt[7] = tgt[2];
        for (scale, margin, negatives) in [(1.0, 0.0, 0), (20.0, 0.3, 2), (5.0, 0.1, 8)] {
            let got = model
                .ranking_loss(&src, &tgt, scale, margin, negatives, None)
                .unwrap();
            let got = f64::from(got.value.into_data().try_into_vec::<f32>().unwrap()[0]);
            let want = ranking_by_hand(&model, &src, &tgt, scale, margin, negatives);
            assert!(
                (got - want).abs() < 1e-4 * want.abs().max(1.0),
                "scale {scale} margin {margin} negatives {negatives}: {got} vs {want}"
            );
        }
    }
}

#[test]
fn ranking_training_learns_to_retrieve_translations() {
    let data = toy_pairs(32, 7);
    let valid = toy_pairs(16, 8);
    let config = tiny(Pooling::Max, false);
    let batching = Bucketing {
        max_items: 16,
        max_tokens: 400,
    };
    let objective = Objective::Ranking {
        scale: 10.0,
        margin: 0.1,
    };
    let mut task = SiameseTask::new(config, data, Some(valid), 2, batching, 3)
        .unwrap()
        .with_objective(objective);
    // All rows weigh alike: the untrained network is the plain mean of the (random) vectors,
    // which cannot know the word mapping; the recurrent path has to learn it.
    let model = Siamese::new(&config, 42, &cpu().autodiff()).unwrap();
    let fitted = common::fit_clipped(&mut task, model, 25, 42);
    let h = &fitted.state.history;
    let p1 = |k: usize| {
        let m = &h[k].valid.as_ref().unwrap().metrics;
        (m["p@1 src→tgt"] + m["p@1 tgt→src"]) / 2.0
    };
    let best = p1(fitted.state.best_epoch - 1);
    assert!(best >= 0.9, "validation P@1 {best}");
    assert!(best > p1(0) + 0.2, "validation P@1 {} → {best}", p1(0));
    let (first, last) = (
        h[0].valid.as_ref().unwrap().loss,
        h.last().unwrap().valid.as_ref().unwrap().loss,
    );
    assert!(last < first, "validation loss {first} → {last}");
}
