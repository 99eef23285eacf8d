//! aarch64 micro-kernel of the int8 scan: `SDOT` (the dot-product extension, Armv8.2+: Arm
//! Neoverse N1 and later, Apple M1 and later), chosen at run time.
//!
//! A tile is 6 database rows × 16 queries (24 accumulators of four `i32` lanes). Per 32-bit
//! word `t` of the rows (four int8 codes): four loads of the packed queries' words, six
//! broadcasts of the rows' words, 24 `SDOT`s, each adding four signed byte products per lane.
//! Both operands are signed (the queries are packed without the +128 bias that `VPDPBUSD`
//! needs), so the sums are the exact `Σ q x`, the integers every int8 kernel computes.
//!
//! `SDOT`'s intrinsic (`vdotq_s32`) is not stable Rust yet, so the instruction is written as
//! inline assembly on NEON registers, in a function compiled with the `dotprod` feature.

#![allow(unsafe_code)]

use std::arch::aarch64::*;

use super::scan::{QuantKernel, QuantPanels, TileAt, int8_keys, quant_scan_fn};
use super::{Precision, QuantDb};
use crate::exact::kernel::{Back, offer_row};
use crate::exact::topk::TopK;

/// Whether this CPU has `SDOT`.
pub(super) fn sdot_available() -> bool {
    std::arch::is_aarch64_feature_detected!("neon")
        && std::arch::is_aarch64_feature_detected!("dotprod")
}

/// `acc + Σ` of the four byte products of each 32-bit lane of `a` and `b` (signed).
#[target_feature(enable = "neon,dotprod")]
#[inline]
fn sdot(acc: int32x4_t, a: int8x16_t, b: int8x16_t) -> int32x4_t {
    let mut acc = acc;
    // SAFETY: `SDOT Vd.4S, Vn.16B, Vm.16B` reads and writes only the three vector registers
    // (no memory, no flags, no stack); the CPU has the instruction (this function's feature).
    unsafe {
        std::arch::asm!(
            "sdot {acc:v}.4s, {a:v}.16b, {b:v}.16b",
            acc = inout(vreg) acc,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    acc
}

/// 6 rows × 16 queries of int8 dot products (`Σ q · x`, exact in `i32`).
#[target_feature(enable = "neon,dotprod")]
#[inline]
fn tile_int8_sdot(q: &[u32], x: &[u32], steps: usize) -> [[i32; 16]; 6] {
    assert!(
        q.len() >= 16 * steps && x.len() >= 6 * steps,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let mut acc = [[vdupq_n_s32(0); 4]; 6];
    for t in 0..steps {
        // SAFETY: t < steps, so the loads read q[16t..16t + 16] ⊂ q[..16·steps] and
        // x[i·steps + t] with i < 6 lies in x[..6·steps]; both bounds are asserted above.
        let qv: [int8x16_t; 4] = std::array::from_fn(|v| unsafe {
            vreinterpretq_s8_u32(vld1q_u32(qp.add(t * 16 + 4 * v)))
        });
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = vreinterpretq_s8_u32(vdupq_n_u32(unsafe { *xp.add(i * steps + t) }));
            for (av, &qq) in a.iter_mut().zip(&qv) {
                *av = sdot(*av, qq, b);
            }
        }
    }
    let mut out = [[0i32; 16]; 6];
    for (o, a) in out.iter_mut().zip(acc) {
        for (v, av) in a.into_iter().enumerate() {
            // SAFETY: `o` holds 16 i32: four 4-lane stores at 0, 4, 8, 12 fit.
            unsafe { vst1q_s32(o.as_mut_ptr().add(4 * v), av) };
        }
    }
    out
}

/// `SDOT` tiles as scores (signed query codes).
#[target_feature(enable = "neon,dotprod")]
#[inline]
fn int8_sdot_keys(q: &[u32], x: &[u32], steps: usize, at: &TileAt<'_>) -> [[f32; 16]; 6] {
    int8_keys::<6, 16, false>(tile_int8_sdot(q, x, steps), at)
}

quant_scan_fn!(
    #[target_feature(enable = "neon,dotprod")]
    scan_int8_sdot,
    int8_sdot_keys,
    6,
    16
);

/// The aarch64 scan of `db` (int8) with `kernel`.
///
/// # Panics
/// When the CPU lacks `SDOT`, for bf16, or for another kernel (callers choose kernels with
/// [`super::QuantKernel::for_kernel`]).
pub(super) fn scan(
    kernel: QuantKernel,
    panels: &QuantPanels,
    db: &QuantDb,
    r0: usize,
    r1: usize,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    assert!(kernel == QuantKernel::Sdot && db.precision == Precision::Int8 && sdot_available());
    // SAFETY: the CPU has NEON and the dot-product extension (asserted above).
    unsafe { scan_int8_sdot(panels, db, r0, r1, top, back) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::quant::scan;
    use bitext_core::{Embeddings, Rng};

    /// Every approximate score of a scan of `db` by `queries` with `kernel`, per query, by id.
    fn all_scores(kernel: QuantKernel, db: &Embeddings, q: &Embeddings) -> Vec<u32> {
        let qdb = QuantDb::build(Precision::Int8, db.view().into()).unwrap();
        let panels = QuantPanels::pack(Precision::Int8, q.as_slice(), q.dim(), kernel);
        let n = db.len();
        let mut top = TopK::new(n, panels.queries, panels.padded());
        scan::scan(kernel, &panels, &qdb, 0, n, &mut top, None);
        let (mut ids, mut scores) = (Vec::new(), Vec::new());
        assert!(top.drain_into(&mut ids, &mut scores, |k| k));
        let mut by_id = vec![0u32; ids.len()];
        for (i, (&id, s)) in ids.iter().zip(scores).enumerate() {
            by_id[(i / n) * n + id] = s.to_bits();
        }
        by_id
    }

    #[test]
    fn sdot_scores_are_the_portable_kernels_bit_for_bit() {
        if !sdot_available() {
            return;
        }
        let mut r = Rng::seed(9);
        for (n, nq, d) in [(13, 5, 7), (40, 33, 64), (7, 70, 131), (25, 17, 300)] {
            let mut m = |rows: usize| {
                let v = (0..rows * d)
                    .map(|i| {
                        if i % (3 * d) < d {
                            // A row of ±1: every code is ±127.
                            if r.below(2) == 0 { 1.0 } else { -1.0 }
                        } else {
                            r.normal() as f32
                        }
                    })
                    .collect();
                Embeddings::new(v, d).unwrap()
            };
            let (db, q) = (m(n), m(nq));
            let fast = all_scores(QuantKernel::Sdot, &db, &q);
            let slow = all_scores(QuantKernel::Portable, &db, &q);
            assert_eq!(fast, slow, "{n}x{nq}x{d}");
        }
    }
}
