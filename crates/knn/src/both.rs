//! Both directions at once: the seam margin mining searches through.
//!
//! Margin mining (Artetxe & Schwenk 2019) needs the `k_src` nearest targets of every source
//! sentence *and* the `k_trg` nearest sources of every target sentence. [`BidirectionalSearch`]
//! is that operation, with two implementations:
//!
//! - [`OnePass`]: exact, from one pass over the similarity tiles
//!   ([`ExactIndex::search_both_with_progress`]): every score is computed once and feeds both
//!   directions' lists — half the arithmetic of two searches, the same neighbours, scores and
//!   tie order (ties go to the lower id);
//! - [`TwoIndexes`]: any [`IndexFactory`] (a faiss index, a backend of your own) builds an index
//!   over the targets and searches it with the sources, then the other way round; one index
//!   lives at a time.
//!
//! [`IndexSpec`] is a `BidirectionalSearch` too: exact specs take the one pass, faiss specs two
//! indexes. Threads: the current rayon pool (wrap calls in `ThreadPool::install` to choose);
//! results do not depend on it.

use bitext_core::EmbeddingsView;

use crate::error::{Error, Result};
use crate::exact::{Certification, ExactIndex, ExactParams};
use crate::index::{KnnIndex, Metric, Neighbors};
use crate::spec::IndexSpec;

/// Builds a filled kNN index over a matrix (train if the backend needs it, then add); the
/// index may borrow the matrix instead of copying it. Any function
/// `fn(EmbeddingsView<'a>) -> bitext_knn::Result<Box<dyn KnnIndex + 'a>>` is one, and so is an
/// [`IndexSpec`].
pub trait IndexFactory {
    /// An index holding `vectors` (ids are their row indices).
    ///
    /// # Errors
    /// Backend failures.
    fn build<'a>(&self, vectors: EmbeddingsView<'a>) -> Result<Box<dyn KnnIndex + 'a>>;
}

/// A spec builds its index over the matrix ([`IndexSpec::build_over`]: the exact backend
/// borrows it, faiss trains and adds).
impl IndexFactory for IndexSpec {
    fn build<'a>(&self, vectors: EmbeddingsView<'a>) -> Result<Box<dyn KnnIndex + 'a>> {
        self.build_over(vectors)
    }
}

impl<F> IndexFactory for F
where
    F: for<'a> Fn(EmbeddingsView<'a>) -> Result<Box<dyn KnnIndex + 'a>>,
{
    fn build<'a>(&self, vectors: EmbeddingsView<'a>) -> Result<Box<dyn KnnIndex + 'a>> {
        self(vectors)
    }
}

/// Which part of a both-ways search is running, for progress reports.
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
    /// Both directions at once ([`OnePass`]); progress counts source rows.
    Bidirectional,
}

/// Progress of a both-ways search: the stage, items done and items in total.
pub type Progress<'a> = &'a mut dyn FnMut(Stage, usize, usize);

/// The neighbour lists of both directions.
///
/// Two pairs are equal when their lists are; `certification` says how they were found.
#[derive(Debug, Clone)]
pub struct NeighborPair {
    /// The nearest targets of every source sentence.
    pub forward: Neighbors,
    /// The nearest sources of every target sentence.
    pub backward: Neighbors,
    /// The exact search's counts of its certified re-rank, forward (per source row) and
    /// backward (per target row); `None` for other backends.
    pub certification: Option<[Certification; 2]>,
}

impl NeighborPair {
    /// Both directions' lists, found without a certificate (other backends).
    #[must_use]
    pub fn new(forward: Neighbors, backward: Neighbors) -> Self {
        Self {
            forward,
            backward,
            certification: None,
        }
    }
}

impl PartialEq for NeighborPair {
    fn eq(&self, other: &Self) -> bool {
        self.forward == other.forward && self.backward == other.backward
    }
}

/// The `k_src` nearest targets of every source row and the `k_trg` nearest sources of every
/// target row.
///
/// Implementations call [`check_pair`] first, so that every backend rejects bad input the
/// same way: an empty side, different dimensions, a `k` of 0 or larger than the other side,
/// non-finite values.
pub trait BidirectionalSearch {
    /// How neighbours are ranked.
    fn metric(&self) -> Metric;

    /// Both directions' neighbour lists; `progress` gets the stage, done and total.
    ///
    /// # Errors
    /// As [`check_pair`]; backend failures.
    fn search_both(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        k_src: usize,
        k_trg: usize,
        progress: Progress<'_>,
    ) -> Result<NeighborPair>;
}

