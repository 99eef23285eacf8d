//! x86-64 micro-kernels of the reduced-precision scan: AVX512-BF16 (`VDPBF16PS`) and
//! AVX512-VNNI (`VPDPBUSD`), chosen at run time.
//!
//! A tile is 6 database rows × 32 queries (12 zmm accumulators). Per 32-bit word `t` of the
//! rows (two bf16 values or four int8 codes): two loads of the packed queries' words, six
//! broadcasts of the rows' words, twelve dot-product instructions, each adding two (bf16) or
//! four (int8) products per lane.

#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::scan::{QuantPanels, TileAt, int8_keys, quant_scan_fn};
use super::{Precision, QuantDb};
use crate::exact::kernel::{Back, offer_row};
use crate::exact::topk::TopK;

/// Whether this CPU has the instructions of `precision`'s kernel.
pub(super) fn available(precision: Precision) -> bool {
    let base = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw");
    match precision {
        Precision::Bf16 => base && is_x86_feature_detected!("avx512bf16"),
        Precision::Int8 => base && is_x86_feature_detected!("avx512vnni"),
        Precision::F32 => false,
    }
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
    int8_keys(tile_int8(q, x, steps), at)
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

/// The AVX-512 scan of `db`'s precision.
///
/// # Panics
/// When the CPU lacks the instructions (callers choose kernels with
/// [`super::QuantKernel::for_kernel`]).
pub(super) fn scan(
    panels: &QuantPanels,
    db: &QuantDb,
    r0: usize,
    r1: usize,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    assert!(available(db.precision));
    match db.precision {
        // SAFETY: the CPU has AVX-512F/BW and the precision's instructions (asserted above).
        Precision::Int8 => unsafe { scan_int8_inner(panels, db, r0, r1, top, back) },
        // SAFETY: as above.
        _ => unsafe { scan_bf16_inner(panels, db, r0, r1, top, back) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::quant::scan::{self, QuantKernel};
    use bitext_core::{Embeddings, Rng};

    /// Every approximate score of a scan of `db` by `queries` with `kernel`, per query, by id.
    fn all_scores(kernel: QuantKernel, p: Precision, db: &Embeddings, q: &Embeddings) -> Vec<u32> {
        let qdb = QuantDb::build(p, db.view().into()).unwrap();
        let panels = QuantPanels::pack(p, q.as_slice(), q.dim(), kernel.panel_width());
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
    fn avx512_scores_match_the_portable_kernel() {
        let mut r = Rng::seed(9);
        for (n, nq, d) in [(13, 5, 7), (40, 33, 64), (7, 70, 131)] {
            let mut m = |rows: usize| {
                let v = (0..rows * d).map(|_| r.normal() as f32).collect();
                Embeddings::new(v, d).unwrap()
            };
            let (db, q) = (m(n), m(nq));
            for p in [Precision::Bf16, Precision::Int8] {
                if !available(p) {
                    continue;
                }
                let fast = all_scores(QuantKernel::Avx512, p, &db, &q);
                let slow = all_scores(QuantKernel::Portable, p, &db, &q);
                if p == Precision::Int8 {
                    // Integer sums: the same bits.
                    assert_eq!(fast, slow, "{p} {n}x{nq}x{d}");
                } else {
                    // Both within f32 rounding of the bf16 products' sum.
                    for (a, b) in fast.iter().zip(&slow) {
                        let (a, b) = (f32::from_bits(*a), f32::from_bits(*b));
                        assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "{p}: {a} vs {b}");
                    }
                }
            }
        }
    }
}
