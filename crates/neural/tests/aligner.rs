//! The word-alignment BiLSTM: the log-sum-exp aggregation against a direct computation,
//! padding kept out of the alignment matrix, the word loss against its definition, gradients
//! to every parameter (the same with the encoders back-propagated on two threads as in one
//! graph), a tiny task that it learns, the model directory round trip and resume,
//! word scores and fixing of text, and the `SentenceEncoder` / `PairScorer` conformance suites.

mod common;

use std::sync::OnceLock;

use bitext_core::Rng;
use bitext_encode::Side;
use bitext_neural::aligner::{
    Aligner, AlignerConfig, AlignerModel, AlignerTask, FixConfig, Kind, LabeledRef, Objective,
    RankingTerm, Synthesizer, evaluate,
};
use bitext_neural::backend::{BackendSpec, Threads};
use bitext_neural::batch::Bucketing;
use bitext_neural::rnn::CellKind;
use bitext_neural::siamese::Pooling;
use bitext_neural::spec::NeuralModel;
use bitext_neural::text::TextTraining;
use bitext_neural::train::{backward, checkpoint};
use bitext_testkit::data::parallel_text;
use bitext_testkit::sentence_encoder_suite;
use common::{aligner_text_job, cpu, grad_values, labeled, scalar, small_text_aligner, toy_corpus};

fn tiny(objective: Objective) -> AlignerConfig {
    common::tiny_aligner(14, 14, objective)
}

