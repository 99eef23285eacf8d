//! Helpers shared by the integration tests: reading parameters and gradients back to the host.

#![allow(dead_code, unreachable_pub)]

use bitext_core::{Embeddings, Rng, normalize_row};
use bitext_neural::layers::bce_with_logits;
use bitext_neural::rnn::CellKind;
use bitext_neural::siamese::{EncoderConfig, ParallelIds, Pooling, Siamese, SiameseConfig};
use bitext_neural::text::TextTraining;
use bitext_neural::train::backward;
use burn::module::{Module, ModuleVisitor, Param, ParamId};
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor};

mod fixtures;
pub use fixtures::*;

/// A tiny siamese network of `cell` (the paper's: last states, no bag), with one table for
/// both languages when `shared` (14 rows; else 12 source and 14 target rows).
pub fn tiny_siamese(cell: CellKind, shared: bool) -> SiameseConfig {
    let vocab = (if shared { 14 } else { 12 }, 14);
    SiameseConfig {
        encoder: EncoderConfig::new(vocab, 8, 6, cell),
        shared_embeddings: shared,
        ff: 5,
        dropout_input: 0.0,
        dropout_output: 0.0,
        pooling: Pooling::Last,
        bag_hidden: 0,
    }
}

/// The value of a one-element tensor (a loss) on the host.
pub fn scalar(t: Tensor<1>) -> f32 {
    t.into_data().try_into_vec::<f32>().unwrap()[0]
}

/// Every float parameter of a module as `(id, host values)`, in visiting order.
pub fn params<M: Module>(m: &M) -> Vec<(ParamId, Vec<f32>)> {
    struct V(Vec<(ParamId, Vec<f32>)>);
    impl ModuleVisitor for V {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let v = p.val().into_data().try_into_vec::<f32>().unwrap();
            self.0.push((p.id, v));
        }
    }
    let mut v = V(Vec::new());
    m.visit(&mut v);
    v.0
}

/// The L2 norm of each float parameter's gradient (`None` when it has none).
pub fn grad_norms<M: Module>(m: &M, grads: &GradientsParams) -> Vec<Option<f64>> {
    struct V<'a>(&'a GradientsParams, Vec<Option<f64>>);
    impl ModuleVisitor for V<'_> {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let n = self.0.get::<D>(p.id).map(|g| {
                let v = g.into_data().try_into_vec::<f32>().unwrap();
                v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt()
            });
            self.1.push(n);
        }
    }
    let mut v = V(grads, Vec::new());
    m.visit(&mut v);
    v.1
}

/// Each float parameter's gradient values (`None` when it has none).
pub fn grad_values<M: Module>(m: &M, grads: &GradientsParams) -> Vec<Option<Vec<f32>>> {
    struct V<'a>(&'a GradientsParams, Vec<Option<Vec<f32>>>);
    impl ModuleVisitor for V<'_> {
        fn visit_float<const D: usize>(&mut self, p: &Param<Tensor<D>>) {
            let g = self
                .0
                .get::<D>(p.id)
                .map(|g| g.into_data().try_into_vec::<f32>().unwrap());
            self.1.push(g);
        }
    }
    let mut v = V(grads, Vec::new());
    m.visit(&mut v);
    v.1
}

/// A 2-D tensor's values.
pub fn host2(t: Tensor<2>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().unwrap()
}

/// The CPU device tests run on.
pub fn cpu() -> Device {
    Device::flex()
}

/// Largest absolute difference.
pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Pairs whose target is the source (ids 1–11) through a fixed word mapping, reversed: a
/// separable task for the siamese network (vocabularies of 12 and 14).
pub fn toy_pairs(n: usize, seed: u64) -> ParallelIds {
    let mut rng = Rng::seed(seed);
    let (mut src, mut tgt) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let len = 2 + rng.below(4);
        let s: Vec<u32> = (0..len).map(|_| 1 + rng.below(11) as u32).collect();
        let t: Vec<u32> = s.iter().rev().map(|&w| (w * 5) % 13 + 1).collect();
        src.push(s);
        tgt.push(t);
    }
    ParallelIds::new(src, tgt).unwrap()
}

