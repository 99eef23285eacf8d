//! The aligner's bag of words (`AlignerConfig::bag`): the untrained network's sentence vector
//! is each encoder's IDF-weighted bag of its own input vectors (in `encode` and in `pairs`'
//! `wemb` cosine), the word scores do not depend on it, gradients reach the projection and the
//! map through the ranking term (the same with the encoders back-propagated on two threads as
//! in one graph), and a model trained from text with a bag passes the `SentenceEncoder`
//! conformance suite. N-gram convolutions beside the recurrence read the bags' own table and
//! reach the sentence vector through `P`, on the host as in tensor operations.

mod common;

use std::sync::OnceLock;

use bitext_core::Rng;
use bitext_encode::Side;
use bitext_neural::aligner::{
    Aligner, AlignerConfig, AlignerModel, LabeledRef, Objective, RankingTerm,
};
use bitext_neural::backend::{BackendSpec, Threads};
use bitext_neural::batch::Bucketing;
use bitext_neural::ngrams::NgramOrders;
use bitext_neural::siamese::Pooling;
use bitext_neural::text::{TextNetwork, TextTraining};
use bitext_neural::train::backward;
use bitext_similarity::Measure;
use bitext_testkit::data::parallel_text;
use bitext_testkit::sentence_encoder_suite;
use burn::module::ParamId;
use common::{
    assert_weighted_bags, bag_row_weights, cpu, draw_bag_projections, grad_norms, grad_values,
    host2, ngram_features, params, scalar, weighted_bag,
};

/// Embeddings 8, 6 per direction (12-d word states, 8-d sentence vectors), a bag per side.
fn tiny(objective: Objective, bag_map: bool) -> AlignerConfig {
    common::tiny_aligner(12, 14, objective).with_encoder(|e| {
        e.bag = true;
        e.bag_map = bag_map;
    })
}

#[test]
fn the_untrained_sentence_vector_is_each_encoders_weighted_bag() {
    let config = tiny(Objective::Words, true);
    assert_eq!(config.dim(), 8);
    let (ws, wt) = (bag_row_weights(12, 1), bag_row_weights(14, 2));
    let model = Aligner::new(&config, 5, &cpu())
        .unwrap()
        .with_bag_weights(ws.clone(), wt.clone())
        .unwrap();
    assert_eq!(model.dim(), 8);
    let p = params(&model);
    let sents: [&[u32]; 3] = [&[1, 2, 3], &[5, 7, 7, 9], &[4, 8]];
    let bags = assert_weighted_bags(
        |s, side| host2(model.encode(s, side).unwrap()),
        [(Side::Source, &p[0].1, &ws), (Side::Target, &p[1].1, &wt)],
        &sents,
        8,
    );
    // `wemb` is the cosine of the bags; the word scores are the network's without a bag.
    let plain = Aligner::new(
        &config.with_encoder(|e| {
            e.bag = false;
            e.bag_map = false;
        }),
        5,
        &cpu(),
    )
    .unwrap();
    let out = model.pairs(&sents, &sents).unwrap();
    let out_plain = plain.pairs(&sents, &sents).unwrap();
    for (i, (o, q)) in out.iter().zip(&out_plain).enumerate() {
        if i == 2 {
            // [4, 8]: every weight zero on the source side, a zero bag: no cosine to check.
            continue;
        }
        let (a, b) = (&bags[0][i * 8..(i + 1) * 8], &bags[1][i * 8..(i + 1) * 8]);
        let want = Measure::Cosine.apply(a, b);
        assert!(
            (o.cosine - want).abs() < 1e-5,
            "{i}: {} vs {want}",
            o.cosine
        );
        assert_eq!(o.src_scores, q.src_scores);
        assert_eq!(o.alignment, q.alignment);
    }
}

/// Labelled examples with the word labels of `x % 3 == 0` divergent.
fn batch<'a>(
    src: &'a [Vec<u32>],
    tgt: &'a [Vec<u32>],
    labels: &'a (Vec<Vec<f32>>, Vec<Vec<f32>>),
    pair: &[f32],
) -> Vec<LabeledRef<'a>> {
    common::labeled(src, tgt, &labels.0, &labels.1, pair)
}

fn word_labels(src: &[Vec<u32>], tgt: &[Vec<u32>]) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let lab = |v: &Vec<u32>| -> Vec<f32> {
        v.iter()
            .map(|&x| if x % 3 == 0 { 1.0 } else { -1.0 })
            .collect()
    };
    (src.iter().map(lab).collect(), tgt.iter().map(lab).collect())
}

