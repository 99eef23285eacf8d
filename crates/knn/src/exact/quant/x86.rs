//! x86-64 micro-kernels of the reduced-precision scan, chosen at run time: AVX512-BF16
//! (`VDPBF16PS`) and AVX512-VNNI (`VPDPBUSD`) on zmm registers, AVX-VNNI (`VPDPBUSD` on ymm),
//! and AVX2 (int8).
//!
//! An AVX-512 tile is 6 database rows × 32 queries (12 zmm accumulators). Per 32-bit word `t`
//! of the rows (two bf16 values or four int8 codes): two loads of the packed queries' words,
//! six broadcasts of the rows' words, twelve dot-product instructions, each adding two (bf16)
//! or four (int8) products per lane. The 256-bit tiles are 6 rows × 16 queries.
//!
//! AVX2 has no byte dot product that accumulates into `i32`: `VPMADDUBSW` multiplies unsigned
//! by signed bytes and adds pairs into `i16` with saturation, which `(q + 128) · x` (up to
//! 2 · 255 · 127) would overflow. The AVX2 int8 kernel reads signed query codes instead and
//! folds the sign over: `q · x = |q| · (x · sign q)` (`VPSIGNB`), whose pairs are at most
//! 2 · 127² < 2¹⁵, then `VPMADDWD` by ones widens the pairs into `i32`. Its sums are the
//! exact `Σ q x`, the same integers as the other kernels'.
//!
//! Which of them make a search faster than `f32` is [`super::QuantKernel::fast`]'s choice,
//! from measurements (docs/BENCHMARKS.md "Reduced precision on every CPU"): on an AVX2 CPU
//! whose vector integer multiplies share one 128-bit pipe (Zen 1), `VPMADDUBSW` + `VPMADDWD`
//! do no more products per cycle than `VFMADD` does, and the int8 search ran at 0.67–0.81× the
//! `f32` one; the AVX2 kernel is there to be forced (`Kernel::Avx2`) and measured elsewhere.

#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::scan::{QuantPanels, TileAt, int8_keys, quant_scan_fn};
use super::{Precision, QuantDb};
use crate::exact::kernel::{Back, offer_row, simd_tile};
use crate::exact::topk::TopK;

/// The AMX tile kernels (`amx.rs`, beside this file).
#[path = "amx.rs"]
pub(super) mod amx;

/// Whether this CPU has the instructions of `precision`'s AVX-512 kernel.
pub(super) fn available(precision: Precision) -> bool {
    let base = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw");
    match precision {
        Precision::Bf16 => base && is_x86_feature_detected!("avx512bf16"),
        Precision::Int8 => base && is_x86_feature_detected!("avx512vnni"),
        _ => false,
    }
}

/// Whether this CPU has AVX-VNNI (the int8 dot product on ymm registers).
pub(super) fn avxvnni_available() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("avxvnni")
}

/// Whether this CPU has the instructions of `precision`'s AVX2 kernel (int8 only: a bf16
/// kernel on AVX2 widens to `f32` and does the `f32` kernel's arithmetic plus the widening,
/// and measured 0.61–0.66× the `f32` search's speed: docs/BENCHMARKS.md).
pub(super) fn avx2_available(precision: Precision) -> bool {
    precision == Precision::Int8 && is_x86_feature_detected!("avx2")
}

/// 6 rows × 32 queries of bf16 dot products.
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
#[inline]
fn tile_bf16(q: &[u32], x: &[u32], steps: usize) -> [[f32; 32]; 6] {
    simd_tile!(q, x, steps, 6 x 32, out: 0.0f32,
        acc: [_mm512_setzero_ps(); 2],
        load: |qp| {
            let (q0, q1) = (
                _mm512_loadu_si512(qp.cast()),
                _mm512_loadu_si512(qp.add(16).cast()),
            );
            (q0.into_bh(), q1.into_bh())
        },
        bcast: |w| _mm512_set1_epi32(w as i32).into_bh(),
        fma: |a, (q0, q1), b| {
            a[0] = _mm512_dpbf16_ps(a[0], q0, b);
            a[1] = _mm512_dpbf16_ps(a[1], q1, b);
        },
        store: |o, a| {
            _mm512_storeu_ps(o, a[0]);
            _mm512_storeu_ps(o.add(16), a[1]);
        },
    )
}