/// Pairs whose target is the source (ids 0–11) through a fixed word mapping, reversed: the
/// autoencoder's tiny task (vocabularies of 12 and 14).
pub fn ae_toy_pairs(n: usize, seed: u64) -> ParallelIds {
    let mut rng = Rng::seed(seed);
    let (mut src, mut tgt) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let len = 2 + rng.below(4);
        let s: Vec<u32> = (0..len).map(|_| rng.below(12) as u32).collect();
        let t: Vec<u32> = s.iter().rev().map(|&w| (w * 5) % 13 + 1).collect();
        src.push(s);
        tgt.push(t);
    }
    ParallelIds::new(src, tgt).unwrap()
}

/// The sentences as slices.
pub fn refs(v: &[Vec<u32>]) -> Vec<&[u32]> {
    v.iter().map(Vec::as_slice).collect()
}

/// Each float parameter's gradient values, in visiting order (`None` when it has none).
pub type Grads = Vec<Option<Vec<f32>>>;

/// Each parameter's gradient of the siamese pair loss on `toy_pairs(7, 3)` with two targets
/// swapped (the same dropout draws on both paths), by burn's autodiff through everything and
/// by the deferred path, and the number of deferred stages.
pub fn siamese_plain_and_deferred_grads(model: &Siamese) -> (Grads, Grads, usize) {
    let data = toy_pairs(7, 3);
    let src = refs(&data.src);
    let mut tgt = refs(&data.tgt);
    tgt.swap(0, 4);
    let labels = [0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0];
    let z = model
        .pair_logits(&src, &tgt, Some(&mut Rng::seed(8)))
        .unwrap();
    let plain = backward(model, bce_with_logits(z, &labels).into()).unwrap();
    let loss = model
        .pair_loss(&src, &tgt, &labels, Some(&mut Rng::seed(8)))
        .unwrap();
    let stages = loss.deferred.len();
    let deferred = backward(model, loss).unwrap();
    (
        grad_values(model, &plain),
        grad_values(model, &deferred),
        stages,
    )
}

/// The in-batch ranking loss computed on the host in f64: the mean over the `n` rows of `a`
/// and `b` (`[n, d]`, row-major) of the softmax cross-entropy of each row and each column of
/// `scale·(S − margin·I)`, `S` the cosines, leaving out the pairs `(i, j)` for which `same`
/// holds (not negatives).
pub fn in_batch_ranking_by_hand(
    a: &[f32],
    b: &[f32],
    d: usize,
    same: &dyn Fn(usize, usize) -> bool,
    scale: f64,
    margin: f64,
) -> f64 {
    let n = a.len() / d;
    let unit = |v: &[f32]| {
        let norm = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
        v.iter().map(|x| f64::from(*x) / norm).collect::<Vec<f64>>()
    };
    let ua: Vec<Vec<f64>> = (0..n).map(|i| unit(&a[i * d..(i + 1) * d])).collect();
    let ub: Vec<Vec<f64>> = (0..n).map(|i| unit(&b[i * d..(i + 1) * d])).collect();
    let cos = |i: usize, j: usize| ua[i].iter().zip(&ub[j]).map(|(x, y)| x * y).sum::<f64>();
    let logit = |i: usize, j: usize| scale * (cos(i, j) - if i == j { margin } else { 0.0 });
    let mut ranking = 0.0;
    for i in 0..n {
        let lse = |f: &dyn Fn(usize) -> f64| {
            (0..n)
                .filter(|&j| !same(i, j))
                .map(|j| f(j).exp())
                .sum::<f64>()
                .ln()
        };
        ranking += lse(&|j| logit(i, j)) - logit(i, i);
        ranking += lse(&|j| logit(j, i)) - logit(i, i);
    }
    ranking / (2.0 * n as f64)
}

/// Asserts that two gradient lists agree: the same parameters have a gradient, and each
/// differs from the first list's by at most 1e-4 of that gradient's largest magnitude (at
/// least 1e-3). Returns how many gradients were compared.
pub fn assert_same_grads(a: &Grads, b: &Grads, what: &str) -> usize {
    assert_eq!(a.len(), b.len(), "{what}: parameter counts");
    let mut compared = 0;
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.is_some(), y.is_some(), "{what}: parameter {k}");
        if let (Some(x), Some(y)) = (x, y) {
            let scale = x.iter().fold(1e-3f32, |m, v| m.max(v.abs()));
            let d = max_diff(x, y);
            assert!(d <= 1e-4 * scale, "{what}: parameter {k} differs by {d}");
            compared += 1;
        }
    }
    compared
}

