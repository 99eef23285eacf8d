//! Optimal transport (filled by the transport issue): an exact Earth Mover's Distance solver,
//! entropic Sinkhorn, lower bounds for pruning, vocabulary-level word translation and the
//! TF-IDF-weighted sentence distance of Zhang et al. (2016).
//!
//! Nothing is implemented here yet.
