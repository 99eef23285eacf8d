//! x86-64 micro-kernels (AVX-512F and AVX2 + FMA), chosen at run time.
//!
//! A tile is `MR` database rows × `NR` queries: per dimension `p`, `NR / lanes` vector loads of
//! the packed queries, `MR` broadcasts of the rows' values, `MR × NR / lanes` fused
//! multiply-adds into accumulators that stay in registers for the whole dot product.

#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::{Back, L2Norms, Panels, dot_body, dot_many_body, offer_row, sq_norms_body};
use crate::exact::topk::TopK;

/// 6 rows × 32 queries: 12 zmm accumulators.
#[target_feature(enable = "avx512f")]
#[inline]
fn tile_avx512(q: &[f32], x: &[f32], d: usize) -> [[f32; 32]; 6] {
    assert!(
        q.len() >= 32 * d && x.len() >= 6 * d,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let mut acc = [[_mm512_setzero_ps(); 2]; 6];
    for p in 0..d {
        // SAFETY: p < d, so the loads read q[32p..32p + 32] ⊂ q[..32d] and x[i·d + p] with
        // i < 6 lies in x[..6d]; both bounds are asserted above.
        let (q0, q1) = unsafe {
            (
                _mm512_loadu_ps(qp.add(p * 32)),
                _mm512_loadu_ps(qp.add(p * 32 + 16)),
            )
        };
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = _mm512_set1_ps(unsafe { *xp.add(i * d + p) });
            a[0] = _mm512_fmadd_ps(q0, b, a[0]);
            a[1] = _mm512_fmadd_ps(q1, b, a[1]);
        }
    }
    let mut out = [[0.0f32; 32]; 6];
    for (o, a) in out.iter_mut().zip(acc) {
        // SAFETY: `o` holds 32 floats: two 16-float stores fit.
        unsafe {
            _mm512_storeu_ps(o.as_mut_ptr(), a[0]);
            _mm512_storeu_ps(o.as_mut_ptr().add(16), a[1]);
        }
    }
    out
}

/// 6 rows × 16 queries: 12 ymm accumulators.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn tile_avx2(q: &[f32], x: &[f32], d: usize) -> [[f32; 16]; 6] {
    assert!(
        q.len() >= 16 * d && x.len() >= 6 * d,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let mut acc = [[_mm256_setzero_ps(); 2]; 6];
    for p in 0..d {
        // SAFETY: p < d, so the loads read q[16p..16p + 16] ⊂ q[..16d] and x[i·d + p] with
        // i < 6 lies in x[..6d]; both bounds are asserted above.
        let (q0, q1) = unsafe {
            (
                _mm256_loadu_ps(qp.add(p * 16)),
                _mm256_loadu_ps(qp.add(p * 16 + 8)),
            )
        };
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = _mm256_set1_ps(unsafe { *xp.add(i * d + p) });
            a[0] = _mm256_fmadd_ps(q0, b, a[0]);
            a[1] = _mm256_fmadd_ps(q1, b, a[1]);
        }
    }
    let mut out = [[0.0f32; 16]; 6];
    for (o, a) in out.iter_mut().zip(acc) {
        // SAFETY: `o` holds 16 floats: two 8-float stores fit.
        unsafe {
            _mm256_storeu_ps(o.as_mut_ptr(), a[0]);
            _mm256_storeu_ps(o.as_mut_ptr().add(8), a[1]);
        }
    }
    out
}

scan_fn!(
    #[target_feature(enable = "avx512f")]
    scan_avx512_inner,
    tile_avx512,
    6,
    32
);
scan_fn!(
    #[target_feature(enable = "avx2,fma")]
    scan_avx2_inner,
    tile_avx2,
    6,
    16
);

/// The AVX-512 scan.
///
/// # Panics
/// When the CPU lacks AVX-512F (callers resolve kernels with [`super::Kernel::resolve`]).
pub(super) fn scan_avx512(
    panels: &Panels,
    db: &[f32],
    id0: usize,
    l2: Option<L2Norms<'_>>,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    assert!(std::arch::is_x86_feature_detected!("avx512f"));
    // SAFETY: the CPU supports AVX-512F (asserted above).
    unsafe { scan_avx512_inner(panels, db, id0, l2, top, back) }
}

/// The AVX2 + FMA scan.
///
/// # Panics
/// When the CPU lacks AVX2 or FMA.
pub(super) fn scan_avx2(
    panels: &Panels,
    db: &[f32],
    id0: usize,
    l2: Option<L2Norms<'_>>,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    assert!(
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    );
    // SAFETY: the CPU supports AVX2 and FMA (asserted above).
    unsafe { scan_avx2_inner(panels, db, id0, l2, top, back) }
}

#[target_feature(enable = "fma")]
fn sq_norms_fma(rows: &[f32], dim: usize, out: &mut [f32]) {
    sq_norms_body(rows, dim, out);
}

/// Squared norms with hardware FMA; `false` (nothing done) when the CPU lacks it.
pub(super) fn sq_norms(rows: &[f32], dim: usize, out: &mut [f32]) -> bool {
    if !std::arch::is_x86_feature_detected!("fma") {
        return false;
    }
    // SAFETY: the CPU supports FMA (checked just above).
    unsafe { sq_norms_fma(rows, dim, out) };
    true
}

#[target_feature(enable = "fma")]
fn dot_fma(a: &[f32], b: &[f32]) -> f32 {
    dot_body(a, b)
}

/// [`super::dot`] with hardware FMA (an instruction, not a library call per element); `None`
/// when the CPU lacks it.
pub(super) fn dot(a: &[f32], b: &[f32]) -> Option<f32> {
    if !std::arch::is_x86_feature_detected!("fma") {
        return None;
    }
    // SAFETY: the CPU supports FMA (checked just above).
    Some(unsafe { dot_fma(a, b) })
}

#[target_feature(enable = "fma")]
fn dot_many_fma(x: &[f32], rows: &[&[f32]], out: &mut Vec<f32>) {
    dot_many_body(x, rows, out);
}

/// [`super::dot_many`] with hardware FMA; `false` (nothing done) when the CPU lacks it.
pub(super) fn dot_many(x: &[f32], rows: &[&[f32]], out: &mut Vec<f32>) -> bool {
    if !std::arch::is_x86_feature_detected!("fma") {
        return false;
    }
    // SAFETY: the CPU supports FMA (checked just above).
    unsafe { dot_many_fma(x, rows, out) };
    true
}
