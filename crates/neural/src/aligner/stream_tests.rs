//! Tests of the distillation stream: epochs, checks, the ranking term and the ranking term
//! that spares the word states.

use super::*;
use crate::aligner::{AlignerConfig, Objective};
use crate::init::to_host1;
use crate::siamese::Pooling;
use crate::text::TextNetwork;
use bitext_core::Embeddings;
use bitext_encode::Side;
use burn::tensor::Device;

/// A small aligner whose max-pooled sentence vector has a mapped bag.
fn bagged() -> AlignerConfig {
    AlignerConfig {
        ff: 4,
        objective: Objective::Words,
        pooling: Pooling::Max,
        ..AlignerConfig::paper(12, 12)
    }
    .with_encoder(|e| {
        (e.emb_dim, e.hidden) = (6, 5);
        (e.bag, e.bag_map) = (true, true);
    })
}

fn ranking(weight: f64) -> RankingTerm {
    RankingTerm {
        weight,
        scale: 7.0,
        margin: 0.3,
        pairs: 0,
    }
}

fn pairs(n: usize, per_epoch: usize) -> DistillPairs {
    let rows = Embeddings::from_rows((0..n).map(|k| [k as f32 + 1.0, 1.0]), 2).unwrap();
    DistillPairs {
        src: (0..n).map(|k| vec![1; 1 + k % 5]).collect(),
        tgt: (0..n).map(|k| vec![2; 1 + k % 3]).collect(),
        src_rows: rows.clone().into(),
        tgt_rows: rows.into(),
        per_epoch,
        ranking: None,
        ranking_spares_words: false,
        parallel: n,
    }
}

/// An epoch draws `per_epoch` distinct pairs (all when there are fewer), each in one
/// batch, and another draw next time.
#[test]
fn an_epoch_draws_distinct_pairs_into_batches() {
    let batching = Bucketing {
        max_items: 4,
        max_tokens: 40,
    };
    let mut rng = Rng::seed(3);
    let p = pairs(50, 20);
    let draw = |rng: &mut Rng| {
        let batches = p.epoch(&batching, rng);
        assert!(batches.iter().all(|b| !b.is_empty() && b.len() <= 4));
        let mut all: Vec<usize> = batches.concat();
        all.sort_unstable();
        all
    };
    let (a, b) = (draw(&mut rng), draw(&mut rng));
    for d in [&a, &b] {
        assert_eq!(d.len(), 20);
        assert!(d.windows(2).all(|w| w[0] < w[1]) && d[19] < 50, "{d:?}");
    }
    assert_ne!(a, b);
    let few = pairs(7, 20);
    let mut all = few.epoch(&batching, &mut rng).concat();
    all.sort_unstable();
    assert_eq!(all, (0..7).collect::<Vec<_>>());
}

/// Mismatched counts, an empty side, another width, a non-finite row, no pairs per epoch and
/// more parallel pairs than pairs are errors that say which.
#[test]
fn bad_pairs_are_errors_naming_the_fault() {
    assert!(pairs(5, 2).check(2).is_ok());
    let mut p = pairs(5, 2);
    p.tgt.pop();
    let cases: Vec<(DistillPairs, usize, &str)> = vec![
        (p, 2, "4 target sentences"),
        (
            DistillPairs {
                src: vec![vec![1], vec![]],
                ..pairs(2, 1)
            },
            2,
            "pair 2 has a side without tokens",
        ),
        (pairs(5, 2), 3, "2 dimensions but the student's 3"),
        (
            DistillPairs {
                tgt_rows: Embeddings::from_rows([[f32::NAN, 0.0]], 2).unwrap().into(),
                ..pairs(1, 1)
            },
            2,
            "",
        ),
        (pairs(5, 0), 2, "per epoch"),
        (
            DistillPairs {
                parallel: 6,
                ..pairs(5, 2)
            },
            2,
            "6 parallel distillation pairs of 5",
        ),
        (pairs(0, 1), 2, "no distillation pairs"),
        (
            DistillPairs {
                ranking: Some(RankingTerm {
                    pairs: 64,
                    ..ranking(1.0)
                }),
                ..pairs(5, 2)
            },
            2,
            "pairs must be 0, got 64",
        ),
        (
            DistillPairs {
                ranking: Some(RankingTerm {
                    scale: 0.0,
                    ..ranking(1.0)
                }),
                ..pairs(5, 2)
            },
            2,
            "positive finite scale",
        ),
    ];
    for (p, dim, want) in cases {
        let e = p.check(dim).unwrap_err().to_string();
        assert!(e.contains(want), "{want}: {e}");
    }
}

/// The in-batch ranking loss by its definition, on host vectors: the mean over pairs of
/// the cross-entropies of row `i` and column `i` of `scale·(S − margin·I)`, with the
/// entries `same` names left out.
fn ranking_reference(
    a: &Embeddings,
    b: &Embeddings,
    r: &RankingTerm,
    same: impl Fn(usize, usize) -> bool,
) -> f64 {
    let n = a.len();
    let logit = |i: usize, j: usize| {
        let c = f64::from(bitext_similarity::cosine(a.row(i), b.row(j)));
        r.scale * (c - if i == j { r.margin } else { 0.0 })
    };
    let xent = |i: usize, row: bool| {
        let at = |j: usize| if row { logit(i, j) } else { logit(j, i) };
        let lse = (0..n)
            .filter(|&j| j == i || !same(i, j))
            .map(|j| at(j).exp())
            .sum::<f64>()
            .ln();
        lse - at(i)
    };
    (0..n).map(|i| xent(i, true) + xent(i, false)).sum::<f64>() / (2.0 * n as f64)
}

