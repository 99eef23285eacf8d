//! Pointwise similarity of two vectors — dot product, cosine, negative Euclidean distance
//! (Kim et al. 2019, eq. 13–14) — and [`EmbeddingScorer`], the [`PairScorer`] that applies one
//! of them to rows of two embedding matrices.

use bitext_core::EmbeddingsView;

use crate::error::{Error, Result};
use crate::scorer::PairScorer;

/// Lanes of the unrolled Euclidean loop: eight independent `f32` accumulators, which the
/// compiler turns into one SIMD register and which keep the rounding error well below that of
/// a serial sum.
const LANES: usize = 8;

/// Inner product `a · b`, computed by [`bitext_knn::dot`], the kernel of the exact kNN search
/// (sequential fused multiply-adds from `+0`): a pair scored here gets bit for bit the
/// similarity the search found for it.
///
/// # Panics
/// When the lengths differ.
#[must_use]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(
        a.len(),
        b.len(),
        "dot product of vectors of different lengths"
    );
    bitext_knn::dot(a, b)
}

/// Squared Euclidean norm `a · a`.
#[must_use]
pub fn squared_norm(a: &[f32]) -> f32 {
    dot(a, a)
}

/// Cosine similarity `a · b / (‖a‖ ‖b‖)` (Kim et al. eq. 13). A zero vector has no direction:
/// its cosine with anything is defined as 0 here; [`EmbeddingScorer`] rejects zero rows
/// instead, so that a scorer never hides them.
///
/// # Panics
/// When the lengths differ.
#[must_use]
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (ab, aa, bb) = (dot(a, b), squared_norm(a), squared_norm(b));
    if aa == 0.0 || bb == 0.0 {
        return 0.0;
    }
    // Products of norms in f64: ‖a‖²‖b‖² may overflow f32 for large vectors.
    (f64::from(ab) / (f64::from(aa) * f64::from(bb)).sqrt()) as f32
}

/// Negative Euclidean distance `−‖a − b‖` (Kim et al. eq. 14): higher is more similar.
///
/// # Panics
/// When the lengths differ.
#[must_use]
pub fn neg_euclidean(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "distance of vectors of different lengths");
    let mut acc = [0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| (x - y) * (x - y))
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..LANES {
            let d = x[l] - y[l];
            acc[l] += d * d;
        }
    }
    -(acc.iter().sum::<f32>() + tail).sqrt()
}

/// A pointwise similarity measure, chosen by name in a config (`{"type": "cosine"}`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Measure {
    /// Cosine similarity.
    #[default]
    Cosine,
    /// Inner product (equals cosine on L2-normalised vectors, and is cheaper).
    Dot,
    /// Negative Euclidean distance.
    NegEuclidean,
}

impl Measure {
    /// Apply the measure to two vectors of equal length.
    ///
    /// # Panics
    /// When the lengths differ.
    #[must_use]
    pub fn apply(self, a: &[f32], b: &[f32]) -> f32 {
        match self {
            Measure::Cosine => cosine(a, b),
            Measure::Dot => dot(a, b),
            Measure::NegEuclidean => neg_euclidean(a, b),
        }
    }

    /// The measure's name as the CLI spells it.
    #[must_use]
    pub fn name(self) -> &'static str {
        name_of(self, MEASURE_NAMES)
    }
}

/// The names of the measures, each one's own name first and its aliases after it.
const MEASURE_NAMES: &[(&str, Measure)] = &[
    ("cosine", Measure::Cosine),
    ("cos", Measure::Cosine),
    ("dot", Measure::Dot),
    ("ip", Measure::Dot),
    ("neg_euclidean", Measure::NegEuclidean),
    ("euclidean", Measure::NegEuclidean),
    ("l2", Measure::NegEuclidean),
];

impl std::str::FromStr for Measure {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        from_name(s, MEASURE_NAMES, "similarity")
    }
}

