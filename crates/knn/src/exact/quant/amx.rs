//! AMX micro-kernels of the reduced-precision scan: `TDPBF16PS` (bf16) and `TDPBSUD` (int8)
//! on Intel Advanced Matrix Extensions tiles (Sapphire Rapids and later), written with `asm!`
//! because the AMX intrinsics are not stable Rust.
//!
//! A block is 32 database rows × 32 queries, in the eight tile registers of palette 1:
//! `tmm0`/`tmm1` hold 16 rows × 16 words of the rows (A), `tmm2`/`tmm3` 16 words × 16 queries
//! of the panel (B), `tmm4`–`tmm7` the four 16 × 16 blocks of sums (C). The quantised layouts
//! are already the ones the tiles read: a database row is `steps` consecutive words (A: stride
//! `steps · 4` bytes), and word `t` of the panel's query `j` is at `q[t · 32 + j]`, which is the
//! "VNNI" layout of B (tile row = word `t`, 16 queries × 4 bytes, stride 128 bytes). Per 16
//! words: four tile loads and four tile products (2 · 16 · 16 · 16 bf16 or 4 · 16 · 16 · 16
//! int8 multiply-adds each). The words past the last multiple of 16 (`steps % 16`) are added
//! to the stored sums with the AVX-512 `VDPBF16PS` / `VPDPBUSD` of `x86.rs`, so the scan also
//! needs those (every AMX CPU has them).
//!
//! Linux hands the tile state to a process only when asked (`arch_prctl(ARCH_REQ_XCOMP_PERM,
//! XFEATURE_XTILEDATA)`; a tile instruction without it is killed with `SIGILL`):
//! [`available`] asks once and says whether the CPU has the instructions and the kernel granted
//! them. Each scan loads the tile configuration on its thread and releases the tiles when it
//! ends.
//!
//! # Results
//!
//! int8: `TDPBSUD` multiplies signed bytes of A (the rows' codes) by unsigned bytes of B (the
//! queries' codes + 128) into exact `i32` sums (no saturation; `|Σ| < 2³¹` for `d ≤ 65,536`),
//! so the sums, and the scores, are the other int8 kernels' bit for bit.
//!
//! bf16: `TDPBF16PS` adds the products in its own order (and flushes subnormal inputs and
//! results to zero), so the scores differ in the last bits from `VDPBF16PS`'s and the portable
//! kernel's. The certificate still holds: a product of two bf16 values is exact in `f32` (8 × 8
//! significant bits), so a score is a sum of the `d' ≤ d + 1` exact products of the padded
//! dimension in some order and association, with at most one round-to-nearest per addition:
//! whatever the order, its error is at most `γ_{d'−1} Σ |x̂ᵢ ŷᵢ| ≤ γ_{2d+8} ‖x̂‖‖ŷ‖`, the term
//! the bound already has (which allows a rounding per product as well). Each flush to zero
//! changes a result of magnitude below 2⁻¹²⁶ by less than 2⁻¹²⁶, for at most `2d'` operations:
//! within the bound's absolute term, `(4d + 16) · 2⁻¹²⁰`.

#![allow(unsafe_code)]

use std::arch::asm;
use std::arch::x86_64::*;
use std::sync::OnceLock;

use crate::exact::kernel::{Back, offer_row};
use crate::exact::quant::scan::{QuantPanels, TileAt, int8_keys, row_block};
use crate::exact::quant::{Precision, QuantDb};
use crate::exact::topk::TopK;

/// Rows per block (two A tiles).
const MR: usize = 32;
/// Queries per block (two B tiles): the AVX-512 panel width.
const NR: usize = 32;
/// Words per tile row (64 bytes).
const KW: usize = 16;

/// Whether the AMX scans run here: the CPU has AMX tiles, bf16 and int8 (CPUID leaf 7), the
/// AVX-512 BF16 and VNNI instructions the scans use for the words past a multiple of 16, and
/// the OS granted this process the tile state (Linux only). Asked once per process.
pub(crate) fn available() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        cpu_has_amx()
            && super::available(Precision::Bf16)
            && super::available(Precision::Int8)
            && request_tile_state()
    })
}

