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

use super::scan::{QuantKernel, QuantPanels, TileAt, int8_keys, quant_scan_fn};
use super::{Precision, QuantDb};
use crate::exact::kernel::{Back, offer_row};
use crate::exact::topk::TopK;

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
    assert!(
        q.len() >= 32 * steps && x.len() >= 6 * steps,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let mut acc = [[_mm512_setzero_ps(); 2]; 6];
    for t in 0..steps {
        // SAFETY: t < steps, so the loads read q[32t..32t + 32] ⊂ q[..32·steps] and
        // x[i·steps + t] with i < 6 lies in x[..6·steps]; both bounds are asserted above.
        let (q0, q1) = unsafe {
            (
                _mm512_loadu_si512(qp.add(t * 32).cast()),
                _mm512_loadu_si512(qp.add(t * 32 + 16).cast()),
            )
        };
        let (q0, q1): (__m512bh, __m512bh) = (q0.into_bh(), q1.into_bh());
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = _mm512_set1_epi32(unsafe { *xp.add(i * steps + t) } as i32).into_bh();
            a[0] = _mm512_dpbf16_ps(a[0], q0, b);
            a[1] = _mm512_dpbf16_ps(a[1], q1, b);
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

/// 6 rows × 32 queries of int8 dot products (`Σ (q + 128) · x`, exact in `i32`).
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
#[inline]
fn tile_int8(q: &[u32], x: &[u32], steps: usize) -> [[i32; 32]; 6] {
    assert!(
        q.len() >= 32 * steps && x.len() >= 6 * steps,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let mut acc = [[_mm512_setzero_si512(); 2]; 6];
    for t in 0..steps {
        // SAFETY: as in `tile_bf16`.
        let (q0, q1) = unsafe {
            (
                _mm512_loadu_si512(qp.add(t * 32).cast()),
                _mm512_loadu_si512(qp.add(t * 32 + 16).cast()),
            )
        };
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = _mm512_set1_epi32(unsafe { *xp.add(i * steps + t) } as i32);
            a[0] = _mm512_dpbusd_epi32(a[0], q0, b);
            a[1] = _mm512_dpbusd_epi32(a[1], q1, b);
        }
    }
    let mut out = [[0i32; 32]; 6];
    for (o, a) in out.iter_mut().zip(acc) {
        // SAFETY: `o` holds 32 i32: two 16-lane stores fit.
        unsafe {
            _mm512_storeu_si512(o.as_mut_ptr().cast(), a[0]);
            _mm512_storeu_si512(o.as_mut_ptr().add(16).cast(), a[1]);
        }
    }
    out
}

/// 6 rows × 16 queries of int8 dot products with AVX-VNNI (`Σ (q + 128) · x`, exact in
/// `i32`).
#[target_feature(enable = "avx2,avxvnni")]
#[inline]
fn tile_int8_avxvnni(q: &[u32], x: &[u32], steps: usize) -> [[i32; 16]; 6] {
    assert!(
        q.len() >= 16 * steps && x.len() >= 6 * steps,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let mut acc = [[_mm256_setzero_si256(); 2]; 6];
    for t in 0..steps {
        // SAFETY: t < steps, so the loads read q[16t..16t + 16] ⊂ q[..16·steps] and
        // x[i·steps + t] with i < 6 lies in x[..6·steps]; both bounds are asserted above.
        let (q0, q1) = unsafe {
            (
                _mm256_loadu_si256(qp.add(t * 16).cast()),
                _mm256_loadu_si256(qp.add(t * 16 + 8).cast()),
            )
        };
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = _mm256_set1_epi32(unsafe { *xp.add(i * steps + t) } as i32);
            a[0] = _mm256_dpbusd_avx_epi32(a[0], q0, b);
            a[1] = _mm256_dpbusd_avx_epi32(a[1], q1, b);
        }
    }
    store_i32x16(acc)
}

/// 6 rows × 16 queries of int8 dot products with AVX2 from signed query codes (`Σ q · x`,
/// exact in `i32`; see the module docs).
#[target_feature(enable = "avx2")]
#[inline]
fn tile_int8_avx2(q: &[u32], x: &[u32], steps: usize) -> [[i32; 16]; 6] {
    assert!(
        q.len() >= 16 * steps && x.len() >= 6 * steps,
        "tile operands too short"
    );
    let (qp, xp) = (q.as_ptr(), x.as_ptr());
    let ones = _mm256_set1_epi16(1);
    let mut acc = [[_mm256_setzero_si256(); 2]; 6];
    for t in 0..steps {
        // SAFETY: as in `tile_int8_avxvnni`.
        let (s0, s1) = unsafe {
            (
                _mm256_loadu_si256(qp.add(t * 16).cast()),
                _mm256_loadu_si256(qp.add(t * 16 + 8).cast()),
            )
        };
        // |q| ≤ 127 (codes are clamped to ±127), so the bytes read as unsigned are |q|.
        let (m0, m1) = (_mm256_abs_epi8(s0), _mm256_abs_epi8(s1));
        for (i, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let b = _mm256_set1_epi32(unsafe { *xp.add(i * steps + t) } as i32);
            let p0 = _mm256_maddubs_epi16(m0, _mm256_sign_epi8(b, s0));
            let p1 = _mm256_maddubs_epi16(m1, _mm256_sign_epi8(b, s1));
            a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(p0, ones));
            a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(p1, ones));
        }
    }
    store_i32x16(acc)
}