/// With a ranking term, a batch's loss is the teacher's weighted distance plus the term's
/// weight times the in-batch ranking of its source against its target vectors, pairs that
/// repeat a sentence not counted as each other's negatives and pairs that are not parallel
/// left out; a batch of one parallel pair has no ranking term.
#[test]
fn the_ranking_term_adds_the_batchs_in_batch_ranking_to_the_pull() {
    let config = bagged();
    let model = Aligner::new(&config, 5, &Device::flex()).unwrap();
    // Pairs 0 and 3 share their source sentence, 1 and 4 their target sentence.
    let src: Vec<Vec<u32>> = vec![
        vec![1, 2, 3],
        vec![4, 5],
        vec![6, 7, 8],
        vec![1, 2, 3],
        vec![9],
    ];
    let tgt: Vec<Vec<u32>> = vec![
        vec![2, 9],
        vec![3, 4, 5],
        vec![10, 11],
        vec![7],
        vec![3, 4, 5],
    ];
    let dim = model.dim();
    let mut rng = Rng::seed(8);
    let rows = Embeddings::from_rows(
        (0..src.len()).map(|_| (0..dim).map(|_| rng.normal() as f32).collect::<Vec<_>>()),
        dim,
    )
    .unwrap();
    let mut p = DistillPairs {
        src: src.clone(),
        tgt: tgt.clone(),
        src_rows: rows.clone().into(),
        tgt_rows: rows.into(),
        per_epoch: 5,
        ranking: None,
        ranking_spares_words: false,
        parallel: 5,
    };
    let batch = [0, 1, 2, 3, 4];
    let value = |p: &DistillPairs, batch: &[usize]| {
        let l = p.loss(&model, batch, 2.0, &mut Rng::seed(1)).unwrap();
        f64::from(to_host1(l.value).unwrap()[0])
    };
    let pull = value(&p, &batch);
    let r = ranking(1.5);
    p.ranking = Some(r);
    let with = value(&p, &batch);
    fn seqs(s: &[Vec<u32>]) -> Vec<&[u32]> {
        s.iter().map(|x| &x[..]).collect()
    }
    let bucketing = Bucketing::default();
    let a = model
        .encode_all(&seqs(&src), Side::Source, &bucketing)
        .unwrap();
    let b = model
        .encode_all(&seqs(&tgt), Side::Target, &bucketing)
        .unwrap();
    let same = |i: usize, j: usize| i != j && (src[i] == src[j] || tgt[i] == tgt[j]);
    let want = ranking_reference(&a, &b, &r, same);
    assert!(want > 0.1, "{want}");
    let got = (with - pull) / r.weight;
    assert!((got - want).abs() < 1e-4, "{got} vs {want}");
    // Counting the repeats as negatives would give another loss.
    let all = ranking_reference(&a, &b, &r, |_, _| false);
    assert!((all - want).abs() > 1e-3, "{all} vs {want}");
    // One pair: nothing to rank against.
    p.ranking = None;
    let one = value(&p, &[2]);
    p.ranking = Some(r);
    assert!((value(&p, &[2]) - one).abs() < 1e-6);
    // Only the parallel pairs 0..4 are ranked, wherever the batch puts them; pair 4 (not
    // parallel) is only pulled, and no longer shares a target with pair 1.
    let mixed = [4, 2, 0, 3, 1];
    p.parallel = 4;
    p.ranking = None;
    let pull = value(&p, &mixed);
    p.ranking = Some(r);
    let got = (value(&p, &mixed) - pull) / r.weight;
    let first = |e: &Embeddings| e.slice_rows(0..4).to_owned();
    let want = ranking_reference(&first(&a), &first(&b), &r, same);
    assert!((got - want).abs() < 1e-4, "{got} vs {want}");
    // A batch with one parallel pair has no term.
    p.ranking = None;
    let lone = value(&p, &[4, 1]);
    p.ranking = Some(r);
    assert!((value(&p, &[4, 1]) - lone).abs() < 1e-6);
}

/// Every float parameter's gradient of `grads` in `module`, in visiting order.
fn grads_of<M: burn::module::Module>(
    module: &M,
    grads: &burn::optim::GradientsParams,
) -> Vec<Vec<f32>> {
    crate::train::grads_of(module, grads)
        .into_iter()
        .map(|(_, g)| g)
        .collect()
}

fn max_diff(a: &[Vec<f32>], b: &[Vec<f32>]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            assert_eq!(x.len(), y.len(), "a gradient missing on one side");
            x.iter()
                .zip(y)
                .map(|(p, q)| (p - q).abs())
                .fold(0f32, f32::max)
        })
        .fold(0f32, f32::max)
}

