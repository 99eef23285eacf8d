//! The recurrence of [`BiRnn`](super::BiRnn) on the host, for inference on the CPU backend.
//!
//! burn runs each step as a chain of tensor operations, each allocating its output: the
//! product `h·W_hh`, slices, additions, scalar `exp`/`tanh` calls. Here one direction keeps
//! three buffers for the whole batch (states `[B, H]`, recurrent products `[B, G·H]`, and the
//! projected inputs `[N, G·H]`), runs one `gemm` per step straight into the product buffer and
//! updates the states in place with a vectorised cell ([`super::cell`]). Rows leave (forward)
//! or join (backward, from a zero state) the packed batch simply by the step touching fewer or
//! more leading rows, with no copies.
//!
//! When the caller gives each input row's embedding-table id (inference, where a row is a
//! function of its id), the input projection `x·W_ih + b` is computed once per distinct id and
//! kept for the following batches ([`IdMemo`], shared with the n-gram convolutions' host
//! path): at most [`MEMO_FLOATS`] values per direction. The projection is the largest product
//! of a small recurrence over wide fixed vectors (512 inputs against 128 hidden units: four
//! fifths of a GRU step's multiplications).

use burn::tensor::Tensor;
use gemm::Parallelism;

use super::{BiRnn, BiRnnOutput, RnnLayer, cell, step_starts};
use crate::host::{IdMemo, matmul};
use crate::init::{float2, to_host1, to_host2};

/// One direction's weights, copied to the host (row-major), and its working buffers, kept
/// from one batch to the next (fresh pages cost page faults and clearing).
struct HostDirection {
    w_ih: Vec<f32>,
    w_hh: Vec<f32>,
    b_ih: Vec<f32>,
    b_hn: Vec<f32>,
    d_in: usize,
    hd: usize,
    lstm: bool,
    /// Projected inputs `[N, G·H]`.
    gi: Vec<f32>,
    /// States `[B, H]` (and LSTM cells).
    h: Vec<f32>,
    c: Vec<f32>,
    /// Recurrent products `[B, G·H]`.
    rec: Vec<f32>,
    /// Per-step states `[N, H]`.
    out: Vec<f32>,
    /// Most values in `gi` ([`PROJECTION_FLOATS`]; smaller in tests).
    projection_floats: usize,
    /// Projected inputs by id, at most [`MEMO_FLOATS`] values (fewer in tests).
    memo: IdMemo,
    /// The inputs of the ids a group's memo lacks (scratch).
    pending_x: Vec<f32>,
}

/// Most values in the buffer of projected inputs (8 MiB; see [`HostDirection::run`]).
const PROJECTION_FLOATS: usize = 1 << 21;

/// Most values in one direction's memo of projected inputs by id (64 MiB: 43,690 ids of a GRU
/// of 128 units; a 128,000-piece vocabulary's frequent pieces).
const MEMO_FLOATS: usize = 1 << 24;

/// Resize `v` to `n` zeros, reusing its allocation.
fn zeroed(v: &mut Vec<f32>, n: usize) {
    v.clear();
    v.resize(n, 0.0);
}

impl HostDirection {
    /// Copy `layer`'s weights; `None` when the backend cannot hand them back as `f32`.
    fn new(layer: &RnnLayer) -> Option<Self> {
        let (w_ih, [d_in, _]) = to_host2(layer.w_ih.val()).ok()?;
        let (w_hh, _) = to_host2(layer.w_hh.val()).ok()?;
        let b_ih = to_host1(layer.b_ih.val()).ok()?;
        let b_hn = match &layer.b_hn {
            Some(b) => to_host1(b.val()).ok()?,
            None => Vec::new(),
        };
        Some(Self {
            memo: IdMemo::new(b_ih.len(), MEMO_FLOATS),
            w_ih,
            w_hh,
            b_ih,
            b_hn,
            d_in,
            hd: layer.d_hidden,
            lstm: layer.lstm,
            gi: Vec::new(),
            h: Vec::new(),
            c: Vec::new(),
            rec: Vec::new(),
            out: Vec::new(),
            projection_floats: PROJECTION_FLOATS,
            pending_x: Vec::new(),
        })
    }

