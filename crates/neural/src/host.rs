//! What inference on the host (the CPU, outside burn's tensors) shares: the one matrix
//! product ([`matmul`], over `gemm`) and the memo of rows computed once per embedding-table id
//! ([`IdMemo`]).
//!
//! Without dropout an input row is a function of its table id, and so is anything computed
//! from that row alone: the recurrence's input projection ([`crate::rnn`]'s host recurrence)
//! and the n-gram convolutions' per-position products ([`crate::ngrams`]). A corpus repeats its
//! pieces (newsdev's 3,600 sentences hold 117,996 pieces of the USE-M model, 15,030 distinct),
//! so such rows are computed once per id and kept for the following batches of one encoding
//! run.

#![allow(unsafe_code)] // gemm's raw-pointer interface

use burn::tensor::Device;
use gemm::Parallelism;

/// Whether tensors on `device` are computed on the host: burn's Flex CPU device without
/// autodiff, where inference may run the host paths (the recurrence, the n-gram convolutions).
pub(crate) fn on_host(device: &Device) -> bool {
    !device.is_autodiff() && *device == Device::flex()
}

/// `dst[m, n] (+)= a[m, k] · b[k, n]`, all row-major and contiguous; adds to `dst` when
/// `accumulate`, overwrites it otherwise.
///
/// # Panics
/// When an operand's length is not its shape's.
pub(crate) fn matmul(
    dst: &mut [f32],
    a: &[f32],
    b: &[f32],
    [m, k, n]: [usize; 3],
    accumulate: bool,
    par: Parallelism,
) {
    assert!(
        dst.len() == m * n && a.len() == m * k && b.len() == k * n,
        "matrix product operands of mismatched sizes"
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            dst.fill(0.0);
        }
        return;
    }
    // SAFETY: `dst`, `a` and `b` are contiguous row-major `m×n`, `m×k` and `k×n` matrices
    // (sizes asserted above), so every (row stride, column stride) = (cols, 1) access stays
    // inside them; `dst` is borrowed mutably, so it aliases neither operand.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            n as isize,
            accumulate,
            a.as_ptr(),
            1,
            k as isize,
            b.as_ptr(),
            1,
            n as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            par,
        );
    }
}

/// The mark of an id of the current call held outside the memo: `slot[id] = PENDING | j`, its
/// row the `j`-th of `fresh`. Memo rows stay far below it.
const PENDING: u32 = 1 << 31;

/// Rows of `width` values computed once per id and kept for later calls, at most `cap` values
/// in all; the ids of a call beyond that are computed for that call only (never the whole call
/// again).
#[derive(Debug, Default)]
pub(crate) struct IdMemo {
    width: usize,
    cap: usize,
    /// Kept rows: id `i`'s is `rows[(slot[i] − 1)·width ..]` (slot 0: not computed).
    rows: Vec<f32>,
    slot: Vec<u32>,
    /// The position of each missing id's first occurrence in the current call (scratch).
    first: Vec<usize>,
    /// The rows computed in the current call.
    fresh: Vec<f32>,
    /// Ids of the current call whose rows stay in `fresh` only (cleared by the next call).
    overflow: Vec<u32>,
}

impl IdMemo {
    /// An empty memo of rows of `width` values, at most `cap` values kept.
    pub(crate) fn new(width: usize, cap: usize) -> Self {
        Self {
            width,
            cap,
            ..Self::default()
        }
    }

