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
    assert!(
        q.len() >= 16 * d && x.len() >= 6 * d,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let mut acc = [[vdupq_n_f32(0.0); 4]; 6];
    for p in 0..d {
        // SAFETY: p < d, so the loads read q[16p..16p + 16] ⊂ q[..16d] and x[i·d + p] with
        // i < 6 lies in x[..6d]; both bounds are asserted above.
        let qv: [float32x4_t; 4] =
            std::array::from_fn(|v| unsafe { vld1q_f32(qp.add(p * 16 + 4 * v)) });
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = unsafe { *xp.add(i * d + p) };
            for (av, &qq) in a.iter_mut().zip(&qv) {
                *av = vfmaq_n_f32(*av, qq, b);
            }
        }
    }
    let mut out = [[0.0f32; 16]; 6];
    for (o, a) in out.iter_mut().zip(acc) {
        for (v, av) in a.into_iter().enumerate() {
            // SAFETY: `o` holds 16 floats: four 4-float stores at 0, 4, 8, 12 fit.
            unsafe { vst1q_f32(o.as_mut_ptr().add(4 * v), av) };
        }
    }
    out
}

scan_fn!(
    #[target_feature(enable = "neon")]
    scan_neon_inner,
    tile_neon,
    6,
    16
);

/// The NEON scan.
///
/// # Panics
/// When the CPU lacks NEON (callers resolve kernels with [`super::Kernel::resolve`]).
pub(super) fn scan_neon(
    panels: &Panels,
    db: &[f32],
    id0: usize,
    l2: Option<L2Norms<'_>>,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    assert!(std::arch::is_aarch64_feature_detected!("neon"));
    // SAFETY: the CPU supports NEON (asserted above).
    unsafe { scan_neon_inner(panels, db, id0, l2, top, back) }
}
