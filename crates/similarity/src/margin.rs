//! Margin-based scoring (Artetxe & Schwenk 2019) and CSLS (Kim et al. 2019, eq. 16–18).
//!
//! Both compare the similarity of a candidate pair with the mean similarity of the `k` nearest
//! neighbours of each side in the other language:
//!
//! ```text
//! m_src(x) = (1/k_src) Σ_{z ∈ NN_k_src(x)} cos(x, z)      (x's neighbours among the targets)
//! m_trg(y) = (1/k_trg) Σ_{z ∈ NN_k_trg(y)} cos(y, z)      (y's neighbours among the sources)
//! b        = (m_src(x) + m_trg(y)) / 2
//! absolute: cos(x, y)          distance: cos(x, y) − b          ratio: cos(x, y) / b
//! CSLS:     2 cos(x, y) − m_src(x) − m_trg(y) = 2 (cos(x, y) − b)
//! ```
//!
//! With `k_src = k_trg = k`, `b = Σ cos(x,z)/2k + Σ cos(y,z)/2k` as in the paper and in LASER's
//! `mine_bitexts.py`. The means come from the similarities the kNN search already computed
//! ([`Neighbors`]); nothing is searched or multiplied again.

use bitext_core::EmbeddingsView;
use bitext_knn::Neighbors;

use crate::error::{Error, Result};
use crate::measure::{check_pair_of_views, dot, from_name, name_of};
use crate::scorer::PairScorer;

/// How a candidate's similarity `a` is compared with the mean neighbourhood similarity `b`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MarginFunction {
    /// `a`: the plain cosine (LASER `absolute`); `k` only chooses the candidates.
    Absolute,
    /// `a − b` (LASER `distance`).
    Distance,
    /// `a / b` (LASER `ratio`, the paper's best).
    #[default]
    Ratio,
    /// `2a − 2b`: CSLS (Conneau et al. 2018; Kim et al. eq. 16–18), twice the distance margin.
    Csls,
}

impl MarginFunction {
    /// `margin(a, b)` for a candidate similarity `a` and mean neighbourhood similarity `b`.
    /// The ratio of a non-positive `b` is not finite or not meaningful; [`Margin`] reports it
    /// as an error rather than calling this.
    #[must_use]
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            MarginFunction::Absolute => a,
            MarginFunction::Distance => a - b,
            MarginFunction::Ratio => a / b,
            MarginFunction::Csls => 2.0 * (a - b),
        }
    }

    /// The name LASER's `--margin` (and bitext's) uses.
    #[must_use]
    pub fn name(self) -> &'static str {
        name_of(self, MARGIN_NAMES)
    }
}

/// The names of the margin functions, each one's own name first and its aliases after it.
const MARGIN_NAMES: &[(&str, MarginFunction)] = &[
    ("absolute", MarginFunction::Absolute),
    ("cosine", MarginFunction::Absolute),
    ("distance", MarginFunction::Distance),
    ("ratio", MarginFunction::Ratio),
    ("csls", MarginFunction::Csls),
];

impl std::str::FromStr for MarginFunction {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        from_name(s, MARGIN_NAMES, "margin")
    }
}

fn default_k() -> usize {
    4
}

/// Neighbourhood sizes: `k_src` nearest targets of each source sentence, `k_trg` nearest sources
/// of each target sentence (LASER's `-k` sets both; its default is 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Neighborhood {
    /// Neighbours of each source sentence among the targets.
    #[serde(default = "default_k")]
    pub k_src: usize,
    /// Neighbours of each target sentence among the sources.
    #[serde(default = "default_k")]
    pub k_trg: usize,
}

impl Default for Neighborhood {
    fn default() -> Self {
        Self { k_src: 4, k_trg: 4 }
    }
}

/// Which margin, over how many neighbours: `{"type": "ratio", "k_src": 4, "k_trg": 4}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum MarginSpec {
    /// Plain cosine of the best of the `k` candidates.
    Absolute(Neighborhood),
    /// Cosine minus the mean neighbourhood similarity.
    Distance(Neighborhood),
    /// Cosine over the mean neighbourhood similarity.
    Ratio(Neighborhood),
    /// CSLS: twice the distance margin.
    Csls(Neighborhood),
}