/// 6 rows × 32 queries of int8 dot products (`Σ (q + 128) · x`, exact in `i32`).
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
#[inline]
fn tile_int8(q: &[u32], x: &[u32], steps: usize) -> [[i32; 32]; 6] {
    simd_tile!(q, x, steps, 6 x 32, out: 0i32,
        acc: [_mm512_setzero_si512(); 2],
        load: |qp| (
            _mm512_loadu_si512(qp.cast()),
            _mm512_loadu_si512(qp.add(16).cast()),
        ),
        bcast: |w| _mm512_set1_epi32(w as i32),
        fma: |a, (q0, q1), b| {
            a[0] = _mm512_dpbusd_epi32(a[0], q0, b);
            a[1] = _mm512_dpbusd_epi32(a[1], q1, b);
        },
        store: |o, a| {
            _mm512_storeu_si512(o.cast(), a[0]);
            _mm512_storeu_si512(o.add(16).cast(), a[1]);
        },
    )
}

/// 6 rows × 16 queries of int8 dot products with AVX-VNNI (`Σ (q + 128) · x`, exact in
/// `i32`).
#[target_feature(enable = "avx2,avxvnni")]
#[inline]
fn tile_int8_avxvnni(q: &[u32], x: &[u32], steps: usize) -> [[i32; 16]; 6] {
    simd_tile!(q, x, steps, 6 x 16, out: 0i32,
        acc: [_mm256_setzero_si256(); 2],
        load: |qp| (
            _mm256_loadu_si256(qp.cast()),
            _mm256_loadu_si256(qp.add(8).cast()),
        ),
        bcast: |w| _mm256_set1_epi32(w as i32),
        fma: |a, (q0, q1), b| {
            a[0] = _mm256_dpbusd_avx_epi32(a[0], q0, b);
            a[1] = _mm256_dpbusd_avx_epi32(a[1], q1, b);
        },
        store: |o, a| { store_i32x16(o, a) },
    )
}

/// 6 rows × 16 queries of int8 dot products with AVX2 from signed query codes (`Σ q · x`,
/// exact in `i32`; see the module docs).
#[target_feature(enable = "avx2")]
#[inline]
fn tile_int8_avx2(q: &[u32], x: &[u32], steps: usize) -> [[i32; 16]; 6] {
    let ones = _mm256_set1_epi16(1);
    simd_tile!(q, x, steps, 6 x 16, out: 0i32,
        acc: [_mm256_setzero_si256(); 2],
        load: |qp| {
            let (s0, s1) = (
                _mm256_loadu_si256(qp.cast()),
                _mm256_loadu_si256(qp.add(8).cast()),
            );
            // |q| ≤ 127 (codes are clamped to ±127), so the bytes read as unsigned are |q|.
            (s0, s1, _mm256_abs_epi8(s0), _mm256_abs_epi8(s1))
        },
        bcast: |w| _mm256_set1_epi32(w as i32),
        fma: |a, (s0, s1, m0, m1), b| {
            let p0 = _mm256_maddubs_epi16(m0, _mm256_sign_epi8(b, s0));
            let p1 = _mm256_maddubs_epi16(m1, _mm256_sign_epi8(b, s1));
            a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(p0, ones));
            a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(p1, ones));
        },
        store: |o, a| { store_i32x16(o, a) },
    )
}

/// Store a row's two 8-lane `i32` accumulators at `o`.
///
/// # Safety
/// `o` must be valid for writing 16 `i32`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_i32x16(o: *mut i32, a: [__m256i; 2]) {
    // SAFETY: `o` holds 16 i32 (the caller's contract): two 8-lane stores fit.
    unsafe {
        _mm256_storeu_si256(o.cast(), a[0]);
        _mm256_storeu_si256(o.add(8).cast(), a[1]);
    }
}

/// Reinterpret 512 bits as 32 bf16 values.
trait IntoBh {
    fn into_bh(self) -> __m512bh;
}

impl IntoBh for __m512i {
    #[inline(always)]
    fn into_bh(self) -> __m512bh {
        // SAFETY: both are 512-bit plain-data vectors; every bit pattern is valid for both.
        unsafe { std::mem::transmute::<__m512i, __m512bh>(self) }
    }
}