    /// Keep at most `cap` values from now on (tests: a memo that fills up).
    #[cfg(test)]
    pub(crate) fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    /// Make the row of every id of `ids` available to [`IdMemo::row`] until the next call:
    /// `compute(first, out)` appends to the empty `out` the rows of the ids the memo lacks,
    /// `first` holding the position in `ids` of each one's first occurrence, in that order.
    /// Those that fit are kept.
    ///
    /// # Errors
    /// `compute`'s error, the memo left as before the call.
    ///
    /// # Panics
    /// When `compute` appends another number of values than `first.len() · width`.
    pub(crate) fn fill<E>(
        &mut self,
        ids: &[u32],
        compute: impl FnOnce(&[usize], &mut Vec<f32>) -> Result<(), E>,
    ) -> Result<(), E> {
        for id in self.overflow.drain(..) {
            self.slot[id as usize] = 0;
        }
        self.first.clear();
        for (i, &id) in ids.iter().enumerate() {
            let id = id as usize;
            if id >= self.slot.len() {
                self.slot.resize(id + 1, 0);
            }
            if self.slot[id] == 0 {
                self.slot[id] = PENDING | self.first.len() as u32;
                self.first.push(i);
            }
        }
        self.fresh.clear();
        if let Err(e) = compute(&self.first, &mut self.fresh) {
            for &i in &self.first {
                self.slot[ids[i] as usize] = 0;
            }
            return Err(e);
        }
        let w = self.width.max(1);
        assert_eq!(
            self.fresh.len(),
            self.first.len() * self.width,
            "one row per missing id"
        );
        let used = self.rows.len() / w;
        let keep = self.first.len().min((self.cap / w).saturating_sub(used));
        // Grow by doubling, but never past the cap (`reserve` alone could double beyond it);
        // `keep` leaves `add` within the room under the cap.
        let add = keep * self.width;
        if self.rows.len() + add > self.rows.capacity() {
            let room = self.cap.saturating_sub(self.rows.len());
            self.rows
                .reserve_exact(self.rows.capacity().max(add).min(room));
        }
        self.rows.extend_from_slice(&self.fresh[..add]);
        for (j, &i) in self.first[..keep].iter().enumerate() {
            self.slot[ids[i] as usize] = (used + j + 1) as u32;
        }
        self.overflow
            .extend(self.first[keep..].iter().map(|&i| ids[i]));
        Ok(())
    }

    /// The row of `id`.
    ///
    /// # Panics
    /// When `id` was in none of the calls to [`IdMemo::fill`] (or only in an earlier call
    /// that did not keep it).
    pub(crate) fn row(&self, id: u32) -> &[f32] {
        let s = self.slot[id as usize];
        let k = (s & !PENDING) as usize;
        let w = self.width;
        if s & PENDING == 0 {
            assert!(k > 0, "id {id} has no row");
            &self.rows[(k - 1) * w..k * w]
        } else {
            &self.fresh[k * w..(k + 1) * w]
        }
    }

    /// How many rows are kept.
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.rows.len() / self.width.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id gets its row whether kept or not, each computed once while the memo has room,
    /// and a failed computation leaves the memo as it was.
    #[test]
    fn rows_are_computed_once_per_id_while_there_is_room() {
        let row_of = |id: u32| vec![id as f32, -(id as f32)];
        let mut memo = IdMemo::new(2, 6);
        let mut computed = Vec::new();
        for call in [&[5u32, 1, 5, 7][..], &[1, 9, 9, 2, 5], &[2, 9, 0]] {
            memo.fill(call, |first, out| {
                for &i in first {
                    computed.push(call[i]);
                    out.extend(row_of(call[i]));
                }
                Ok::<_, ()>(())
            })
            .unwrap();
            for &id in call {
                assert_eq!(memo.row(id), row_of(id), "id {id}");
            }
        }
        // 5, 1, 7 kept (6 values); 9 and 2 not, so computed again in the third call.
        assert_eq!(computed, [5, 1, 7, 9, 2, 2, 9, 0]);
        assert_eq!(memo.kept(), 3);
        assert!(memo.rows.capacity() <= 6, "{}", memo.rows.capacity());
        let e = memo.fill(&[4, 5], |_, _| Err("no"));
        assert_eq!(e, Err("no"));
        memo.set_cap(100);
        let mut again = Vec::new();
        memo.fill(&[4, 5, 2], |first, out| {
            for &i in first {
                again.push([4, 5, 2][i]);
                out.extend(row_of([4, 5, 2][i]));
            }
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!(again, [4, 2]);
        assert_eq!(memo.row(4), row_of(4));
        assert_eq!(memo.kept(), 5);
    }
}