impl Default for MarginSpec {
    /// LASER's defaults: ratio margin, `k = 4`.
    fn default() -> Self {
        MarginSpec::Ratio(Neighborhood::default())
    }
}

impl MarginSpec {
    /// `function` over `k` neighbours on both sides.
    #[must_use]
    pub fn new(function: MarginFunction, k: usize) -> Self {
        Self::with_k(function, k, k)
    }

    /// `function` over `k_src` / `k_trg` neighbours.
    #[must_use]
    pub fn with_k(function: MarginFunction, k_src: usize, k_trg: usize) -> Self {
        let n = Neighborhood { k_src, k_trg };
        match function {
            MarginFunction::Absolute => MarginSpec::Absolute(n),
            MarginFunction::Distance => MarginSpec::Distance(n),
            MarginFunction::Ratio => MarginSpec::Ratio(n),
            MarginFunction::Csls => MarginSpec::Csls(n),
        }
    }

    /// The margin function.
    #[must_use]
    pub fn function(&self) -> MarginFunction {
        match self {
            MarginSpec::Absolute(_) => MarginFunction::Absolute,
            MarginSpec::Distance(_) => MarginFunction::Distance,
            MarginSpec::Ratio(_) => MarginFunction::Ratio,
            MarginSpec::Csls(_) => MarginFunction::Csls,
        }
    }

