//! Divergence fixing (§3.2): cut a pair down to the source span `[a, b]` and target span
//! `[c, d]` that its alignment matrix says are parallel.
//!
//! Two objectives ([`FixObjective`]): the draft's alignment objective over the matrix
//! ([`best_spans`], below), and the word labels' ([`best_word_spans`]): the spans whose words'
//! aggregates `aggr` (positive: parallel) sum highest, one maximum subarray per side.
//!
//! **The alignment objective.** The paper's formula is garbled; the issue restates it as
//! `F(a, b, c, d) = Σ_{i=a..b} max_{j=c..d} S(i, j)`, which is what this module maximises. A
//! source word whose best alignment score is negative (divergent) lowers `F`, so leading or
//! trailing source words with no counterpart fall outside `[a, b]`. On the target side `F`
//! never decreases when `[c, d]` grows, but target words that are nobody's best match leave
//! it unchanged: spans with and without them tie, and ties go to the **shorter** span pair
//! (then to the earlier one). The tightest target span around the source words' best matches
//! therefore ranks first among its ties.
//!
//! **Short sides.** Spans must satisfy `b − a > τ` and `d − c > τ` (inclusive ends, τ = 3 in
//! the paper: at least τ + 2 words); a side of at most τ + 1 words cannot be cut and is kept
//! whole.
//!
//! **The search, in `O(I·J²)` instead of `O(I²·J²)` spans.** For each target start `c`, the
//! row maxima `R(i) = max_{j=c..d} S(i, j)` are updated in `O(I)` as `d` grows. For a fixed
//! `[c, d]`, `F` is a sum over `i ∈ [a, b]` of `R(i)`, i.e. a difference of prefix sums
//! `P(b + 1) − P(a)`: for every end `b` the best start is the `a ≤ b − τ − 1` with the smallest
//! prefix, kept as a running minimum. So each `(c, d, b)` yields its best span pair in `O(1)`,
//! and the `N` best of those `I·J²` candidates are kept in a bounded heap. (The `N` best are
//! taken over `(c, d, b)` triples, each with its best start: two candidates never differ only
//! in where the source span starts, which keeps the list diverse.) The caller then re-encodes
//! the candidates and keeps the one with the highest sentence similarity (the paper's), or the
//! highest objective plus a weight times that similarity ([`rerank_key`],
//! [`FixConfig::rerank_weight`]), with the aligner's own sentence vectors or another encoder's.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A candidate correction: half-open spans of each side and its objective `F`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanPair {
    /// Source tokens kept.
    pub src: Range<usize>,
    /// Target tokens kept.
    pub tgt: Range<usize>,
    /// `Σ_{i ∈ src} max_{j ∈ tgt} S(i, j)` ([`FixObjective::Alignment`]), or
    /// `Σ_{i ∈ src} aggr_s(i) + Σ_{j ∈ tgt} aggr_t(j)` ([`FixObjective::Words`]).
    pub score: f64,
}

impl SpanPair {
    fn words(&self) -> usize {
        self.src.len() + self.tgt.len()
    }

    /// The ranking: higher score, then fewer words, then earlier spans.
    fn rank(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.words().cmp(&other.words()))
            .then(self.src.start.cmp(&other.src.start))
            .then(self.tgt.start.cmp(&other.tgt.start))
            .then(self.src.end.cmp(&other.src.end))
            .then(self.tgt.end.cmp(&other.tgt.end))
    }
}

/// Heap entry ordered so that the worst-ranked candidate is on top.
struct Worst(SpanPair);

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.rank(&other.0)
    }
}

/// What the candidate span pairs maximise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FixObjective {
    /// The draft's objective as the issue restates it, `Σ_{i ∈ [a, b]} max_{j ∈ [c, d]}
    /// S(i, j)` over the alignment matrix ([`best_spans`]).
    Alignment,
    /// The word labels: `Σ_{i ∈ [a, b]} aggr_s(i) + Σ_{j ∈ [c, d]} aggr_t(j)`, the aggregates
    /// of the whole pair, the network's own divergence scores ([`best_word_spans`]). Every
    /// word predicted divergent (negative) lowers it on either side.
    #[default]
    Words,
}

/// Fixing parameters (the paper: `N = 20`, `τ = 3`, the N best re-ranked by similarity alone).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixConfig {
    /// Candidates kept for re-ranking by sentence similarity.
    pub candidates: usize,
    /// A span's ends must differ by more than this (`b − a > τ`).
    pub tau: usize,
    /// What the candidates maximise.
    #[serde(default)]
    pub objective: FixObjective,
    /// How the candidates are re-ranked ([`rerank_key`]): `None`, the paper's, by the cosine
    /// of the cut pair's sentence vectors alone; `Some(w)`, by the objective plus `w` times
    /// that cosine (`Some(0.0)`: the objective's first candidate).
    #[serde(default)]
    pub rerank_weight: Option<f64>,
}