/// The name of `value` in `names` (a table of `(name, value)` that lists each value's own name
/// before its aliases).
pub(crate) fn name_of<T: PartialEq>(value: T, names: &[(&'static str, T)]) -> &'static str {
    names
        .iter()
        .find(|(_, v)| *v == value)
        .map(|(n, _)| *n)
        .expect("every value has a name")
}

/// The value named `s` (own name or alias) in `names`; `what` names the kind in the error.
///
/// # Errors
/// [`Error::Invalid`] listing the own names of all values when `s` is none of the names.
pub(crate) fn from_name<T: Copy + PartialEq>(
    s: &str,
    names: &[(&'static str, T)],
    what: &str,
) -> Result<T> {
    if let Some(&(_, v)) = names.iter().find(|(n, _)| *n == s) {
        return Ok(v);
    }
    let mut own: Vec<&str> = Vec::new();
    for (i, (n, v)) in names.iter().enumerate() {
        if names[..i].iter().all(|(_, w)| w != v) {
            own.push(n);
        }
    }
    let last = own.pop().unwrap_or_default();
    Err(Error::Invalid(format!(
        "unknown {what} {s:?} (expected {} or {last})",
        own.join(", ")
    )))
}

/// Check that two matrices can be compared: same dimension, finite values, and (for cosine)
/// no zero rows. Errors name the side, row and column.
pub(crate) fn check_pair_of_views(
    src: EmbeddingsView<'_>,
    trg: EmbeddingsView<'_>,
    nonzero: bool,
) -> Result<()> {
    if src.dim() != trg.dim() {
        return Err(Error::Invalid(format!(
            "source embeddings have dimension {} but target embeddings {}",
            src.dim(),
            trg.dim()
        )));
    }
    for (side, v) in [("source", src), ("target", trg)] {
        v.check_finite()
            .map_err(|e| Error::Invalid(format!("{side} embeddings: {e}")))?;
        if nonzero && let Some(r) = v.rows().position(|r| r.iter().all(|&x| x == 0.0)) {
            return Err(Error::Invalid(format!(
                "{side} embedding row {r} is all zeros: its cosine is undefined"
            )));
        }
    }
    Ok(())
}

/// Scores `(i, j)` by a [`Measure`] between row `i` of the source matrix and row `j` of the
/// target matrix: the plain cosine baseline of mining and filtering.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_similarity::{EmbeddingScorer, Measure, PairScorer};
/// # fn main() -> bitext_similarity::Result<()> {
/// let src = Embeddings::from_rows([[1.0, 0.0], [0.0, 2.0]], 2)?;
/// let trg = Embeddings::from_rows([[3.0, 0.0], [1.0, 1.0]], 2)?;
/// let s = EmbeddingScorer::new(src.view(), trg.view(), Measure::Cosine)?;
/// let got = s.score(&[(0, 0), (1, 1)])?;
/// assert!((got[0] - 1.0).abs() < 1e-6 && (got[1] - 0.5f64.sqrt()).abs() < 1e-6);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct EmbeddingScorer<'a> {
    src: EmbeddingsView<'a>,
    trg: EmbeddingsView<'a>,
    measure: Measure,
}

impl<'a> EmbeddingScorer<'a> {
    /// Score rows of `src` against rows of `trg`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the dimensions differ, a value is not finite, or (for cosine) a
    /// row is all zeros — naming the side and row.
    pub fn new(src: EmbeddingsView<'a>, trg: EmbeddingsView<'a>, measure: Measure) -> Result<Self> {
        check_pair_of_views(src, trg, measure == Measure::Cosine)?;
        Ok(Self { src, trg, measure })
    }

    /// The measure.
    #[must_use]
    pub fn measure(&self) -> Measure {
        self.measure
    }
}

impl PairScorer for EmbeddingScorer<'_> {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.trg.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
        Ok(pairs
            .iter()
            .map(|&(i, j)| f64::from(self.measure.apply(self.src.row(i), self.trg.row(j))))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitext_core::{Embeddings, Rng};
    use proptest::prelude::*;

    fn naive_dot(a: &[f32], b: &[f32]) -> f64 {
        a.iter()
            .zip(b)
            .map(|(x, y)| f64::from(*x) * f64::from(*y))
            .sum()
    }

    proptest! {
        #[test]
        fn measures_match_a_naive_f64_implementation(d in 1usize..40, seed in any::<u64>()) {
            let mut rng = Rng::seed(seed);
            let a: Vec<f32> = (0..d).map(|_| rng.normal() as f32).collect();
            let b: Vec<f32> = (0..d).map(|_| rng.normal() as f32).collect();
            let ab = naive_dot(&a, &b);
            let (na, nb) = (naive_dot(&a, &a).sqrt(), naive_dot(&b, &b).sqrt());
            let dist: f64 = a.iter().zip(&b).map(|(x, y)| f64::from(x - y).powi(2)).sum::<f64>();
            prop_assert!((f64::from(dot(&a, &b)) - ab).abs() < 1e-4 * (1.0 + na * nb));
            prop_assert!((f64::from(cosine(&a, &b)) - ab / (na * nb)).abs() < 1e-5);
            prop_assert!((f64::from(neg_euclidean(&a, &b)) + dist.sqrt()).abs() < 1e-4);
            // Cosine is scale-invariant and bounded.
            let a2: Vec<f32> = a.iter().map(|x| 3.5 * x).collect();
            prop_assert!((cosine(&a2, &b) - cosine(&a, &b)).abs() < 1e-5);
            prop_assert!(cosine(&a, &b).abs() <= 1.0 + 1e-6);
        }
    }

    /// The point of calling the kNN kernel: a pair scored here, on the L2-normalised rows the
    /// exact search ran on, gets the very bits the search reported (any kernel, any dimension).
    #[test]
    fn dot_gives_the_scores_of_the_exact_search_bit_for_bit() {
        use bitext_knn::{ExactIndex, KnnIndex, Metric};
        let mut rng = Rng::seed(5);
        for d in [1, 7, 37, 300] {
            let mut random = |n: usize| {
                let v = (0..n * d).map(|_| rng.normal() as f32).collect();
                let mut e = Embeddings::new(v, d).unwrap();
                e.normalize_l2();
                e
            };
            let (x, q) = (random(40), random(9));
            let index = ExactIndex::over(x.view(), Metric::InnerProduct).unwrap();
            let nb = index.search(q.view(), 5).unwrap();
            for i in 0..q.len() {
                for (&id, &s) in nb.ids(i).iter().zip(nb.scores(i)) {
                    assert_eq!(dot(q.row(i), x.row(id)).to_bits(), s.to_bits(), "d = {d}");
                }
            }
        }
    }

    #[test]
    fn hand_worked_values() {
        let (a, b) = ([1.0f32, 2.0, 2.0], [2.0f32, 0.0, 0.0]);
        assert_eq!(dot(&a, &b), 2.0);
        assert!((cosine(&a, &b) - 2.0 / 6.0).abs() < 1e-7);
        // ‖(−1, 2, 2)‖ = 3.
        assert!((neg_euclidean(&a, &b) + 3.0).abs() < 1e-7);
        assert_eq!(cosine(&a, &[0.0; 3]), 0.0);
        assert_eq!("l2".parse::<Measure>().unwrap(), Measure::NegEuclidean);
        let e = "manhattan".parse::<Measure>().unwrap_err().to_string();
        assert!(
            e.contains("unknown similarity \"manhattan\" (expected cosine, dot or neg_euclidean)"),
            "{e}"
        );
        for m in [Measure::Cosine, Measure::Dot, Measure::NegEuclidean] {
            assert_eq!(m.name().parse::<Measure>().unwrap(), m);
        }
    }

    #[test]
    fn scorer_checks_inputs_and_scores() {
        let src = Embeddings::from_rows([[1.0, 0.0], [0.0, 0.0]], 2).unwrap();
        let trg = Embeddings::from_rows([[0.0, 1.0]], 2).unwrap();
        let e = EmbeddingScorer::new(src.view(), trg.view(), Measure::Cosine).unwrap_err();
        assert!(
            e.to_string()
                .contains("source embedding row 1 is all zeros"),
            "{e}"
        );
        let s = EmbeddingScorer::new(src.view(), trg.view(), Measure::NegEuclidean).unwrap();
        let got = s.score(&[(0, 0), (1, 0)]).unwrap();
        assert!((got[0] + 2f64.sqrt()).abs() < 1e-6 && (got[1] + 1.0).abs() < 1e-6);
        assert!(s.score(&[(2, 0)]).is_err());
        let nan = Embeddings::from_rows([[1.0, f32::NAN]], 2).unwrap();
        let e = EmbeddingScorer::new(src.view(), nan.view(), Measure::Dot).unwrap_err();
        assert!(e.to_string().contains("target embeddings"), "{e}");
        let d3 = Embeddings::from_rows([[1.0, 0.0, 0.0]], 3).unwrap();
        assert!(EmbeddingScorer::new(src.view(), d3.view(), Measure::Dot).is_err());
    }

    #[test]
    fn measure_serde_is_tagged() {
        let json = serde_json::to_string(&Measure::NegEuclidean).unwrap();
        assert_eq!(json, r#"{"type":"neg_euclidean"}"#);
        let back: Measure = serde_json::from_str(r#"{"type":"cosine"}"#).unwrap();
        assert_eq!(back, Measure::Cosine);
    }
}