/// The smoothed IDF (`bitext_encode::Idf::smoothed`) of each of `rows` ids over the sentences
/// of `sets` in `codec`'s tokens of `side`, each sentence one document: what a trained bag's
/// weights should be.
pub fn idf_over(
    codec: &bitext_neural::text::TextCodec,
    side: bitext_encode::Side,
    sets: &[&[String]],
    rows: usize,
) -> Vec<f32> {
    let mut df = vec![0usize; rows];
    let mut n = 0;
    for set in sets {
        let s: Vec<&str> = set.iter().map(String::as_str).collect();
        for mut ids in codec.encode(side, &s).unwrap() {
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                df[id as usize] += 1;
            }
            n += 1;
        }
    }
    df.iter()
        .map(|&d| bitext_encode::Idf::smoothed(n, d) as f32)
        .collect()
}

/// The row weights of a bag.
pub fn bag_weights_of(bag: &Option<bitext_neural::layers::Bag>) -> Vec<f32> {
    let w = bag.as_ref().unwrap().weight.val();
    w.into_data().try_into_vec::<f32>().unwrap()
}

/// Bag-of-words row weights for tests: drawn in [0.5, 3), zero for every fourth row (rows that
/// no vector file filled).
pub fn bag_row_weights(rows: usize, seed: u64) -> Vec<f32> {
    bag_row_weights_every(rows, seed, 4)
}

/// [`bag_row_weights`] with every `every`-th row (from the first) zero.
pub fn bag_row_weights_every(rows: usize, seed: u64, every: usize) -> Vec<f32> {
    let mut rng = Rng::seed(seed);
    (0..rows)
        .map(|r| {
            if r % every == 0 {
                0.0
            } else {
                rng.uniform(0.5, 3.0) as f32
            }
        })
        .collect()
}

/// Draw each bag's projection `P` away from its zero start, so that the recurrent states reach
/// the sentence vectors.
pub fn draw_bag_projections<'a>(
    bags: impl IntoIterator<Item = Option<&'a mut bitext_neural::layers::Bag>>,
    device: &Device,
) {
    let mut rng = Rng::seed(3);
    for bag in bags.into_iter().flatten() {
        let [r, c] = bag.proj.dims();
        let v: Vec<f32> = (0..r * c).map(|_| rng.uniform(-0.5, 0.5) as f32).collect();
        bag.proj = Param::from_tensor(Tensor::from_data(
            burn::tensor::TensorData::new(v, [r, c]),
            device,
        ));
    }
}

/// The word links of the testkit's pairs (`a{k}` and `b{k}` translate each other): every pair
/// of positions whose words share their suffix.
pub fn oracle_links(src: &[Vec<String>], tgt: &[Vec<String>]) -> bitext_neural::aligner::Links {
    src.iter()
        .zip(tgt)
        .map(|(s, t)| {
            let mut l = Vec::new();
            for (i, a) in s.iter().enumerate() {
                for (j, b) in t.iter().enumerate() {
                    if a.get(1..) == b.get(1..) {
                        l.push((i, j));
                    }
                }
            }
            l
        })
        .collect()
}

/// [`oracle_links`] of the training and the validation pairs, as the aligner's text training asks for them.
pub fn oracle_text_links(
    train: (&[Vec<String>], &[Vec<String>]),
    valid: (&[Vec<String>], &[Vec<String>]),
) -> Result<(bitext_neural::aligner::Links, bitext_neural::aligner::Links), String> {
    Ok((
        oracle_links(train.0, train.1),
        oracle_links(valid.0, valid.1),
    ))
}

/// The aligner network the text-training tests use: embeddings 12, 8 per direction, both
/// objectives.
pub fn small_text_aligner() -> bitext_neural::aligner::AlignerConfig {
    bitext_neural::aligner::AlignerConfig {
        ff: 6,
        objective: bitext_neural::aligner::Objective::Both,
        ..bitext_neural::aligner::AlignerConfig::paper(1, 1)
    }
    .with_encoder(|e| {
        e.emb_dim = 12;
        e.hidden = 8;
    })
}

/// An aligner training job on text for the tests: word vocabularies per side, validation on
/// `valid`, every kind of example (60 each), 3 epochs, the oracle links.
pub fn aligner_text_job<'a>(
    src: &'a [String],
    tgt: &'a [String],
    valid: (&'a [String], &'a [String]),
    network: bitext_neural::aligner::AlignerConfig,
) -> bitext_neural::aligner::AlignerTextTraining<'a> {
    use bitext_neural::aligner::{AlignerTrainConfig, Kind};
    use bitext_neural::text::TextCorpus;
    let mut train = AlignerTrainConfig::paper(3);
    (train.batching, train.train) = small_schedule(3, 0.01, 400);
    bitext_neural::aligner::AlignerTextTraining {
        corpus: TextCorpus {
            max_len: Some(60),
            ..every_word_corpus(src, tgt, Some(valid), false)
        },
        network,
        train,
        kinds: Kind::parse_set("PURI").unwrap(),
        per_kind: 60,
        links: &oracle_text_links,
        teacher: None,
        distill: None,
        bag_init: None,
    }
}