#[test]
fn gradients_reach_the_bags_and_split_sides_agree_with_one_graph() {
    let src: Vec<Vec<u32>> = vec![vec![1, 2, 3, 4], vec![4, 5], vec![6, 7, 8], vec![9, 10]];
    let tgt: Vec<Vec<u32>> = vec![vec![6, 7], vec![8, 9, 10, 11, 2], vec![12, 13, 1], vec![5]];
    let labels = word_labels(&src, &tgt);
    let b = batch(&src, &tgt, &labels, &[-1.0, 1.0, -1.0, -1.0]);
    for (objective, frozen, bag_map, pooling) in [
        (Objective::Both, false, true, Pooling::Last),
        (Objective::Words, true, true, Pooling::Max),
        (Objective::Words, false, false, Pooling::Max),
    ] {
        let config = AlignerConfig {
            dropout: 0.2,
            pooling,
            ranking: Some(common::pair_ranking()),
            ..tiny(objective, bag_map)
        }
        .with_encoder(|e| e.frozen_embeddings = frozen);
        let device = cpu().autodiff();
        let model = Aligner::new(&config, 5, &device)
            .unwrap()
            .with_bag_weights(bag_row_weights(12, 1), bag_row_weights(14, 2))
            .unwrap();
        let mut model = model;
        draw_bag_projections([model.src_bag.as_mut(), model.tgt_bag.as_mut()], &device);
        let what = format!("{objective:?}, frozen {frozen}, map {bag_map}");
        let norms = split_grads_agree(&model, &b, &what);
        // Every bag parameter but the row weights (data) has a gradient: `P` and `W` of both
        // sides, through the ranking term.
        let ids: Vec<_> = params(&model).into_iter().map(|(id, _)| id).collect();
        for bag in [&model.src_bag, &model.tgt_bag] {
            let bag = bag.as_ref().unwrap();
            let mut trained = vec![bag.proj.id];
            trained.extend(bag.map.as_ref().map(|m| m.id));
            for id in trained {
                let k = ids.iter().position(|&i| i == id).unwrap();
                assert!(
                    norms[k].is_some_and(|n| n > 0.0 && n.is_finite()),
                    "{what}: bag parameter {k} got {:?}",
                    norms[k]
                );
            }
        }
    }
}

/// The loss of `b` and its gradients are the same with the two encoders back-propagated on
/// two threads as in one graph (at least 8 parameters compared); the gradient norm of each
/// parameter of `model` (`None`: no gradient).
fn split_grads_agree(model: &Aligner, b: &[LabeledRef<'_>], what: &str) -> Vec<Option<f64>> {
    let grads = |split: bool| {
        let m = model.clone().with_split_sides(split);
        Threads(2)
            .install(|| {
                let l = m.loss(b, Some(&mut Rng::seed(9)))?;
                let value = scalar(l.loss.value.clone());
                let g = backward(&m, l.loss)?;
                Ok((value, grad_values(&m, &g), grad_norms(&m, &g)))
            })
            .unwrap()
    };
    let ((v1, one, _), (v2, split, norms)) = (grads(false), grads(true));
    assert!((v1 - v2).abs() < 1e-6, "{what}: {v1} vs {v2}");
    let compared = common::assert_same_grads(&one, &split, what);
    assert!(compared >= 8, "{what}: only {compared} gradients");
    norms
}

/// An aligner with a mapped bag and the ranking term, trained from text once.
fn trained() -> &'static tempfile::TempDir {
    static MODEL: OnceLock<tempfile::TempDir> = OnceLock::new();
    MODEL.get_or_init(|| {
        let network = AlignerConfig {
            ranking: Some(RankingTerm {
                weight: 1.0,
                ..common::pair_ranking()
            }),
            pooling: Pooling::Max,
            ..tiny(Objective::Words, true)
        };
        let network = common::small_widths(AlignerConfig { ff: 6, ..network });
        common::train_text_aligner(network).0
    })
}

fn model() -> AlignerModel {
    common::load_aligner(trained().path())
}

