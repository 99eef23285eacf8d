//! Similarity of sentence pairs (filled by the margin-mining issue): cosine, dot, negative
//! Euclidean, CSLS, margin scoring over k nearest neighbours (absolute, distance, ratio), and the
//! `PairScorer` trait through which learned scorers plug into the miner.
//!
//! Nothing is implemented here yet.
