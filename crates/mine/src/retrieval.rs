//! Candidate retrieval (Artetxe & Schwenk 2019, §3.2; LASER `mine_bitexts.py --retrieval`):
//! from the scored candidates of both directions, keep each sentence's best and combine them.
//!
//! - forward: every source sentence with its best-scoring target;
//! - backward: every target sentence with its best-scoring source;
//! - intersection: the forward pairs that are also backward pairs (`bwd_best[fwd_best[i]] ==
//!   i`);
//! - max: the forward and backward pairs together, sorted by score (a stable sort, forward list
//!   first on ties), kept greedily when neither side is taken yet.
//!
//! The best of a sentence's candidates is the first of the highest score (numpy's `argmax`).

use crate::error::{Error, Result};
use crate::pairs::{ScoredPair, greedy_one_to_one};

/// How candidates of both directions become pairs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Retrieval {
    /// Each source sentence with its best target (LASER `fwd`).
    Forward,
    /// Each target sentence with its best source (LASER `bwd`).
    Backward,
    /// Pairs that are best in both directions (LASER `intersect`).
    Intersection,
    /// Forward and backward pairs, best score first, greedy one-to-one (LASER `max`, the
    /// default).
    #[default]
    Max,
}

impl Retrieval {
    /// Every strategy, in LASER's order.
    pub const ALL: [Retrieval; 4] = [
        Retrieval::Forward,
        Retrieval::Backward,
        Retrieval::Intersection,
        Retrieval::Max,
    ];

    /// LASER's name (`fwd`, `bwd`, `intersect`, `max`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Retrieval::Forward => "fwd",
            Retrieval::Backward => "bwd",
            Retrieval::Intersection => "intersect",
            Retrieval::Max => "max",
        }
    }
}

impl std::str::FromStr for Retrieval {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s {
            "fwd" | "forward" => Ok(Retrieval::Forward),
            "bwd" | "backward" => Ok(Retrieval::Backward),
            "intersect" | "intersection" => Ok(Retrieval::Intersection),
            "max" | "max_score" => Ok(Retrieval::Max),
            _ => Err(Error::Invalid(format!(
                "unknown retrieval {s:?} (expected fwd, bwd, intersect or max)"
            ))),
        }
    }
}

/// The scored candidates of one direction: for each query sentence, `k` sentences of the other
/// side and their scores (row-major, `len() × k()`): bitext-knn's neighbour lists with `f64`
/// scores (margins, classifier probabilities), which `ScoredCandidates::new` checks to be
/// finite.
pub type ScoredCandidates = bitext_knn::Neighbors<f64>;

/// Check that every candidate id of `c` is a sentence of the other side (`n_other`).
fn check_ids(c: &ScoredCandidates, n_other: usize, what: &str) -> Result<()> {
    match c.all_ids().iter().position(|&id| id >= n_other) {
        Some(p) => Err(Error::Invalid(format!(
            "{what} candidate {} of sentence {} is out of range: the other side has \
             {n_other} sentences",
            c.all_ids()[p],
            p / c.k()
        ))),
        None => Ok(()),
    }
}