    /// The neighbourhood sizes.
    #[must_use]
    pub fn neighborhood(&self) -> Neighborhood {
        match *self {
            MarginSpec::Absolute(n)
            | MarginSpec::Distance(n)
            | MarginSpec::Ratio(n)
            | MarginSpec::Csls(n) => n,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Invalid`] when a `k` is 0.
    pub fn check(&self) -> Result<()> {
        let n = self.neighborhood();
        if n.k_src == 0 || n.k_trg == 0 {
            return Err(Error::Invalid(format!(
                "the margin needs at least one neighbour on each side (k_src = {}, k_trg = {})",
                n.k_src, n.k_trg
            )));
        }
        Ok(())
    }
}

/// The mean similarity of the first `k` neighbours of each query (accumulated in `f64`): the
/// means [`Margin::from_neighbors`] keeps, row by row, so the means of a matrix cut into
/// shards are the shards' means one after the other. `what` names the lists in errors.
///
/// # Errors
/// [`Error::Invalid`] for lists of fewer than `k` neighbours or a non-finite similarity.
pub fn neighbourhood_means(nb: &Neighbors, k: usize, what: &str) -> Result<Vec<f64>> {
    if nb.k() < k {
        return Err(Error::Invalid(format!(
            "{what} neighbour lists hold {} neighbours per sentence but the margin needs {k}",
            nb.k()
        )));
    }
    (0..nb.len())
        .map(|q| {
            let s = &nb.scores(q)[..k];
            if let Some(x) = s.iter().find(|x| !x.is_finite()) {
                return Err(Error::Invalid(format!(
                    "{what} neighbour similarity {x} of sentence {q} is not finite"
                )));
            }
            Ok(s.iter().map(|&x| f64::from(x)).sum::<f64>() / k as f64)
        })
        .collect()
}

/// Check that every neighbour id is a row of the other side.
fn check_ids(nb: &Neighbors, k: usize, n_other: usize, what: &str) -> Result<()> {
    for q in 0..nb.len() {
        if let Some(&id) = nb.ids(q)[..k].iter().find(|&&id| id >= n_other) {
            return Err(Error::Invalid(format!(
                "{what} neighbour {id} of sentence {q} is out of range: the other side has \
                 {n_other} sentences"
            )));
        }
    }
    Ok(())
}

/// A margin ready to score: the function and the mean neighbourhood similarity of every source
/// and target sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Margin {
    spec: MarginSpec,
    src_mean: Vec<f64>,
    trg_mean: Vec<f64>,
}

impl Margin {
    /// Build from the two kNN results over L2-normalised embeddings with an inner-product
    /// index: `fwd` holds the nearest targets of every source sentence (at least `k_src` each),
    /// `bwd` the nearest sources of every target sentence (at least `k_trg` each).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a bad spec, too few neighbours, a non-finite similarity or an id
    /// outside the other side.
    pub fn from_neighbors(spec: &MarginSpec, fwd: &Neighbors, bwd: &Neighbors) -> Result<Self> {
        spec.check()?;
        let n = spec.neighborhood();
        let src_mean = neighbourhood_means(fwd, n.k_src, "forward")?;
        let trg_mean = neighbourhood_means(bwd, n.k_trg, "backward")?;
        check_ids(fwd, n.k_src, bwd.len(), "forward")?;
        check_ids(bwd, n.k_trg, fwd.len(), "backward")?;
        Ok(Self {
            spec: *spec,
            src_mean,
            trg_mean,
        })
    }

    /// Build from precomputed means.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a bad spec or a non-finite mean.
    pub fn from_means(spec: &MarginSpec, src_mean: Vec<f64>, trg_mean: Vec<f64>) -> Result<Self> {
        spec.check()?;
        for (side, m) in [("source", &src_mean), ("target", &trg_mean)] {
            if let Some(i) = m.iter().position(|x| !x.is_finite()) {
                return Err(Error::Invalid(format!(
                    "{side} neighbourhood mean {} of sentence {i} is not finite",
                    m[i]
                )));
            }
        }
        Ok(Self {
            spec: *spec,
            src_mean,
            trg_mean,
        })
    }

    /// The spec.
    #[must_use]
    pub fn spec(&self) -> &MarginSpec {
        &self.spec
    }

    /// Mean similarity of each source sentence's `k_src` nearest targets.
    #[must_use]
    pub fn src_means(&self) -> &[f64] {
        &self.src_mean
    }

    /// Mean similarity of each target sentence's `k_trg` nearest sources.
    #[must_use]
    pub fn trg_means(&self) -> &[f64] {
        &self.trg_mean
    }

    /// Number of source and target sentences.
    #[must_use]
    pub fn sizes(&self) -> (usize, usize) {
        (self.src_mean.len(), self.trg_mean.len())
    }

    /// The margin score of source `src` and target `tgt` whose similarity is `sim`.
    ///
    /// # Errors
    /// [`Error::PairOutOfRange`] (with `index` 0); [`Error::Invalid`] for a ratio whose mean
    /// neighbourhood similarity is not positive.
    pub fn score(&self, src: usize, tgt: usize, sim: f64) -> Result<f64> {
        let (n_src, n_tgt) = self.sizes();
        if src >= n_src || tgt >= n_tgt {
            return Err(Error::PairOutOfRange {
                index: 0,
                src,
                tgt,
                n_src,
                n_tgt,
            });
        }
        self.score_unchecked(src, tgt, sim)
    }

    fn score_unchecked(&self, src: usize, tgt: usize, sim: f64) -> Result<f64> {
        let b = 0.5 * (self.src_mean[src] + self.trg_mean[tgt]);
        let f = self.spec.function();
        if f == MarginFunction::Ratio && b <= 0.0 {
            return Err(Error::Invalid(format!(
                "ratio margin of pair ({src}, {tgt}): the mean neighbourhood similarity is {b}, \
                 not positive (use the distance margin for such embeddings)"
            )));
        }
        Ok(f.apply(sim, b))
    }

    /// Scores of the forward candidates, reusing the similarities of the search: entry
    /// `i * k_src + c` scores source `i` with its `c`-th nearest target `fwd.ids(i)[c]`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when `fwd` does not match the margin's sizes; as [`Margin::score`].
    pub fn forward_scores(&self, fwd: &Neighbors) -> Result<Vec<f64>> {
        let k = self.spec.neighborhood().k_src;
        self.candidate_scores(fwd, k, false)
    }

    /// Scores of the backward candidates: entry `j * k_trg + c` scores target `j` with its
    /// `c`-th nearest source `bwd.ids(j)[c]`.
    ///
    /// # Errors
    /// As [`Margin::forward_scores`].
    pub fn backward_scores(&self, bwd: &Neighbors) -> Result<Vec<f64>> {
        let k = self.spec.neighborhood().k_trg;
        self.candidate_scores(bwd, k, true)
    }

    fn candidate_scores(&self, nb: &Neighbors, k: usize, backward: bool) -> Result<Vec<f64>> {
        let (n_src, n_tgt) = self.sizes();
        let (n_q, n_other, what) = if backward {
            (n_tgt, n_src, "backward")
        } else {
            (n_src, n_tgt, "forward")
        };
        if nb.len() != n_q || nb.k() < k {
            return Err(Error::Invalid(format!(
                "{what} neighbour lists: {} sentences × {} neighbours, expected {n_q} × at \
                 least {k}",
                nb.len(),
                nb.k()
            )));
        }
        check_ids(nb, k, n_other, what)?;
        let mut out = Vec::with_capacity(n_q * k);
        for q in 0..n_q {
            for (&id, &s) in nb.ids(q)[..k].iter().zip(&nb.scores(q)[..k]) {
                let (src, tgt) = if backward { (id, q) } else { (q, id) };
                out.push(self.score_unchecked(src, tgt, f64::from(s))?);
            }
        }
        Ok(out)
    }
}

/// A [`PairScorer`] for any pair: the margin of the inner product of two rows of L2-normalised
/// embeddings (the views the kNN search ran on). Used to score given aligned pairs (LASER
/// `--mode score`) or candidates that did not come from the search.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_knn::Neighbors;
/// use bitext_similarity::{Margin, MarginFunction, MarginScorer, MarginSpec, PairScorer};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let x = Embeddings::from_rows([[1.0, 0.0], [0.6, 0.8]], 2)?;
/// let y = Embeddings::from_rows([[0.8, 0.6], [0.0, 1.0]], 2)?;
/// // k = 1: each side's nearest neighbour in the other language.
/// let fwd = Neighbors::new(1, vec![0, 0], vec![0.8, 0.96])?;
/// let bwd = Neighbors::new(1, vec![1, 1], vec![0.96, 0.8])?;
/// let spec = MarginSpec::new(MarginFunction::Ratio, 1);
/// let margin = Margin::from_neighbors(&spec, &fwd, &bwd)?;
/// let s = MarginScorer::new(margin, x.view(), y.view())?;
/// // cos(x0, y0) = 0.8 over (0.8 + 0.96) / 2 = 0.88.
/// assert!((s.score(&[(0, 0)])?[0] - 0.8 / 0.88).abs() < 1e-6);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct MarginScorer<'a> {
    margin: Margin,
    src: EmbeddingsView<'a>,
    trg: EmbeddingsView<'a>,
}

impl<'a> MarginScorer<'a> {
    /// Score rows of `src` and `trg` (the L2-normalised views the kNN search ran on).
    ///
    /// # Errors
    /// [`Error::Invalid`] when the dimensions differ, a value is not finite, or the row counts
    /// differ from the margin's.
    pub fn new(margin: Margin, src: EmbeddingsView<'a>, trg: EmbeddingsView<'a>) -> Result<Self> {
        check_pair_of_views(src, trg, false)?;
        if margin.sizes() != (src.len(), trg.len()) {
            return Err(Error::Invalid(format!(
                "the margin was built for {} × {} sentences but the embeddings have {} × {}",
                margin.sizes().0,
                margin.sizes().1,
                src.len(),
                trg.len()
            )));
        }
        Ok(Self { margin, src, trg })
    }

    /// The margin.
    #[must_use]
    pub fn margin(&self) -> &Margin {
        &self.margin
    }
}

impl PairScorer for MarginScorer<'_> {
    fn sizes(&self) -> (usize, usize) {
        self.margin.sizes()
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> Result<Vec<f64>> {
        pairs
            .iter()
            .map(|&(i, j)| {
                let sim = f64::from(dot(self.src.row(i), self.trg.row(j)));
                self.margin.score_unchecked(i, j, sim)
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "margin_tests.rs"]
mod tests;
