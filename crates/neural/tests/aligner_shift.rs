//! The aligner's sentence shift (`AlignerConfig::sentence_shift`): every alignment score of a
//! pair moves by `SHIFT_SCALE·(a·cos(v_src, v_tgt) + c)`. The untrained shift is zero (the draft's
//! scores), a set shift moves the matrix and both aggregates by exactly that amount, its
//! gradient matches finite differences of the loss, the word loss reaches the sentence vectors
//! through it, and a model trained from text with it loads back and passes the
//! `SentenceEncoder` conformance suite.

mod common;

use std::sync::OnceLock;

use bitext_neural::aligner::{
    Aligner, AlignerConfig, AlignerModel, LabeledRef, Objective, SHIFT_SCALE,
};
use bitext_neural::siamese::Pooling;
use bitext_neural::train::backward;
use bitext_testkit::sentence_encoder_suite;
use burn::module::Param;
use burn::tensor::{Device, Tensor, TensorData};
use common::{cpu, grad_values, params, scalar};

fn tiny(shift: bool, bag: bool) -> AlignerConfig {
    AlignerConfig {
        ff: 5,
        objective: Objective::Words,
        pooling: Pooling::Max,
        sentence_shift: shift,
        ..AlignerConfig::paper(12, 14)
    }
    .with_encoder(|e| {
        e.emb_dim = 8;
        e.hidden = 6;
        e.bag = bag;
    })
}

fn set_shift(model: &mut Aligner, a: f32, c: f32, device: &Device) {
    let shift = model.shift.as_mut().expect("a network with the shift");
    shift.weight = Param::from_tensor(Tensor::from_data(TensorData::new(vec![a], [1, 1]), device));
    shift.bias = Param::from_tensor(Tensor::from_data(TensorData::new(vec![c], [1]), device));
}

const SRC: [&[u32]; 3] = [&[1, 2, 3], &[5, 7, 7, 9], &[4, 8]];
const TGT: [&[u32]; 3] = [&[2, 3], &[6, 13, 1, 1, 4], &[9]];

#[test]
fn the_untrained_shift_is_zero_and_a_set_one_moves_every_score_of_a_pair() {
    for bag in [false, true] {
        let plain = Aligner::new(&tiny(false, bag), 5, &cpu()).unwrap();
        let mut shifted = Aligner::new(&tiny(true, bag), 5, &cpu()).unwrap();
        assert!(plain.shift.is_none());
        let want = plain.pairs(&SRC, &TGT).unwrap();
        let got = shifted.pairs(&SRC, &TGT).unwrap();
        for (w, g) in want.iter().zip(&got) {
            assert_eq!(w.alignment, g.alignment, "bag {bag}");
            assert_eq!(w.src_scores, g.src_scores);
            assert_eq!(w.tgt_scores, g.tgt_scores);
        }
        let (a, c) = (0.7_f32, -0.3_f32);
        set_shift(&mut shifted, a, c, &cpu());
        let got = shifted.pairs(&SRC, &TGT).unwrap();
        for (k, (w, g)) in want.iter().zip(&got).enumerate() {
            assert_eq!(w.cosine, g.cosine, "the vectors do not depend on the shift");
            let d = SHIFT_SCALE as f32 * (a * w.cosine + c);
            let moved = |x: &[f32], y: &[f32]| {
                assert_eq!(x.len(), y.len());
                x.iter()
                    .zip(y)
                    .map(|(x, y)| (y - x - d).abs())
                    .fold(0.0_f32, f32::max)
            };
            for (what, x, y) in [
                ("alignment", &w.alignment, &g.alignment),
                ("aggr_s", &w.src_scores, &g.src_scores),
                ("aggr_t", &w.tgt_scores, &g.tgt_scores),
            ] {
                let e = moved(x, y);
                assert!(
                    e < 1e-4,
                    "bag {bag}, pair {k}, {what}: off by {e} (shift {d})"
                );
            }
        }
    }
}

/// Every word of the first pair parallel, of the second divergent, the third mixed.
fn labelled() -> (Vec<Vec<f32>>, Vec<Vec<f32>>, Vec<f32>) {
    let signs = [-1.0_f32, 1.0, 1.0];
    let side = |sents: &[&[u32]; 3]| -> Vec<Vec<f32>> {
        sents
            .iter()
            .enumerate()
            .map(|(k, s)| {
                (0..s.len())
                    .map(|i| if k == 2 && i == 0 { -1.0 } else { signs[k] })
                    .collect()
            })
            .collect()
    };
    (side(&SRC), side(&TGT), signs.to_vec())
}