#[test]
fn a_model_with_a_bag_loads_back_with_its_weights() {
    let m = model();
    assert!(m.description().network.bag && m.description().network.bag_map);
    let (src, _) = parallel_text(4, 9);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    assert_eq!(m.vectors(Side::Source, &s).unwrap().dim(), 12);
    // IDF weights over the training text, not the untrained ones.
    let w = m.model().src_bag.as_ref().unwrap().weight.val();
    let w = w.into_data().try_into_vec::<f32>().unwrap();
    assert!(w.iter().any(|&x| x != 1.0), "{w:?}");
    assert!(w.iter().all(|x| x.is_finite() && *x >= 0.0));
}

sentence_encoder_suite!(
    aligner_with_a_bag,
    model(),
    bitext_testkit::encoder::Expect::within(1e-5)
);

/// [`tiny`] with one vocabulary of 12 tokens and the bags reading their own table.
fn with_table() -> AlignerConfig {
    AlignerConfig {
        bag_table: true,
        ..tiny(Objective::Words, true)
    }
    .with_encoder(|e| {
        e.src_vocab = 12;
        e.tgt_vocab = 12;
    })
}

/// A seeded `[12, 8]` table.
fn own_table() -> Vec<f32> {
    let mut rng = Rng::seed(41);
    (0..12 * 8).map(|_| rng.normal() as f32).collect()
}

#[test]
fn bags_with_their_own_table_pool_its_rows_on_both_sides() {
    let config = with_table();
    let table = own_table();
    let (ws, wt) = (bag_row_weights(12, 1), bag_row_weights(12, 2));
    let model = Aligner::new(&config, 5, &cpu())
        .unwrap()
        .with_bag_weights(ws.clone(), wt.clone())
        .unwrap()
        .with_bag_table(table.clone())
        .unwrap();
    let sents: [&[u32]; 3] = [&[1, 2, 3], &[5, 7, 7, 9], &[11, 8, 10]];
    assert_weighted_bags(
        |s, side| host2(model.encode(s, side).unwrap()),
        [(Side::Source, &table, &ws), (Side::Target, &table, &wt)],
        &sents,
        8,
    );
    // A table of another size, or one for bags that read the encoders' rows, is refused.
    let e = Aligner::new(&config, 5, &cpu())
        .unwrap()
        .with_bag_table(vec![0.0; 11 * 8])
        .unwrap_err();
    assert!(
        e.to_string().contains("bag-of-words embedding table"),
        "{e}"
    );
    let plain = Aligner::new(&tiny(Objective::Words, true), 5, &cpu()).unwrap();
    let e = plain.with_bag_table(table).unwrap_err();
    assert!(e.to_string().contains("encoders' rows"), "{e}");
}

/// [`with_table`] with n-gram convolutions of orders 1 and 3, 3 filters each.
fn with_ngrams() -> AlignerConfig {
    with_table().with_encoder(|e| {
        e.ngrams = NgramOrders::new(&[1, 3]).unwrap();
        e.ngram_channels = 3;
    })
}

#[test]
fn ngram_features_read_the_bags_table_and_reach_the_sentence_vector_through_p() {
    let config = with_ngrams();
    assert_eq!(config.pooled_dim(), 12 + 6);
    let table = own_table();
    let (ws, wt) = (bag_row_weights(12, 1), bag_row_weights(12, 2));
    let device = cpu();
    let mut model = Aligner::new(&config, 5, &device)
        .unwrap()
        .with_bag_weights(ws.clone(), wt.clone())
        .unwrap()
        .with_bag_table(table.clone())
        .unwrap();
    // `P` zero on the word states' 12 rows and drawn on the features' 6: the sentence vector
    // is the bag plus the features through `P`, whatever the recurrence says.
    draw_bag_projections([model.src_bag.as_mut(), model.tgt_bag.as_mut()], &device);
    for bag in [model.src_bag.as_mut(), model.tgt_bag.as_mut()] {
        let bag = bag.unwrap();
        let mut proj = host2(bag.proj.val());
        proj[..12 * 8].fill(0.0);
        bag.proj = burn::module::Param::from_tensor(burn::tensor::Tensor::from_data(
            burn::tensor::TensorData::new(proj, [18, 8]),
            &device,
        ));
    }
    let sents: [&[u32]; 4] = [&[1, 2, 3], &[5, 7, 7, 9, 4], &[11], &[8, 10]];
    let mut fired = 0;
    let sides = [
        (Side::Source, &ws, &model.src_ngrams, &model.src_bag),
        (Side::Target, &wt, &model.tgt_ngrams, &model.tgt_bag),
    ];
    for (side, w, ng, bag) in sides {
        let (ng, proj) = (
            ng.as_ref().unwrap(),
            host2(bag.as_ref().unwrap().proj.val()),
        );
        let tensors = host2(model.encode(&sents, side).unwrap());
        let on_host = model
            .encode_all(&sents, side, &Bucketing::default())
            .unwrap();
        for (i, s) in sents.iter().enumerate() {
            let f = ngram_features(ng, &table, 8, s);
            for (k, bag) in weighted_bag(&table, 8, w, s).into_iter().enumerate() {
                let through: f64 = (0..6)
                    .map(|r| f[r] * f64::from(proj[(12 + r) * 8 + k]))
                    .sum();
                let want = bag + through;
                for (how, got) in [("tensors", tensors[i * 8 + k]), ("host", on_host.row(i)[k])] {
                    let g = f64::from(got);
                    assert!(
                        (g - want).abs() < 1e-4,
                        "{side:?} {how} {i} {k}: {g} vs {want}"
                    );
                }
            }
            fired += f.iter().filter(|&&v| v > 0.0).count();
        }
    }
    // The comparison means something only where features fire.
    assert!(fired >= 12, "only {fired} features fired");
}

