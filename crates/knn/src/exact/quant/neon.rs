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

use super::QuantDb;
use super::scan::{QuantPanels, TileAt, int8_keys, quant_scan_fn};
use crate::exact::kernel::{Back, offer_row, simd_tile};
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
    simd_tile!(q, x, steps, 6 x 16, out: 0i32,
        acc: [vdupq_n_s32(0); 4],
        load: |qp| std::array::from_fn::<int8x16_t, 4, _>(|v| {
            vreinterpretq_s8_u32(vld1q_u32(qp.add(4 * v)))
        }),
        bcast: |w| vreinterpretq_s8_u32(vdupq_n_u32(w)),
        fma: |a, qv, b| {
            for (av, &qq) in a.iter_mut().zip(&qv) {
                *av = sdot(*av, qq, b);
            }
        },
        store: |o, a| {
            for (v, av) in a.into_iter().enumerate() {
                vst1q_s32(o.add(4 * v), av);
            }
        },
    )
}

/// `SDOT` tiles as scores (signed query codes).
#[target_feature(enable = "neon,dotprod")]
#[inline]
fn int8_sdot_keys(q: &[u32], x: &[u32], steps: usize, at: &TileAt<'_>) -> [[f32; 16]; 6] {
    int8_keys::<6, 16, false>(tile_int8_sdot(q, x, steps), at)
}

quant_scan_fn!(
    #[target_feature(enable = "neon,dotprod")]
    scan_int8_sdot_inner,
    int8_sdot_keys,
    6,
    16,
    /// The `SDOT` scan (of int8 rows).
    ///
    /// # Panics
    /// When the CPU lacks NEON or the dot-product extension (callers choose kernels with
    /// [`super::QuantKernel::for_kernel`]).
    checked scan_int8_sdot if sdot_available()
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::quant::Precision;
    use crate::exact::quant::scan::QuantKernel;
    use crate::exact::quant::scan::testing::{all_scores, cases};

    #[test]
    fn sdot_scores_are_the_portable_kernels_bit_for_bit() {
        if !sdot_available() {
            return;
        }
        for (db, q) in cases() {
            let fast = all_scores(QuantKernel::Sdot, Precision::Int8, &db, &q);
            let slow = all_scores(QuantKernel::Portable, Precision::Int8, &db, &q);
            assert_eq!(fast, slow, "{}x{}x{}", db.len(), q.len(), q.dim());
        }
    }
}