/// Combine the candidates of both directions: `fwd` holds the candidate targets of every
/// source sentence, `bwd` the candidate sources of every target sentence. Pairs come in LASER's
/// order (source order for forward and intersection, target order for backward, descending
/// score for max), before any threshold.
///
/// # Errors
/// [`Error::Invalid`] when a candidate id is not a sentence of the other side.
pub fn retrieve(
    strategy: Retrieval,
    fwd: &ScoredCandidates,
    bwd: &ScoredCandidates,
) -> Result<Vec<ScoredPair>> {
    check_ids(fwd, bwd.len(), "forward")?;
    check_ids(bwd, fwd.len(), "backward")?;
    let fwd_best = fwd.best();
    let bwd_best = bwd.best();
    let forward = || {
        fwd_best
            .iter()
            .enumerate()
            .map(|(i, &(j, s))| ScoredPair::new(s, i, j))
    };
    let backward = || {
        bwd_best
            .iter()
            .enumerate()
            .map(|(j, &(i, s))| ScoredPair::new(s, i, j))
    };
    Ok(match strategy {
        Retrieval::Forward => forward().collect(),
        Retrieval::Backward => backward().collect(),
        Retrieval::Intersection => forward().filter(|p| bwd_best[p.tgt].0 == p.src).collect(),
        Retrieval::Max => greedy_one_to_one(forward().chain(backward()).collect())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn cands(k: usize, rows: &[&[(usize, f64)]]) -> ScoredCandidates {
        let ids = rows.iter().flat_map(|r| r.iter().map(|c| c.0)).collect();
        let scores = rows.iter().flat_map(|r| r.iter().map(|c| c.1)).collect();
        ScoredCandidates::new(k, ids, scores).unwrap()
    }

    /// Three sources, three targets, k = 2, worked by hand:
    /// fwd best: x0→y0 (0.9), x1→y0 (0.8), x2→y2 (0.3)
    /// bwd best: y0→x0 (0.9), y1→x1 (0.7), y2→x1 (0.6)
    fn example() -> (ScoredCandidates, ScoredCandidates) {
        let fwd = cands(
            2,
            &[
                &[(0, 0.9), (1, 0.2)],
                &[(0, 0.8), (1, 0.7)],
                &[(1, 0.1), (2, 0.3)],
            ],
        );
        let bwd = cands(
            2,
            &[
                &[(0, 0.9), (1, 0.8)],
                &[(1, 0.7), (2, 0.1)],
                &[(2, 0.3), (1, 0.6)],
            ],
        );
        (fwd, bwd)
    }

    #[test]
    fn hand_worked_strategies() {
        let (fwd, bwd) = example();
        let p = ScoredPair::new;
        let got = |r| retrieve(r, &fwd, &bwd).unwrap();
        assert_eq!(
            got(Retrieval::Forward),
            vec![p(0.9, 0, 0), p(0.8, 1, 0), p(0.3, 2, 2)]
        );
        assert_eq!(
            got(Retrieval::Backward),
            vec![p(0.9, 0, 0), p(0.7, 1, 1), p(0.6, 1, 2)]
        );
        // x0↔y0 agree; x1→y0 but y0→x0; x2→y2 but y2→x1.
        assert_eq!(got(Retrieval::Intersection), vec![p(0.9, 0, 0)]);
        // Union sorted: (0.9,0,0)f (0.9,0,0)b (0.8,1,0) (0.7,1,1) (0.6,1,2) (0.3,2,2):
        // keep (0,0), drop the duplicate, drop (1,0) (y0 taken), keep (1,1), drop (1,2) (x1
        // taken), keep (2,2).
        assert_eq!(
            got(Retrieval::Max),
            vec![p(0.9, 0, 0), p(0.7, 1, 1), p(0.3, 2, 2)]
        );
    }

    #[test]
    fn best_is_the_first_of_ties_and_ids_are_checked() {
        let c = cands(3, &[&[(4, 0.5), (2, 0.7), (1, 0.7)]]);
        assert_eq!(c.best(), vec![(2, 0.7)]);
        let (fwd, _) = example();
        let bad = cands(1, &[&[(5, 0.1)], &[(0, 0.1)], &[(0, 0.1)]]);
        let e = retrieve(Retrieval::Forward, &fwd, &bad).unwrap_err();
        assert!(
            e.to_string().contains("backward candidate 5 of sentence 0"),
            "{e}"
        );
        assert!(ScoredCandidates::new(1, vec![0], vec![f64::NAN]).is_err());
        assert!(ScoredCandidates::new(2, vec![0], vec![0.1]).is_err());
        assert_eq!(
            "intersect".parse::<Retrieval>().unwrap(),
            Retrieval::Intersection
        );
        assert!("both".parse::<Retrieval>().is_err());
    }

    fn arb_candidates() -> impl Strategy<Value = (ScoredCandidates, ScoredCandidates)> {
        (1usize..7, 1usize..7, 1usize..4).prop_flat_map(|(nx, ny, k)| {
            let side = |n: usize, other: usize| {
                proptest::collection::vec((0..other, 0u8..10), n * k).prop_map(move |v| {
                    let (ids, s): (Vec<_>, Vec<_>) =
                        v.into_iter().map(|(i, s)| (i, f64::from(s) / 10.0)).unzip();
                    ScoredCandidates::new(k, ids, s).unwrap()
                })
            };
            (side(nx, ny), side(ny, nx))
        })
    }

    proptest! {
        #[test]
        fn strategy_invariants((fwd, bwd) in arb_candidates()) {
            let f = retrieve(Retrieval::Forward, &fwd, &bwd).unwrap();
            let b = retrieve(Retrieval::Backward, &fwd, &bwd).unwrap();
            let i = retrieve(Retrieval::Intersection, &fwd, &bwd).unwrap();
            let m = retrieve(Retrieval::Max, &fwd, &bwd).unwrap();
            prop_assert_eq!(f.len(), fwd.len());
            prop_assert_eq!(b.len(), bwd.len());
            let key = |p: &ScoredPair| (p.src, p.tgt);
            let fset: HashSet<_> = f.iter().map(key).collect();
            let bset: HashSet<_> = b.iter().map(key).collect();
            let iset: HashSet<_> = i.iter().map(key).collect();
            // Intersection ⊆ forward ∩ backward (= it, as pairs), and it is one-to-one.
            prop_assert_eq!(&iset, &fset.intersection(&bset).copied().collect::<HashSet<_>>());
            prop_assert_eq!(i.iter().map(|p| p.tgt).collect::<HashSet<_>>().len(), i.len());
            // Max ⊆ forward ∪ backward, one-to-one, and contains the intersection's best pair.
            for p in &m {
                prop_assert!(fset.contains(&key(p)) || bset.contains(&key(p)));
            }
            prop_assert_eq!(m.iter().map(|p| p.src).collect::<HashSet<_>>().len(), m.len());
            prop_assert_eq!(m.iter().map(|p| p.tgt).collect::<HashSet<_>>().len(), m.len());
            prop_assert!(!m.is_empty());
        }
    }
}