#[test]
fn ngram_convolutions_learn_and_split_sides_agree() {
    let (model, norms) = own_table_grads(with_ngrams(), "n-grams");
    let norm = |id| norms.iter().find(|(i, _)| *i == id).unwrap().1;
    for ng in [&model.src_ngrams, &model.tgt_ngrams] {
        let ng = ng.as_ref().unwrap();
        let mut trained = vec![ng.input.weight.id];
        trained.extend(ng.convs.iter().map(|c| c.weight.id));
        for id in trained {
            assert!(norm(id).is_some_and(|n| n > 0.0 && n.is_finite()), "{id:?}");
        }
    }
}

/// An aligner of `base` (bags with their own table) with dropout, max pooling and the ranking
/// term: its loss and gradients the same with split sides as in one graph, none for the bags'
/// table; the model and the gradient norm of each parameter.
fn own_table_grads(base: AlignerConfig, what: &str) -> (Aligner, Vec<(ParamId, Option<f64>)>) {
    let src: Vec<Vec<u32>> = vec![vec![1, 2, 3, 4], vec![4, 5], vec![6, 7, 8], vec![9, 10]];
    let tgt: Vec<Vec<u32>> = vec![vec![6, 7], vec![8, 9, 10, 11, 2], vec![11, 0, 1], vec![5]];
    let labels = word_labels(&src, &tgt);
    let b = batch(&src, &tgt, &labels, &[-1.0, 1.0, -1.0, -1.0]);
    let config = AlignerConfig {
        dropout: 0.2,
        pooling: Pooling::Max,
        ranking: Some(common::pair_ranking()),
        ..base
    };
    let device = cpu().autodiff();
    let mut model = Aligner::new(&config, 5, &device)
        .unwrap()
        .with_bag_weights(bag_row_weights(12, 1), bag_row_weights(12, 2))
        .unwrap()
        .with_bag_table(own_table())
        .unwrap();
    draw_bag_projections([model.src_bag.as_mut(), model.tgt_bag.as_mut()], &device);
    let norms = split_grads_agree(&model, &b, what);
    let norms: Vec<_> = params(&model)
        .into_iter()
        .map(|(id, _)| id)
        .zip(norms)
        .collect();
    let table = model.bag_table.as_ref().unwrap().weight.id;
    assert_eq!(norms.iter().find(|(i, _)| *i == table).unwrap().1, None);
    (model, norms)
}

#[test]
fn the_bags_own_table_gets_no_gradient_and_split_sides_agree() {
    let (model, norms) = own_table_grads(with_table(), "own table");
    let norm = |id| norms.iter().find(|(i, _)| *i == id).unwrap().1;
    // The encoders' tables (not frozen) still learn through the recurrence, and `P` and `W`
    // through the ranking term.
    let bag = model.src_bag.as_ref().unwrap();
    for id in [
        model.src_embedding.weight.id,
        model.tgt_embedding.weight.id,
        bag.proj.id,
        bag.map.as_ref().unwrap().id,
    ] {
        assert!(norm(id).is_some_and(|n| n > 0.0 && n.is_finite()), "{id:?}");
    }
}