impl Default for FixConfig {
    fn default() -> Self {
        Self {
            candidates: 20,
            tau: 3,
            objective: FixObjective::default(),
            rerank_weight: None,
        }
    }
}

/// What a candidate is re-ranked by (higher: kept): its sentence similarity `cosine` alone
/// when `weight` is `None` (the paper: the N best by the objective, the most similar kept), or
/// `objective + weight · cosine`, a log-linear combination of the two (the objective is a sum
/// over the kept words, so a weight of a few tens lets the cosine decide between candidates
/// the word scores hardly separate, such as one inserted word more or less).
///
/// # Errors
/// [`Error::Config`] for a weight that is negative or not finite.
pub fn rerank_key(objective: f64, cosine: f32, weight: Option<f64>) -> Result<f64> {
    match weight {
        None => Ok(f64::from(cosine)),
        Some(w) if w.is_finite() && w >= 0.0 => Ok(objective + w * f64::from(cosine)),
        Some(w) => Err(Error::Config(format!(
            "the re-ranking weight must be a finite number ≥ 0, not {w}"
        ))),
    }
}

/// Allowed `(first start, min length)` on a side of `n` words.
fn min_len(n: usize, tau: usize) -> usize {
    if n >= tau + 2 { tau + 2 } else { n }
}

/// The `config.candidates` best span pairs of the alignment matrix `s` (`[rows, cols]`
/// row-major: source words × target words), best first (see the module docs).
///
/// # Errors
/// [`Error::Input`] for an empty or mis-sized matrix, a non-finite score or no candidates
/// asked for.
pub fn best_spans(s: &[f32], rows: usize, cols: usize, config: FixConfig) -> Result<Vec<SpanPair>> {
    if rows == 0 || cols == 0 || s.len() != rows * cols {
        return Err(Error::Input(format!(
            "an alignment matrix of {} scores for {rows} × {cols} words",
            s.len()
        )));
    }
    if let Some(k) = s.iter().position(|v| !v.is_finite()) {
        return Err(Error::Input(format!(
            "alignment score ({}, {}) is not finite",
            k / cols,
            k % cols
        )));
    }
    if config.candidates == 0 {
        return Err(Error::Config(
            "divergence fixing needs at least 1 candidate".into(),
        ));
    }
    let (ls, lt) = (min_len(rows, config.tau), min_len(cols, config.tau));
    let mut heap: BinaryHeap<Worst> = BinaryHeap::with_capacity(config.candidates + 1);
    let mut row_max = vec![f64::NEG_INFINITY; rows];
    let mut prefix = vec![0f64; rows + 1];
    for c in 0..cols {
        row_max.fill(f64::NEG_INFINITY);
        for d in c..cols {
            for (i, m) in row_max.iter_mut().enumerate() {
                *m = m.max(f64::from(s[i * cols + d]));
            }
            if d + 1 - c < lt {
                continue;
            }
            for i in 0..rows {
                prefix[i + 1] = prefix[i] + row_max[i];
            }
            // For each end b (inclusive), the start a ≤ b + 1 − ls with the smallest prefix
            // (the latest on ties: the shorter span).
            let mut best_a = 0;
            for b in (ls - 1)..rows {
                let a_max = b + 1 - ls;
                if prefix[a_max] <= prefix[best_a] {
                    best_a = a_max;
                }
                let cand = SpanPair {
                    src: best_a..b + 1,
                    tgt: c..d + 1,
                    score: prefix[b + 1] - prefix[best_a],
                };
                if heap.len() < config.candidates {
                    heap.push(Worst(cand));
                } else if let Some(top) = heap.peek()
                    && cand.rank(&top.0) == Ordering::Less
                {
                    heap.pop();
                    heap.push(Worst(cand));
                }
            }
        }
    }
    let mut out: Vec<SpanPair> = heap.into_iter().map(|w| w.0).collect();
    out.sort_by(SpanPair::rank);
    Ok(out)
}