fn batch<'a>(l: &'a (Vec<Vec<f32>>, Vec<Vec<f32>>, Vec<f32>)) -> Vec<LabeledRef<'a>> {
    (0..3)
        .map(|k| LabeledRef {
            src: SRC[k],
            tgt: TGT[k],
            src_labels: &l.0[k],
            tgt_labels: &l.1[k],
            label: l.2[k],
        })
        .collect()
}

#[test]
fn the_shift_gradient_matches_finite_differences_and_reaches_the_encoders() {
    let device = cpu().autodiff();
    let labels = labelled();
    let b = batch(&labels);
    let loss_at = |a: f32, c: f32| {
        let mut m = Aligner::new(&tiny(true, false), 5, &device).unwrap();
        set_shift(&mut m, a, c, &device);
        let l = m.loss(&b, None).unwrap();
        (m, l)
    };
    let (a, c) = (0.4_f32, 0.1_f32);
    let (m, l) = loss_at(a, c);
    let grads = backward(&m, l.loss).unwrap();
    let shift = m.shift.as_ref().unwrap();
    let ids: Vec<_> = params(&m).into_iter().map(|(id, _)| id).collect();
    let values = grad_values(&m, &grads);
    let grad_of = |id| values[ids.iter().position(|&i| i == id).unwrap()].clone();
    let (ga, gc) = (
        grad_of(shift.weight.id).expect("a gradient of a")[0],
        grad_of(shift.bias.id).expect("a gradient of c")[0],
    );
    let eps = 1e-2_f32;
    let value = |a: f32, c: f32| f64::from(scalar(loss_at(a, c).1.loss.value));
    let fa = (value(a + eps, c) - value(a - eps, c)) / f64::from(2.0 * eps);
    let fc = (value(a, c + eps) - value(a, c - eps)) / f64::from(2.0 * eps);
    for (what, g, f) in [("a", ga, fa), ("c", gc, fc)] {
        let tol = 1e-2 * f.abs().max(1.0);
        assert!(
            (f64::from(g) - f).abs() < tol,
            "d loss / d {what}: autodiff {g}, finite differences {f}"
        );
        assert!(g != 0.0, "d loss / d {what} is zero");
    }
    // Without the shift, the word loss reaches the encoders only through the word states;
    // with it, also through the sentence vectors: the recurrent weights' gradients differ.
    let plain = Aligner::new(&tiny(false, false), 5, &device).unwrap();
    let gp = grad_values(
        &plain,
        &backward(&plain, plain.loss(&b, None).unwrap().loss).unwrap(),
    );
    let recurrent = params(&plain).len() - 4; // ... the `semb` head's four come last
    let differs = (0..recurrent).any(|k| match (&gp[k], &values[k]) {
        (Some(x), Some(y)) => x.iter().zip(y).any(|(x, y)| (x - y).abs() > 1e-6),
        _ => false,
    });
    assert!(differs, "the shift changed no encoder gradient");
}

fn trained() -> &'static tempfile::TempDir {
    static MODEL: OnceLock<tempfile::TempDir> = OnceLock::new();
    MODEL.get_or_init(|| common::train_text_aligner(common::small_widths(tiny(true, true))).0)
}

fn model() -> AlignerModel {
    common::load_aligner(trained().path())
}

#[test]
fn a_model_with_the_shift_trains_and_loads_back_with_it() {
    let m = model();
    assert!(m.description().network.sentence_shift);
    let shift = m.model().shift.as_ref().expect("the shift loads back");
    let w = shift
        .weight
        .val()
        .into_data()
        .try_into_vec::<f32>()
        .unwrap();
    let c = shift.bias.val().into_data().try_into_vec::<f32>().unwrap();
    assert!(w[0] != 0.0 || c[0] != 0.0, "training moved neither a nor c");
    assert!(w[0].is_finite() && c[0].is_finite());
}

sentence_encoder_suite!(
    aligner_with_the_shift,
    model(),
    bitext_testkit::encoder::Expect::within(1e-5)
);
