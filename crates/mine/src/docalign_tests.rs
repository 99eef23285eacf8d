//! Tests of [`super`]: synthetic documents with seeded merges, splits and deletions recovered
//! exactly from exact-copy embeddings; the programme against an exhaustive search on short
//! documents; the coarse-to-fine search equal to the full programme; under both scorings, the
//! margin's deleting what vecalign's absorbs.

use bitext_core::{Embeddings, Rng};

use super::*;

const DIM: usize = 48;

/// A random unit vector per content unit.
fn units(n: usize, rng: &mut Rng) -> Vec<Vec<f32>> {
    (0..n)
        .map(|_| {
            let mut v: Vec<f32> = (0..DIM).map(|_| rng.normal() as f32).collect();
            normalize_row(&mut v);
            v
        })
        .collect()
}

/// The overlaps of a document whose sentence `s` holds the units `doc[s]`: the vector of a
/// run of sentences is the sum of their units' vectors (an encoder that embeds meaning
/// exactly).
fn overlaps(doc: &[Vec<usize>], u: &[Vec<f32>], layers: usize) -> Overlaps {
    let layers = (0..layers)
        .map(|k| {
            let rows: Vec<Vec<f32>> = (0..doc.len().saturating_sub(k))
                .map(|i| {
                    let mut v = vec![0f32; DIM];
                    for s in &doc[i..=i + k] {
                        for &unit in s {
                            for (a, b) in v.iter_mut().zip(&u[unit]) {
                                *a += b;
                            }
                        }
                    }
                    v
                })
                .collect();
            Embeddings::from_rows(rows, DIM).unwrap()
        })
        .collect();
    Overlaps::new(layers).unwrap()
}

/// Beads of at most 3 sentences: with exact embeddings no two neighbouring beads form another
/// allowed bead of cost 0 (two 1-1 beads would be a perfect 2-2 under `max_size` 4).
const SMALL: [(usize, usize); 4] = [(1, 1), (1, 1), (1, 2), (2, 1)];
const SMALL_DEL: [(usize, usize); 7] = [(1, 1), (1, 1), (1, 1), (1, 2), (2, 1), (1, 0), (0, 1)];
const LARGE: [(usize, usize); 7] = [(1, 1), (1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1)];

/// Two documents of about `n` source sentences with seeded edits, and the gold beads: each
/// step draws one of `kinds` (1-2 a split, 2-1 a merge, 1-0 and 0-1 deletions).
#[allow(clippy::type_complexity)]
fn documents(
    n: usize,
    seed: u64,
    kinds: &[(usize, usize)],
) -> (
    Vec<Vec<usize>>,
    Vec<Vec<usize>>,
    Vec<(usize, usize)>,
    Vec<Vec<f32>>,
) {
    let mut rng = Rng::seed(seed);
    let u = units(30 * n, &mut rng);
    let (mut a, mut b, mut gold) = (Vec::new(), Vec::new(), Vec::new());
    let mut next = 0;
    let mut take = |k: usize| -> Vec<Vec<usize>> {
        // k sentences of fresh units, one unit each.
        (0..k)
            .map(|_| {
                next += 1;
                vec![next - 1]
            })
            .collect()
    };
    while a.len() < n {
        let (x, y) = kinds[rng.below(kinds.len())];
        // A 1-0 next to a 0-1 could be written in either order at the same cost: redraw.
        if matches!(
            (gold.last(), (x, y)),
            (Some((1, 0)), (0, 1)) | (Some((0, 1)), (1, 0))
        ) {
            continue;
        }
        // The content of the bead, cut into x source and y target sentences at different
        // places (a 2-2 cut alike on both sides would be two 1-1 beads).
        let len = 6 * x.max(1) * y.max(1);
        let content: Vec<usize> = take(len).into_iter().flatten().collect();
        let cut = |k: usize, shift: usize| -> Vec<Vec<usize>> {
            let at = |s: usize| {
                if s == 0 || s == k {
                    s * len / k
                } else {
                    s * len / k + shift
                }
            };
            (0..k).map(|s| content[at(s)..at(s + 1)].to_vec()).collect()
        };
        if (x, y) == (1, 0) || (x, y) == (0, 1) {
            // A sentence with no counterpart, as long as the others.
            let own: Vec<usize> = take(6).into_iter().flatten().collect();
            if x == 1 {
                a.push(own);
            } else {
                b.push(own);
            }
        } else {
            a.extend(cut(x, 0));
            b.extend(cut(y, 1));
        }
        gold.push((x, y));
    }
    (a, b, gold, u)
}

fn shapes(beads: &[Bead]) -> Vec<(usize, usize)> {
    beads.iter().map(|b| (b.src.len(), b.tgt.len())).collect()
}

fn small() -> DocAlignConfig {
    DocAlignConfig {
        max_size: 3,
        ..DocAlignConfig::default()
    }
}

