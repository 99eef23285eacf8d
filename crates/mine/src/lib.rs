//! Mining and filtering parallel sentences from scored candidates.
//!
//! - [`Miner`]: kNN search in both directions with any [`bitext_knn::BidirectionalSearch`]
//!   (bitext-knn's exact one-pass search, or an index per side from any backend), candidates
//!   scored by a margin over the search's own similarities ([`bitext_similarity::Margin`]) or
//!   by any [`bitext_similarity::PairScorer`], then [`Retrieval`] (forward, backward,
//!   intersection, max-score), a [`Threshold`], optional one-to-one and top-N — LASER's
//!   `mine_bitexts.py --mode mine` (Artetxe & Schwenk 2019).
//! - [`MineSpec`]: the whole recipe as one serde value (miner + index spec), from two embedding
//!   matrices to scored pairs, which the CLI, the examples and `cargo xtask eval` call;
//!   [`Neighbourhoods`] normalises both sides and searches them once, then gives mining,
//!   aligned-pair scoring and 1-NN retrieval. Retrieval works on [`ScoredCandidates`]
//!   (`Neighbors<f64>`).
//! - [`ScorerSpec`]: which scorer of sentence pairs to build (serde, tagged by `"type"`), what
//!   `bitext score` and `bitext filter` build from: the measures and margins over embeddings
//!   ([`ScorerSpec::with_embedding_scorer`]); the Earth Mover's Distance ([`EmdScorers`], over
//!   sentence batches) and the lexical baselines (IBM Model 1, Levenshtein, length ratio) over
//!   sentences ([`SentenceScorers`]); and neural models (left to `bitext-neural`).
//! - [`greedy_one_to_one`] over any scored list (Grégoire & Langlais 2018, §5.2), [`top_n`],
//!   [`apply_threshold`].
//! - [`filter`]: score aligned pairs and keep the best within a line or word budget (Kim et al.
//!   2019, §4.2), writing bicleaner-style TSV.
//! - [`extract`]: classifier extraction — score candidates, keep `score >= ρ`, one-to-one.
//! - [`docalign`]: sentence alignment inside two documents that translate each other, in order
//!   (vecalign, Thompson & Koehn 2019): beads of up to `max_size` sentences and deletions over
//!   overlap embeddings, coarse to fine in near-linear time.
//!
//! ```
//! use bitext_mine::{Retrieval, ScoredCandidates, ScoredPair, retrieve};
//! # fn main() -> bitext_mine::Result<()> {
//! // Two sources, two targets, one candidate each way.
//! let fwd = ScoredCandidates::new(1, vec![1, 1], vec![0.9, 0.4])?;
//! let bwd = ScoredCandidates::new(1, vec![1, 0], vec![0.3, 0.9])?;
//! let pairs = retrieve(Retrieval::Intersection, &fwd, &bwd)?;
//! assert_eq!(pairs, vec![ScoredPair::new(0.9, 0, 1)]);
//! # Ok(())
//! # }
//! ```

pub mod docalign;
mod error;
mod extract;
pub mod filter;
mod miner;
mod pairs;
mod recipe;
mod retrieval;
mod scorer_spec;
mod sentence_scorers;
pub mod unify;
mod unit;

pub use error::{Error, Result};
pub use extract::{all_pairs, extract};
pub use filter::{Budget, TsvFilter, WordSide};
pub use miner::Miner;
pub use pairs::{
    ScoredPair, Threshold, apply_threshold, check_scores, greedy_one_to_one, sort_descending, top_n,
};
pub use recipe::{MineSpec, Neighbourhoods};
pub use retrieval::{Retrieval, ScoredCandidates, retrieve};
pub use scorer_spec::{EmdSpec, ScorerSpec};
pub use sentence_scorers::{EmdScorers, SentenceScorers};
pub use unit::{UnitRows, check_unit};
