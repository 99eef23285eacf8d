//! LASER's `--unify`: each distinct sentence mined once, at its first occurrence.
//! [`Occurrences`] finds the first occurrence of each sentence in a stream of sentences; the
//! single-process miner (`bitext mine --unify`, over sentences in memory: [`repeats`]) and the
//! dedup step of sharded mining (`bitext-shard`, streaming over the shards of a text) both use
//! it, so that both keep the same rows.
//!
//! Sentences are told apart by a 128-bit hash of their exact text (two independent 64-bit
//! ones), so that two distinct sentences among billions are not confused (a 64-bit hash would
//! confuse some pair at that scale); memory is 24 bytes per distinct sentence plus the map's
//! overhead. The hash is not stable across builds: nothing stores it.
//!
//! ```
//! use bitext_mine::unify::repeats;
//! let (dups, occurrences) = repeats(&["a", "b", "a", "c", "a"]);
//! assert_eq!(dups, [2, 4]);
//! assert_eq!(occurrences[&0], [0, 2, 4]);
//! ```

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A 128-bit hash of `s`.
fn hash128(s: &str) -> u128 {
    let half = |salt: u8| {
        let mut h = std::hash::DefaultHasher::new();
        salt.hash(&mut h);
        s.hash(&mut h);
        h.finish()
    };
    (u128::from(half(1)) << 64) | u128::from(half(2))
}

/// The first occurrence of every sentence of a stream, row by row.
#[derive(Debug, Default)]
pub struct Occurrences {
    first: HashMap<u128, u64>,
    next: u64,
}

impl Occurrences {
    /// An empty stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Take the next sentence of the stream: its row (rows count from 0 in the order given)
    /// and the row of its first occurrence (the same row when the sentence is new).
    pub fn push(&mut self, sentence: &str) -> (u64, u64) {
        let row = self.next;
        self.next += 1;
        let first = *self.first.entry(hash128(sentence)).or_insert(row);
        (row, first)
    }

    /// Distinct sentences so far.
    #[must_use]
    pub fn distinct(&self) -> usize {
        self.first.len()
    }
}

/// The rows of `sentences` that repeat an earlier one, in order, and for each sentence that
/// repeats, the rows holding it (its first occurrence first), keyed by that first row.
#[must_use]
pub fn repeats<S: AsRef<str>>(sentences: &[S]) -> (Vec<usize>, HashMap<usize, Vec<usize>>) {
    let mut seen = Occurrences::new();
    let mut dups = Vec::new();
    let mut occurrences: HashMap<usize, Vec<usize>> = HashMap::new();
    for s in sentences {
        let (row, first) = seen.push(s.as_ref());
        if row != first {
            let (row, first) = (row as usize, first as usize);
            dups.push(row);
            occurrences
                .entry(first)
                .or_insert_with(|| vec![first])
                .push(row);
        }
    }
    (dups, occurrences)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_tells_apart_what_differs() {
        assert_eq!(hash128("a b"), hash128("a b"));
        assert_ne!(hash128("a b"), hash128("a  b"));
        assert_ne!(hash128(""), hash128(" "));
    }

    #[test]
    fn first_occurrences_of_a_stream_and_of_sentences_in_memory() {
        let mut o = Occurrences::new();
        let got: Vec<(u64, u64)> = ["x", "y", "x", "", "y", ""]
            .iter()
            .map(|s| o.push(s))
            .collect();
        assert_eq!(got, [(0, 0), (1, 1), (2, 0), (3, 3), (4, 1), (5, 3)]);
        assert_eq!(o.distinct(), 3);
        let (dups, occ) = repeats(&["x", "y", "x", "", "y", ""]);
        assert_eq!(dups, [2, 4, 5]);
        assert_eq!(occ.len(), 3);
        assert_eq!(
            (&occ[&0], &occ[&1], &occ[&3]),
            (&vec![0, 2], &vec![1, 4], &vec![3, 5])
        );
        let none: [&str; 0] = [];
        assert_eq!(repeats(&none), (vec![], HashMap::new()));
    }
}