/// Check a both-ways request: both sides non-empty and of one dimension, and each `k` in
/// `1..=` the other side's size (the messages name the sides).
///
/// # Errors
/// [`Error::Invalid`] naming the side.
pub fn check_pair(
    src: EmbeddingsView<'_>,
    trg: EmbeddingsView<'_>,
    k_src: usize,
    k_trg: usize,
) -> Result<()> {
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
    for (k, q_side, db_side, len) in [
        (k_src, "source", "target", trg.len()),
        (k_trg, "target", "source", src.len()),
    ] {
        if k == 0 {
            return Err(Error::Invalid(format!(
                "k = 0 neighbours of each {q_side} sentence: ask for at least 1"
            )));
        }
        if k > len {
            return Err(Error::Invalid(format!(
                "k = {k} neighbours of each {q_side} sentence were asked for, but the \
                 {db_side} side has only {len} sentences"
            )));
        }
    }
    Ok(())
}

/// Exact both-ways search from one pass over the similarity tiles (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OnePass {
    /// How neighbours are ranked.
    pub metric: Metric,
    /// The exact search's tuning (speed only).
    pub params: ExactParams,
}

impl OnePass {
    /// The one-pass search by `metric` with default tuning.
    #[must_use]
    pub fn new(metric: Metric) -> Self {
        Self {
            metric,
            params: ExactParams::default(),
        }
    }
}

impl BidirectionalSearch for OnePass {
    fn metric(&self) -> Metric {
        self.metric
    }

    fn search_both(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        k_src: usize,
        k_trg: usize,
        progress: Progress<'_>,
    ) -> Result<NeighborPair> {
        check_pair(src, trg, k_src, k_trg)?;
        let total = src.len();
        progress(Stage::Bidirectional, 0, total);
        let index = ExactIndex::over(trg, self.metric)?.with_params(self.params)?;
        let (forward, backward) = index.search_both_certified(src, k_src, k_trg, &mut |done| {
            progress(Stage::Bidirectional, done, total);
        })?;
        Ok(NeighborPair {
            forward: forward.neighbors,
            backward: backward.neighbors,
            certification: Some([forward.certification, backward.certification]),
        })
    }
}

/// Both-ways search by two indexes built with any [`IndexFactory`] (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TwoIndexes<F> {
    /// Builds each side's index.
    pub factory: F,
    /// How the built indexes must rank (checked after building).
    pub metric: Metric,
}

impl<F: IndexFactory> TwoIndexes<F> {
    /// Search with indexes from `factory`, which must rank by `metric`.
    pub fn new(factory: F, metric: Metric) -> Self {
        Self { factory, metric }
    }

    /// Build an index over `db` and query it with `queries` (`stage`: the building stage).
    fn one_way(
        &self,
        db: EmbeddingsView<'_>,
        queries: EmbeddingsView<'_>,
        k: usize,
        stage: Stage,
        progress: Progress<'_>,
    ) -> Result<Neighbors> {
        let (db_side, search_stage) = match stage {
            Stage::IndexTarget => ("target", Stage::Forward),
            _ => ("source", Stage::Backward),
        };
        progress(stage, 0, db.len());
        let index = self.factory.build(db)?;
        if index.metric() != self.metric {
            return Err(Error::Invalid(format!(
                "the {db_side} index ranks by {:?}, but {:?} was asked for",
                index.metric(),
                self.metric
            )));
        }
        if index.len() != db.len() {
            return Err(Error::Invalid(format!(
                "the {db_side} index holds {} vectors, expected {}",
                index.len(),
                db.len()
            )));
        }
        progress(stage, db.len(), db.len());
        let total = queries.len();
        let nb = index.search_with_progress(queries, k, &mut |done| {
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
}

impl<F: IndexFactory> BidirectionalSearch for TwoIndexes<F> {
    fn metric(&self) -> Metric {
        self.metric
    }

    fn search_both(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        k_src: usize,
        k_trg: usize,
        progress: Progress<'_>,
    ) -> Result<NeighborPair> {
        check_pair(src, trg, k_src, k_trg)?;
        let forward = self.one_way(trg, src, k_src, Stage::IndexTarget, progress)?;
        let backward = self.one_way(src, trg, k_trg, Stage::IndexSource, progress)?;
        Ok(NeighborPair::new(forward, backward))
    }
}

/// Exact specs search both ways in one pass ([`OnePass`] with the spec's tuning), faiss specs
/// with two indexes ([`TwoIndexes`]); the same spec in any spelling (`exact`,
/// `{"type":"exact"}`) takes the same path and gives the same result.
impl BidirectionalSearch for IndexSpec {
    fn metric(&self) -> Metric {
        IndexSpec::metric(self)
    }

    fn search_both(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        k_src: usize,
        k_trg: usize,
        progress: Progress<'_>,
    ) -> Result<NeighborPair> {
        self.check()?;
        match self.exact_search() {
            Some(one_pass) => one_pass.search_both(src, trg, k_src, k_trg, progress),
            None => TwoIndexes::new(self.clone(), self.metric())
                .search_both(src, trg, k_src, k_trg, progress),
        }
    }
}
