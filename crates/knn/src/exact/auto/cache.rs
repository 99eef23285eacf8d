//! What a measurement of `auto` is valid for ([`AutoKey`]: this build, this CPU and its flags,
//! the dimension, metric, threads and direction of the search) and what it keeps ([`Entry`]),
//! in the workspace's cache of measured choices ([`TuneCache`]).

use bitext_core::tune::{Cpu, TuneCache};
use serde::{Deserialize, Serialize};

use super::{Candidate, Timing};
use crate::index::Metric;

/// What a measurement of `auto` is valid for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AutoKey {
    /// What is measured: `"knn-precision"`.
    pub kind: String,
    /// The bitext version that measured (its kernels may change between versions).
    pub version: String,
    /// The CPU and its flags.
    pub cpu: Cpu,
    /// Dimension of the vectors.
    pub dim: usize,
    /// How neighbours are ranked.
    pub metric: Metric,
    /// Threads of the search.
    pub threads: usize,
    /// A both-ways search (margin mining) rather than a one-way one.
    pub both_ways: bool,
}

impl AutoKey {
    /// The key of a search on this machine.
    #[must_use]
    pub fn here(dim: usize, metric: Metric, threads: usize, both_ways: bool) -> Self {
        Self {
            kind: "knn-precision".into(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            cpu: bitext_core::tune::cpu().clone(),
            dim,
            metric,
            threads,
            both_ways,
        }
    }

    /// The measurement `cache` keeps for this key.
    #[must_use]
    pub fn cached(&self, cache: &TuneCache) -> Option<Entry> {
        cache.get(self)
    }
}

/// One measurement: the time of each candidate, per row of the quantised copy and per
/// (query, row) of the search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Each candidate's time.
    pub timings: Vec<(Candidate, Timing)>,
    /// Database rows and queries of the sample it was measured on.
    pub sample: (usize, usize),
    /// Seconds the measurement took.
    pub cost_s: f64,
}