/// Six rows of two 8-lane `i32` accumulators as arrays.
#[target_feature(enable = "avx2")]
#[inline]
fn store_i32x16(acc: [[__m256i; 2]; 6]) -> [[i32; 16]; 6] {
    let mut out = [[0i32; 16]; 6];
    for (o, a) in out.iter_mut().zip(acc) {
        // SAFETY: `o` holds 16 i32: two 8-lane stores fit.
        unsafe {
            _mm256_storeu_si256(o.as_mut_ptr().cast(), a[0]);
            _mm256_storeu_si256(o.as_mut_ptr().add(8).cast(), a[1]);
        }
    }
    out
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
    32
);
quant_scan_fn!(
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    scan_int8_inner,
    int8_tile_keys,
    6,
    32
);
quant_scan_fn!(
    #[target_feature(enable = "avx2,avxvnni")]
    scan_int8_avxvnni,
    int8_avxvnni_keys,
    6,
    16
);
quant_scan_fn!(
    #[target_feature(enable = "avx2")]
    scan_int8_avx2,
    int8_avx2_keys,
    6,
    16
);
/// The x86 scan of `db`'s precision with `kernel`.
///
/// # Panics
/// When the CPU lacks the kernel's instructions (callers choose kernels with
/// [`super::QuantKernel::for_kernel`]), or for the portable kernel.
pub(super) fn scan(
    kernel: QuantKernel,
    panels: &QuantPanels,
    db: &QuantDb,
    r0: usize,
    r1: usize,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    let int8 = db.precision == Precision::Int8;
    match kernel {
        QuantKernel::Avx512 => {
            assert!(available(db.precision));
            if int8 {
                // SAFETY: the CPU has AVX-512F/BW and VNNI (asserted above).
                unsafe { scan_int8_inner(panels, db, r0, r1, top, back) }
            } else {
                // SAFETY: the CPU has AVX-512F/BW and BF16 (asserted above).
                unsafe { scan_bf16_inner(panels, db, r0, r1, top, back) }
            }
        }
        QuantKernel::AvxVnni => {
            assert!(int8 && avxvnni_available());
            // SAFETY: the CPU has AVX2 and AVX-VNNI (asserted above).
            unsafe { scan_int8_avxvnni(panels, db, r0, r1, top, back) }
        }
        QuantKernel::Avx2 => {
            assert!(int8 && avx2_available(db.precision));
            // SAFETY: the CPU has AVX2 (asserted above).
            unsafe { scan_int8_avx2(panels, db, r0, r1, top, back) }
        }
        QuantKernel::Portable => unreachable!("the portable scan is not an x86 kernel"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::quant::scan;
    use bitext_core::{Embeddings, Rng};

    /// Every approximate score of a scan of `db` by `queries` with `kernel`, per query, by id.
    fn all_scores(kernel: QuantKernel, p: Precision, db: &Embeddings, q: &Embeddings) -> Vec<u32> {
        let qdb = QuantDb::build(p, db.view().into()).unwrap();
        let panels = QuantPanels::pack(p, q.as_slice(), q.dim(), kernel);
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

    /// Random matrices of the shapes the kernels' edges need (rows and queries that are not
    /// multiples of the tile, dimensions that are not multiples of a word), with extreme codes
    /// (rows of ±max, which quantise to ±127) among them.
    fn cases() -> Vec<(Embeddings, Embeddings)> {
        let mut r = Rng::seed(9);
        [(13, 5, 7), (40, 33, 64), (7, 70, 131), (25, 17, 300)]
            .into_iter()
            .map(|(n, nq, d)| {
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
                (m(n), m(nq))
            })
            .collect()
    }

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
