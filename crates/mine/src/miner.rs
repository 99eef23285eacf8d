//! The [`Miner`]: kNN search in both directions (any [`BidirectionalSearch`]: the exact one-pass
//! search, two faiss indexes, …), candidate scoring (margin over the search's own similarities,
//! or any [`PairScorer`]), retrieval, threshold, one-to-one and top-N — LASER's
//! `mine_bitexts.py --mode mine` as a library.

use bitext_core::EmbeddingsView;
use bitext_knn::{BidirectionalSearch, Metric, NeighborPair, Neighbors, Progress};
use bitext_similarity::{Margin, MarginSpec, PairScorer};

use crate::error::{Error, Result};
use crate::pairs::{ScoredPair, Threshold, apply_threshold, greedy_one_to_one, sort_descending};
use crate::retrieval::{Retrieval, ScoredCandidates, retrieve};

/// Composes a both-ways kNN search, a scorer and a retrieval strategy.
///
/// ```
/// use bitext_core::Embeddings;
/// use bitext_knn::IndexSpec;
/// use bitext_mine::{Miner, Retrieval};
/// use bitext_similarity::{MarginFunction, MarginSpec};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let x = Embeddings::from_rows([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], 2)?;
/// let y = Embeddings::from_rows([[0.0, 1.0], [0.8, 0.6], [1.0, 0.0]], 2)?;
/// let miner = Miner::new(MarginSpec::new(MarginFunction::Ratio, 2)).retrieval(Retrieval::Max);
/// // Any BidirectionalSearch: "exact" is the one-pass search, a faiss spec two indexes.
/// let index: IndexSpec = "exact".parse()?;
/// let nb = miner.search(x.view(), y.view(), &index, &mut |_, _, _| {})?;
/// let pairs = miner.mine_neighbors(&nb)?;
/// assert_eq!(pairs.iter().map(|p| (p.src, p.tgt)).collect::<Vec<_>>(), [(0, 2), (1, 0), (2, 1)]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
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

    /// Both directions' neighbours (`k_src` targets of every source, `k_trg` sources of every
    /// target) by `search`: [`bitext_knn::OnePass`] (exact, one pass over the similarity
    /// tiles), [`bitext_knn::TwoIndexes`] (an index over each side, e.g. faiss), or an
    /// [`bitext_knn::IndexSpec`] naming either. The views should be L2-normalised so that
    /// inner products are cosines (see [`crate::UnitRows`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a search that does not rank by inner product or a NaN threshold;
    /// the search's errors (an empty side, different dimensions, a side with fewer sentences
    /// than the other side's `k`, non-finite values, backend failures).
    pub fn search(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        search: &dyn BidirectionalSearch,
        progress: Progress<'_>,
    ) -> Result<NeighborPair> {
        self.check()?;
        if search.metric() != Metric::InnerProduct {
            return Err(Error::Invalid(format!(
                "margin mining needs an inner-product index (cosine on L2-normalised \
                 embeddings), not {:?}",
                search.metric()
            )));
        }
        let n = self.margin.neighborhood();
        Ok(search.search_both(src, trg, n.k_src, n.k_trg, progress)?)
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
            Ok(ScoredCandidates::new(k, ids, scores)?)
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
        search: &dyn BidirectionalSearch,
        progress: Progress<'_>,
    ) -> Result<Vec<ScoredPair>> {
        let nb = self.search(src, trg, search, progress)?;
        self.mine_neighbors(&nb)
    }
}

/// The first `k` ids of every query.
fn first_k_ids(nb: &Neighbors, k: usize) -> Vec<usize> {
    (0..nb.len())
        .flat_map(|q| nb.ids(q)[..k].iter().copied())
        .collect()
}

#[cfg(test)]
#[path = "miner_tests.rs"]
mod tests;