/// The weighted bag of one sentence computed on the host: `Σ w(id)·row(id) / Σ w(id)` over its
/// token ids (zero when every weight is zero), from a row-major `table` of `dim` columns.
pub fn weighted_bag(table: &[f32], dim: usize, weights: &[f32], sentence: &[u32]) -> Vec<f64> {
    let total: f64 = sentence
        .iter()
        .map(|&id| f64::from(weights[id as usize]))
        .sum();
    (0..dim)
        .map(|k| {
            let sum: f64 = sentence
                .iter()
                .map(|&id| {
                    f64::from(weights[id as usize]) * f64::from(table[id as usize * dim + k])
                })
                .sum();
            if total > 0.0 { sum / total } else { 0.0 }
        })
        .collect()
}

/// The schedule the text-training tests share: batches of at most 16 sentences and
/// `max_tokens` tokens, Adam at `lr` for `epochs` (seed 3), gradients clipped at norm 5.
pub fn small_schedule(
    epochs: usize,
    lr: f64,
    max_tokens: usize,
) -> (
    bitext_neural::batch::Bucketing,
    bitext_neural::train::TrainConfig,
) {
    let batching = bitext_neural::batch::Bucketing {
        max_items: 16,
        max_tokens,
    };
    let train = bitext_neural::train::TrainConfig {
        clip_norm: Some(5.0),
        ..bitext_neural::train::TrainConfig::new(epochs, lr, 3)
    };
    (batching, train)
}

/// An aligner of `network` trained from text once ([`aligner_text_job`] on 120 generated pairs,
/// 20 others held out) into a new directory, and what the training reported.
pub fn train_text_aligner(
    network: bitext_neural::aligner::AlignerConfig,
) -> (tempfile::TempDir, bitext_neural::aligner::AlignerTrained) {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = bitext_testkit::data::parallel_text(120, 1);
    let (vs, vt) = bitext_testkit::data::parallel_text(20, 2);
    let job = aligner_text_job(&src, &tgt, (&vs, &vt), network);
    let trained = job.run(dir.path(), false).unwrap();
    (dir, trained)
}

