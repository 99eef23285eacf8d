//! Per-query top-k lists of the exact search: kept sorted best first under the strict order
//! "larger key first, then lower id", so that the k best of any set of candidates are unique and
//! do not depend on the order in which blocks are scanned or merged.

/// An id that no real row has: marks a slot not yet filled.
const EMPTY: usize = usize::MAX;

/// Longest list kept sorted; longer lists are heaps.
const SORTED_MAX: usize = 32;

/// Whether candidate `(key, id)` ranks before `(k2, i2)`.
#[inline(always)]
fn before(key: f32, id: usize, k2: f32, i2: usize) -> bool {
    key > k2 || (key == k2 && id < i2)
}

/// The `k` best `(key, id)` candidates of each of a block of queries, where a larger key is
/// better (inner products as they are, squared distances negated).
#[derive(Debug, Clone)]
pub(crate) struct TopK {
    k: usize,
    /// Per query (padded to whole panels with `+∞`, which no key reaches): the key a new
    /// candidate must at least equal to be offered, i.e. the current k-th best key.
    thr: Vec<f32>,
    keys: Vec<f32>,
    ids: Vec<usize>,
}

impl TopK {
    /// Empty lists for `queries` queries, padded with never-offered queries up to `padded`.
    pub(crate) fn new(k: usize, queries: usize, padded: usize) -> Self {
        let mut thr = vec![f32::NEG_INFINITY; queries];
        thr.resize(padded.max(queries), f32::INFINITY);
        Self {
            k,
            thr,
            keys: vec![f32::NEG_INFINITY; queries * k],
            ids: vec![EMPTY; queries * k],
        }
    }

    /// Number of queries.
    pub(crate) fn len(&self) -> usize {
        self.keys.len() / self.k
    }

    /// The offer thresholds of queries `q0..q0 + n` (padded queries included).
    #[inline(always)]
    pub(crate) fn thresholds(&self, q0: usize, n: usize) -> &[f32] {
        &self.thr[q0..q0 + n]
    }

    /// Offer candidate `(key, id)` to query `q`'s list.
    #[inline]
    pub(crate) fn offer(&mut self, q: usize, key: f32, id: usize) {
        let k = self.k;
        if k > SORTED_MAX {
            self.offer_heap(q, key, id);
            return;
        }
        let keys = &mut self.keys[q * k..(q + 1) * k];
        let ids = &mut self.ids[q * k..(q + 1) * k];
        if !before(key, id, keys[k - 1], ids[k - 1]) {
            return;
        }
        let mut pos = k - 1;
        while pos > 0 && before(key, id, keys[pos - 1], ids[pos - 1]) {
            keys[pos] = keys[pos - 1];
            ids[pos] = ids[pos - 1];
            pos -= 1;
        }
        keys[pos] = key;
        ids[pos] = id;
        self.thr[q] = keys[k - 1];
    }

