//! The steps of the sharded plans: what each does ([`StepKind`], for mining, filtering and
//! cleaning plans alike), its name, dependencies and content address ([`Step`]), and the side
//! of the mining a step reads ([`Side`]).

use serde::{Deserialize, Serialize};

/// A side of the mining.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The source sentences (the queries of the forward direction).
    Src,
    /// The target sentences.
    Trg,
}

impl Side {
    /// "src" or "trg".
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Side::Src => "src",
            Side::Trg => "trg",
        }
    }
}

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StepKind {
    /// Text plans with `unify`: the first occurrence of each sentence of `side` (see
    /// [`crate::Plan::original_lines`]).
    Dedup {
        /// The side.
        side: Side,
    },
    /// The sentences of one byte-range shard of a text side, encoded.
    Embed {
        /// The side.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// An approximate index (faiss mode) trained on a seeded sample of `side`, saved empty.
    TrainIndex {
        /// The side.
        side: Side,
    },
    /// The trained index of `side` filled with one shard's rows (ids local to the shard).
    Add {
        /// The side.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// Faiss mode: one shard of `side` searched in every shard index of the other side, the
    /// lists merged as they come (its output is that of a `merge-knn` step).
    SearchIndexes {
        /// The side of the queries.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// Source shard `src` against target shard `trg`, both ways, in one exact pass.
    Knn {
        /// Source shard.
        src: usize,
        /// Target shard.
        trg: usize,
    },
    /// The partial lists of one shard of `side` merged.
    MergeKnn {
        /// The side.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// The kNN means of every sentence of `side`.
    Means {
        /// The side.
        side: Side,
    },
    /// Margin scores of one shard's candidates.
    Score {
        /// The side.
        side: Side,
        /// Its shard.
        shard: usize,
    },
    /// Retrieval over all candidates.
    Retrieve,
    /// The final TSV.
    Merge,
    /// Filter plans: the lines of one byte-range shard of the TSV scored, with their word
    /// counts.
    ScoreLines {
        /// Its shard.
        shard: usize,
    },
    /// Filter plans: the budget and threshold over every line's score.
    Select,
    /// Filter plans: the kept lines, verbatim with their score.
    WriteKept,
    /// Cleaning plans: one shard's folded sides counted.
    CountSides {
        /// Its shard.
        shard: usize,
    },
    /// Cleaning plans: one bucket of keys' counts summed, the boilerplate kept.
    Repeats {
        /// Its bucket.
        bucket: usize,
    },
    /// Cleaning plans: one shard's pairs through the rules and language identification, and
    /// scored.
    Judge {
        /// Its shard.
        shard: usize,
    },
    /// Cleaning plans: the near-duplicates of one bucket of keys.
    DedupKeys {
        /// Its bucket.
        bucket: usize,
    },
    /// Cleaning plans: the kept lines.
    WriteCleaned,
    /// Cleaning plans: the removed lines, with their step, rule and reason.
    WriteRemoved,
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Its name (`knn-0-2`, `merge-knn-src-1`, `retrieve`, …).
    pub name: String,
    /// What it does.
    #[serde(flatten)]
    pub kind: StepKind,
    /// The steps whose outputs it reads.
    pub deps: Vec<String>,
    /// Content address: a hash of what it does and of its inputs' ids.
    pub id: String,
}

impl Step {
    /// Its output file in the work directory.
    #[must_use]
    pub fn output(&self) -> String {
        if self.kind == StepKind::Merge {
            format!("mined-{}.tsv", self.id)
        } else if self.kind == StepKind::WriteKept {
            format!("filtered-{}.tsv", self.id)
        } else if self.kind == StepKind::WriteCleaned {
            format!("cleaned-{}.tsv", self.id)
        } else if self.kind == StepKind::WriteRemoved {
            format!("removed-{}.tsv", self.id)
        } else if matches!(self.kind, StepKind::Embed { .. }) {
            format!("{}-{}.emb", self.name, self.id)
        } else {
            format!("{}-{}.bin", self.name, self.id)
        }
    }

    /// Its completion record in the work directory.
    #[must_use]
    pub fn record(&self) -> String {
        format!("{}-{}.done", self.name, self.id)
    }
}
