//! The [`Miner`]: kNN search in both directions (any [`KnnIndex`] backend), candidate scoring
//! (margin over the search's own similarities, or any [`PairScorer`]), retrieval, threshold,
//! one-to-one and top-N — LASER's `mine_bitexts.py --mode mine` as a library.

use bitext_core::EmbeddingsView;
use bitext_knn::{KnnIndex, Metric, Neighbors};
use bitext_similarity::{Margin, MarginSpec, PairScorer};

use crate::error::{Error, Result};
use crate::pairs::{ScoredPair, Threshold, apply_threshold, greedy_one_to_one, sort_descending};
use crate::retrieval::{Retrieval, ScoredCandidates, retrieve};

/// Builds a filled kNN index over a matrix (train if the backend needs it, then add); the
/// index may borrow the matrix instead of copying it. Any function
/// `fn(EmbeddingsView<'a>) -> bitext_knn::Result<Box<dyn KnnIndex + 'a>>` is one.
pub trait IndexFactory {
    /// An index holding `vectors` (ids are their row indices).
    ///
    /// # Errors
    /// Backend failures.
    fn build<'a>(&self, vectors: EmbeddingsView<'a>) -> bitext_knn::Result<Box<dyn KnnIndex + 'a>>;
}

/// A spec of `bitext-knn` builds its index over the matrix ([`bitext_knn::IndexSpec::build_over`]:
/// the exact backend borrows it, faiss trains and adds).
impl IndexFactory for bitext_knn::IndexSpec {
    fn build<'a>(&self, vectors: EmbeddingsView<'a>) -> bitext_knn::Result<Box<dyn KnnIndex + 'a>> {
        self.build_over(vectors)
    }
}

impl<F> IndexFactory for F
where
    F: for<'a> Fn(EmbeddingsView<'a>) -> bitext_knn::Result<Box<dyn KnnIndex + 'a>>,
{
    fn build<'a>(&self, vectors: EmbeddingsView<'a>) -> bitext_knn::Result<Box<dyn KnnIndex + 'a>> {
        self(vectors)
    }
}

/// Which search is running, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// Building the index over the target sentences.
    IndexTarget,
    /// Source sentences searching the target index.
    Forward,
    /// Building the index over the source sentences.
    IndexSource,
    /// Target sentences searching the source index.
    Backward,
    /// Both directions at once ([`Miner::search_exact`]); progress counts source rows.
    Bidirectional,
}

/// Progress of the searches: the stage, queries done and queries in total.
pub type Progress<'a> = &'a mut dyn FnMut(Stage, usize, usize);

/// The neighbour lists of both directions.
#[derive(Debug, Clone, PartialEq)]
pub struct NeighborPair {
    /// The nearest targets of every source sentence.
    pub forward: Neighbors,
    /// The nearest sources of every target sentence.
    pub backward: Neighbors,
}

/// Composes a kNN index, a scorer and a retrieval strategy.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_knn::KnnIndex;
/// use bitext_mine::{Miner, Retrieval};
/// use bitext_similarity::{MarginFunction, MarginSpec};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let x = Embeddings::from_rows([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], 2)?;
/// let y = Embeddings::from_rows([[0.0, 1.0], [0.8, 0.6], [1.0, 0.0]], 2)?;
/// let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, 2)).retrieval(Retrieval::Max);
/// # fn index(v: bitext_core::EmbeddingsView<'_>) -> bitext_knn::Result<Box<dyn KnnIndex + '_>> {
/// #     Ok(Box::new(bitext_knn::ExactIndex::over(v, bitext_knn::Metric::InnerProduct)?))
/// # }
/// // `index` builds any KnnIndex (exact, faiss, ...) over a matrix.
/// let nb = miner.search(x.view(), y.view(), &index, &mut |_, _, _| {})?;
/// let pairs = miner.mine_neighbors(&nb)?;
/// assert_eq!(pairs.iter().map(|p| (p.src, p.tgt)).collect::<Vec<_>>(), [(0, 2), (1, 0), (2, 1)]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[must_use]
pub struct Miner {
    margin: MarginSpec,
    retrieval: Retrieval,
    threshold: Option<Threshold>,
    one_to_one: bool,
    top_n: Option<usize>,
}

impl Default for Miner {
    fn default() -> Self {
        Self::new(MarginSpec::default())
    }
}

impl Miner {
    /// Mine with `margin` (its `k_src`/`k_trg` also set how many candidates each sentence
    /// gets), max-score retrieval, no threshold, no top-N.
    pub fn new(margin: MarginSpec) -> Self {
        Self {
            margin,
            retrieval: Retrieval::Max,
            threshold: None,
            one_to_one: false,
            top_n: None,
        }
    }

    /// The retrieval strategy.
    pub fn retrieval(mut self, retrieval: Retrieval) -> Self {
        self.retrieval = retrieval;
        self
    }