/// CPUID leaf 7, sub-leaf 0, EDX: AMX-BF16 (bit 22), AMX-TILE (bit 24), AMX-INT8 (bit 25).
fn cpu_has_amx() -> bool {
    if __get_cpuid_max(0).0 < 7 {
        return false;
    }
    let edx = __cpuid_count(7, 0).edx;
    let bits = (1 << 22) | (1 << 24) | (1 << 25);
    edx & bits == bits
}

/// Ask Linux for the tile data state (`ARCH_REQ_XCOMP_PERM`, `XFEATURE_XTILEDATA`): whether it
/// was granted.
#[cfg(target_os = "linux")]
fn request_tile_state() -> bool {
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: arch_prctl with these arguments only changes this process's permitted extended
    // states (it reads and writes no memory of ours); failure is reported as -1.
    let r = unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        )
    };
    r == 0
}

/// Other systems: no AMX (their permission protocols are not implemented).
#[cfg(not(target_os = "linux"))]
fn request_tile_state() -> bool {
    false
}

/// The tile configuration (`LDTILECFG`'s 64 bytes): palette 1, tiles 0–7 of 16 rows × 64 bytes.
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    colsb: [u16; 16],
    rows: [u8; 16],
}

static CONFIG: TileConfig = {
    let mut c = TileConfig {
        palette: 1,
        start_row: 0,
        reserved: [0; 14],
        colsb: [0; 16],
        rows: [0; 16],
    };
    let mut t = 0;
    while t < 8 {
        c.colsb[t] = (KW * 4) as u16;
        c.rows[t] = 16;
        t += 1;
    }
    c
};

/// The tiles of this thread, configured for the 32 × 32 blocks while this lives; released
/// (`TILERELEASE`) when it is dropped, also on unwinding.
struct Tiles(());

impl Tiles {
    /// Configure the tiles.
    ///
    /// # Safety
    /// [`available`] must have returned true (the CPU has AMX and the OS granted the state).
    unsafe fn configure() -> Tiles {
        // SAFETY: AMX is usable (the caller's contract); CONFIG is a valid palette-1
        // configuration (8 tiles of 16 rows × 64 bytes, the reserved bytes zero), 64 bytes
        // at a 64-byte aligned address.
        unsafe {
            asm!("ldtilecfg [{cfg}]", cfg = in(reg) &raw const CONFIG, options(nostack, readonly))
        };
        Tiles(())
    }
}

impl Drop for Tiles {
    fn drop(&mut self) {
        // SAFETY: the tiles were configured by `configure` (AMX is usable); TILERELEASE only
        // returns them to their initial state.
        unsafe { asm!("tilerelease", options(nostack, nomem)) };
    }
}

/// A 32 × 32 block of sums (`f32` bits for bf16, `i32` for int8), 64-byte aligned.
#[repr(C, align(64))]
struct Block<T>([[T; NR]; MR]);