#[test]
fn merges_and_splits_are_recovered_exactly_from_exact_embeddings() {
    for seed in 0..6 {
        let (a, b, gold, u) = documents(40, seed, &SMALL);
        let got = align_documents(&overlaps(&a, &u, 2), &overlaps(&b, &u, 2), &small()).unwrap();
        assert_eq!(shapes(&got), gold, "seed {seed}");
        assert!(got.iter().all(|b| b.cost.unwrap() < 1e-5), "seed {seed}");
        // The beads cover both documents in order.
        let src: Vec<usize> = got.iter().flat_map(|b| b.src.clone()).collect();
        assert_eq!(src, (0..a.len()).collect::<Vec<_>>());
    }
}

#[test]
fn larger_beads_are_recovered_up_to_joining_perfect_neighbours() {
    // Under max_size 4 two perfect 1-1 beads also make a perfect 2-2: every bead found must
    // be gold beads joined, at cost 0.
    for seed in 0..6 {
        let (a, b, gold, u) = documents(40, 50 + seed, &LARGE);
        let c = DocAlignConfig::default();
        let got = align_documents(&overlaps(&a, &u, 3), &overlaps(&b, &u, 3), &c).unwrap();
        let ends = |p: &[(usize, usize)]| -> Vec<(usize, usize)> {
            p.iter()
                .scan((0, 0), |s, &(x, y)| {
                    *s = (s.0 + x, s.1 + y);
                    Some(*s)
                })
                .collect()
        };
        let gold_ends = ends(&gold);
        for e in ends(&shapes(&got)) {
            assert!(
                gold_ends.contains(&e),
                "seed {seed}: {e:?} is not a gold bead boundary"
            );
        }
        assert!(got.iter().all(|b| b.cost.unwrap() < 1e-5), "seed {seed}");
        assert!(
            got.len() * 3 >= gold.len(),
            "seed {seed}: {} of {}",
            got.len(),
            gold.len()
        );
    }
}

#[test]
fn deletions_are_recovered_when_they_cost_less_than_a_merge() {
    // With exact copies a deleted sentence joined to a neighbour's bead costs about 0.59 (its
    // vector at 45° to the other side's), below vecalign's default penalty (a quantile of
    // random pairs' costs, about 1): a penalty of 0.3 makes the deletion the cheaper path.
    for seed in 0..6 {
        let (a, b, gold, u) = documents(40, 100 + seed, &SMALL_DEL);
        let c = DocAlignConfig {
            deletion_penalty: Some(0.3),
            ..small()
        };
        let got = align_documents(&overlaps(&a, &u, 2), &overlaps(&b, &u, 2), &c).unwrap();
        assert_eq!(shapes(&got), gold, "seed {seed}");
    }
}

#[test]
fn the_margin_recovers_merges_splits_and_deletions_with_its_default_penalty() {
    // A deleted sentence joined to a neighbour's bead lowers the bead's margin by about 0.3
    // (cosine 1 to 0.71), more than the margin's deletion (0.05): no fixed penalty is needed,
    // as the vecalign scoring needs one above. A pool of 16 of the ~45 sentences of the other
    // document (3 neighbours of it for 8 of all) changes nothing here.
    for seed in 0..6 {
        let (a, b, gold, u) = documents(40, 100 + seed, &SMALL_DEL);
        let (oa, ob) = (overlaps(&a, &u, 2), overlaps(&b, &u, 2));
        for scoring in [
            DocScoring::margin(),
            DocScoring::Margin {
                neighbours: 8,
                pool: 16,
            },
        ] {
            let c = DocAlignConfig { scoring, ..small() };
            let got = align_documents(&oa, &ob, &c).unwrap();
            assert_eq!(shapes(&got), gold, "seed {seed} {scoring:?}");
            // Aligned beads score minus their margin: an exact copy is below 0.
            for b in got
                .iter()
                .filter(|b| !b.src.is_empty() && !b.tgt.is_empty())
            {
                assert!(b.cost.unwrap() < -0.25, "seed {seed}: {b:?}");
            }
        }
    }
}

#[test]
fn the_margin_deletes_an_inserted_block_that_vecalign_absorbs() {
    // Six target sentences with no counterpart inserted in the middle (captions, OCR debris):
    // vecalign's default penalty (a quantile of random pairs' costs, about 0.9) is above what
    // joining one to a bead costs (about 0.6), so it absorbs them into 1-2 beads; the margin
    // deletes them.
    for seed in 0..4 {
        let (a, mut b, mut gold, mut u) = documents(40, 300 + seed, &SMALL);
        let mut rng = Rng::seed(400 + seed);
        // The bead and target sentence where the block goes.
        let (mut at_bead, mut at_tgt) = (0, 0);
        while at_bead < gold.len() / 2 {
            at_tgt += gold[at_bead].1;
            at_bead += 1;
        }
        for k in 0..6 {
            let unit = u.len();
            u.extend(units(6, &mut rng));
            b.insert(at_tgt + k, (unit..unit + 6).collect());
            gold.insert(at_bead + k, (0, 1));
        }
        let (oa, ob) = (overlaps(&a, &u, 2), overlaps(&b, &u, 2));
        let margin = DocAlignConfig {
            scoring: DocScoring::margin(),
            ..small()
        };
        let got = align_documents(&oa, &ob, &margin).unwrap();
        assert_eq!(shapes(&got), gold, "seed {seed}");
        let vecalign = align_documents(&oa, &ob, &small()).unwrap();
        let deleted = shapes(&vecalign).iter().filter(|&&s| s == (0, 1)).count();
        assert!(deleted < 6, "seed {seed}: vecalign deleted {deleted}");
    }
}