fn softplus(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

/// `aggr_s(i) = (1/r) log Σ_j exp(r·S(i, j))` over the real target words only, and likewise
/// `aggr_t`, for several `r`, with pairs of different lengths in one batch.
#[test]
fn aggregation_matches_a_direct_computation() {
    for r in [1.0, 0.3, 2.5] {
        let model = Aligner::new(
            &AlignerConfig {
                r,
                ..tiny(Objective::Words)
            },
            4,
            &cpu(),
        )
        .unwrap();
        let src: Vec<&[u32]> = vec![&[1, 2, 3], &[4, 5, 6, 7, 8, 9], &[10]];
        let tgt: Vec<&[u32]> = vec![&[3, 2, 1, 0, 5], &[7], &[8, 9]];
        for o in model.pairs(&src, &tgt).unwrap() {
            let (i, j) = (o.src_len, o.tgt_len);
            assert_eq!(o.alignment.len(), i * j);
            let s = |a: usize, b: usize| f64::from(o.alignment[a * j + b]);
            for a in 0..i {
                let direct = (0..j).map(|b| (r * s(a, b)).exp()).sum::<f64>().ln() / r;
                assert!((direct - f64::from(o.src_scores[a])).abs() < 1e-4, "r {r}");
            }
            for b in 0..j {
                let direct = (0..i).map(|a| (r * s(a, b)).exp()).sum::<f64>().ln() / r;
                assert!((direct - f64::from(o.tgt_scores[b])).abs() < 1e-4, "r {r}");
            }
        }
    }
}

/// A pair's alignment matrix, word scores and vectors are the same alone and in a batch with
/// longer sentences (whose extra positions are padding for it).
#[test]
fn padding_stays_out_of_the_matrix() {
    for cell in [CellKind::Lstm, CellKind::Gru] {
        let model = Aligner::new(
            &tiny(Objective::Both).with_encoder(|e| e.cell = cell),
            9,
            &cpu(),
        )
        .unwrap();
        let (s, t): (&[u32], &[u32]) = (&[1, 2], &[3, 4, 5]);
        let alone = &model.pairs(&[s], &[t]).unwrap()[0];
        let long: &[u32] = &[6, 7, 8, 9, 10, 11, 12, 13];
        let batched = model.pairs(&[long, s, long], &[long, t, &[1]]).unwrap();
        let b = &batched[1];
        assert_eq!((b.src_len, b.tgt_len), (2, 3));
        let close = |x: &[f32], y: &[f32]| x.iter().zip(y).all(|(a, b)| (a - b).abs() < 1e-5);
        assert!(close(&alone.alignment, &b.alignment), "{cell:?}");
        assert!(close(&alone.src_scores, &b.src_scores));
        assert!(close(&alone.tgt_scores, &b.tgt_scores));
        assert!((alone.cosine - b.cosine).abs() < 1e-5 && (alone.semb - b.semb).abs() < 1e-5);
    }
}

/// The loss of a batch is eq. 3 summed over each example's words plus eq. 5, averaged over
/// the examples, recomputed here from the aggregates and `h_sim`.
#[test]
fn the_loss_is_its_definition() {
    let model = Aligner::new(&tiny(Objective::Both), 2, &cpu()).unwrap();
    let src: Vec<Vec<u32>> = vec![vec![1, 2, 3], vec![4, 5]];
    let tgt: Vec<Vec<u32>> = vec![vec![6, 7], vec![8, 9, 10, 11]];
    let ys: [Vec<f32>; 2] = [vec![-1.0, 1.0, -1.0], vec![1.0, 1.0]];
    let yt: [Vec<f32>; 2] = [vec![-1.0, 1.0], vec![1.0, -1.0, 1.0, 1.0]];
    let labels: [f32; 2] = [-1.0, 1.0];
    let batch = labeled(&src, &tgt, &ys, &yt, &labels);
    let l = model.loss(&batch, None).unwrap();
    let got = |t: burn::tensor::Tensor<1>| f64::from(t.into_data().try_to_vec::<f32>().unwrap()[0]);
    let s: Vec<&[u32]> = src.iter().map(Vec::as_slice).collect();
    let t: Vec<&[u32]> = tgt.iter().map(Vec::as_slice).collect();
    let out = model.pairs(&s, &t).unwrap();
    let (mut words, mut sentence) = (0.0, 0.0);
    for k in 0..2 {
        for (a, y) in out[k].src_scores.iter().zip(&ys[k]) {
            words += softplus(f64::from(*a) * f64::from(*y));
        }
        for (a, y) in out[k].tgt_scores.iter().zip(&yt[k]) {
            words += softplus(f64::from(*a) * f64::from(*y));
        }
        sentence += softplus(f64::from(out[k].semb) * f64::from(labels[k]));
    }
    let (w, se) = (got(l.words), got(l.sentence));
    assert!((w - words / 2.0).abs() < 1e-4, "{w} vs {}", words / 2.0);
    assert!((se - sentence / 2.0).abs() < 1e-4);
    assert!((got(l.loss.value) - (w + se)).abs() < 1e-4);
    // Labels that do not match the sentences are refused.
    let bad = [LabeledRef {
        src_labels: &ys[1],
        ..batch[0]
    }];
    assert!(model.loss(&bad, None).is_err());
}

#[test]
fn gradient_reaches_every_parameter() {
    let config = AlignerConfig {
        dropout: 0.1,
        ..tiny(Objective::Both)
    };
    let model = Aligner::new(&config, 3, &cpu().autodiff()).unwrap();
    let src: Vec<Vec<u32>> = vec![vec![1, 2, 3], vec![4, 5], vec![6]];
    let tgt: Vec<Vec<u32>> = vec![vec![6, 7], vec![8, 9, 10, 11], vec![12, 13, 1]];
    let lab = |v: &Vec<u32>| -> Vec<f32> {
        v.iter()
            .map(|&x| if x % 2 == 0 { 1.0 } else { -1.0 })
            .collect()
    };
    let (ys, yt): (Vec<_>, Vec<_>) = (src.iter().map(lab).collect(), tgt.iter().map(lab).collect());
    let batch = labeled(&src, &tgt, &ys, &yt, &[-1.0, 1.0, 1.0]);
    let l = model.loss(&batch, Some(&mut Rng::seed(4))).unwrap();
    // One stage back-propagates both encoders (cut off the loss, on two threads).
    assert_eq!(l.loss.deferred.len(), 1);
    let grads = backward(&model, l.loss).unwrap();
    common::assert_every_param_learns(&model, &grads, "");
}

#[test]
fn split_sides_give_the_gradients_of_one_graph() {
    // The two encoders cut off the loss and back-propagated on two threads (the default)
    // against one autodiff graph through everything, with the same dropout draws; a frozen
    // table and a trained one, each objective.
    for (objective, frozen, pooling) in [
        (Objective::Both, false, Pooling::Last),
        (Objective::Words, true, Pooling::Max),
        (Objective::Sentence, false, Pooling::Max),
    ] {
        let config = AlignerConfig {
            dropout: 0.2,
            pooling,
            // The ranking term too (two parallel examples below).
            ranking: Some(common::pair_ranking()),
            ..tiny(objective)
        }
        .with_encoder(|e| e.frozen_embeddings = frozen);
        let model = Aligner::new(&config, 5, &cpu().autodiff()).unwrap();
        let src: Vec<Vec<u32>> = vec![vec![1, 2, 3, 4], vec![4, 5], vec![6, 7, 8]];
        let tgt: Vec<Vec<u32>> = vec![vec![6, 7], vec![8, 9, 10, 11, 2], vec![12, 13, 1]];
        let lab = |v: &Vec<u32>| -> Vec<f32> {
            v.iter()
                .map(|&x| if x % 3 == 0 { 1.0 } else { -1.0 })
                .collect()
        };
        let ys: Vec<Vec<f32>> = src.iter().map(lab).collect();
        let yt: Vec<Vec<f32>> = tgt.iter().map(lab).collect();
        let batch = labeled(&src, &tgt, &ys, &yt, &[-1.0, 1.0, -1.0]);
        let grads = |split: bool| {
            let m = model.clone().with_split_sides(split);
            // Two worker threads, so that the split sides do run side by side.
            Threads(2)
                .install(|| {
                    let l = m.loss(&batch, Some(&mut Rng::seed(9)))?;
                    let value = scalar(l.loss.value.clone());
                    Ok((value, grad_values(&m, &backward(&m, l.loss)?)))
                })
                .unwrap()
        };
        let ((v1, one), (v2, split)) = (grads(false), grads(true));
        assert!((v1 - v2).abs() < 1e-6, "{v1} vs {v2}");
        let compared = common::assert_same_grads(&one, &split, &format!("{objective:?}"));
        assert!(compared >= 8, "{objective:?}: only {compared} gradients");
    }
}

#[test]
fn the_ranking_term_is_its_definition_and_joins_the_loss() {
    // Four parallel examples (the first and third share their source: not negatives of each
    // other) and a divergent one, which the term leaves out.
    let src: Vec<Vec<u32>> = vec![
        vec![1, 2, 3],
        vec![4, 5],
        vec![1, 2, 3],
        vec![6, 7, 8, 9],
        vec![10, 11],
    ];
    let tgt: Vec<Vec<u32>> = vec![
        vec![6, 7],
        vec![8, 9, 10],
        vec![12, 13],
        vec![2, 3],
        vec![4, 5, 6],
    ];
    let parallel = |v: &Vec<u32>| vec![-1.0f32; v.len()];
    let ys: Vec<Vec<f32>> = src.iter().map(parallel).collect();
    let yt: Vec<Vec<f32>> = tgt.iter().map(parallel).collect();
    let batch = labeled(&src, &tgt, &ys, &yt, &[-1.0, -1.0, -1.0, -1.0, 1.0]);
    let (scale, margin, weight) = (5.0, 0.3, 0.7);
    let model = |weight: f64| {
        let config = AlignerConfig {
            ranking: Some(RankingTerm {
                weight,
                scale,
                margin,
                pairs: 0,
            }),
            ..tiny(Objective::Both)
        };
        Aligner::new(&config, 5, &cpu()).unwrap()
    };
    let (with, without) = (model(weight), model(0.0));
    let lw = with.loss(&batch, None).unwrap();
    let lo = without.loss(&batch, None).unwrap();
    let (ps, pt): (Vec<&[u32]>, Vec<&[u32]>) = (
        src[..4].iter().map(Vec::as_slice).collect(),
        tgt[..4].iter().map(Vec::as_slice).collect(),
    );
    let a = common::host2(with.encode(&ps, Side::Source).unwrap());
    let b = common::host2(with.encode(&pt, Side::Target).unwrap());
    let same = |i: usize, j: usize| i != j && (ps[i] == ps[j] || pt[i] == pt[j]);
    let expect = common::in_batch_ranking_by_hand(&a, &b, with.dim(), &same, scale, margin);
    let got = f64::from(scalar(lw.ranking));
    assert!(
        (got - expect).abs() <= 1e-4 * expect.max(1.0),
        "{got} vs {expect}"
    );
    let added = f64::from(scalar(lw.loss.value) - scalar(lo.loss.value));
    assert!(
        (added - weight * expect).abs() <= 1e-4 * expect.max(1.0),
        "the loss grew by {added}, not {weight} × {expect}"
    );
    assert_eq!(scalar(lo.ranking), 0.0);
}

#[test]
fn max_pooling_is_the_maximum_of_the_word_states() {
    // A one-word sentence's states are its final states; a longer sentence's maximum differs
    // from them and is at least as large in every coordinate as the final states.
    let pooled = |pooling: Pooling| {
        let config = AlignerConfig {
            pooling,
            ..tiny(Objective::Both)
        };
        let m = Aligner::new(&config, 5, &cpu()).unwrap();
        let s: [&[u32]; 2] = [&[3], &[1, 2, 3, 4, 5]];
        common::host2(m.encode(&s, Side::Source).unwrap())
    };
    let (last, max) = (pooled(Pooling::Last), pooled(Pooling::Max));
    let d = last.len() / 2;
    assert!(common::max_diff(&last[..d], &max[..d]) < 1e-6);
    // The forward half of the last state is the state at the last word, the backward half
    // the state at the first: both are among the positions the maximum runs over.
    assert!(last[d..].iter().zip(&max[d..]).all(|(l, m)| m >= l));
    assert!(common::max_diff(&last[d..], &max[d..]) > 1e-4);
}

/// On the testkit's learnable text the word-divergence accuracy of held-out synthetic examples
/// rises well above chance and above the untrained network's.
#[test]
fn it_learns_word_divergences_on_a_tiny_task() {
    let config = AlignerConfig::paper(20, 20).with_encoder(|e| {
        e.emb_dim = 16;
        e.hidden = 16;
    });
    let kinds = Kind::parse_set("PURI").unwrap();
    let valid_corpus = toy_corpus(60, 2);
    let valid = Synthesizer::new(&valid_corpus)
        .unwrap()
        .epoch(&kinds, 40, &mut Rng::seed(5))
        .unwrap();
    let batching = Bucketing {
        max_items: 16,
        max_tokens: 400,
    };
    let mut task = AlignerTask::new(
        config,
        toy_corpus(300, 1),
        &kinds,
        150,
        Some(valid.clone()),
        batching,
    )
    .unwrap();
    let model = Aligner::new(&config, 1, &cpu().autodiff()).unwrap();
    let untrained = Aligner::new(&config, 1, &cpu()).unwrap();
    let batches: Vec<Vec<usize>> = (0..valid.len()).map(|i| vec![i]).collect();
    let (_, before) = evaluate(&untrained, &valid, &batches).unwrap();
    let fitted = common::fit_clipped(&mut task, model, 12, 7);
    let h = &fitted.state.history;
    let acc = h[h.len() - 1].valid.as_ref().unwrap().metrics["word_accuracy"];
    assert!(
        acc > 0.85 && acc > before.overall() + 0.2,
        "{} → {acc}",
        before.overall()
    );
    assert!(h[h.len() - 1].train_loss < h[0].train_loss);
}

/// An aligner trained from text once for the tests below.
fn trained() -> &'static tempfile::TempDir {
    static MODEL: OnceLock<tempfile::TempDir> = OnceLock::new();
    MODEL.get_or_init(|| {
        let (dir, t) = common::train_text_aligner(small_text_aligner());
        assert_eq!((t.dropped_pairs, t.truncated), (0, 0));
        assert_eq!(t.valid.as_ref().unwrap().len(), 20);
        dir
    })
}