/// A ranking term that spares the word states has the full term's value, gives the bags
/// (their weights, maps and `P`) and the n-gram convolutions the full term's gradient, and
/// leaves the recurrent encoders the gradient of the pull alone, with the sides split on
/// two threads or in one graph; a network without a bag refuses it.
#[test]
fn a_ranking_term_that_spares_the_words_leaves_the_encoders_to_the_pull() {
    use burn::module::Param;
    use burn::tensor::{Tensor, TensorData};
    let config = bagged().with_encoder(|e| {
        e.ngrams = crate::ngrams::NgramOrders::new(&[1, 2]).unwrap();
        e.ngram_channels = 3;
        e.frozen_embeddings = true;
    });
    let device = Device::flex().autodiff();
    let mut model = Aligner::new(&config, 5, &device).unwrap();
    // P starts at zero, which would hide any gradient through it: draw it.
    let mut rng = Rng::seed(4);
    for bag in [model.src_bag.as_mut(), model.tgt_bag.as_mut()]
        .into_iter()
        .flatten()
    {
        let [h, d] = bag.proj.dims();
        let v: Vec<f32> = (0..h * d).map(|_| rng.normal() as f32).collect();
        bag.proj = Param::from_tensor(Tensor::from_data(TensorData::new(v, [h, d]), &device));
    }
    let src: Vec<Vec<u32>> = vec![vec![1, 2, 3], vec![4, 5], vec![6, 7, 8, 2], vec![9]];
    let tgt: Vec<Vec<u32>> = vec![vec![2, 9], vec![3, 4, 5], vec![10, 11], vec![7, 1]];
    let dim = model.dim();
    let rows = Embeddings::from_rows(
        (0..src.len()).map(|_| (0..dim).map(|_| rng.normal() as f32).collect::<Vec<_>>()),
        dim,
    )
    .unwrap();
    let base = DistillPairs {
        src,
        tgt,
        src_rows: rows.clone().into(),
        tgt_rows: rows.into(),
        per_epoch: 4,
        ranking: None,
        ranking_spares_words: false,
        parallel: 4,
    };
    let batch = [0, 1, 2, 3];
    for split in [true, false] {
        let model = model.clone().with_split_sides(split);
        let run = |ranking: Option<RankingTerm>, spare: bool| {
            let p = DistillPairs {
                ranking,
                ranking_spares_words: spare,
                ..base.clone()
            };
            let l = p.loss(&model, &batch, 2.0, &mut Rng::seed(1)).unwrap();
            let value = l.value.clone().into_data().try_into_vec::<f32>().unwrap()[0];
            let g = crate::train::backward(&model, l).unwrap();
            let encoders = [&model.src_encoder, &model.tgt_encoder]
                .map(|e| grads_of(e, &g))
                .concat();
            let mut sentence = Vec::new();
            for bag in [&model.src_bag, &model.tgt_bag].into_iter().flatten() {
                sentence.extend(grads_of(bag, &g));
            }
            for ng in [&model.src_ngrams, &model.tgt_ngrams].into_iter().flatten() {
                sentence.extend(grads_of(ng, &g));
            }
            (value, encoders, sentence)
        };
        let r = Some(ranking(1.5));
        let (v0, enc0, sent0) = run(None, false);
        let (v1, enc1, sent1) = run(r, false);
        let (v2, enc2, sent2) = run(r, true);
        assert!(
            (v1 - v0).abs() > 0.01,
            "{split}: the term adds nothing: {v0} {v1}"
        );
        assert!((v2 - v1).abs() < 1e-5, "{split}: {v2} vs {v1}");
        assert!(
            enc0.iter().all(|g| !g.is_empty()),
            "{split}: an encoder has no gradient"
        );
        assert!(
            max_diff(&enc1, &enc0) > 1e-4,
            "{split}: the full term misses the encoders"
        );
        let d = max_diff(&enc2, &enc0);
        assert!(
            d < 1e-6,
            "{split}: the spared encoders' gradient moved by {d}"
        );
        assert!(max_diff(&sent1, &sent0) > 1e-4, "{split}");
        let d = max_diff(&sent2, &sent1);
        assert!(
            d < 1e-5,
            "{split}: the bags' gradient differs from the full term's by {d}"
        );
        // A batch of one pair has no term, so nothing to spare.
        let p = DistillPairs {
            ranking: r,
            ranking_spares_words: true,
            ..base.clone()
        };
        assert!(p.loss(&model, &[1], 2.0, &mut Rng::seed(1)).is_ok());
    }
    let plain = Aligner::new(
        &config.with_encoder(|e| {
            (e.bag, e.bag_map) = (false, false);
            e.ngrams = crate::ngrams::NgramOrders::default();
            e.ngram_channels = 0;
        }),
        5,
        &device,
    )
    .unwrap();
    let p = DistillPairs {
        ranking: Some(ranking(1.0)),
        ranking_spares_words: true,
        ..base
    };
    let e = p.loss(&plain, &batch, 2.0, &mut Rng::seed(1)).unwrap_err();
    assert!(e.to_string().contains("needs a bag"), "{e}");
}