    /// The projected inputs `x·W_ih + b` of rows `s0..s1` into `gi`: with `ids`, once per id
    /// the memo lacks, kept there while it has room (the rest for this group only).
    fn project(&mut self, x: &[f32], ids: Option<&[u32]>, s0: usize, s1: usize, par: Parallelism) {
        let (gh, d) = (self.b_ih.len(), self.d_in);
        self.gi.resize((s1 - s0) * gh, 0.0);
        let Some(ids) = ids.map(|ids| &ids[s0..s1]) else {
            let gi = &mut self.gi[..(s1 - s0) * gh];
            for row in gi.chunks_exact_mut(gh) {
                row.copy_from_slice(&self.b_ih);
            }
            matmul(
                gi,
                &x[s0 * d..s1 * d],
                &self.w_ih,
                [s1 - s0, d, gh],
                true,
                par,
            );
            return;
        };
        // Each id the memo lacks once (its first row of the group), from the bias.
        let (x_rows, w_ih, b_ih) = (&mut self.pending_x, &self.w_ih, &self.b_ih);
        let filled = self.memo.fill(ids, |first, out| {
            x_rows.clear();
            for &i in first {
                let row = s0 + i;
                x_rows.extend_from_slice(&x[row * d..(row + 1) * d]);
                out.extend_from_slice(b_ih);
            }
            matmul(out, x_rows, w_ih, [first.len(), d, gh], true, par);
            Ok::<_, std::convert::Infallible>(())
        });
        let Ok(()) = filled;
        let gi = &mut self.gi[..(s1 - s0) * gh];
        for (out, &id) in gi.chunks_exact_mut(gh).zip(ids) {
            out.copy_from_slice(self.memo.row(id));
        }
    }

    /// Run over packed inputs `x` `[N, d_in]` laid out by `starts` (see [`step_starts`]; step
    /// `t` holds the first `starts[t + 1] − starts[t]` rows, its inputs follow those of step
    /// `t − 1`), `ids` each row's table id when rows of one id are equal. Returns the final
    /// states `[B, H]` (packed order) and, when `keep_steps`, every step's states `[N, H]` in
    /// the same layout as `x` (empty otherwise).
    fn run(
        &mut self,
        x: &[f32],
        ids: Option<&[u32]>,
        starts: &[usize],
        reverse: bool,
        keep_steps: bool,
        par: Parallelism,
    ) -> (&[f32], &[f32]) {
        let hd = self.hd;
        let gh = self.b_ih.len();
        let steps = starts.len().saturating_sub(1);
        let tokens = starts.last().copied().unwrap_or(0);
        let rows = starts.get(1).copied().unwrap_or(0);
        zeroed(&mut self.h, rows * hd);
        zeroed(&mut self.c, if self.lstm { rows * hd } else { 0 });
        self.rec.resize(rows * gh, 0.0);
        zeroed(&mut self.out, if keep_steps { tokens * hd } else { 0 });
        // The input projection x·W_ih + b runs per group of consecutive steps (their rows are
        // contiguous in the packed layout) of at most `PROJECTION_FLOATS` values, not for the
        // whole batch at once: the buffer stays small enough for the allocator to reuse it
        // instead of mapping (and the kernel clearing) fresh pages on every call.
        let cap = rows.max(self.projection_floats / gh.max(1));
        let mut groups = Vec::new();
        let mut t0 = 0;
        for t in 1..=steps {
            if t == steps || starts[t + 1] - starts[t0] > cap {
                groups.push(t0..t);
                t0 = t;
            }
        }
        if reverse {
            groups.reverse();
        }
        for group in groups {
            let (s0, s1) = (starts[group.start], starts[group.end]);
            self.project(x, ids, s0, s1, par);
            // Forward, rows whose sentence has ended are no longer touched and keep their
            // last state; backward, a row joins at its last token with the zero state it was
            // given.
            for i in 0..group.len() {
                let t = if reverse {
                    group.end - 1 - i
                } else {
                    group.start + i
                };
                let (s, n) = (starts[t], starts[t + 1] - starts[t]);
                let (h, rec) = (&mut self.h[..n * hd], &mut self.rec[..n * gh]);
                matmul(rec, h, &self.w_hh, [n, hd, gh], false, par);
                let gi = &self.gi[(s - s0) * gh..(s - s0 + n) * gh];
                if self.lstm {
                    cell::lstm(gi, rec, h, &mut self.c[..n * hd], hd);
                } else {
                    cell::gru(gi, rec, &self.b_hn, h, hd);
                }
                if keep_steps {
                    self.out[s * hd..(s + n) * hd].copy_from_slice(h);
                }
            }
        }
        (&self.h, &self.out)
    }
}