/// The sums of a 32-row × 32-query block into `out` (row-major, 128 bytes per row): the tile
/// products over the whole multiples of 16 words, then the rest with AVX-512.
///
/// # Safety
/// A live [`Tiles`] on this thread; `q` valid for `NR · steps` words, `x` for `MR · steps`
/// words, `out` for `MR · NR` words (64-byte aligned for speed, not for correctness).
#[target_feature(enable = "avx512f,avx512bw,avx512bf16,avx512vnni")]
#[inline]
unsafe fn block<const INT8: bool>(q: *const u32, x: *const u32, steps: usize, out: *mut u32) {
    let (sa, sb, sc) = (steps * 4, NR * 4, NR * 4);
    // SAFETY (every asm block below): the tiles are configured as 16 rows × 64 bytes (the
    // caller's `Tiles`). A tile load reads 16 rows of 64 bytes at `base + r · stride`: for A,
    // rows `i .. i + 16` (i = 0, 16) words `16k .. 16k + 16` with `16k + 16 ≤ steps`, inside
    // x[..MR · steps]; for B, words `16k .. 16k + 16` (rows of the panel) and queries
    // `0 .. 16` or `16 .. 32`, inside q[..NR · steps]. The stores write out[..MR · NR].
    unsafe {
        asm!(
            "tilezero tmm4",
            "tilezero tmm5",
            "tilezero tmm6",
            "tilezero tmm7",
            options(nostack, nomem)
        );
        for k in 0..steps / KW {
            let a0 = x.add(k * KW);
            let a1 = a0.add(16 * steps);
            let b0 = q.add(k * KW * NR);
            let b1 = b0.add(16);
            if INT8 {
                asm!(
                    "tileloadd tmm0, [{a0} + {sa}*1]",
                    "tileloadd tmm1, [{a1} + {sa}*1]",
                    "tileloadd tmm2, [{b0} + {sb}*1]",
                    "tileloadd tmm3, [{b1} + {sb}*1]",
                    "tdpbsud tmm4, tmm0, tmm2",
                    "tdpbsud tmm5, tmm0, tmm3",
                    "tdpbsud tmm6, tmm1, tmm2",
                    "tdpbsud tmm7, tmm1, tmm3",
                    a0 = in(reg) a0, a1 = in(reg) a1, b0 = in(reg) b0, b1 = in(reg) b1,
                    sa = in(reg) sa, sb = in(reg) sb,
                    options(nostack, readonly)
                );
            } else {
                asm!(
                    "tileloadd tmm0, [{a0} + {sa}*1]",
                    "tileloadd tmm1, [{a1} + {sa}*1]",
                    "tileloadd tmm2, [{b0} + {sb}*1]",
                    "tileloadd tmm3, [{b1} + {sb}*1]",
                    "tdpbf16ps tmm4, tmm0, tmm2",
                    "tdpbf16ps tmm5, tmm0, tmm3",
                    "tdpbf16ps tmm6, tmm1, tmm2",
                    "tdpbf16ps tmm7, tmm1, tmm3",
                    a0 = in(reg) a0, a1 = in(reg) a1, b0 = in(reg) b0, b1 = in(reg) b1,
                    sa = in(reg) sa, sb = in(reg) sb,
                    options(nostack, readonly)
                );
            }
        }
        asm!(
            "tilestored [{c0} + {sc}*1], tmm4",
            "tilestored [{c1} + {sc}*1], tmm5",
            "tilestored [{c2} + {sc}*1], tmm6",
            "tilestored [{c3} + {sc}*1], tmm7",
            c0 = in(reg) out,
            c1 = in(reg) out.add(16),
            c2 = in(reg) out.add(16 * NR),
            c3 = in(reg) out.add(16 * NR + 16),
            sc = in(reg) sc,
            options(nostack)
        );
        let t0 = steps / KW * KW;
        if t0 < steps {
            tail::<INT8>(q, x, steps, t0, out);
        }
    }
}

/// Add words `t0..steps` of every row and query to the stored sums, with `VDPBF16PS` /
/// `VPDPBUSD` (`i32` sums, queries unsigned and rows signed, as `TDPBSUD`).
///
/// # Safety
/// As [`block`].
#[target_feature(enable = "avx512f,avx512bw,avx512bf16,avx512vnni")]
#[inline]
unsafe fn tail<const INT8: bool>(
    q: *const u32,
    x: *const u32,
    steps: usize,
    t0: usize,
    out: *mut u32,
) {
    for i in 0..MR {
        // SAFETY: row i < MR of `out` (NR words) and of `x` (steps words); words t < steps of
        // the panel (NR each): all inside the ranges of the caller's contract.
        unsafe {
            let o = out.add(i * NR);
            let mut c0 = _mm512_loadu_si512(o.cast());
            let mut c1 = _mm512_loadu_si512(o.add(16).cast());
            for t in t0..steps {
                let b = _mm512_set1_epi32(*x.add(i * steps + t) as i32);
                let qp = q.add(t * NR);
                let (q0, q1) = (
                    _mm512_loadu_si512(qp.cast()),
                    _mm512_loadu_si512(qp.add(16).cast()),
                );
                if INT8 {
                    c0 = _mm512_dpbusd_epi32(c0, q0, b);
                    c1 = _mm512_dpbusd_epi32(c1, q1, b);
                } else {
                    c0 = dp_bf16(c0, q0, b);
                    c1 = dp_bf16(c1, q1, b);
                }
            }
            _mm512_storeu_si512(o.cast(), c0);
            _mm512_storeu_si512(o.add(16).cast(), c1);
        }
    }
}

/// `VDPBF16PS` on `f32` sums held as integer vectors.
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
#[inline]
fn dp_bf16(acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: all three are 512-bit plain-data vectors; every bit pattern is valid for each
    // of the reinterpretations.
    unsafe {
        let (acc, a, b) = (
            std::mem::transmute::<__m512i, __m512>(acc),
            std::mem::transmute::<__m512i, __m512bh>(a),
            std::mem::transmute::<__m512i, __m512bh>(b),
        );
        std::mem::transmute::<__m512, __m512i>(_mm512_dpbf16_ps(acc, a, b))
    }
}

