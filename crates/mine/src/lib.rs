//! Mining strategies (filled by the margin-mining issue): forward, backward, intersection and
//! max-score retrieval, greedy one-to-one extraction, thresholds and top-N, filtering of aligned
//! pairs under a line or word budget, and a `Miner` composing index, scorer and strategy.
//!
//! Nothing is implemented here yet.
