//! Batching token sequences for recurrent networks.
//!
//! - [`PackedBatch`]: a batch of sentences laid out like PyTorch's `PackedSequence`: rows
//!   sorted by decreasing length, tokens stored time-major with **only the real tokens** (step
//!   `t` holds the first `batch_sizes[t]` rows). A recurrent layer then runs step `t` on those
//!   rows only, so padding never enters any state: the forward direction's last state is taken
//!   at each sentence's last token and the backward direction starts at it.
//! - [`Bucketing`]: length-sorted buckets under a token budget, with seeded shuffling between
//!   epochs (random tie-breaking inside a length, random batch order).

use bitext_core::Rng;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Token sequences packed for a recurrent network (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedBatch {
    ids: Vec<u32>,
    batch_sizes: Vec<usize>,
    lengths: Vec<usize>,
    order: Vec<usize>,
    position: Vec<usize>,
}

impl PackedBatch {
    /// Pack `seqs` (any order, any lengths ≥ 1).
    ///
    /// # Errors
    /// [`Error::Input`] for an empty batch or an empty sequence (naming its index).
    pub fn new<S: AsRef<[u32]>>(seqs: &[S]) -> Result<Self> {
        if seqs.is_empty() {
            return Err(Error::Input("an empty batch of sentences".into()));
        }
        if let Some(i) = seqs.iter().position(|s| s.as_ref().is_empty()) {
            return Err(Error::Input(format!(
                "sentence {i} of the batch has no tokens"
            )));
        }
        let mut order: Vec<usize> = (0..seqs.len()).collect();
        // Stable: equal lengths keep the caller's order, so packing is deterministic.
        order.sort_by_key(|&i| std::cmp::Reverse(seqs[i].as_ref().len()));
        let lengths: Vec<usize> = order.iter().map(|&i| seqs[i].as_ref().len()).collect();
        let mut position = vec![0; seqs.len()];
        for (r, &i) in order.iter().enumerate() {
            position[i] = r;
        }
        let max_len = lengths[0];
        let mut batch_sizes = Vec::with_capacity(max_len);
        let total: usize = lengths.iter().sum();
        let mut ids = Vec::with_capacity(total);
        for t in 0..max_len {
            let n = lengths.partition_point(|&l| l > t);
            batch_sizes.push(n);
            ids.extend(order[..n].iter().map(|&i| seqs[i].as_ref()[t]));
        }
        Ok(Self {
            ids,
            batch_sizes,
            lengths,
            order,
            position,
        })
    }

    /// Number of sentences.
    #[must_use]
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Never true (a packed batch holds at least one sentence).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Real tokens in the batch.
    #[must_use]
    pub fn tokens(&self) -> usize {
        self.ids.len()
    }

    /// Length of the longest sentence (number of time steps).
    #[must_use]
    pub fn max_len(&self) -> usize {
        self.batch_sizes.len()
    }

    /// The packed token ids, time-major, real tokens only.
    #[must_use]
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Rows active at each time step (non-increasing).
    #[must_use]
    pub fn batch_sizes(&self) -> &[usize] {
        &self.batch_sizes
    }

    /// Sentence lengths in packed (decreasing) order.
    #[must_use]
    pub fn lengths(&self) -> &[usize] {
        &self.lengths
    }

    /// `order()[r]` is the caller's index of packed row `r`.
    #[must_use]
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// `position()[i]` is the packed row of the caller's sentence `i`: selecting these rows of
    /// a per-row result puts it back in the caller's order.
    #[must_use]
    pub fn position(&self) -> &[usize] {
        &self.position
    }

    /// Largest token id in the batch.
    #[must_use]
    pub fn max_id(&self) -> u32 {
        self.ids.iter().copied().max().unwrap_or(0)
    }
}

/// Length-sorted buckets under a token budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bucketing {
    /// Most items (sentences or pairs) in a batch.
    pub max_items: usize,
    /// Most padded tokens in a batch: items × the longest item's cost. An item costlier than
    /// the budget goes alone in its batch.
    pub max_tokens: usize,
}

impl Default for Bucketing {
    fn default() -> Self {
        Self {
            max_items: 128,
            max_tokens: 128 * 160,
        }
    }
}