/// bf16 tiles as scores.
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
#[inline]
fn bf16_keys(q: &[u32], x: &[u32], steps: usize, _: &TileAt<'_>) -> [[f32; 32]; 6] {
    tile_bf16(q, x, steps)
}

/// int8 tiles as scores.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
#[inline]
fn int8_tile_keys(q: &[u32], x: &[u32], steps: usize, at: &TileAt<'_>) -> [[f32; 32]; 6] {
    int8_keys::<6, 32, true>(tile_int8(q, x, steps), at)
}

/// AVX-VNNI int8 tiles as scores.
#[target_feature(enable = "avx2,avxvnni")]
#[inline]
fn int8_avxvnni_keys(q: &[u32], x: &[u32], steps: usize, at: &TileAt<'_>) -> [[f32; 16]; 6] {
    int8_keys::<6, 16, true>(tile_int8_avxvnni(q, x, steps), at)
}

/// AVX2 int8 tiles as scores (signed query codes).
#[target_feature(enable = "avx2")]
#[inline]
fn int8_avx2_keys(q: &[u32], x: &[u32], steps: usize, at: &TileAt<'_>) -> [[f32; 16]; 6] {
    int8_keys::<6, 16, false>(tile_int8_avx2(q, x, steps), at)
}

quant_scan_fn!(
    #[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
    scan_bf16_inner,
    bf16_keys,
    6,
    32,
    /// The AVX-512 BF16 scan (of bf16 rows).
    ///
    /// # Panics
    /// When the CPU lacks AVX-512F/BW or BF16.
    checked scan_bf16_avx512 if available(Precision::Bf16)
);
quant_scan_fn!(
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    scan_int8_inner,
    int8_tile_keys,
    6,
    32,
    /// The AVX-512 VNNI scan (of int8 rows).
    ///
    /// # Panics
    /// When the CPU lacks AVX-512F/BW or VNNI.
    checked scan_int8_avx512 if available(Precision::Int8)
);
quant_scan_fn!(
    #[target_feature(enable = "avx2,avxvnni")]
    scan_int8_avxvnni_inner,
    int8_avxvnni_keys,
    6,
    16,
    /// The AVX-VNNI scan (of int8 rows).
    ///
    /// # Panics
    /// When the CPU lacks AVX2 or AVX-VNNI.
    checked scan_int8_avxvnni if avxvnni_available()
);
quant_scan_fn!(
    #[target_feature(enable = "avx2")]
    scan_int8_avx2_inner,
    int8_avx2_keys,
    6,
    16,
    /// The AVX2 scan (of int8 rows, with signed query codes).
    ///
    /// # Panics
    /// When the CPU lacks AVX2.
    checked scan_int8_avx2 if avx2_available(Precision::Int8)
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::quant::scan::QuantKernel;
    use crate::exact::quant::scan::testing::{all_scores, cases};

    #[test]
    fn x86_int8_scores_are_the_portable_kernels_bit_for_bit() {
        let kernels = [
            (QuantKernel::Avx512, available(Precision::Int8)),
            (QuantKernel::AvxVnni, avxvnni_available()),
            (QuantKernel::Avx2, avx2_available(Precision::Int8)),
        ];
        for (db, q) in cases() {
            let slow = all_scores(QuantKernel::Portable, Precision::Int8, &db, &q);
            for (kernel, ok) in kernels {
                if ok {
                    let fast = all_scores(kernel, Precision::Int8, &db, &q);
                    assert_eq!(
                        fast,
                        slow,
                        "{kernel:?} {}x{}x{}",
                        db.len(),
                        q.len(),
                        q.dim()
                    );
                }
            }
        }
    }

    #[test]
    fn avx512_bf16_scores_match_the_portable_kernel() {
        for (db, q) in cases() {
            let slow = all_scores(QuantKernel::Portable, Precision::Bf16, &db, &q);
            if available(Precision::Bf16) {
                // VDPBF16PS rounds differently: both within f32 rounding of the bf16
                // products' sum.
                let fast = all_scores(QuantKernel::Avx512, Precision::Bf16, &db, &q);
                for (a, b) in fast.iter().zip(&slow) {
                    let (a, b) = (f32::from_bits(*a), f32::from_bits(*b));
                    assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "{a} vs {b}");
                }
            }
        }
    }
}
