//! Tests of margin scoring: a hand-worked example, properties against an independent
//! implementation over the full similarity matrix, and error cases.

use super::*;
use bitext_core::{Embeddings, Rng};
use proptest::prelude::*;

/// Random L2-normalised rows.
fn unit_rows(n: usize, d: usize, rng: &mut Rng) -> Embeddings {
    let mut e = Embeddings::from_rows(
        (0..n).map(|_| (0..d).map(|_| rng.normal() as f32).collect::<Vec<_>>()),
        d,
    )
    .unwrap();
    e.normalize_l2();
    e
}

/// Full similarity matrix in f64 (independent of the crate's dot product).
fn sims(x: &Embeddings, y: &Embeddings) -> Vec<Vec<f64>> {
    x.rows()
        .map(|a| {
            y.rows()
                .map(|b| {
                    a.iter()
                        .zip(b)
                        .map(|(p, q)| f64::from(*p) * f64::from(*q))
                        .sum()
                })
                .collect()
        })
        .collect()
}

/// Brute-force k nearest neighbours by sorting a row of similarities.
fn knn(rows: &[Vec<f64>], k: usize) -> Neighbors {
    let (mut ids, mut scores) = (Vec::new(), Vec::new());
    for r in rows {
        let mut order: Vec<usize> = (0..r.len()).collect();
        order.sort_by(|&a, &b| r[b].total_cmp(&r[a]).then(a.cmp(&b)));
        for &j in &order[..k] {
            ids.push(j);
            scores.push(r[j] as f32);
        }
    }
    Neighbors::new(k, ids, scores).unwrap()
}

fn transpose(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    (0..m[0].len())
        .map(|j| m.iter().map(|r| r[j]).collect())
        .collect()
}

/// Mean of the `k` largest values of a row.
fn top_mean(r: &[f64], k: usize) -> f64 {
    let mut v = r.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    v[..k].iter().sum::<f64>() / k as f64
}

#[test]
fn hand_worked_ratio_distance_and_csls() {
    // Two sources, three targets, k = 2. Similarities (rows: sources):
    //   x0: 0.9 0.5 0.1     → m_src(x0) = 0.7
    //   x1: 0.2 0.6 0.4     → m_src(x1) = 0.5
    // columns: y0 {0.9, 0.2} → 0.55, y1 {0.5, 0.6} → 0.55, y2 {0.1, 0.4} → 0.25
    let fwd = Neighbors::new(2, vec![0, 1, 1, 2], vec![0.9, 0.5, 0.6, 0.4]).unwrap();
    let bwd = Neighbors::new(
        2,
        vec![0, 1, 1, 0, 1, 0],
        vec![0.9, 0.2, 0.6, 0.5, 0.4, 0.1],
    )
    .unwrap();
    let m = |f| Margin::from_neighbors(&MarginSpec::new(f, 2), &fwd, &bwd).unwrap();
    let ratio = m(MarginFunction::Ratio);
    assert!((ratio.src_means()[0] - 0.7).abs() < 1e-6);
    assert!((ratio.trg_means()[2] - 0.25).abs() < 1e-6);
    // (x0, y0): b = (0.7 + 0.55) / 2 = 0.625; ratio 0.9 / 0.625 = 1.44.
    let s = ratio.forward_scores(&fwd).unwrap();
    assert!((s[0] - 1.44).abs() < 1e-6, "{s:?}");
    // (x1, y2): b = (0.5 + 0.25) / 2 = 0.375; ratio 0.4 / 0.375.
    assert!((s[3] - 0.4 / 0.375).abs() < 1e-6);
    let d = m(MarginFunction::Distance).forward_scores(&fwd).unwrap();
    assert!((d[0] - 0.275).abs() < 1e-6);
    let c = m(MarginFunction::Csls).backward_scores(&bwd).unwrap();
    // Backward entry 1: target 0 with source 1, sim 0.2, b = (0.5 + 0.55)/2 = 0.525.
    assert!((c[1] - 2.0 * (0.2 - 0.525)).abs() < 1e-6);
    let a = m(MarginFunction::Absolute).backward_scores(&bwd).unwrap();
    assert!((a[4] - 0.4).abs() < 1e-6);
}