/// The `config.candidates` best span pairs by the word labels ([`FixObjective::Words`]):
/// `src` and `tgt` hold each word's aggregate over the whole pair; a span pair scores the sum
/// over its words, best first (higher score, then fewer words, then earlier spans). The two
/// sides are independent: the best pairs combine the best spans of each side.
///
/// # Errors
/// [`Error::Input`] for an empty side or a non-finite score; [`Error::Config`] when no
/// candidates are asked for.
pub fn best_word_spans(src: &[f32], tgt: &[f32], config: FixConfig) -> Result<Vec<SpanPair>> {
    if src.is_empty() || tgt.is_empty() {
        return Err(Error::Input(format!(
            "word scores of {} source and {} target words",
            src.len(),
            tgt.len()
        )));
    }
    for (side, v) in [("source", src), ("target", tgt)] {
        if let Some(k) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::Input(format!(
                "{side} word {k}'s score is not finite"
            )));
        }
    }
    if config.candidates == 0 {
        return Err(Error::Config(
            "divergence fixing needs at least 1 candidate".into(),
        ));
    }
    let n = config.candidates;
    let (a, b) = (
        side_spans(src, config.tau, n),
        side_spans(tgt, config.tau, n),
    );
    let mut out: Vec<SpanPair> = Vec::with_capacity(a.len() * b.len());
    for (sa, fa) in &a {
        for (sb, fb) in &b {
            out.push(SpanPair {
                src: sa.clone(),
                tgt: sb.clone(),
                score: fa + fb,
            });
        }
    }
    out.sort_by(SpanPair::rank);
    out.truncate(n);
    Ok(out)
}