/// A [`BiRnn`]'s recurrence prepared for inference on the host: the weights are copied once,
/// and the buffers are reused by every batch. Build one per run over many batches.
pub(crate) struct HostBiRnn {
    fwd: HostDirection,
    bwd: HostDirection,
}

impl std::fmt::Debug for HostBiRnn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostBiRnn")
            .field("d_hidden", &self.fwd.hd)
            .finish_non_exhaustive()
    }
}

impl HostBiRnn {
    /// Copy `rnn`'s weights; `None` when a tensor cannot be read back as `f32`.
    pub(crate) fn new(rnn: &BiRnn) -> Option<Self> {
        Some(Self {
            fwd: HostDirection::new(&rnn.fwd)?,
            bwd: HostDirection::new(&rnn.bwd)?,
        })
    }

    /// Cap the projection buffer at `floats` values (tests: several projection groups).
    #[cfg(test)]
    pub(super) fn set_projection_floats(&mut self, floats: usize) {
        self.fwd.projection_floats = floats;
        self.bwd.projection_floats = floats;
    }

    /// Cap the memo of projected inputs at `floats` values (tests: a memo that fills up).
    #[cfg(test)]
    pub(super) fn set_memo_floats(&mut self, floats: usize) {
        self.fwd.memo.set_cap(floats);
        self.bwd.memo.set_cap(floats);
    }

    /// [`BiRnn::forward`] on the host: the two directions on two threads when the pool has
    /// them. The outputs are tensors on `x`'s device. `None` when `x` cannot be read back as
    /// `f32`. `ids`, when given, is each packed row's id in the embedding table `x` was looked
    /// up in (so rows of one id are equal: no dropout), and the input projections are kept by
    /// id for the following batches; give it only while that table is unchanged.
    ///
    /// # Panics
    /// When `x` has another width than the layer's input, or `ids` another length than `x`.
    pub(crate) fn forward(
        &mut self,
        x: Tensor<2>,
        ids: Option<&[u32]>,
        batch_sizes: &[usize],
        keep_steps: bool,
    ) -> Option<BiRnnOutput> {
        let device = x.device();
        let (xv, [n, d_in]) = to_host2(x).ok()?;
        assert_eq!(d_in, self.fwd.d_in, "input of the wrong width");
        assert!(ids.is_none_or(|ids| ids.len() == n), "one id per input row");
        let threads = rayon::current_num_threads();
        let par = if threads >= 4 {
            Parallelism::Rayon(threads / 2)
        } else {
            Parallelism::None
        };
        let hd = self.fwd.hd;
        let starts = step_starts(batch_sizes);
        let (fwd, bwd) = (&mut self.fwd, &mut self.bwd);
        let ((lf, of), (lb, ob)) = rayon::join(
            || fwd.run(&xv, ids, &starts, false, keep_steps, par),
            || bwd.run(&xv, ids, &starts, true, keep_steps, par),
        );
        let join = |f: &[f32], b: &[f32]| -> Vec<f32> {
            let mut v = Vec::with_capacity(2 * f.len());
            for (f, b) in f.chunks_exact(hd).zip(b.chunks_exact(hd)) {
                v.extend_from_slice(f);
                v.extend_from_slice(b);
            }
            v
        };
        let rows = lf.len() / hd.max(1);
        let last = float2(join(lf, lb), [rows, 2 * hd], &device);
        let steps = if keep_steps {
            let tokens = of.len() / hd.max(1);
            let all = float2(join(of, ob), [tokens, 2 * hd], &device);
            starts
                .windows(2)
                .map(|w| all.clone().narrow(0, w[0], w[1] - w[0]))
                .collect()
        } else {
            Vec::new()
        };
        Some(BiRnnOutput {
            last,
            steps,
            padded: None,
        })
    }
}
