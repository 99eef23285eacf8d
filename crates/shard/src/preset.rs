//! `--index auto`: the index of a sharded run chosen from the data size, as stopes chooses its
//! own: the exact search while it is affordable, then an IVF-PQ index whose inverted lists grow
//! with the database (stopes goes from `OPQ64,IVF1024,PQ64` at 10k sentences to
//! `OPQ64,IVF262144,PQ64` above 500M, searching with nprobe 128).

use bitext_knn::{IndexSpec, Metric};

/// Up to this many (source, target) pairs the exact search is used (500k × 500k: about half an
/// hour of int8 scanning on this two-core machine, see docs/SCALING.md).
pub const AUTO_EXACT_PAIRS: u128 = 250_000_000_000;

/// Inverted lists visited per query (stopes's value).
pub const AUTO_NPROBE: usize = 128;

/// The index for mining `n_src` against `n_trg` sentences of dimension `dim`: exact up to
/// [`AUTO_EXACT_PAIRS`] pairs; above, `OPQ64,IVF{L}_HNSW32,PQ64np` (`IVF{L}_HNSW32,SQ8` when
/// `dim` is not a multiple of 64) with `L` the power of two at or above `8 √n` (n the larger
/// side), clamped to 1,024 ..= 262,144, nprobe 128, trained on a seeded sample of `40 L` rows
/// (faiss's guideline is 30 to 256 per list). Two departures from stopes's strings, both about
/// cost, not results: the coarse quantiser is an HNSW graph (`_HNSW32`) rather than a flat
/// scan of the `L` centroids, which a query would otherwise pay once per index shard
/// (268M multiply-adds at L = 262,144, d = 1024); and `np` skips faiss's polysemous training
/// of the PQ codes (a simulated annealing over the 64 codebooks that ran for over ten minutes
/// here on 65k vectors), which only serves polysemous Hamming filtering, unused by bitext.
#[must_use]
pub fn auto_index(n_src: usize, n_trg: usize, dim: usize) -> IndexSpec {
    if (n_src as u128) * (n_trg as u128) <= AUTO_EXACT_PAIRS {
        return IndexSpec::exact(Metric::InnerProduct);
    }
    let n = n_src.max(n_trg);
    let lists = ((8.0 * (n as f64).sqrt()).ceil() as usize)
        .next_power_of_two()
        .clamp(1024, 262_144);
    let factory = if dim.is_multiple_of(64) {
        format!("OPQ64,IVF{lists}_HNSW32,PQ64np")
    } else {
        format!("IVF{lists}_HNSW32,SQ8")
    };
    serde_json::from_value(serde_json::json!({
        "type": "faiss",
        "factory": factory,
        "nprobe": AUTO_NPROBE.min(lists),
        "train_size": (40 * lists).min(n),
    }))
    .expect("a well-formed faiss spec")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_while_affordable_then_ivf_pq_growing_with_the_data() {
        assert_eq!(
            auto_index(100_000, 100_000, 1024),
            IndexSpec::exact(Metric::InnerProduct)
        );
        assert_eq!(
            auto_index(500_000, 500_000, 1024),
            IndexSpec::exact(Metric::InnerProduct)
        );
        let s = serde_json::to_value(auto_index(1_000_000, 2_000_000, 1024)).unwrap();
        assert_eq!(s["factory"], "OPQ64,IVF16384_HNSW32,PQ64np");
        assert_eq!(s["nprobe"], 128);
        assert_eq!(s["train_size"], 655_360);
        let s = serde_json::to_value(auto_index(1_000_000_000, 1_000_000_000, 1024)).unwrap();
        assert_eq!(s["factory"], "OPQ64,IVF262144_HNSW32,PQ64np");
        let s = serde_json::to_value(auto_index(600_000, 600_000, 300)).unwrap();
        assert_eq!(s["factory"], "IVF8192_HNSW32,SQ8");
    }
}