/// An aligner whose bags read a table of the testkit lexicon's vectors (one word vocabulary)
/// and whose n-gram convolutions read it too, trained from text once.
fn trained_with_table() -> &'static (tempfile::TempDir, tempfile::TempDir) {
    static MODEL: OnceLock<(tempfile::TempDir, tempfile::TempDir)> = OnceLock::new();
    MODEL.get_or_init(|| {
        let vectors = tempfile::tempdir().unwrap();
        let (de, en) = bitext_testkit::data::lexicon(20, 12, 3);
        let (pd, pe) = (vectors.path().join("de.vec"), vectors.path().join("en.vec"));
        bitext_core::io::vec::write_vec(&pd, &de).unwrap();
        bitext_core::io::vec::write_vec(&pe, &en).unwrap();
        let network = common::small_widths(AlignerConfig {
            ff: 6,
            pooling: Pooling::Max,
            ..with_ngrams()
        });
        let dir = tempfile::tempdir().unwrap();
        let (src, tgt) = parallel_text(120, 1);
        let (vs, vt) = parallel_text(20, 2);
        let mut job = common::aligner_text_job(&src, &tgt, (&vs, &vt), network);
        job.corpus.vocab.joint = true;
        // Without the table's vectors, and with them for bags that read the encoders' rows:
        // refused before training.
        for (bag_table, init) in [(true, None), (false, Some(pd.clone()))] {
            let mut bad = clone_with(&job, bag_table, init);
            bad.train.train.epochs = 1;
            let e = bad.run(dir.path(), false).unwrap_err();
            assert!(e.to_string().contains("own table"), "{e}");
        }
        job.bag_init = Some(bitext_neural::pretrained::VectorsInit {
            source: pd,
            target: Some(pe),
            max_words: None,
        });
        let trained = job.run(dir.path(), false).unwrap();
        let report = trained.bag_init.unwrap();
        assert!(report.from_file >= 20, "{report:?}");
        (dir, vectors)
    })
}

/// A copy of `job` without a teacher, the bags' own table switched to `bag_table` (and the
/// n-gram convolutions, which read it, kept only with it) and its vectors from `init`.
fn clone_with<'a>(
    job: &bitext_neural::aligner::AlignerTextTraining<'a>,
    bag_table: bool,
    init: Option<std::path::PathBuf>,
) -> bitext_neural::aligner::AlignerTextTraining<'a> {
    bitext_neural::aligner::AlignerTextTraining {
        corpus: job.corpus.clone(),
        network: AlignerConfig {
            bag_table,
            ..job.network
        }
        .with_encoder(|e| {
            e.ngrams = if bag_table {
                job.network.ngrams
            } else {
                NgramOrders::default()
            };
            e.ngram_channels = if bag_table {
                job.network.ngram_channels
            } else {
                0
            };
        }),
        train: job.train.clone(),
        kinds: job.kinds.clone(),
        per_kind: job.per_kind,
        links: job.links,
        teacher: None,
        distill: None,
        bag_init: init.map(|source| bitext_neural::pretrained::VectorsInit {
            source,
            target: None,
            max_words: None,
        }),
    }
}

fn model_with_table() -> AlignerModel {
    AlignerModel::load(trained_with_table().0.path(), BackendSpec::Flex).unwrap()
}

#[test]
fn a_model_whose_bags_have_their_own_table_keeps_the_vectors() {
    let m = model_with_table();
    let network = m.description().network;
    assert!(network.bag_table);
    assert_eq!(
        (network.ngrams.orders(), network.ngram_channels),
        (vec![1, 3], 3)
    );
    let (de, _) = bitext_testkit::data::lexicon(20, 12, 3);
    let table = m.model().bag_table.as_ref().unwrap().weight.val();
    let table = table.into_data().try_into_vec::<f32>().unwrap();
    let tok = m.text().tokenizer(Side::Source);
    let mut checked = 0;
    for (w, row) in de.words().iter().zip(de.vectors().rows()) {
        if let Some(id) = tok.token_to_id(w) {
            assert_eq!(&table[id as usize * 12..(id as usize + 1) * 12], row, "{w}");
            checked += 1;
        }
    }
    assert!(
        checked >= 10,
        "only {checked} words of the lexicon in the vocabulary"
    );
}

sentence_encoder_suite!(
    aligner_with_its_bags_own_table,
    model_with_table(),
    bitext_testkit::encoder::Expect::within(1e-5)
);
