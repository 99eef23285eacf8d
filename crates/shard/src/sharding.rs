//! [`Sharding`]: how a plan cuts each side into row ranges (query shards, and in faiss mode
//! index shards), and the cut itself.

/// How a plan cuts the sides: `shards` row ranges per side (the query shards; in exact mode
/// also the database shards), and in faiss mode `index_shards` ranges per side, each with its
/// own index (fewer, larger index shards keep the number of indexes a query visits small, while
/// small query shards keep each step's queries in memory). A plain count sets both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sharding {
    /// Query shards per side.
    pub shards: usize,
    /// Index shards per side (faiss mode).
    pub index_shards: usize,
}

impl From<usize> for Sharding {
    fn from(n: usize) -> Self {
        Sharding {
            shards: n,
            index_shards: n,
        }
    }
}

/// `n` rows cut into `shards` ranges whose sizes differ by at most one (the first ones larger).
pub(crate) fn cut(n: usize, shards: usize) -> Vec<(usize, usize)> {
    let (base, extra) = (n / shards, n % shards);
    let mut at = 0;
    (0..shards)
        .map(|s| {
            let len = base + usize::from(s < extra);
            let r = (at, at + len);
            at += len;
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_rows_with_sizes_within_one() {
        for n in [1, 2, 7, 10, 101] {
            for s in 1..=n.min(9) {
                let c = cut(n, s);
                assert_eq!(c.len(), s);
                assert_eq!(c[0].0, 0);
                assert_eq!(c[s - 1].1, n);
                assert!(c.windows(2).all(|w| w[0].1 == w[1].0));
                let sizes: Vec<usize> = c.iter().map(|r| r.1 - r.0).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            }
        }
    }
}