/// Rows `r0..r1` of `db` against all panels (32 queries wide), approximate scores offered to
/// `top` and `back`, as the other kernels' scans (`quant_scan_fn!` in `scan.rs`) do.
///
/// # Safety
/// [`available`] must have returned true.
#[target_feature(enable = "avx512f,avx512bw,avx512bf16,avx512vnni")]
unsafe fn scan_inner<const INT8: bool>(
    panels: &QuantPanels,
    db: &QuantDb,
    r0: usize,
    r1: usize,
    top: &mut TopK,
    mut back: Option<&mut Back<'_>>,
) {
    assert_eq!(panels.width, NR, "AMX panels are 32 queries wide");
    let st = db.steps;
    // SAFETY: AMX is usable (the caller's contract).
    let _tiles = unsafe { Tiles::configure() };
    let mut sums: Box<Block<u32>> = Box::new(Block([[0; NR]; MR]));
    let mut pad = Vec::new();
    let mut i0 = r0;
    while i0 < r1 {
        let r = (r1 - i0).min(MR);
        let x = row_block(db, i0, r, MR, &mut pad);
        for (pi, q) in panels.data.chunks_exact(NR * st).enumerate() {
            let at = TileAt {
                panels,
                db,
                i0,
                rows: r,
                q0: pi * NR,
            };
            // SAFETY: `_tiles` is live; q has NR · st words (a whole panel), x MR · st, and
            // `sums` MR · NR.
            unsafe { block::<INT8>(q.as_ptr(), x.as_ptr(), st, sums.0.as_mut_ptr().cast()) };
            let scores: [[f32; NR]; MR] = if INT8 {
                let acc = sums.0.map(|row| row.map(|s| s as i32));
                int8_keys::<MR, NR, true>(acc, &at)
            } else {
                sums.0.map(|row| row.map(f32::from_bits))
            };
            // Rows that reach no threshold offer nothing: skip them with one comparison.
            let real = back
                .as_ref()
                .map(|b| b.queries.saturating_sub(at.q0).min(NR));
            for (i, row) in scores.iter().enumerate().take(r) {
                let thr = top.thresholds(at.q0, NR);
                let back_thr = match (&back, real) {
                    (Some(b), Some(real)) => Some((b.top.thresholds(i0 + i, 1)[0], real)),
                    _ => None,
                };
                if reaches(row, thr, back_thr) {
                    offer_row::<NR>(row, at.q0, None, 0.0, i0 + i, top, back.as_deref_mut());
                }
            }
        }
        i0 += MR;
    }
}

/// Whether [`offer_row`] would offer any score of `row`: one reaching its query's threshold
/// (`thr`, 32 of them), or, in a both-ways scan, one of the first `real` reaching the row's
/// threshold (`back`). The same comparisons (`key >= threshold`, false for NaN).
#[target_feature(enable = "avx512f")]
#[inline]
fn reaches(row: &[f32; NR], thr: &[f32], back: Option<(f32, usize)>) -> bool {
    assert!(thr.len() >= NR);
    // SAFETY: `row` has 32 values and `thr` at least 32 (asserted): two 16-lane loads each.
    let (lo, hi, tlo, thi) = unsafe {
        (
            _mm512_loadu_ps(row.as_ptr()),
            _mm512_loadu_ps(row.as_ptr().add(16)),
            _mm512_loadu_ps(thr.as_ptr()),
            _mm512_loadu_ps(thr.as_ptr().add(16)),
        )
    };
    let ge = |a, b| _mm512_cmp_ps_mask::<_CMP_GE_OQ>(a, b);
    if ge(lo, tlo) | ge(hi, thi) != 0 {
        return true;
    }
    back.is_some_and(|(t, real)| {
        let t = _mm512_set1_ps(t);
        let mask = u32::from(ge(lo, t)) | (u32::from(ge(hi, t)) << 16);
        let real = if real >= 32 {
            u32::MAX
        } else {
            (1u32 << real) - 1
        };
        mask & real != 0
    })
}

