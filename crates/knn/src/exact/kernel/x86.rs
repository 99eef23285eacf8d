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
    simd_tile!(q, x, d, 6 x 32, out: 0.0f32,
        acc: [_mm512_setzero_ps(); 2],
        load: |qp| (_mm512_loadu_ps(qp), _mm512_loadu_ps(qp.add(16))),
        bcast: |w| _mm512_set1_ps(w),
        fma: |a, (q0, q1), b| {
            a[0] = _mm512_fmadd_ps(q0, b, a[0]);
            a[1] = _mm512_fmadd_ps(q1, b, a[1]);
        },
        store: |o, a| {
            _mm512_storeu_ps(o, a[0]);
            _mm512_storeu_ps(o.add(16), a[1]);
        },
    )
}

/// 6 rows × 16 queries: 12 ymm accumulators.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn tile_avx2(q: &[f32], x: &[f32], d: usize) -> [[f32; 16]; 6] {
    simd_tile!(q, x, d, 6 x 16, out: 0.0f32,
        acc: [_mm256_setzero_ps(); 2],
        load: |qp| (_mm256_loadu_ps(qp), _mm256_loadu_ps(qp.add(8))),
        bcast: |w| _mm256_set1_ps(w),
        fma: |a, (q0, q1), b| {
            a[0] = _mm256_fmadd_ps(q0, b, a[0]);
            a[1] = _mm256_fmadd_ps(q1, b, a[1]);
        },
        store: |o, a| {
            _mm256_storeu_ps(o, a[0]);
            _mm256_storeu_ps(o.add(8), a[1]);
        },
    )
}

scan_fn!(
    #[target_feature(enable = "avx512f")]
    scan_avx512_inner,
    tile_avx512,
    6,
    32,
    /// The AVX-512 scan.
    ///
    /// # Panics
    /// When the CPU lacks AVX-512F (callers resolve kernels with [`super::Kernel::resolve`]).
    checked scan_avx512 if std::arch::is_x86_feature_detected!("avx512f")
);
scan_fn!(
    #[target_feature(enable = "avx2,fma")]
    scan_avx2_inner,
    tile_avx2,
    6,
    16,
    /// The AVX2 + FMA scan.
    ///
    /// # Panics
    /// When the CPU lacks AVX2 or FMA.
    checked scan_avx2 if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
);

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