impl Bucketing {
    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] when a limit is zero.
    pub fn check(&self) -> Result<()> {
        if self.max_items == 0 || self.max_tokens == 0 {
            return Err(Error::Config(format!(
                "bucketing needs max_items ≥ 1 and max_tokens ≥ 1, got {self:?}"
            )));
        }
        Ok(())
    }

    /// Group items, given each item's cost (its length; for a pair, the sum of its two
    /// lengths), into batches of item indices: sorted by cost, ties broken at random when `rng`
    /// is given (else by index), cut greedily so that `items × max cost ≤ max_tokens` and
    /// `items ≤ max_items`, and the batches put in random order when `rng` is given (else in
    /// increasing cost). Every item is in exactly one batch.
    #[must_use]
    pub fn plan(&self, costs: &[usize], mut rng: Option<&mut Rng>) -> Vec<Vec<usize>> {
        let mut idx: Vec<usize> = (0..costs.len()).collect();
        if let Some(r) = rng.as_deref_mut() {
            r.shuffle(&mut idx);
        }
        idx.sort_by_key(|&i| costs[i]);
        let mut batches = Vec::new();
        let mut cur: Vec<usize> = Vec::new();
        for i in idx {
            // Sorted ascending: the new item is the costliest so far.
            let cost = costs[i].max(1);
            if !cur.is_empty()
                && (cur.len() + 1 > self.max_items || (cur.len() + 1) * cost > self.max_tokens)
            {
                batches.push(std::mem::take(&mut cur));
            }
            cur.push(i);
        }
        if !cur.is_empty() {
            batches.push(cur);
        }
        if let Some(r) = rng {
            r.shuffle(&mut batches);
        }
        batches
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn packs_time_major_real_tokens_only() {
        let seqs: Vec<Vec<u32>> = vec![vec![1, 2], vec![3, 4, 5], vec![6], vec![7, 8]];
        let p = PackedBatch::new(&seqs).unwrap();
        // Sorted by length (stable): rows = [1 (len 3), 0 (len 2), 3 (len 2), 2 (len 1)].
        assert_eq!(p.order(), &[1, 0, 3, 2]);
        assert_eq!(p.position(), &[1, 0, 3, 2]);
        assert_eq!(p.lengths(), &[3, 2, 2, 1]);
        assert_eq!(p.batch_sizes(), &[4, 3, 1]);
        // t=0: 3 1 7 6; t=1: 4 2 8; t=2: 5.
        assert_eq!(p.ids(), &[3, 1, 7, 6, 4, 2, 8, 5]);
        assert_eq!((p.tokens(), p.max_len(), p.max_id()), (8, 3, 8));
    }

    #[test]
    fn empty_inputs_are_errors() {
        assert!(PackedBatch::new::<Vec<u32>>(&[]).is_err());
        let e = PackedBatch::new(&[vec![1u32], vec![]]).unwrap_err();
        assert!(e.to_string().contains("sentence 1"), "{e}");
        assert!(
            Bucketing {
                max_items: 0,
                max_tokens: 5
            }
            .check()
            .is_err()
        );
    }

    #[test]
    fn bucketing_respects_budget_and_is_seeded() {
        let costs = [5, 3, 9, 1, 3, 3, 7, 2, 50];
        let b = Bucketing {
            max_items: 3,
            max_tokens: 12,
        };
        let plan = b.plan(&costs, None);
        // Ascending: 1(3) 2(7) 3(1,4,5) 5(0) 7(6) 9(2) 50(8). [3,7,1] is full (3 items);
        // [4,5] + 0 would be 3 × 5 > 12; [0] + 6 would be 2 × 7 > 12; and so on.
        assert_eq!(
            plan,
            vec![
                vec![3, 7, 1],
                vec![4, 5],
                vec![0],
                vec![6],
                vec![2],
                vec![8]
            ]
        );
        let a = b.plan(&costs, Some(&mut bitext_core::Rng::seed(4)));
        let c = b.plan(&costs, Some(&mut bitext_core::Rng::seed(4)));
        assert_eq!(a, c);
    }

    proptest! {
        #[test]
        fn every_item_in_one_batch_within_budget(
            costs in proptest::collection::vec(1usize..40, 0..200),
            max_items in 1usize..20,
            max_tokens in 1usize..300,
            seed in any::<u64>(),
        ) {
            let b = Bucketing { max_items, max_tokens };
            let plan = b.plan(&costs, Some(&mut bitext_core::Rng::seed(seed)));
            let mut seen: Vec<usize> = plan.iter().flatten().copied().collect();
            seen.sort_unstable();
            prop_assert_eq!(seen, (0..costs.len()).collect::<Vec<_>>());
            for batch in &plan {
                prop_assert!(!batch.is_empty() && batch.len() <= max_items);
                let worst = batch.iter().map(|&i| costs[i]).max().unwrap();
                prop_assert!(batch.len() == 1 || batch.len() * worst <= max_tokens);
            }
        }

        #[test]
        fn packing_round_trips(
            seqs in proptest::collection::vec(proptest::collection::vec(0u32..50, 1..12), 1..20),
        ) {
            let p = PackedBatch::new(&seqs).unwrap();
            // Unpack and compare.
            let mut rows: Vec<Vec<u32>> = vec![Vec::new(); p.len()];
            let mut k = 0;
            for &n in p.batch_sizes() {
                for row in rows.iter_mut().take(n) {
                    row.push(p.ids()[k]);
                    k += 1;
                }
            }
            for (r, row) in rows.iter().enumerate() {
                prop_assert_eq!(row, &seqs[p.order()[r]]);
            }
        }
    }
}