/// The AMX-BF16 scan (`TDPBF16PS`) of bf16 rows.
///
/// # Panics
/// When AMX is not usable here ([`available`]) or `db` is not bf16.
pub(crate) fn scan_bf16(
    panels: &QuantPanels,
    db: &QuantDb,
    r0: usize,
    r1: usize,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    assert!(available() && db.precision == Precision::Bf16);
    // SAFETY: AMX and the AVX-512 features are usable (asserted).
    unsafe { scan_inner::<false>(panels, db, r0, r1, top, back) }
}

/// The AMX-INT8 scan (`TDPBSUD`) of int8 rows, queries stored as `code + 128`.
///
/// # Panics
/// When AMX is not usable here ([`available`]) or `db` is not int8.
pub(crate) fn scan_int8(
    panels: &QuantPanels,
    db: &QuantDb,
    r0: usize,
    r1: usize,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    assert!(available() && db.precision == Precision::Int8);
    // SAFETY: AMX and the AVX-512 features are usable (asserted).
    unsafe { scan_inner::<true>(panels, db, r0, r1, top, back) }
}

#[cfg(test)]
#[path = "amx_bench.rs"]
mod bench;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::quant::scan::QuantKernel;
    use crate::exact::quant::scan::testing::{all_scores, cases};
    use bitext_core::{Embeddings, Rng};

    /// The shared edge cases and one of several whole blocks, whole 16-word tiles and a tail.
    fn amx_cases() -> Vec<(Embeddings, Embeddings)> {
        let mut r = Rng::seed(11);
        let mut m = |rows: usize, d: usize| {
            let v = (0..rows * d).map(|_| r.normal() as f32).collect();
            Embeddings::new(v, d).unwrap()
        };
        let mut c = cases();
        c.push((m(97, 1030), m(70, 1030)));
        c.push((m(64, 128), m(64, 128)));
        c
    }

    #[test]
    fn amx_int8_scores_are_the_portable_kernels_bit_for_bit() {
        if !available() {
            eprintln!("AMX is not usable here: test skipped");
            return;
        }
        for (db, q) in amx_cases() {
            let slow = all_scores(QuantKernel::Portable, Precision::Int8, &db, &q);
            let fast = all_scores(QuantKernel::Amx, Precision::Int8, &db, &q);
            assert_eq!(fast, slow, "{}x{}x{}", db.len(), q.len(), q.dim());
        }
    }

    #[test]
    fn amx_bf16_scores_match_the_portable_kernel() {
        if !available() {
            eprintln!("AMX is not usable here: test skipped");
            return;
        }
        for (db, q) in amx_cases() {
            // TDPBF16PS adds in its own order: both within f32 rounding of the bf16
            // products' sum (the certificate's bound covers any order; module docs).
            let slow = all_scores(QuantKernel::Portable, Precision::Bf16, &db, &q);
            let fast = all_scores(QuantKernel::Amx, Precision::Bf16, &db, &q);
            assert_eq!(fast.len(), slow.len());
            for (a, b) in fast.iter().zip(&slow) {
                let (a, b) = (f32::from_bits(*a), f32::from_bits(*b));
                assert!((a - b).abs() <= 1e-4 * (1.0 + a.abs()), "{a} vs {b}");
            }
            // Within the certificate's rounding term of the exact sum of the bf16 products.
            let d = q.dim();
            let u = f64::from(f32::EPSILON) / 2.0;
            let gamma = (2 * d + 8) as f64 * u / (1.0 - (2 * d + 8) as f64 * u);
            let rounded = |r: &[f32]| -> Vec<f64> {
                r.iter()
                    .map(|&v| {
                        f64::from(crate::exact::quant::from_bf16(
                            crate::exact::quant::to_bf16(v),
                        ))
                    })
                    .collect()
            };
            let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
            for (j, score) in fast.chunks(db.len()).enumerate() {
                let y = rounded(q.row(j));
                for (i, &s) in score.iter().enumerate() {
                    let x = rounded(db.row(i));
                    let exact: f64 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
                    let bound = gamma * norm(&x) * norm(&y) + (4 * d + 16) as f64 * 2f64.powi(-120);
                    let got = f64::from(f32::from_bits(s));
                    assert!(
                        (got - exact).abs() <= bound,
                        "{got} vs {exact} (bound {bound})"
                    );
                }
            }
        }
    }
}