/// The `n` best spans of one side by the sum of their words' scores (ties to the shorter,
/// then the earlier span), each at least `min_len(len, tau)` words.
fn side_spans(v: &[f32], tau: usize, n: usize) -> Vec<(Range<usize>, f64)> {
    let len = min_len(v.len(), tau);
    let mut prefix = vec![0f64; v.len() + 1];
    for (i, x) in v.iter().enumerate() {
        prefix[i + 1] = prefix[i] + f64::from(*x);
    }
    let mut all: Vec<(Range<usize>, f64)> = Vec::new();
    for start in 0..=v.len() - len {
        for end in start + len..=v.len() {
            all.push((start..end, prefix[end] - prefix[start]));
        }
    }
    all.sort_by(|(r, f), (q, g)| {
        g.total_cmp(f)
            .then(r.len().cmp(&q.len()))
            .then(r.start.cmp(&q.start))
    });
    all.truncate(n);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitext_core::Rng;

    /// Every allowed span pair, scored directly.
    fn all_spans(s: &[f32], rows: usize, cols: usize, tau: usize) -> Vec<SpanPair> {
        let (ls, lt) = (min_len(rows, tau), min_len(cols, tau));
        let mut out = Vec::new();
        for a in 0..rows {
            for b in a + ls - 1..rows {
                for c in 0..cols {
                    for d in c + lt - 1..cols {
                        let score = (a..=b)
                            .map(|i| {
                                (c..=d)
                                    .map(|j| f64::from(s[i * cols + j]))
                                    .fold(f64::NEG_INFINITY, f64::max)
                            })
                            .sum();
                        out.push(SpanPair {
                            src: a..b + 1,
                            tgt: c..d + 1,
                            score,
                        });
                    }
                }
            }
        }
        out
    }

    #[test]
    fn a_hand_built_matrix_with_known_spans() {
        // 8 source × 7 target words. Source 2..7 align diagonally to target 1..6; source 0, 1
        // (a leading extra) and target 0 (a leading extra) align to nothing.
        let (rows, cols) = (8, 7);
        let mut s = vec![-1.0f32; rows * cols];
        for k in 0..5 {
            s[(2 + k) * cols + (1 + k)] = 2.0;
        }
        let spans = best_spans(&s, rows, cols, FixConfig::default()).unwrap();
        assert_eq!(spans[0].src, 2..7);
        assert_eq!(spans[0].tgt, 1..6);
        assert!((spans[0].score - 10.0).abs() < 1e-9);
        // Source 7 aligns to nothing either (−1): a trailing extra, also cut.
        assert!(spans.iter().all(|p| p.score <= spans[0].score));
        assert_eq!(spans.len(), 20);
    }

    #[test]
    fn short_sides_are_kept_whole() {
        let s = vec![1.0f32; 3 * 9];
        let spans = best_spans(&s, 3, 9, FixConfig::default()).unwrap();
        assert!(spans.iter().all(|p| p.src == (0..3)));
        assert!(spans.iter().all(|p| p.tgt.len() >= 5));
        // Ties on the target side go to the shortest spans.
        assert_eq!(spans[0].tgt.len(), 5);
        assert!(best_spans(&s, 3, 8, FixConfig::default()).is_err());
        assert!(best_spans(&[f32::NAN; 4], 2, 2, FixConfig::default()).is_err());
    }

    #[test]
    fn word_spans_cut_the_divergent_ends_of_each_side() {
        // Source: two divergent words, five parallel, one divergent; target: all parallel but
        // a divergent last word.
        let src = [-2.0f32, -1.0, 1.0, 0.5, -0.2, 2.0, 1.0, -3.0];
        let tgt = [1.0f32, 1.0, 0.5, 1.0, 2.0, -1.5];
        let spans = best_word_spans(&src, &tgt, FixConfig::default()).unwrap();
        assert_eq!((spans[0].src.clone(), spans[0].tgt.clone()), (2..7, 0..5));
        assert!((spans[0].score - (4.3 + 5.5)).abs() < 1e-6);
        assert!(spans.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(spans.len(), 20);
        // Short sides are kept whole; bad input is an error.
        let short = best_word_spans(&[-1.0; 3], &tgt, FixConfig::default()).unwrap();
        assert!(short.iter().all(|p| p.src == (0..3)));
        assert!(best_word_spans(&[], &tgt, FixConfig::default()).is_err());
        assert!(best_word_spans(&[f32::NAN], &tgt, FixConfig::default()).is_err());
        let none = FixConfig {
            candidates: 0,
            ..FixConfig::default()
        };
        assert!(best_word_spans(&src, &tgt, none).is_err());
    }

    #[test]
    fn the_best_word_spans_equal_the_exhaustive_search() {
        let mut rng = Rng::seed(23);
        for case in 0..200 {
            let draw = |rng: &mut Rng| -> Vec<f32> {
                (0..1 + rng.below(12))
                    .map(|_| (rng.uniform(-2.0, 2.0) * 4.0).round() as f32 / 4.0)
                    .collect()
            };
            let (src, tgt) = (draw(&mut rng), draw(&mut rng));
            let tau = rng.below(4);
            let config = FixConfig {
                candidates: 10,
                tau,
                objective: FixObjective::Words,
                ..FixConfig::default()
            };
            let fast = best_word_spans(&src, &tgt, config).unwrap();
            let (ls, lt) = (min_len(src.len(), tau), min_len(tgt.len(), tau));
            let mut all = Vec::new();
            for a in 0..src.len() {
                for b in a + ls..=src.len() {
                    for c in 0..tgt.len() {
                        for d in c + lt..=tgt.len() {
                            let score = src[a..b].iter().chain(&tgt[c..d]).map(|&x| f64::from(x));
                            all.push(SpanPair {
                                src: a..b,
                                tgt: c..d,
                                score: score.sum(),
                            });
                        }
                    }
                }
            }
            all.sort_by(SpanPair::rank);
            assert!((fast[0].score - all[0].score).abs() < 1e-9, "case {case}");
            assert_eq!(fast.len(), all.len().min(10), "case {case}");
            for (f, e) in fast.iter().zip(&all) {
                assert!(
                    (f.score - e.score).abs() < 1e-9,
                    "case {case}: {f:?} vs {e:?}"
                );
            }
        }
    }

    #[test]
    fn the_best_equals_the_exhaustive_search() {
        let mut rng = Rng::seed(17);
        for case in 0..200 {
            let rows = 1 + rng.below(12);
            let cols = 1 + rng.below(12);
            let s: Vec<f32> = (0..rows * cols)
                .map(|_| (rng.uniform(-2.0, 2.0) * 4.0).round() as f32 / 4.0)
                .collect();
            let config = FixConfig {
                candidates: 10,
                tau: rng.below(4),
                objective: FixObjective::Alignment,
                ..FixConfig::default()
            };
            let fast = best_spans(&s, rows, cols, config).unwrap();
            let mut all = all_spans(&s, rows, cols, config.tau);
            all.sort_by(SpanPair::rank);
            assert_eq!(fast[0], all[0], "case {case}");
            // Each candidate is the best start for its (c, d, b), and the list holds the best
            // such candidates in order.
            let mut per_triple: Vec<SpanPair> = Vec::new();
            for p in &all {
                if !per_triple
                    .iter()
                    .any(|q| q.tgt == p.tgt && q.src.end == p.src.end)
                {
                    per_triple.push(p.clone());
                }
            }
            per_triple.truncate(config.candidates);
            assert_eq!(fast, per_triple, "case {case}");
        }
    }

    #[test]
    fn the_rerank_key_combines_objective_and_cosine() {
        // The paper's: the cosine alone.
        assert!((rerank_key(50.0, 0.8, None).unwrap() - 0.8).abs() < 1e-6);
        // Weight 0: the objective alone; a weight: the sum.
        assert!((rerank_key(50.0, 0.8, Some(0.0)).unwrap() - 50.0).abs() < 1e-9);
        assert!((rerank_key(50.0, 0.5, Some(10.0)).unwrap() - 55.0).abs() < 1e-9);
        // A candidate with a lower objective but a much higher cosine wins at a high weight.
        let (a, b) = ((40.0, 0.9f32), (41.0, 0.7f32));
        let at =
            |w| rerank_key(a.0, a.1, Some(w)).unwrap() > rerank_key(b.0, b.1, Some(w)).unwrap();
        assert!(!at(1.0));
        assert!(at(10.0));
        for w in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(rerank_key(1.0, 0.5, Some(w)).is_err());
        }
    }
}