/// The pooled n-gram features of `s` over the `d`-wide rows of `table`, by their definition:
/// `p_t = relu(x_t·A + a)`, per order `k` the maximum over positions of
/// `relu([p_t; p_{t−1}; …; p_{t−k+1}]·W_k + b_k)` (zero rows before the first token).
pub fn ngram_features(
    ng: &bitext_neural::ngrams::Ngrams,
    table: &[f32],
    d: usize,
    s: &[u32],
) -> Vec<f64> {
    let (a, ab) = (
        host2(ng.input.weight.val()),
        host2(ng.input.bias.val().unsqueeze()),
    );
    let c = ab.len();
    let p: Vec<Vec<f64>> = s
        .iter()
        .map(|&id| {
            let x = &table[id as usize * d..(id as usize + 1) * d];
            (0..c)
                .map(|q| {
                    let z: f64 = (0..d).map(|i| f64::from(x[i] * a[i * c + q])).sum();
                    (z + f64::from(ab[q])).max(0.0)
                })
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    for conv in &ng.convs {
        let (w, b) = (host2(conv.weight.val()), host2(conv.bias.val().unsqueeze()));
        let k = w.len() / (c * c);
        let mut pool = vec![0.0f64; c];
        for t in 0..s.len() {
            for (q, m) in pool.iter_mut().enumerate() {
                let mut z = f64::from(b[q]);
                for j in 0..k.min(t + 1) {
                    for r in 0..c {
                        z += p[t - j][r] * f64::from(w[(j * c + r) * c + q]);
                    }
                }
                *m = m.max(z.max(0.0));
            }
        }
        out.extend(pool);
    }
    out
}

/// The testkit's pairs as a corpus of ids (`a{k}` → `k`, `b{k}` → `k`), with links.
pub fn toy_corpus(n: usize, seed: u64) -> bitext_neural::aligner::Corpus {
    let (s, t) = bitext_testkit::data::parallel_text(n, seed);
    let ids = |v: &[String]| -> Vec<Vec<u32>> {
        v.iter()
            .map(|x| {
                x.split(' ')
                    .map(|w| w[1..].parse::<u32>().unwrap())
                    .collect()
            })
            .collect()
    };
    let (src, tgt) = (ids(&s), ids(&t));
    let words = |v: &[String]| -> Vec<Vec<String>> {
        v.iter()
            .map(|x| x.split(' ').map(str::to_string).collect())
            .collect()
    };
    let links = oracle_links(&words(&s), &words(&t));
    bitext_neural::aligner::Corpus {
        src,
        tgt,
        links,
        src_classes: vec![bitext_neural::aligner::WordClass::Other; 20],
        tgt_classes: vec![bitext_neural::aligner::WordClass::Other; 20],
    }
}

/// A toy task: one dense unit fits `y = 2x` on three batches of four values in `[-1, 1)` an
/// epoch, drawn from the epoch's generator, or from a generator of its own (`own`) kept across
/// epochs; its validation losses are scripted per epoch (none: no validation).
pub struct Toy {
    /// The validation loss of each epoch.
    pub losses: Vec<f64>,
    /// The epoch under way.
    pub epoch: std::cell::Cell<usize>,
    /// The generator of its own, when it draws from one.
    pub own: Option<Rng>,
}

impl bitext_neural::train::Task for Toy {
    type Model = bitext_neural::layers::Dense;
    type Batch = Vec<f32>;

    fn epoch_batches(
        &mut self,
        epoch: usize,
        rng: &mut Rng,
    ) -> bitext_neural::Result<Vec<Vec<f32>>> {
        self.epoch.set(epoch);
        let rng = self.own.as_mut().unwrap_or(rng);
        Ok((0..3)
            .map(|_| (0..4).map(|_| rng.uniform(-1.0, 1.0) as f32).collect())
            .collect())
    }

    fn batch_items(&self, batch: &Vec<f32>) -> usize {
        batch.len()
    }

    fn loss(
        &self,
        model: &Self::Model,
        batch: &Vec<f32>,
        _: &mut Rng,
    ) -> bitext_neural::Result<bitext_neural::train::TrainLoss> {
        let n = batch.len();
        let x = Tensor::<2>::from_data(
            burn::tensor::TensorData::new(batch.clone(), [n, 1]),
            &model.weight.device(),
        );
        let e = model.forward(x.clone()) - x * 2.0;
        Ok((e.clone() * e).mean().reshape([1]).into())
    }

    fn validate(
        &self,
        _: &Self::Model,
    ) -> bitext_neural::Result<Option<bitext_neural::train::Validation>> {
        Ok(self
            .losses
            .get(self.epoch.get().wrapping_sub(1))
            .map(|&loss| bitext_neural::train::Validation {
                loss,
                metrics: Default::default(),
            }))
    }

    fn save_description(
        &self,
        _: &Self::Model,
        dir: &std::path::Path,
    ) -> bitext_neural::Result<()> {
        use bitext_neural::train::checkpoint;
        checkpoint::write_json(
            &dir.join(checkpoint::MODEL_FILE),
            &serde_json::json!({"kind": "toy"}),
        )
    }
}

/// A teacher of distillation tests that knows only the target language: the unit sum of its
/// own random vectors of the target sentence's words (`b0 … b19` of `parallel_text`), word
/// order ignored, `dim` wide. A source sentence `a3 a7` has to reach the vector of its
/// translation `b7 b3`.
pub fn teacher_of(tgt: &[String], dim: usize) -> Embeddings {
    teacher_seeded(tgt, dim, 99)
}

/// [`teacher_of`] with word vectors drawn from `seed`.
pub fn teacher_seeded(tgt: &[String], dim: usize, seed: u64) -> Embeddings {
    let mut rng = Rng::seed(seed);
    let words: Vec<Vec<f32>> = (0..20)
        .map(|_| (0..dim).map(|_| rng.normal() as f32).collect())
        .collect();
    let rows = tgt.iter().map(|s| {
        let mut v = vec![0f32; dim];
        for w in s.split_whitespace() {
            let i: usize = w[1..].parse().unwrap();
            for (x, y) in v.iter_mut().zip(&words[i]) {
                *x += y;
            }
        }
        normalize_row(&mut v);
        v
    });
    Embeddings::from_rows(rows, dim).unwrap()
}