fn model() -> AlignerModel {
    common::load_aligner(trained().path())
}

/// The directory loads back with the trained weights; word scores and fixing of text give one
/// score per token and spans inside the sentences; resuming a finished run changes nothing.
#[test]
fn the_model_directory_round_trips_and_scores_text() {
    let m = model();
    assert_eq!(m.description().kinds, "PURI");
    let (src, tgt) = parallel_text(6, 9);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt.iter().map(String::as_str).collect();
    for w in m.word_scores(&s, &t).unwrap() {
        assert_eq!(w.src_scores.len(), w.src_tokens.len());
        assert_eq!(w.tgt_scores.len(), w.tgt_tokens.len());
        let (ls, lt) = w.labels();
        assert_eq!(
            (ls.len(), lt.len()),
            (w.src_tokens.len(), w.tgt_tokens.len())
        );
    }
    let longer: Vec<String> = src
        .iter()
        .zip(src.iter().rev())
        .map(|(a, b)| format!("{a} {b}"))
        .collect();
    let l: Vec<&str> = longer.iter().map(String::as_str).collect();
    let fixed = m.fix(&l, &t, FixConfig::default(), None).unwrap();
    assert_eq!(fixed.len(), 6);
    for (f, st, tt) in &fixed {
        assert!(f.spans.src.end <= st.len() && f.spans.tgt.end <= tt.len());
        assert!(!f.spans.src.is_empty() && !f.spans.tgt.is_empty());
    }
    // Re-ranked by another encoder reading the candidates' text (here the model itself): the
    // same choice and cosines as its own vectors; weight 0 keeps the first candidate.
    let through = m.fix(&l, &t, FixConfig::default(), Some(&m)).unwrap();
    for ((a, ..), (b, ..)) in fixed.iter().zip(&through) {
        assert_eq!(a.spans, b.spans);
        assert!((a.cosine - b.cosine).abs() < 1e-4 && (a.original - b.original).abs() < 1e-4);
    }
    let with = |c: FixConfig| m.fix(&l, &t, c, None).unwrap();
    let first = with(FixConfig {
        candidates: 1,
        ..FixConfig::default()
    });
    let zero = with(FixConfig {
        rerank_weight: Some(0.0),
        ..FixConfig::default()
    });
    for ((a, ..), (b, ..)) in first.iter().zip(&zero) {
        assert_eq!(a.spans, b.spans);
    }
    let bad = FixConfig {
        rerank_weight: Some(-1.0),
        ..FixConfig::default()
    };
    assert!(m.fix(&l, &t, bad, None).is_err());
    assert!(m.word_scores(&s[..2], &t).is_err());
    assert!(m.word_scores(&["", "a1"], &t[..2]).is_err());
    let before = std::fs::read(trained().path().join(checkpoint::WEIGHTS_FILE)).unwrap();
    let (src, tgt) = parallel_text(120, 1);
    let (vs, vt) = parallel_text(20, 2);
    let copy = tempfile::tempdir().unwrap();
    common::copy_dir(trained().path(), copy.path());
    let again = aligner_text_job(&src, &tgt, (&vs, &vt), small_text_aligner())
        .run(copy.path(), true)
        .unwrap();
    assert!(again.init.is_none());
    let after = std::fs::read(copy.path().join(checkpoint::WEIGHTS_FILE)).unwrap();
    assert!(
        after == before,
        "resuming a finished run changed the weights"
    );
    let model = NeuralModel::load(&bitext_encode::ModelSpec::new(trained().path())).unwrap();
    assert!(matches!(model, NeuralModel::Aligner(_)));
    assert_eq!(m.vectors(Side::Target, &t).unwrap().dim(), 16);
}