    /// [`TopK::offer`] for long lists: replace the root (the worst entry) and sift it down.
    fn offer_heap(&mut self, q: usize, key: f32, id: usize) {
        let k = self.k;
        let keys = &mut self.keys[q * k..(q + 1) * k];
        let ids = &mut self.ids[q * k..(q + 1) * k];
        if !before(key, id, keys[0], ids[0]) {
            return;
        }
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut worst = i;
            let (mut wk, mut wi) = (key, id);
            if l < k && before(wk, wi, keys[l], ids[l]) {
                (worst, wk, wi) = (l, keys[l], ids[l]);
            }
            if r < k && before(wk, wi, keys[r], ids[r]) {
                worst = r;
            }
            if worst == i {
                break;
            }
            keys[i] = keys[worst];
            ids[i] = ids[worst];
            i = worst;
        }
        keys[i] = key;
        ids[i] = id;
        self.thr[q] = keys[0];
    }

    /// Merge the lists of `other` (the same queries, other database rows) into these.
    pub(crate) fn merge(&mut self, other: &TopK) {
        debug_assert_eq!((self.k, self.len()), (other.k, other.len()));
        for q in 0..other.len() {
            for s in q * other.k..(q + 1) * other.k {
                if other.ids[s] != EMPTY {
                    self.offer(q, other.keys[s], other.ids[s]);
                }
            }
        }
    }

    /// Append the ids and the keys mapped back to scores; `false` when a slot stayed empty (only
    /// possible when scores are NaN, which checked inputs cannot produce).
    pub(crate) fn drain_into(
        self,
        ids: &mut Vec<usize>,
        scores: &mut Vec<f32>,
        to_score: impl Fn(f32) -> f32,
    ) -> bool {
        if self.ids.contains(&EMPTY) {
            return false;
        }
        if self.k <= SORTED_MAX {
            ids.extend_from_slice(&self.ids);
            scores.extend(self.keys.iter().map(|&k| to_score(k)));
            return true;
        }
        let mut list = Vec::with_capacity(self.k);
        for (lk, li) in self
            .keys
            .chunks_exact(self.k)
            .zip(self.ids.chunks_exact(self.k))
        {
            list.clear();
            list.extend(lk.iter().copied().zip(li.iter().copied()));
            list.sort_unstable_by(|a, b| {
                if before(a.0, a.1, b.0, b.1) {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                }
            });
            ids.extend(list.iter().map(|e| e.1));
            scores.extend(list.iter().map(|e| to_score(e.0)));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(t: TopK) -> (Vec<usize>, Vec<f32>) {
        let (mut i, mut s) = (Vec::new(), Vec::new());
        assert!(t.drain_into(&mut i, &mut s, |k| k));
        (i, s)
    }

    #[test]
    fn keeps_the_k_best_with_lower_ids_first_on_ties() {
        let mut t = TopK::new(3, 1, 4);
        for (id, key) in [(0, 1.0), (1, 3.0), (2, 3.0), (3, 2.0), (4, 3.0), (5, 0.5)] {
            if key >= t.thresholds(0, 1)[0] {
                t.offer(0, key, id);
            }
        }
        assert_eq!(lists(t), (vec![1, 2, 4], vec![3.0, 3.0, 3.0]));
    }

    #[test]
    fn merge_equals_one_pass_and_padding_is_never_offered() {
        let cands = [(7, 0.25), (2, 0.5), (9, 0.5), (4, -1.0), (1, 0.25)];
        let mut all = TopK::new(2, 1, 2);
        let mut a = TopK::new(2, 1, 2);
        let mut b = TopK::new(2, 1, 2);
        for (n, &(id, key)) in cands.iter().enumerate() {
            all.offer(0, key, id);
            if n % 2 == 0 { &mut a } else { &mut b }.offer(0, key, id);
        }
        a.merge(&b);
        assert_eq!(lists(a), lists(all));
        assert_eq!(TopK::new(2, 1, 2).thresholds(0, 2)[1], f32::INFINITY);
    }

    #[test]
    fn heaps_keep_the_same_lists_as_sorting() {
        let mut r = bitext_core::Rng::seed(2);
        for k in [33, 40, 100] {
            let cands: Vec<(f32, usize)> = (0..500)
                .map(|id| ((r.below(50) as f32) * 0.5, id))
                .collect();
            let mut t = TopK::new(k, 1, 1);
            for &(key, id) in &cands {
                if key >= t.thresholds(0, 1)[0] {
                    t.offer(0, key, id);
                }
            }
            let mut want = cands.clone();
            want.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            want.truncate(k);
            let (ids, keys) = lists(t);
            assert_eq!(ids, want.iter().map(|e| e.1).collect::<Vec<_>>(), "k = {k}");
            assert_eq!(keys, want.iter().map(|e| e.0).collect::<Vec<_>>());
        }
    }

    #[test]
    fn empty_slots_are_reported() {
        let mut t = TopK::new(2, 1, 1);
        t.offer(0, 1.0, 0);
        assert!(!t.drain_into(&mut Vec::new(), &mut Vec::new(), |k| k));
    }
}
