//! Per-query top-k lists of the exact search: kept sorted best first under the strict order
//! "larger key first, then lower id", so that the k best of any set of candidates are unique and
//! do not depend on the order in which blocks are scanned or merged.

/// An id that no real row has: marks a slot not yet filled.
const EMPTY: usize = usize::MAX;

/// Longest list kept sorted; longer lists are reservoirs.
const SORTED_MAX: usize = 32;

/// Whether candidate `(key, id)` ranks before `(k2, i2)`.
#[inline(always)]
fn before(key: f32, id: usize, k2: f32, i2: usize) -> bool {
    key > k2 || (key == k2 && id < i2)
}

/// The strict order of [`before`] as an `Ordering` (best first).
fn order(a: &(f32, usize), b: &(f32, usize)) -> std::cmp::Ordering {
    if before(a.0, a.1, b.0, b.1) {
        std::cmp::Ordering::Less
    } else if before(b.0, b.1, a.0, a.1) {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}

/// The `k` best `(key, id)` candidates of each of a block of queries, where a larger key is
/// better (inner products as they are, squared distances negated).
///
/// Lists of up to 32 are kept sorted (an insertion per accepted candidate). Longer lists (the
/// hundreds of candidates of a reduced-precision scan) are reservoirs of `k + k/2` slots:
/// accepted candidates are appended, and when the reservoir is full the best `k` are selected
/// (quickselect in place) and the `k`-th becomes the new threshold, so a candidate costs O(1)
/// amortised; the lists are sorted when drained.
#[derive(Debug, Clone)]
pub(crate) struct TopK {
    k: usize,
    /// Slots per query: `k`, or the reservoir's `k + k/2`.
    width: usize,
    /// Per query (padded to whole panels with `+∞`, which no key reaches): the key a new
    /// candidate must at least equal to be offered, i.e. the current k-th best key.
    thr: Vec<f32>,
    /// Reservoirs: the id of the threshold's candidate (a candidate with the threshold's key
    /// must have a lower id), and the slots in use.
    thr_id: Vec<usize>,
    used: Vec<u32>,
    keys: Vec<f32>,
    ids: Vec<usize>,
}

impl TopK {
    /// Empty lists for `queries` queries, padded with never-offered queries up to `padded`.
    pub(crate) fn new(k: usize, queries: usize, padded: usize) -> Self {
        let mut thr = vec![f32::NEG_INFINITY; queries];
        thr.resize(padded.max(queries), f32::INFINITY);
        let reservoir = k > SORTED_MAX;
        let width = if reservoir { k + k / 2 } else { k };
        let n = if reservoir { queries } else { 0 };
        Self {
            k,
            width,
            thr,
            thr_id: vec![EMPTY; n],
            used: vec![0; n],
            keys: vec![f32::NEG_INFINITY; queries * width],
            ids: vec![EMPTY; queries * width],
        }
    }

    /// Number of queries.
    pub(crate) fn len(&self) -> usize {
        self.keys.len() / self.width
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
            self.offer_reservoir(q, key, id);
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

    /// [`TopK::offer`] for reservoirs.
    fn offer_reservoir(&mut self, q: usize, key: f32, id: usize) {
        if !before(key, id, self.thr[q], self.thr_id[q]) {
            return;
        }
        let w = self.width;
        let u = self.used[q] as usize;
        self.keys[q * w + u] = key;
        self.ids[q * w + u] = id;
        self.used[q] += 1;
        if u + 1 == w {
            self.compact(q);
        }
    }

    /// Keep the best `k` of query `q`'s reservoir; the `k`-th becomes the threshold.
    fn compact(&mut self, q: usize) {
        let (w, k) = (self.width, self.k);
        let u = self.used[q] as usize;
        if u <= k {
            return;
        }
        let keys = &mut self.keys[q * w..q * w + u];
        let ids = &mut self.ids[q * w..q * w + u];
        // Quickselect on the two parallel arrays: afterwards the best k are in 0..k, the
        // k-th best at k − 1.
        let (mut lo, mut hi) = (0, u - 1);
        let target = k - 1;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (pk, pi) = (keys[mid], ids[mid]);
            keys.swap(mid, hi);
            ids.swap(mid, hi);
            let mut store = lo;
            for i in lo..hi {
                if before(keys[i], ids[i], pk, pi) {
                    keys.swap(i, store);
                    ids.swap(i, store);
                    store += 1;
                }
            }
            keys.swap(store, hi);
            ids.swap(store, hi);
            match store.cmp(&target) {
                std::cmp::Ordering::Equal => break,
                std::cmp::Ordering::Less => lo = store + 1,
                std::cmp::Ordering::Greater => hi = store - 1,
            }
        }
        self.thr[q] = keys[target];
        self.thr_id[q] = ids[target];
        self.used[q] = k as u32;
    }

    /// The filled `(key, id)` entries of query `q` (any order for reservoirs).
    fn entries(&self, q: usize) -> impl Iterator<Item = (f32, usize)> + '_ {
        let w = self.width;
        let n = if self.k > SORTED_MAX {
            self.used[q] as usize
        } else {
            w
        };
        let range = q * w..q * w + n;
        self.keys[range.clone()]
            .iter()
            .copied()
            .zip(self.ids[range].iter().copied())
            .filter(|e| e.1 != EMPTY)
    }

    /// Merge the lists of `other` (the same queries, other database rows) into these.
    pub(crate) fn merge(&mut self, other: &TopK) {
        debug_assert_eq!((self.k, self.len()), (other.k, other.len()));
        for q in 0..other.len() {
            for (key, id) in other.entries(q) {
                self.offer(q, key, id);
            }
        }
    }

    /// Append the ids and the keys mapped back to scores; `false` when a slot stayed empty (only
    /// possible when scores are NaN, which checked inputs cannot produce).
    pub(crate) fn drain_into(
        mut self,
        ids: &mut Vec<usize>,
        scores: &mut Vec<f32>,
        to_score: impl Fn(f32) -> f32,
    ) -> bool {
        if self.k <= SORTED_MAX {
            if self.ids.contains(&EMPTY) {
                return false;
            }
            ids.extend_from_slice(&self.ids);
            scores.extend(self.keys.iter().map(|&k| to_score(k)));
            return true;
        }
        let mut list = Vec::with_capacity(self.width);
        for q in 0..self.len() {
            self.compact(q);
            list.clear();
            list.extend(self.entries(q));
            if list.len() < self.k {
                return false;
            }
            list.sort_unstable_by(order);
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
    fn reservoirs_keep_the_same_lists_as_sorting() {
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
            // Two halves merged: the same lists.
            let (mut a, mut b) = (TopK::new(k, 1, 1), TopK::new(k, 1, 1));
            for (n, &(key, id)) in cands.iter().enumerate() {
                let t = if n % 3 == 0 { &mut a } else { &mut b };
                if key >= t.thresholds(0, 1)[0] {
                    t.offer(0, key, id);
                }
            }
            a.merge(&b);
            let (ids, keys) = lists(t);
            assert_eq!(ids, want.iter().map(|e| e.1).collect::<Vec<_>>(), "k = {k}");
            assert_eq!(keys, want.iter().map(|e| e.0).collect::<Vec<_>>());
            assert_eq!(lists(a), (ids, keys));
        }
    }

    #[test]
    fn empty_slots_are_reported() {
        let mut t = TopK::new(2, 1, 1);
        t.offer(0, 1.0, 0);
        assert!(!t.drain_into(&mut Vec::new(), &mut Vec::new(), |k| k));
    }
}