/// Every path through the documents (bead shapes of the config), by exhaustive recursion.
fn all_paths(n0: usize, n1: usize, types: &[(usize, usize)]) -> Vec<Vec<(usize, usize)>> {
    if n0 == 0 && n1 == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for &(x, y) in types {
        if x <= n0 && y <= n1 {
            for mut rest in all_paths(n0 - x, n1 - y, types) {
                rest.insert(0, (x, y));
                out.push(rest);
            }
        }
    }
    out
}

#[test]
fn the_programme_finds_the_cheapest_of_all_paths() {
    let mut rng = Rng::seed(7);
    for case in 0..12 {
        let (n0, n1) = (1 + case % 5, 1 + (case * 3) % 6);
        // Random sentence vectors (no true alignment): the costs are all different.
        let u = units(n0 + n1, &mut rng);
        let a: Vec<Vec<usize>> = (0..n0).map(|i| vec![i]).collect();
        let b: Vec<Vec<usize>> = (0..n1).map(|i| vec![n0 + i]).collect();
        let (oa, ob) = (overlaps(&a, &u, 3), overlaps(&b, &u, 3));
        for scoring in [DocScoring::Vecalign, DocScoring::margin()] {
            let c = DocAlignConfig {
                scoring,
                deletion_penalty: if case % 2 == 0 { None } else { Some(0.8) },
                ..DocAlignConfig::default()
            };
            let best = all_paths(n0, n1, &c.bead_types())
                .iter()
                .map(|p| path_cost(&oa, &ob, &c, p).unwrap())
                .fold(f64::INFINITY, f64::min);
            let got = align_documents(&oa, &ob, &c).unwrap();
            let cost = path_cost(&oa, &ob, &c, &shapes(&got)).unwrap();
            assert!(
                (cost - best).abs() < 1e-9,
                "case {case} {scoring:?}: {cost} vs {best}"
            );
        }
    }
}

#[test]
fn coarse_to_fine_equals_the_full_programme_where_the_band_covers_the_path() {
    for seed in 0..4 {
        let (a, b, gold, u) = documents(120, 200 + seed, &SMALL);
        let (oa, ob) = (overlaps(&a, &u, 2), overlaps(&b, &u, 2));
        for scoring in [DocScoring::Vecalign, DocScoring::margin()] {
            let c = DocAlignConfig { scoring, ..small() };
            let full = align_documents(&oa, &ob, &c).unwrap();
            // 120 × ~130 sentences with max_full_dp 10: three halvings before the full
            // programme.
            let banded = DocAlignConfig {
                max_full_dp: 10,
                ..c
            };
            let fine = align_documents(&oa, &ob, &banded).unwrap();
            assert_eq!(shapes(&full), gold, "seed {seed} {scoring:?}");
            assert_eq!(full, fine, "seed {seed} {scoring:?}");
        }
    }
}

#[test]
fn bad_inputs_are_refused() {
    let mut rng = Rng::seed(1);
    let u = units(6, &mut rng);
    let doc: Vec<Vec<usize>> = (0..6).map(|i| vec![i]).collect();
    let three = overlaps(&doc, &u, 3);
    let one = overlaps(&doc, &u, 1);
    let e = align_documents(&three, &one, &DocAlignConfig::default()).unwrap_err();
    assert!(e.to_string().contains("need 3"), "{e}");
    let e = Overlaps::new(vec![
        Embeddings::new(vec![0.0; 6 * DIM], DIM).unwrap(),
        Embeddings::new(vec![0.0; 6 * DIM], DIM).unwrap(),
    ])
    .unwrap_err();
    assert!(e.to_string().contains("expected 5 × 48"), "{e}");
    for bad in [
        DocAlignConfig {
            max_size: 1,
            ..DocAlignConfig::default()
        },
        DocAlignConfig {
            del_percentile: 1.5,
            ..DocAlignConfig::default()
        },
        DocAlignConfig {
            deletion_penalty: Some(f64::NAN),
            ..DocAlignConfig::default()
        },
        DocAlignConfig {
            scoring: DocScoring::Margin {
                neighbours: 0,
                pool: 10,
            },
            ..DocAlignConfig::default()
        },
    ] {
        assert!(align_documents(&three, &three, &bad).is_err());
    }
    // One empty document: everything is deleted.
    let empty = Overlaps::new(vec![Embeddings::new(Vec::new(), DIM).unwrap()]).unwrap();
    let got = align_documents(&three, &empty, &DocAlignConfig::default()).unwrap();
    assert_eq!(shapes(&got), vec![(1, 0); 6]);
    assert_eq!(
        overlap_texts(&[" a ", "b", "c"], 2),
        vec![vec!["a", "b", "c"], vec!["a b", "b c"]]
    );
}
