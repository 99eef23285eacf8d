//! The MLP similarity: gradients, training on a separable task, loading, and its PairScorer.

mod common;

use bitext_core::{Embeddings, Rng};
use bitext_neural::backend::BackendSpec;
use bitext_neural::layers::bce_with_logits;
use bitext_neural::mlp::{
    Mlp, MlpConfig, MlpDescription, MlpScorer, MlpTask, PairSet, load_mlp, random_negatives,
};
use bitext_neural::train::{TrainConfig, fit};
use bitext_similarity::PairScorer;
use burn::optim::GradientsParams;
use common::{cpu, grad_norms, mean};

const D: usize = 6;

/// Source vectors and targets that are a fixed rotation of them plus a little noise.
fn aligned(n: usize, seed: u64) -> (Embeddings, Embeddings) {
    let mut rng = Rng::seed(seed);
    let mut a = Embeddings::with_capacity(D, n).unwrap();
    let mut b = Embeddings::with_capacity(D, n).unwrap();
    for _ in 0..n {
        let x: Vec<f32> = (0..D).map(|_| rng.normal() as f32).collect();
        let y: Vec<f32> = (0..D)
            .map(|k| x[(k + 1) % D] + 0.05 * rng.normal() as f32)
            .collect();
        a.push_row(&x).unwrap();
        b.push_row(&y).unwrap();
    }
    (a, b)
}

fn config() -> MlpConfig {
    MlpConfig {
        dim: D,
        hidden: vec![16, 16],
        dropout: 0.1,
    }
}

#[test]
fn gradient_reaches_every_parameter() {
    let (a, b) = aligned(8, 1);
    let model = Mlp::new(&config(), 1, &cpu().autodiff()).unwrap();
    let pairs: Vec<(usize, usize)> = (0..8).map(|i| (i, (i + i % 2) % 8)).collect();
    let x = model
        .pair_input(a.view(), b.view(), &pairs, &cpu().autodiff())
        .unwrap();
    let labels: Vec<f32> = pairs
        .iter()
        .map(|p| f32::from(u8::from(p.0 == p.1)))
        .collect();
    let loss = bce_with_logits(model.logits(x, Some(&mut Rng::seed(1))), &labels);
    let grads = GradientsParams::from_grads(loss.backward(), &model);
    for (k, n) in grad_norms(&model, &grads).iter().enumerate() {
        assert!(n.is_some_and(|n| n > 0.0), "parameter {k}: {n:?}");
    }
}

#[test]
fn learns_to_separate_and_scores_pairs() {
    let (a, b) = aligned(200, 2);
    let neg = random_negatives(a.len(), 200, &mut Rng::seed(3));
    let set = PairSet::with_negative_pairs(a.view(), b.view(), &neg).unwrap();
    let (train, valid) = set.split(0.2, &mut Rng::seed(4)).unwrap();
    let desc = MlpDescription {
        network: config(),
        encoder: Some("toy".into()),
    };
    let mut task = MlpTask::new(desc.clone(), train, Some(valid), 32).unwrap();
    let model = Mlp::new(&config(), 5, &cpu().autodiff()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let fitted = fit(
        &mut task,
        model,
        &TrainConfig::new(25, 0.01, 5),
        dir.path(),
        false,
    )
    .unwrap();
    let best = &fitted.state.history[fitted.state.best_epoch - 1];
    let first = fitted.state.history[0].valid.as_ref().unwrap().loss;
    let v = best.valid.as_ref().unwrap();
    assert!(v.loss < 0.5 * first, "{first} → {}", v.loss);
    assert!(v.metrics["accuracy"] > 0.9, "{:?}", v.metrics);

    // Load it back and score fresh pairs: aligned ones high, shuffled ones low.
    let (loaded, d) = load_mlp(dir.path(), BackendSpec::Flex).unwrap();
    assert_eq!(d, desc);
    let (x, y) = aligned(50, 9);
    let scorer = MlpScorer::new(&loaded, x, y).unwrap();
    assert_eq!(scorer.sizes(), (50, 50));
    let (good, bad) = common::aligned_and_shifted(&scorer, 50, 7);
    assert!(
        mean(&good) > 0.8 && mean(&bad) < 0.2,
        "{} {}",
        mean(&good),
        mean(&bad)
    );
    assert!(good.iter().chain(&bad).all(|p| (0.0..=1.0).contains(p)));
    assert!(scorer.score(&[(50, 0)]).is_err());
}

#[test]
fn wrong_dimensions_are_errors() {
    let (a, b) = aligned(4, 1);
    let model = Mlp::new(&MlpConfig::paper(D + 1), 1, &cpu()).unwrap();
    assert!(MlpScorer::new(&model, a, b).is_err());
    assert!(
        Mlp::new(
            &MlpConfig {
                hidden: vec![0],
                ..config()
            },
            1,
            &cpu()
        )
        .is_err()
    );
}
