//! Tests of the [`Miner`]: against an independent transcription of LASER's `mine_bitexts.py`
//! over the full similarity matrix, on planted data, with other scorers, and its errors.

use super::*;
use bitext_core::{Embeddings, Rng};
use bitext_knn::{ExactIndex, IndexSpec, KnnIndex, Metric, OnePass, Stage, TwoIndexes};
use bitext_similarity::{EmbeddingScorer, MarginFunction, Measure};
use proptest::prelude::*;

/// The exact search in one pass (bitext-knn tests it against two searches and a brute force).
const EXACT: OnePass = OnePass {
    metric: Metric::InnerProduct,
    params: bitext_knn::ExactParams {
        query_block: 256,
        kernel: bitext_knn::Kernel::Auto,
        threads: 0,
        precision: bitext_knn::Precision::F32,
        candidates: 0,
    },
};

/// An index per side from a factory: the path of faiss and other backends.
fn two_indexes() -> TwoIndexes<impl bitext_knn::IndexFactory> {
    fn exact(v: EmbeddingsView<'_>) -> bitext_knn::Result<Box<dyn KnnIndex + '_>> {
        Ok(Box::new(ExactIndex::over(v, Metric::InnerProduct)?))
    }
    TwoIndexes::new(exact, Metric::InnerProduct)
}

fn unit_rows(n: usize, d: usize, rng: &mut Rng) -> Embeddings {
    let mut e = Embeddings::from_rows(
        (0..n).map(|_| (0..d).map(|_| rng.normal() as f32).collect::<Vec<_>>()),
        d,
    )
    .unwrap();
    e.normalize_l2();
    e
}

/// `n` targets, the first `planted` of which are noisy copies of the first sources.
fn planted(nx: usize, ny: usize, planted: usize, d: usize, seed: u64) -> (Embeddings, Embeddings) {
    let mut rng = Rng::seed(seed);
    let x = unit_rows(nx, d, &mut rng);
    let mut y = unit_rows(ny, d, &mut rng);
    for i in 0..planted {
        let noisy: Vec<f32> = x
            .row(i)
            .iter()
            .map(|v| v + 0.1 * rng.normal() as f32)
            .collect();
        y.row_mut(i).copy_from_slice(&noisy);
    }
    y.normalize_l2();
    (x, y)
}

/// LASER's `mine_bitexts.py`, transcribed over the full similarity matrix in f64: returns the
/// (score, src, tgt) pairs it writes before any threshold.
fn laser_reference(
    x: &Embeddings,
    y: &Embeddings,
    k: usize,
    f: MarginFunction,
    r: Retrieval,
) -> Vec<(f64, usize, usize)> {
    let dot = |a: &[f32], b: &[f32]| -> f64 {
        a.iter()
            .zip(b)
            .map(|(p, q)| f64::from(*p) * f64::from(*q))
            .sum()
    };
    let knn = |q: &Embeddings, db: &Embeddings| -> Vec<Vec<(usize, f64)>> {
        q.rows()
            .map(|a| {
                let mut s: Vec<(usize, f64)> =
                    db.rows().enumerate().map(|(j, b)| (j, dot(a, b))).collect();
                s.sort_by(|p, q| q.1.total_cmp(&p.1).then(p.0.cmp(&q.0)));
                s.truncate(k);
                s
            })
            .collect()
    };
    let (x2y, y2x) = (knn(x, y), knn(y, x));
    let mean = |l: &Vec<(usize, f64)>| l.iter().map(|c| c.1).sum::<f64>() / k as f64;
    let (xm, ym): (Vec<f64>, Vec<f64>) = (
        x2y.iter().map(mean).collect(),
        y2x.iter().map(mean).collect(),
    );
    let best = |lists: &Vec<Vec<(usize, f64)>>, qm: &[f64], om: &[f64]| -> Vec<(usize, f64)> {
        lists
            .iter()
            .enumerate()
            .map(|(q, l)| {
                let mut b = (usize::MAX, f64::NEG_INFINITY);
                for &(c, s) in l {
                    let sc = f.apply(s, (qm[q] + om[c]) / 2.0);
                    if sc > b.1 {
                        b = (c, sc);
                    }
                }
                b
            })
            .collect()
    };
    let (fb, bb) = (best(&x2y, &xm, &ym), best(&y2x, &ym, &xm));
    match r {
        Retrieval::Forward => fb
            .iter()
            .enumerate()
            .map(|(i, &(j, s))| (s, i, j))
            .collect(),
        Retrieval::Backward => bb
            .iter()
            .enumerate()
            .map(|(j, &(i, s))| (s, i, j))
            .collect(),
        Retrieval::Intersection => fb
            .iter()
            .enumerate()
            .filter(|&(i, &(j, _))| bb[j].0 == i)
            .map(|(i, &(j, s))| (s, i, j))
            .collect(),
        _ => {
            let mut all: Vec<(f64, usize, usize)> = fb
                .iter()
                .enumerate()
                .map(|(i, &(j, s))| (s, i, j))
                .chain(bb.iter().enumerate().map(|(j, &(i, s))| (s, i, j)))
                .collect();
            all.sort_by(|a, b| b.0.total_cmp(&a.0));
            let (mut ss, mut st) = (vec![false; x.len()], vec![false; y.len()]);
            all.into_iter()
                .filter(|&(_, i, j)| {
                    let fresh = !ss[i] && !st[j];
                    if fresh {
                        ss[i] = true;
                        st[j] = true;
                    }
                    fresh
                })
                .collect()
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn miner_equals_laser_transcription(
        nx in 1usize..12, ny in 1usize..12, k in 1usize..4, seed in any::<u64>(),
        fi in 0usize..4, ri in 0usize..4,
    ) {
        let k = k.min(nx).min(ny);
        let f = [MarginFunction::Absolute, MarginFunction::Distance, MarginFunction::Ratio,
                 MarginFunction::Csls][fi];
        let r = Retrieval::ALL[ri];
        let (x, y) = planted(nx, ny, nx.min(ny) / 2, 6, seed);
        let miner = Miner::new(MarginSpec::new(f, k)).retrieval(r);
        let got = miner.mine(x.view(), y.view(), &EXACT, &mut |_, _, _| {});
        let mut want = laser_reference(&x, &y, k, f, r);
        if f == MarginFunction::Ratio && got.is_err() {
            // Random low-dimensional vectors can have negative neighbourhood means: the ratio
            // is then refused, never silently computed.
            prop_assert!(got.unwrap_err().to_string().contains("not positive"));
            return Ok(());
        }
        let got = got.unwrap();
        want.sort_by(|a, b| b.0.total_cmp(&a.0));
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            // f32 similarities against the transcription's f64: the ratio divides by the
            // neighbourhood mean, which can be small, so the error is relative to the score.
            prop_assert!((g.score - w.0).abs() < 1e-5 * w.0.abs().max(1.0), "{:?} vs {:?}", g, w);
        }
        let mut gs: Vec<_> = got.iter().map(|p| (p.src, p.tgt)).collect();
        let mut ws: Vec<_> = want.iter().map(|p| (p.1, p.2)).collect();
        gs.sort_unstable();
        ws.sort_unstable();
        prop_assert_eq!(gs, ws);
    }
}

#[test]
fn planted_pairs_are_found_and_cut_by_threshold_and_top_n() {
    let (x, y) = planted(40, 50, 30, 16, 7);
    let spec = MarginSpec::new(MarginFunction::Ratio, 4);
    let pairs = Miner::new(spec)
        .mine(x.view(), y.view(), &EXACT, &mut |_, _, _| {})
        .unwrap();
    let top: Vec<_> = pairs[..30].iter().map(|p| (p.src, p.tgt)).collect();
    assert!(top.iter().all(|&(i, j)| i == j && i < 30), "{top:?}");
    assert!(pairs.windows(2).all(|w| w[0].score >= w[1].score));
    // The planted pairs score well above the rest: a threshold between them keeps exactly them.
    let cut = 0.5 * (pairs[29].score + pairs[30].score);
    let kept = Miner::new(spec)
        .threshold(Threshold::Above { value: cut })
        .mine(x.view(), y.view(), &EXACT, &mut |_, _, _| {})
        .unwrap();
    assert_eq!(kept.len(), 30);
    let five = Miner::new(spec)
        .top_n(5)
        .mine(x.view(), y.view(), &EXACT, &mut |_, _, _| {})
        .unwrap();
    assert_eq!(five, pairs[..5].to_vec());
}

#[test]
fn any_pair_scorer_can_score_the_candidates() {
    let (x, y) = planted(20, 20, 10, 8, 3);
    let miner = Miner::new(MarginSpec::new(MarginFunction::Absolute, 3))
        .retrieval(Retrieval::Forward)
        .one_to_one(true);
    let mut stages = Vec::new();
    let nb = miner
        .search(x.view(), y.view(), &two_indexes(), &mut |s, _, _| {
            if stages.last() != Some(&s) {
                stages.push(s);
            }
        })
        .unwrap();
    assert_eq!(
        stages,
        [
            Stage::IndexTarget,
            Stage::Forward,
            Stage::IndexSource,
            Stage::Backward
        ]
    );
    // Absolute margin = cosine: scoring the same candidates by cosine gives the same pairs.
    let cos = EmbeddingScorer::new(x.view(), y.view(), Measure::Cosine).unwrap();
    let (f, b) = miner.scored_candidates(&nb, &cos).unwrap();
    let by_scorer = miner.select(&f, &b).unwrap();
    let by_margin = miner.mine_neighbors(&nb).unwrap();
    assert_eq!(by_scorer.len(), by_margin.len());
    for (a, b) in by_scorer.iter().zip(&by_margin) {
        assert_eq!((a.src, a.tgt), (b.src, b.tgt));
        assert!((a.score - b.score).abs() < 1e-5);
    }
    let small = EmbeddingScorer::new(x.slice_rows(0..3), y.view(), Measure::Cosine).unwrap();
    assert!(miner.scored_candidates(&nb, &small).is_err());
}

#[test]
fn bad_input_gives_clear_errors() {
    let (x, y) = planted(5, 3, 2, 4, 1);
    let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, 4));
    let e = miner
        .mine(x.view(), y.view(), &EXACT, &mut |_, _, _| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("k = 4 neighbours of each source sentence") && e.contains("only 3"),
        "{e}"
    );
    let z = Embeddings::from_rows([[1.0f32, 0.0, 0.0]], 3).unwrap();
    let e = miner
        .mine(x.view(), z.view(), &EXACT, &mut |_, _, _| {})
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("dimension 4 but target embeddings 3"),
        "{e}"
    );
    let empty = Embeddings::with_capacity(4, 0).unwrap();
    let e = miner
        .mine(empty.view(), y.view(), &EXACT, &mut |_, _, _| {})
        .unwrap_err();
    assert!(
        e.to_string().contains("source side has no sentences"),
        "{e}"
    );
    let m1 = Miner::new(MarginSpec::new(MarginFunction::Ratio, 1));
    let l2 = IndexSpec::exact(Metric::L2);
    let e = m1
        .mine(x.view(), y.view(), &l2, &mut |_, _, _| {})
        .unwrap_err();
    assert!(e.to_string().contains("inner-product index"), "{e}");
    let mut nan = x.clone();
    nan.row_mut(2)[1] = f32::NAN;
    assert!(
        m1.mine(nan.view(), y.view(), &EXACT, &mut |_, _, _| {})
            .is_err()
    );
    let bad = Miner::new(MarginSpec::new(MarginFunction::Ratio, 1))
        .threshold(Threshold::Above { value: f64::NAN });
    assert!(bad.check().is_err());
}

#[test]
fn one_pass_and_two_indexes_mine_the_same_pairs() {
    let (x, y) = planted(60, 45, 20, 16, 11);
    let miner = Miner::new(MarginSpec::with_k(MarginFunction::Ratio, 4, 3));
    let two = miner
        .search(x.view(), y.view(), &two_indexes(), &mut |_, _, _| {})
        .unwrap();
    let one = miner
        .search(x.view(), y.view(), &EXACT, &mut |_, _, _| {})
        .unwrap();
    assert_eq!(one, two);
    assert_eq!(
        miner.mine_neighbors(&one).unwrap(),
        miner.mine_neighbors(&two).unwrap()
    );
    let big = Miner::new(MarginSpec::new(MarginFunction::Ratio, 46));
    let e = big
        .search(x.view(), y.view(), &EXACT, &mut |_, _, _| {})
        .unwrap_err();
    assert!(e.to_string().contains("target side has only 45"), "{e}");
}
