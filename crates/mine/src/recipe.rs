//! The margin-mining recipe in one place: [`MineSpec`] (the [`Miner`]'s parameters and the
//! kNN search, as one serde-readable value) and [`Neighbourhoods`] (both sides
//! checked and L2-normalised, both directions searched), from which mining, aligned-pair
//! scoring and 1-NN retrieval all read. The CLI (`bitext mine`, `bitext filter`), the examples
//! and `cargo xtask eval` call it instead of chaining the steps themselves.
//!
//! ```
//! use bitext_core::Embeddings;
//! use bitext_mine::MineSpec;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let x = Embeddings::from_rows([[1.0, 0.0], [0.0, 2.0], [0.6, 0.8]], 2)?;
//! let y = Embeddings::from_rows([[0.0, 1.0], [0.8, 0.6], [3.0, 0.0]], 2)?;
//! let spec: MineSpec =
//!     serde_json::from_str(r#"{"margin": {"type": "ratio", "k_src": 2, "k_trg": 2},
//!                              "retrieval": "max", "index": {"type": "exact"}}"#)?;
//! let pairs = spec.mine(x.view(), y.view(), &mut |_, _, _| {})?;
//! assert_eq!(pairs.iter().map(|p| (p.src, p.tgt)).collect::<Vec<_>>(), [(0, 2), (1, 0), (2, 1)]);
//! # Ok(())
//! # }
//! ```

use bitext_core::{Embeddings, EmbeddingsView, HalfView};
use bitext_knn::{ExactIndex, IndexSpec, Metric, NeighborPair, Progress, Stage};
use bitext_similarity::{Margin, MarginScorer};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::miner::Miner;
use crate::pairs::ScoredPair;
use crate::retrieval::ScoredCandidates;
use crate::unit::{UnitRows, check_unit};

/// Everything margin mining needs besides the two matrices: the [`Miner`] (margin, retrieval,
/// threshold, one-to-one, top-N), the kNN search ([`IndexSpec`]: `exact` searches both ways in
/// one pass, a faiss spec builds an index per side; its `threads` size the search's pool).
/// Serialised flat: `{"margin": …, "retrieval": "max", "index": {"type": "exact"}}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[must_use]
pub struct MineSpec {
    /// Margin, retrieval, threshold, one-to-one, top-N.
    #[serde(flatten)]
    pub miner: Miner,
    /// The kNN search (ranking by inner product).
    #[serde(default)]
    pub index: IndexSpec,
}

impl MineSpec {
    /// Mine with `miner` and the exact one-pass search.
    pub fn new(miner: Miner) -> Self {
        Self {
            miner,
            index: IndexSpec::default(),
        }
    }

    /// The kNN search.
    pub fn index(mut self, index: IndexSpec) -> Self {
        self.index = index;
        self
    }

    /// Check the parameters (the miner's, and that this build has the index backend).
    ///
    /// # Errors
    /// As [`Miner::check`] and [`IndexSpec::check`].
    pub fn check(&self) -> Result<()> {
        self.miner.check()?;
        self.index.check()?;
        Ok(())
    }

