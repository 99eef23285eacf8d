//! Strict and lax precision, recall and F1 of a document alignment's beads against gold beads,
//! as vecalign's `score.py` counts them (Thompson & Koehn 2019).
//!
//! - **Precision** is over every test bead, deletions included: a bead is a strict hit when
//!   the gold has exactly it, a lax hit when it is a strict hit or one of its target sentences
//!   is aligned in the gold to one of its source sentences.
//! - **Recall** is over the gold beads that are not deletions, tested the same way against the
//!   test beads that are not deletions (the roles of gold and test swapped).
//!
//! Counts add up over documents ([`BeadCounts::add`]), so that a corpus of many documents is
//! scored by its total, as `score.py` scores several files.

use std::collections::{HashMap, HashSet};

use bitext_core::io::beads::Bead;

use crate::prf::Prf;

/// Hits and totals of one or more documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BeadCounts {
    /// Test beads that are in the gold.
    pub precision_strict: usize,
    /// Test beads that overlap a gold link.
    pub precision_lax: usize,
    /// Test beads.
    pub predicted: usize,
    /// Gold beads (not deletions) that are in the test (not deletions).
    pub recall_strict: usize,
    /// Gold beads (not deletions) that overlap a test link.
    pub recall_lax: usize,
    /// Gold beads that are not deletions.
    pub relevant: usize,
}

type Key = (Vec<usize>, Vec<usize>);

/// `(strict hits, lax hits, count)` of `test` against `gold` (beads empty on both sides left
/// out).
fn hits(gold: &[Key], test: &[Key]) -> (usize, usize, usize) {
    let gold: Vec<&Key> = gold
        .iter()
        .filter(|k| !(k.0.is_empty() && k.1.is_empty()))
        .collect();
    let exact: HashSet<&Key> = gold.iter().copied().collect();
    let mut links: HashMap<usize, HashSet<usize>> = HashMap::new();
    for (s, t) in &gold {
        for &i in s {
            links.entry(i).or_default().extend(t.iter().copied());
        }
    }
    let (mut strict, mut lax, mut n) = (0, 0, 0);
    for k in test.iter().filter(|k| !(k.0.is_empty() && k.1.is_empty())) {
        n += 1;
        if exact.contains(k) {
            strict += 1;
            lax += 1;
        } else if k
            .0
            .iter()
            .filter_map(|i| links.get(i))
            .any(|t| k.1.iter().any(|j| t.contains(j)))
        {
            lax += 1;
        }
    }
    (strict, lax, n)
}

/// For each test bead, whether the gold has exactly it (a strict hit): the labels that make a
/// document aligner's bead scores calibratable (`bitext calibrate`).
#[must_use]
pub fn strict_labels(gold: &[Bead], test: &[Bead]) -> Vec<bool> {
    let exact: HashSet<(&[usize], &[usize])> = gold
        .iter()
        .map(|b| (b.src.as_slice(), b.tgt.as_slice()))
        .collect();
    test.iter()
        .map(|b| exact.contains(&(b.src.as_slice(), b.tgt.as_slice())))
        .collect()
}

impl BeadCounts {
    /// The counts of one document's `test` beads against its `gold` beads.
    #[must_use]
    pub fn of(gold: &[Bead], test: &[Bead]) -> Self {
        let key = |b: &Bead| (b.src.clone(), b.tgt.clone());
        let gold: Vec<Key> = gold.iter().map(key).collect();
        let test: Vec<Key> = test.iter().map(key).collect();
        let (ps, pl, predicted) = hits(&gold, &test);
        let aligned = |v: &[Key]| -> Vec<Key> {
            v.iter()
                .filter(|k| !k.0.is_empty() && !k.1.is_empty())
                .cloned()
                .collect()
        };
        let (rs, rl, relevant) = hits(&aligned(&test), &aligned(&gold));
        BeadCounts {
            precision_strict: ps,
            precision_lax: pl,
            predicted,
            recall_strict: rs,
            recall_lax: rl,
            relevant,
        }
    }

    /// Add another document's counts.
    pub fn add(&mut self, other: &BeadCounts) {
        self.precision_strict += other.precision_strict;
        self.precision_lax += other.precision_lax;
        self.predicted += other.predicted;
        self.recall_strict += other.recall_strict;
        self.recall_lax += other.recall_lax;
        self.relevant += other.relevant;
    }

    /// Strict precision, recall and F1.
    #[must_use]
    pub fn strict(&self) -> Prf {
        self.prf(self.precision_strict, self.recall_strict)
    }

    /// Lax precision, recall and F1.
    #[must_use]
    pub fn lax(&self) -> Prf {
        self.prf(self.precision_lax, self.recall_lax)
    }

    fn prf(&self, p_hits: usize, r_hits: usize) -> Prf {
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let (precision, recall) = (ratio(p_hits, self.predicted), ratio(r_hits, self.relevant));
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        Prf {
            true_positives: p_hits,
            predicted: self.predicted,
            relevant: self.relevant,
            precision,
            recall,
            f1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(src: &[usize], tgt: &[usize]) -> Bead {
        Bead {
            src: src.to_vec(),
            tgt: tgt.to_vec(),
            cost: None,
        }
    }

    #[test]
    fn strict_and_lax_counts_follow_score_py() {
        let gold = [b(&[0], &[0]), b(&[1], &[1, 2]), b(&[2], &[]), b(&[3], &[3])];
        let test = [
            b(&[0], &[0]),    // exact
            b(&[1], &[1]),    // lax only (1 → 1 in the gold)
            b(&[], &[2]),     // a deletion not in the gold: a miss
            b(&[2, 3], &[3]), // lax only (3 → 3)
        ];
        let c = BeadCounts::of(&gold, &test);
        assert_eq!(
            (c.precision_strict, c.precision_lax, c.predicted),
            (1, 3, 4)
        );
        // Recall over the gold's three non-deletions against the test's three.
        assert_eq!((c.recall_strict, c.recall_lax, c.relevant), (1, 3, 3));
        let s = c.strict();
        assert!((s.precision - 0.25).abs() < 1e-12 && (s.recall - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.f1 - 2.0 * 0.25 / 3.0 / (0.25 + 1.0 / 3.0)).abs() < 1e-12);
        assert!((c.lax().f1 - 2.0 * 0.75 * 1.0 / 1.75).abs() < 1e-12);
        // A perfect test; counts add up over documents.
        let mut total = BeadCounts::of(&gold, &gold);
        assert_eq!(total.strict().f1, 1.0);
        total.add(&c);
        assert_eq!(total.predicted, 8);
        assert_eq!(BeadCounts::default().strict().f1, 0.0);
        assert_eq!(strict_labels(&gold, &test), [true, false, false, false]);
    }
}