    /// Keep only pairs passing `threshold`.
    pub fn threshold(mut self, threshold: Threshold) -> Self {
        self.threshold = Some(threshold);
        self
    }

    /// Also make the result one-to-one (greedy, best score first) whatever the retrieval
    /// (forward and backward pairs may share a sentence; max and intersection never do).
    pub fn one_to_one(mut self, yes: bool) -> Self {
        self.one_to_one = yes;
        self
    }

    /// Keep at most the `n` best pairs.
    pub fn top_n(mut self, n: usize) -> Self {
        self.top_n = Some(n);
        self
    }

    /// The margin spec.
    #[must_use]
    pub fn margin_spec(&self) -> &MarginSpec {
        &self.margin
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a `k` of 0 or a NaN threshold.
    pub fn check(&self) -> Result<()> {
        self.margin.check()?;
        if let Some(t) = self.threshold {
            t.check()?;
        }
        Ok(())
    }

    /// Search both directions: an index over `trg` queried by `src` (`k_src` neighbours), then
    /// an index over `src` queried by `trg` (`k_trg`). One index lives at a time. The views
    /// should be L2-normalised so that inner products are cosines (see
    /// [`crate::UnitRows`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] for an empty side, different dimensions, or an index that does not
    /// rank by inner product; [`bitext_knn::Error::KTooLarge`] when a side has fewer sentences
    /// than the other side's `k`; search failures.
    pub fn search(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        index: &dyn IndexFactory,
        progress: Progress<'_>,
    ) -> Result<NeighborPair> {
        self.check()?;
        check_sides(src, trg)?;
        let n = self.margin.neighborhood();
        let forward = search_one(trg, src, n.k_src, index, progress, Stage::IndexTarget)?;
        let backward = search_one(src, trg, n.k_trg, index, progress, Stage::IndexSource)?;
        Ok(NeighborPair { forward, backward })
    }

    /// Both directions' neighbours by exact inner product from one pass over the similarity
    /// tiles ([`crate::exact_both`]): half the arithmetic of two [`Miner::search`]es.
    /// `progress` reports [`Stage::Bidirectional`] with source rows done.
    ///
    /// # Errors
    /// As [`crate::exact_both`].
    pub fn search_exact(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        params: crate::BidirectionalParams,
        progress: Progress<'_>,
    ) -> Result<NeighborPair> {
        self.check()?;
        check_sides(src, trg)?;
        let n = self.margin.neighborhood();
        for (k, q_side, db_side, len) in [
            (n.k_src, "source", "target", trg.len()),
            (n.k_trg, "target", "source", src.len()),
        ] {
            if k > len {
                return Err(Error::Invalid(format!(
                    "k = {k} neighbours of each {q_side} sentence were asked for, but the \
                     {db_side} side has only {len} sentences"
                )));
            }
        }
        crate::exact_both(src, trg, n.k_src, n.k_trg, params, &mut |done, total| {
            progress(Stage::Bidirectional, done, total);
        })
    }

    /// The margin over the neighbourhoods of `nb`.
    ///
    /// # Errors
    /// As [`Margin::from_neighbors`].
    pub fn margin(&self, nb: &NeighborPair) -> Result<Margin> {
        Ok(Margin::from_neighbors(
            &self.margin,
            &nb.forward,
            &nb.backward,
        )?)
    }

    /// Candidates of both directions scored by the margin, reusing the search's similarities.
    ///
    /// # Errors
    /// As [`Margin::from_neighbors`] and [`Margin::forward_scores`].
    pub fn margin_candidates(
        &self,
        nb: &NeighborPair,
    ) -> Result<(ScoredCandidates, ScoredCandidates)> {
        let m = self.margin(nb)?;
        let n = self.margin.neighborhood();
        let fwd = ScoredCandidates::new(
            n.k_src,
            first_k_ids(&nb.forward, n.k_src),
            m.forward_scores(&nb.forward)?,
        )?;
        let bwd = ScoredCandidates::new(
            n.k_trg,
            first_k_ids(&nb.backward, n.k_trg),
            m.backward_scores(&nb.backward)?,
        )?;
        Ok((fwd, bwd))
    }

    /// Candidates of both directions (the `k_src` / `k_trg` nearest neighbours) scored by any
    /// [`PairScorer`] built over the same two corpora (an MLP, a classifier, EMD…).
    ///
    /// # Errors
    /// The scorer's errors; [`Error::Invalid`] when its sizes differ from the neighbour lists'.
    pub fn scored_candidates(
        &self,
        nb: &NeighborPair,
        scorer: &dyn PairScorer,
    ) -> Result<(ScoredCandidates, ScoredCandidates)> {
        let (n_src, n_tgt) = (nb.forward.len(), nb.backward.len());
        if scorer.sizes() != (n_src, n_tgt) {
            return Err(Error::Invalid(format!(
                "the scorer holds {} × {} sentences but the neighbour lists {n_src} × {n_tgt}",
                scorer.sizes().0,
                scorer.sizes().1
            )));
        }
        let n = self.margin.neighborhood();
        let side = |nb: &Neighbors, k: usize, backward: bool| -> Result<ScoredCandidates> {
            let ids = first_k_ids(nb, k);
            let pairs: Vec<(usize, usize)> = ids
                .iter()
                .enumerate()
                .map(|(p, &id)| if backward { (id, p / k) } else { (p / k, id) })
                .collect();
            let mut scores = Vec::with_capacity(pairs.len());
            for chunk in pairs.chunks(1 << 16) {
                scores.extend(scorer.score(chunk)?);
            }
            ScoredCandidates::new(k, ids, scores)
        };
        Ok((
            side(&nb.forward, n.k_src, false)?,
            side(&nb.backward, n.k_trg, true)?,
        ))
    }

    /// Retrieval, threshold, one-to-one and top-N over scored candidates; the result is sorted
    /// by descending score (ties in the retrieval's order).
    ///
    /// # Errors
    /// As [`retrieve`].
    pub fn select(
        &self,
        fwd: &ScoredCandidates,
        bwd: &ScoredCandidates,
    ) -> Result<Vec<ScoredPair>> {
        self.check()?;
        let mut pairs = retrieve(self.retrieval, fwd, bwd)?;
        if let Some(t) = self.threshold {
            apply_threshold(&mut pairs, t)?;
        }
        if self.one_to_one {
            pairs = greedy_one_to_one(pairs)?;
        } else {
            sort_descending(&mut pairs)?;
        }
        if let Some(n) = self.top_n {
            pairs.truncate(n);
        }
        Ok(pairs)
    }

    /// Margin mining over searched neighbour lists.
    ///
    /// # Errors
    /// As [`Miner::margin_candidates`] and [`Miner::select`].
    pub fn mine_neighbors(&self, nb: &NeighborPair) -> Result<Vec<ScoredPair>> {
        let (fwd, bwd) = self.margin_candidates(nb)?;
        self.select(&fwd, &bwd)
    }

    /// Search and margin-mine in one call.
    ///
    /// # Errors
    /// As [`Miner::search`] and [`Miner::mine_neighbors`].
    pub fn mine(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        index: &dyn IndexFactory,
        progress: Progress<'_>,
    ) -> Result<Vec<ScoredPair>> {
        let nb = self.search(src, trg, index, progress)?;
        self.mine_neighbors(&nb)
    }
}

/// The first `k` ids of every query.
fn first_k_ids(nb: &Neighbors, k: usize) -> Vec<usize> {
    (0..nb.len())
        .flat_map(|q| nb.ids(q)[..k].iter().copied())
        .collect()
}

/// Both sides non-empty and of one dimension.
pub(crate) fn check_sides(src: EmbeddingsView<'_>, trg: EmbeddingsView<'_>) -> Result<()> {
    for (side, v) in [("source", src), ("target", trg)] {
        if v.is_empty() {
            return Err(Error::Invalid(format!("the {side} side has no sentences")));
        }
    }
    if src.dim() != trg.dim() {
        return Err(Error::Invalid(format!(
            "source embeddings have dimension {} but target embeddings {}",
            src.dim(),
            trg.dim()
        )));
    }
    Ok(())
}

/// Build an index over `db` and query it with `queries`.
fn search_one(
    db: EmbeddingsView<'_>,
    queries: EmbeddingsView<'_>,
    k: usize,
    index: &dyn IndexFactory,
    progress: Progress<'_>,
    build_stage: Stage,
) -> Result<Neighbors> {
    let (db_side, q_side, search_stage) = if build_stage == Stage::IndexTarget {
        ("target", "source", Stage::Forward)
    } else {
        ("source", "target", Stage::Backward)
    };
    if k > db.len() {
        return Err(Error::Invalid(format!(
            "k = {k} neighbours of each {q_side} sentence were asked for, but the {db_side} \
             side has only {} sentences",
            db.len()
        )));
    }
    progress(build_stage, 0, db.len());
    let idx = index.build(db)?;
    if idx.metric() != Metric::InnerProduct {
        return Err(Error::Invalid(
            "margin mining needs an inner-product index (cosine on L2-normalised embeddings)"
                .into(),
        ));
    }
    if idx.len() != db.len() {
        return Err(Error::Invalid(format!(
            "the {db_side} index holds {} vectors, expected {}",
            idx.len(),
            db.len()
        )));
    }
    progress(build_stage, db.len(), db.len());
    let total = queries.len();
    let nb = idx.search_with_progress(queries, k, &mut |done| {
        progress(search_stage, done, total);
    })?;
    if nb.len() != total || nb.k() != k {
        return Err(Error::Invalid(format!(
            "the {db_side} index returned {} × {} neighbours for {total} queries and k = {k}",
            nb.len(),
            nb.k()
        )));
    }
    Ok(nb)
}

#[cfg(test)]
#[path = "miner_tests.rs"]
mod tests;