sentence_encoder_suite!(
    aligner_encoder,
    model(),
    bitext_testkit::encoder::Expect::within(1e-5)
);

fn model_encoder() -> bitext_neural::spec::ModelEncoder {
    bitext_neural::spec::ModelEncoder::load(trained().path(), BackendSpec::Flex).unwrap()
}

sentence_encoder_suite!(
    model_encoder_of_an_aligner,
    model_encoder(),
    bitext_testkit::encoder::Expect::within(1e-5)
);

/// 12 sources and 10 targets: the translations of the first 8 sources, then 2 unrelated.
fn scorer(semb: bool) -> Box<dyn bitext_similarity::PairScorer> {
    let (src, tgt) = parallel_text(12, 31);
    let (_, other) = parallel_text(2, 32);
    let s: Vec<&str> = src.iter().map(String::as_str).collect();
    let t: Vec<&str> = tgt[..8].iter().chain(&other).map(String::as_str).collect();
    model().scorer(&s, &t, semb).unwrap()
}

bitext_testkit::pair_scorer_suite!(
    aligner_wemb,
    scorer(false),
    bitext_testkit::scorer::Expect::within(1e-6)
);
bitext_testkit::pair_scorer_suite!(
    aligner_semb,
    scorer(true),
    bitext_testkit::scorer::Expect::within(1e-5)
);