    /// Check and L2-normalise both sides ([`UnitRows`]: borrowed when already unit length),
    /// then search both directions with the spec's index.
    ///
    /// # Errors
    /// As [`MineSpec::check`], [`UnitRows::new`] (naming the side and row) and
    /// [`Miner::search`].
    pub fn neighbourhoods<'a>(
        &self,
        src: EmbeddingsView<'a>,
        trg: EmbeddingsView<'a>,
        progress: Progress<'_>,
    ) -> Result<Neighbourhoods<'a>> {
        self.check()?;
        let src = UnitRows::new(src, "source")?;
        let trg = UnitRows::new(trg, "target")?;
        let neighbors = self
            .miner
            .search(src.view(), trg.view(), &self.index, progress)?;
        Ok(Neighbourhoods {
            miner: self.miner,
            src,
            trg,
            neighbors,
        })
    }

    /// Mine: [`MineSpec::neighbourhoods`], then [`Neighbourhoods::pairs`].
    ///
    /// # Errors
    /// As those two.
    pub fn mine(
        &self,
        src: EmbeddingsView<'_>,
        trg: EmbeddingsView<'_>,
        progress: Progress<'_>,
    ) -> Result<Vec<ScoredPair>> {
        self.neighbourhoods(src, trg, progress)?.pairs()
    }

    /// Mine `src` against a target of binary16 rows searched as they are (a memory-mapped
    /// fp16 file, `bitext_core::MappedHalf`): the target is never widened as a whole, only
    /// checked block by block and scanned. The pairs are [`MineSpec::mine`]'s over the widened
    /// target; the neighbour lists (with the search's certification) come back beside them.
    /// Exact index only (a faiss index copies its vectors anyway); progress counts source rows
    /// ([`Stage::Bidirectional`]).
    ///
    /// # Errors
    /// A faiss index spec; as [`MineSpec::check`], [`UnitRows::new`] and [`check_unit`]
    /// (naming the side and row), and the search's errors (a side with fewer sentences than
    /// the other side's `k`, different dimensions, non-finite values).
    pub fn mine_half_target(
        &self,
        src: EmbeddingsView<'_>,
        trg: HalfView<'_>,
        progress: Progress<'_>,
    ) -> Result<(Vec<ScoredPair>, NeighborPair)> {
        self.check()?;
        let Some(search) = self.index.exact_search() else {
            return Err(Error::Invalid(format!(
                "a binary16 target is searched by the exact index, not {}",
                self.index
            )));
        };
        let src = UnitRows::new(src, "source")?;
        let trg_unit = half_is_unit(trg)?;
        let n = self.miner.margin_spec().neighborhood();
        if n.k_src > trg.len() || n.k_trg > src.view().len() {
            return Err(Error::Invalid(format!(
                "k = {} / {} needs at least as many sentences on the other side ({} sources, \
                 {} targets)",
                n.k_src,
                n.k_trg,
                src.view().len(),
                trg.len()
            )));
        }
        let index = ExactIndex::over_half(trg, Metric::InnerProduct, !trg_unit)?
            .with_params(search.params)?;
        let total = src.view().len();
        let (f, b) = index.search_both_certified(src.view(), n.k_src, n.k_trg, &mut |done| {
            progress(Stage::Bidirectional, done, total);
        })?;
        let pair = NeighborPair {
            certification: Some([f.certification, b.certification]),
            ..NeighborPair::new(f.neighbors, b.neighbors)
        };
        Ok((self.miner.mine_neighbors(&pair)?, pair))
    }
}

/// Whether every binary16 row of `trg` is unit length as [`check_unit`] decides it, widened
/// block by block (never as a whole).
fn half_is_unit(trg: HalfView<'_>) -> Result<bool> {
    const BLOCK: usize = 8192;
    let d = trg.dim();
    let mut unit = true;
    let mut start = 0;
    while start < trg.len() {
        let rows = BLOCK.min(trg.len() - start);
        let mut block = Embeddings::zeros(rows, d)?;
        for i in 0..rows {
            trg.widen_into(start + i, block.row_mut(i));
        }
        unit &= check_unit(block.view(), "target", start)?;
        start += rows;
    }
    Ok(unit)
}

/// Two normalised sides and their neighbour lists both ways, made by
/// [`MineSpec::neighbourhoods`].
#[derive(Debug)]
pub struct Neighbourhoods<'a> {
    miner: Miner,
    src: UnitRows<'a>,
    trg: UnitRows<'a>,
    neighbors: NeighborPair,
}

impl<'a> Neighbourhoods<'a> {
    /// The neighbour lists (cosines, best first).
    #[must_use]
    pub fn neighbors(&self) -> &NeighborPair {
        &self.neighbors
    }

    /// The normalised sides (source, target).
    #[must_use]
    pub fn sides(&self) -> (EmbeddingsView<'_>, EmbeddingsView<'_>) {
        (self.src.view(), self.trg.view())
    }

    /// The margin over the neighbourhoods.
    ///
    /// # Errors
    /// As [`Miner::margin`].
    pub fn margin(&self) -> Result<Margin> {
        self.miner.margin(&self.neighbors)
    }

    /// Both directions' candidates scored by the margin ([`Miner::margin_candidates`]).
    ///
    /// # Errors
    /// As [`Miner::margin_candidates`].
    pub fn candidates(&self) -> Result<(ScoredCandidates, ScoredCandidates)> {
        self.miner.margin_candidates(&self.neighbors)
    }

    /// The mined pairs: retrieval, threshold, one-to-one and top-N over the margin candidates,
    /// best first.
    ///
    /// # Errors
    /// As [`Miner::mine_neighbors`].
    pub fn pairs(&self) -> Result<Vec<ScoredPair>> {
        self.miner.mine_neighbors(&self.neighbors)
    }

    /// A scorer of any (source, target) pair by the margin over these neighbourhoods (for
    /// scoring aligned pairs: `bitext mine --mode score`, `bitext filter`).
    ///
    /// # Errors
    /// As [`Miner::margin`] and [`MarginScorer::new`].
    pub fn scorer(&self) -> Result<MarginScorer<'_>> {
        Ok(MarginScorer::new(
            self.margin()?,
            self.src.view(),
            self.trg.view(),
        )?)
    }
}
