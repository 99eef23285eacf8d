//! aarch64 micro-kernel of the `f32` scan (NEON `FMLA`), chosen at run time.
//!
//! A tile is 6 database rows × 16 queries: per dimension `p`, four loads of the packed
//! queries, six scalars of the rows, 24 fused multiply-adds by a scalar (`vfmaq_n_f32`) into
//! accumulators that stay in registers (24 of the 32 vector registers) for the whole dot
//! product. Each lane computes `s = fma(q[p], x[p], s)` from `+0` in order, as every kernel
//! does, so the scores are the portable kernel's bit for bit.

#![allow(unsafe_code)]

use std::arch::aarch64::*;

use super::{Back, L2Norms, Panels, offer_row};
use crate::exact::topk::TopK;

/// 6 rows × 16 queries: 24 accumulators of four lanes.
#[target_feature(enable = "neon")]
#[inline]
fn tile_neon(q: &[f32], x: &[f32], d: usize) -> [[f32; 16]; 6] {
    simd_tile!(q, x, d, 6 x 16, out: 0.0f32,
        acc: [vdupq_n_f32(0.0); 4],
        load: |qp| std::array::from_fn::<float32x4_t, 4, _>(|v| vld1q_f32(qp.add(4 * v))),
        bcast: |w| w,
        fma: |a, qv, b| {
            for (av, &qq) in a.iter_mut().zip(&qv) {
                *av = vfmaq_n_f32(*av, qq, b);
            }
        },
        store: |o, a| {
            for (v, av) in a.into_iter().enumerate() {
                vst1q_f32(o.add(4 * v), av);
            }
        },
    )
}

scan_fn!(
    #[target_feature(enable = "neon")]
    scan_neon_inner,
    tile_neon,
    6,
    16,
    /// The NEON scan.
    ///
    /// # Panics
    /// When the CPU lacks NEON (callers resolve kernels with [`super::Kernel::resolve`]).
    checked scan_neon if std::arch::is_aarch64_feature_detected!("neon")
);