proptest! {
    #[test]
    fn margins_match_the_definitions(
        nx in 2usize..9, ny in 2usize..9, d in 2usize..6, seed in any::<u64>(),
        ks in 1usize..3, kt in 1usize..3,
    ) {
        let mut rng = Rng::seed(seed);
        let (x, y) = (unit_rows(nx, d, &mut rng), unit_rows(ny, d, &mut rng));
        let s = sims(&x, &y);
        let st = transpose(&s);
        let (fwd, bwd) = (knn(&s, ks), knn(&st, kt));
        let scorer = |f| {
            let m = Margin::from_neighbors(&MarginSpec::with_k(f, ks, kt), &fwd, &bwd).unwrap();
            MarginScorer::new(m, x.view(), y.view()).unwrap()
        };
        let (abs, dist, csls) = (
            scorer(MarginFunction::Absolute),
            scorer(MarginFunction::Distance),
            scorer(MarginFunction::Csls),
        );
        for (i, row) in s.iter().enumerate() {
            for (j, &sim) in row.iter().enumerate() {
                let (ms, mt) = (top_mean(row, ks), top_mean(&st[j], kt));
                let a = abs.score(&[(i, j)]).unwrap()[0];
                prop_assert!((a - sim).abs() < 1e-5, "absolute = cosine");
                let want = sim - (ms + mt) / 2.0;
                prop_assert!((dist.score(&[(i, j)]).unwrap()[0] - want).abs() < 1e-5);
                // Kim et al. eq. 16–18.
                let kim = 2.0 * sim - ms - mt;
                prop_assert!((csls.score(&[(i, j)]).unwrap()[0] - kim).abs() < 1e-5);
            }
        }
        // Reusing the search's similarities equals recomputing them.
        let fs = dist.margin().forward_scores(&fwd).unwrap();
        for i in 0..nx {
            for c in 0..ks {
                let j = fwd.ids(i)[c];
                let r = dist.score(&[(i, j)]).unwrap()[0];
                prop_assert!((fs[i * ks + c] - r).abs() < 1e-5);
            }
        }
        let bs = dist.margin().backward_scores(&bwd).unwrap();
        prop_assert_eq!(bs.len(), ny * kt);
    }

    #[test]
    fn ratio_is_monotone_in_the_pair_similarity(
        ms in 0.01f64..1.0, mt in 0.01f64..1.0, a in -1.0f64..1.0, delta in 1e-6f64..1.0,
    ) {
        let spec = MarginSpec::new(MarginFunction::Ratio, 3);
        let m = Margin::from_means(&spec, vec![ms], vec![mt]).unwrap();
        let (lo, hi) = (m.score(0, 0, a).unwrap(), m.score(0, 0, a + delta).unwrap());
        prop_assert!(hi > lo);
        // And the margin ranks pairs of equal similarity by their neighbourhoods: a sentence
        // in a denser neighbourhood (larger mean) scores lower.
        let m2 = Margin::from_means(&spec, vec![ms + delta], vec![mt]).unwrap();
        if a > 0.0 {
            prop_assert!(m2.score(0, 0, a).unwrap() < m.score(0, 0, a).unwrap());
        }
    }
}

#[test]
fn errors() {
    // A NaN similarity cannot reach the margin: neighbour lists refuse it.
    let e = Neighbors::new(1, vec![0, 0], vec![0.5, f32::NAN]).unwrap_err();
    assert!(
        e.to_string()
            .contains("candidate 0 of sentence 1 has score NaN"),
        "{e}"
    );
    let bwd = Neighbors::new(1, vec![1], vec![0.5]).unwrap();
    let spec = MarginSpec::new(MarginFunction::Ratio, 1);
    let fwd = Neighbors::new(1, vec![0, 3], vec![0.5, 0.4]).unwrap();
    let e = Margin::from_neighbors(&spec, &fwd, &bwd).unwrap_err();
    assert!(
        e.to_string().contains("forward neighbour 3 of sentence 1"),
        "{e}"
    );
    let e =
        Margin::from_neighbors(&MarginSpec::new(MarginFunction::Ratio, 2), &fwd, &bwd).unwrap_err();
    assert!(e.to_string().contains("needs 2"), "{e}");
    assert!(
        MarginSpec::new(MarginFunction::Distance, 0)
            .check()
            .is_err()
    );
    let m = Margin::from_means(&spec, vec![-0.5], vec![0.1]).unwrap();
    let e = m.score(0, 0, 0.3).unwrap_err();
    assert!(e.to_string().contains("not positive"), "{e}");
    assert!(m.score(1, 0, 0.3).is_err());
    assert!(Margin::from_means(&spec, vec![f64::NAN], vec![0.1]).is_err());
    let x = Embeddings::from_rows([[1.0, 0.0]], 2).unwrap();
    let m = Margin::from_means(&spec, vec![0.5, 0.5], vec![0.5]).unwrap();
    assert!(MarginScorer::new(m, x.view(), x.view()).is_err());
}

#[test]
fn spec_serde_and_parsing() {
    let spec = MarginSpec::with_k(MarginFunction::Ratio, 4, 8);
    let json = serde_json::to_string(&spec).unwrap();
    assert_eq!(json, r#"{"type":"ratio","k_src":4,"k_trg":8}"#);
    let back: MarginSpec = serde_json::from_str(r#"{"type":"csls","k_src":10}"#).unwrap();
    assert_eq!(back, MarginSpec::with_k(MarginFunction::Csls, 10, 4));
    assert_eq!(back.function().name(), "csls");
    assert_eq!(
        MarginSpec::default(),
        MarginSpec::new(MarginFunction::Ratio, 4)
    );
    assert_eq!(
        "distance".parse::<MarginFunction>().unwrap(),
        MarginFunction::Distance
    );
    let e = "max".parse::<MarginFunction>().unwrap_err().to_string();
    assert!(
        e.contains("unknown margin \"max\" (expected absolute, distance, ratio or csls)"),
        "{e}"
    );
    assert_eq!(
        "cosine".parse::<MarginFunction>().unwrap(),
        MarginFunction::Absolute
    );
}
