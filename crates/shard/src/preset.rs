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
    ivf_pq(lists, dim, 64, n)
}

/// The index [`auto_index`] picks above the exact range, with `lists` inverted lists and
/// `codes` bytes of PQ code per vector (64 there; fewer in the test that trains and searches
/// it at a small size): `OPQ{codes},IVF{lists}_HNSW32,PQ{codes}np` when `dim` is a multiple
/// of `codes`, else `IVF{lists}_HNSW32,SQ8`; trained on `40 lists` of the `n` rows.
fn ivf_pq(lists: usize, dim: usize, codes: usize, n: usize) -> IndexSpec {
    let factory = if dim.is_multiple_of(codes) {
        format!("OPQ{codes},IVF{lists}_HNSW32,PQ{codes}np")
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

    /// The preset's index, at a small size: trained on its sample, filled and searched, it
    /// finds planted neighbours (the coarse HNSW quantiser, the OPQ rotation and the PQ codes
    /// all used), for both metrics.
    #[cfg(feature = "faiss")]
    #[test]
    fn the_ivf_pq_preset_trains_and_finds_planted_neighbours() {
        use bitext_core::{Embeddings, Rng};
        // faiss warns on standard error at every k-means of the OPQ rotation that 640 rows
        // are few for 256 centroids (it wants 39 per centroid, 10,240 rows: a minute of
        // training here): some 800 lines. So the work runs in a child process of this test
        // binary, whose standard error stays out of the log unless it fails.
        const CHILD: &str = "BITEXT_PRESET_TEST_CHILD";
        if std::env::var_os(CHILD).is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "preset::tests::the_ivf_pq_preset_trains_and_finds_planted_neighbours",
                ])
                .args(["--nocapture", "--test-threads", "1"])
                .env(CHILD, "1")
                .output()
                .unwrap();
            let said = |b: &[u8]| -> String {
                String::from_utf8_lossy(b)
                    .lines()
                    .filter(|l| !l.starts_with("WARNING clustering"))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let stdout = said(&out.stdout);
            assert!(out.status.success(), "{stdout}\n{}", said(&out.stderr));
            assert!(stdout.contains("1 passed"), "{stdout}");
            return;
        }
        let (n, dim) = (2000, 32);
        let mut rng = Rng::seed(4);
        let db: Vec<f32> = (0..n * dim).map(|_| rng.normal() as f32).collect();
        let db = Embeddings::new(db, dim).unwrap();
        // Query i is row 7i plus a little noise: its nearest row is 7i.
        let queries: Vec<Vec<f32>> = (0..100)
            .map(|i| {
                db.row(7 * i)
                    .iter()
                    .map(|v| v + 0.05 * rng.normal() as f32)
                    .collect()
            })
            .collect();
        let queries = Embeddings::from_rows(queries, dim).unwrap();
        let spec = ivf_pq(16, dim, 8, n);
        let s = serde_json::to_value(&spec).unwrap();
        assert_eq!(s["factory"], "OPQ8,IVF16_HNSW32,PQ8np");
        assert_eq!(
            (s["nprobe"].clone(), s["train_size"].clone()),
            (16.into(), 640.into())
        );
        for metric in [Metric::InnerProduct, Metric::L2] {
            let index = spec
                .clone()
                .with_metric(metric)
                .build_over(db.view())
                .unwrap();
            assert_eq!(index.len(), n);
            let got = index.search(queries.view(), 4).unwrap();
            let found = (0..100).filter(|&i| got.ids(i).contains(&(7 * i))).count();
            assert!(
                found >= 90,
                "{metric:?}: {found} of 100 planted neighbours in the top 4"
            );
        }
    }
}
