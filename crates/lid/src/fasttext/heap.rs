//! fastText's top-k heap (`std::push_heap`, `std::pop_heap` and `std::sort_heap` with
//! `comparePairs`), written out as GNU libstdc++'s `bits/stl_heap.h` does it, so that labels
//! of equal score come out in fastText's order too (the sigmoid table of `ova` makes many
//! ties; a different heap would permute them).

/// A `(score, label)` pair; the heap compares scores only.
pub(super) type Scored = (f32, usize);

/// `comparePairs`: `l.first > r.first`, which makes the heap's front its lowest score.
fn comp(l: &Scored, r: &Scored) -> bool {
    l.0 > r.0
}

/// The `k` best pairs seen, as fastText keeps them.
pub(super) struct TopK {
    k: usize,
    heap: Vec<Scored>,
}

impl TopK {
    /// An empty heap for the `k` best.
    pub(super) fn new(k: usize) -> Self {
        Self {
            k,
            heap: Vec::with_capacity(k.min(4096) + 1),
        }
    }

    /// Whether the heap is full and `score` below its lowest (`heap.size() == k && score <
    /// heap.front().first`): such a candidate is not taken.
    pub(super) fn rejects(&self, score: f32) -> bool {
        self.heap.len() >= self.k && self.heap.first().is_none_or(|f| score < f.0)
    }

    /// Add a pair and drop the lowest when more than `k` are kept.
    pub(super) fn push(&mut self, item: Scored) {
        self.heap.push(item);
        let last = self.heap.len() - 1;
        push_heap(&mut self.heap, last, 0, item);
        if self.heap.len() > self.k {
            let end = self.heap.len() - 1;
            pop_heap(&mut self.heap, end);
            self.heap.pop();
        }
    }

    /// The pairs, best first (`std::sort_heap`).
    pub(super) fn into_sorted(mut self) -> Vec<Scored> {
        let mut last = self.heap.len();
        while last > 1 {
            last -= 1;
            pop_heap(&mut self.heap, last);
        }
        self.heap
    }
}

/// `__push_heap`: move the hole at `hole` up towards `top` and put `value` there.
fn push_heap(h: &mut [Scored], mut hole: usize, top: usize, value: Scored) {
    while hole > top {
        let parent = (hole - 1) / 2;
        if !comp(&h[parent], &value) {
            break;
        }
        h[hole] = h[parent];
        hole = parent;
    }
    h[hole] = value;
}

/// `__adjust_heap` over `h[..len]`: sift the hole at `hole` down, then push `value`.
fn adjust_heap(h: &mut [Scored], mut hole: usize, len: usize, value: Scored) {
    let top = hole;
    let mut second = hole;
    while len >= 1 && second < (len - 1) / 2 {
        second = 2 * (second + 1);
        if comp(&h[second], &h[second - 1]) {
            second -= 1;
        }
        h[hole] = h[second];
        hole = second;
    }
    if len & 1 == 0 && len >= 2 && second == (len - 2) / 2 {
        second = 2 * (second + 1);
        h[hole] = h[second - 1];
        hole = second - 1;
    }
    push_heap(h, hole, top, value);
}

/// `__pop_heap(first, last, last)`: move the front to `h[last]` and restore the heap on
/// `h[..last]`.
fn pop_heap(h: &mut [Scored], last: usize) {
    if last == 0 {
        return;
    }
    let value = h[last];
    h[last] = h[0];
    adjust_heap(h, 0, last, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_best_k_best_first() {
        let scores = [0.5f32, -1.0, 2.0, 0.5, 3.0, -2.0, 1.0, 0.5];
        for k in 0..=scores.len() + 1 {
            let mut top = TopK::new(k);
            for (i, &s) in scores.iter().enumerate() {
                if !top.rejects(s) {
                    top.push((s, i));
                }
            }
            let got: Vec<f32> = top.into_sorted().iter().map(|p| p.0).collect();
            let mut want = scores.to_vec();
            want.sort_by(|a, b| b.total_cmp(a));
            want.truncate(k);
            assert_eq!(got, want, "k = {k}");
        }
    }

    #[test]
    fn ties_come_out_in_libstdcxx_order() {
        // Four equal scores pushed into a heap of three, as fastText's findKBest does: the
        // order below is what g++'s libstdc++ gives for the same calls.
        let mut top = TopK::new(3);
        for i in 0..4 {
            if !top.rejects(1.0) {
                top.push((1.0, i));
            }
        }
        let labels: Vec<usize> = top.into_sorted().iter().map(|p| p.1).collect();
        assert_eq!(labels, [3, 1, 2]);
    }
}
