//! Micro-benchmark of the x86 scan kernels on data in the L1/L2 cache (ignored test; run it
//! with `cargo test --release -p bitext-knn --lib amx_micro -- --ignored --nocapture`):
//!
//! 1. the peak rate of each dot-product instruction (`VFMADD231PS`, `VDPBF16PS`, `VPDPBUSD` on
//!    zmm, twelve independent accumulators, no loads), in instructions and multiply-adds per
//!    cycle;
//! 2. the tiles as the scans run them (`f32` 6 × 32 FMA, AVX-512 6 × 32 bf16 / int8, AMX
//!    32 × 32), in multiply-adds per cycle;
//! 3. whole scans of an in-cache block (tiles, conversion to scores, offers to warm top-k
//!    lists), in multiply-adds per cycle.
//!
//! Cycles are core cycles measured by a chain of dependent additions (one per cycle), so the
//! rates hold at whatever clock the (virtual) CPU runs.

use std::arch::asm;
use std::arch::x86_64::*;
use std::hint::black_box;
use std::time::Instant;

use super::{Block, MR, NR, Tiles, available, block};
use crate::exact::kernel::simd_tile;
use crate::exact::quant::scan::{QuantKernel, QuantPanels, scan};
use crate::exact::quant::x86::{tile_bf16, tile_int8};
use crate::exact::quant::{Precision, QuantDb};
use crate::exact::topk::TopK;
use bitext_core::{Embeddings, Rng};

/// Seconds per core cycle: 2²⁶ dependent multiplications (`IMUL` r64: 3 cycles of latency on
/// every Intel core since Sandy Bridge; unlike dependent additions of small immediates, which
/// Golden Cove and its successors may fold at rename).
fn cycle_seconds() -> f64 {
    let n: u64 = 1 << 26;
    let t = Instant::now();
    let mut x: u64 = 3;
    // SAFETY: register arithmetic only.
    unsafe {
        asm!(
            "2:",
            "imul {x}, {x}",
            "imul {x}, {x}",
            "imul {x}, {x}",
            "imul {x}, {x}",
            "sub {n}, 4",
            "jnz 2b",
            x = inout(reg) x,
            n = inout(reg) n => _,
            options(nostack, nomem)
        );
    }
    black_box(x);
    t.elapsed().as_secs_f64() / (3 * n) as f64
}

/// `reps` × 4 tile products on four independent accumulators, tiles loaded once (bf16 or
/// int8): the AMX unit's peak.
///
/// # Safety
/// AMX must be usable.
unsafe fn amx_peak(int8: bool, reps: usize, words: &[u32]) {
    assert!(words.len() >= 256);
    // SAFETY: AMX is usable (the caller's contract); the loads read 16 rows of 64 bytes of
    // `words` (1 KiB, asserted).
    unsafe {
        let _tiles = Tiles::configure();
        asm!(
            "tileloadd tmm0, [{p} + {s}*1]",
            "tileloadd tmm1, [{p} + {s}*1]",
            "tileloadd tmm2, [{p} + {s}*1]",
            "tileloadd tmm3, [{p} + {s}*1]",
            p = in(reg) words.as_ptr(), s = in(reg) 64usize,
            options(nostack, readonly)
        );
        for _ in 0..reps {
            if int8 {
                asm!(
                    "tdpbsud tmm4, tmm0, tmm2",
                    "tdpbsud tmm5, tmm0, tmm3",
                    "tdpbsud tmm6, tmm1, tmm2",
                    "tdpbsud tmm7, tmm1, tmm3",
                    options(nostack, nomem)
                );
            } else {
                asm!(
                    "tdpbf16ps tmm4, tmm0, tmm2",
                    "tdpbf16ps tmm5, tmm0, tmm3",
                    "tdpbf16ps tmm6, tmm1, tmm2",
                    "tdpbf16ps tmm7, tmm1, tmm3",
                    options(nostack, nomem)
                );
            }
        }
    }
}

/// Best of five runs of `f` (seconds each).
fn best(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// `reps` × `N` independent dot-product instructions on zmm registers (0: `VFMADD231PS`,
/// 1: `VDPBF16PS`, 2: `VPDPBUSD`).
#[target_feature(enable = "avx512f,avx512bw,avx512bf16,avx512vnni")]
fn peak<const N: usize>(which: u8, reps: usize) -> f32 {
    let a = black_box(_mm512_set1_ps(1e-3));
    let b = black_box(_mm512_set1_ps(1e-3));
    let mut acc = [_mm512_setzero_ps(); N];
    for _ in 0..reps {
        for s in &mut acc {
            *s = match which {
                0 => _mm512_fmadd_ps(a, b, *s),
                1 => _mm512_dpbf16_ps(*s, cast(a), cast(b)),
                _ => _mm512_castsi512_ps(_mm512_dpbusd_epi32(
                    _mm512_castps_si512(*s),
                    _mm512_castps_si512(a),
                    _mm512_castps_si512(b),
                )),
            };
        }
    }
    acc.iter().map(|v| _mm512_reduce_add_ps(*v)).sum::<f32>()
}

#[target_feature(enable = "avx512f,avx512bf16")]
fn cast(v: __m512) -> __m512bh {
    // SAFETY: both are 512-bit plain-data vectors.
    unsafe { std::mem::transmute::<__m512, __m512bh>(v) }
}

/// The `f32` AVX-512 tile of the exact search (`kernel/x86.rs`'s, the same expansion).
#[target_feature(enable = "avx512f")]
fn tile_f32(q: &[f32], x: &[f32], d: usize) -> [[f32; 32]; 6] {
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

fn report(label: &str, macs: f64, secs: f64, cyc: f64) {
    println!(
        "{label:<44} {:>7.1} MAC/ns {:>7.1} MAC/cycle",
        macs / secs / 1e9,
        macs / (secs / cyc)
    );
}

#[test]
#[ignore = "a benchmark: run in release with --ignored --nocapture"]
fn amx_micro() {
    if !super::super::available(Precision::Bf16) || !super::super::available(Precision::Int8) {
        eprintln!("no AVX-512 BF16/VNNI here: benchmark skipped");
        return;
    }
    let cyc = (0..5)
        .map(|_| cycle_seconds())
        .fold(f64::INFINITY, f64::min);
    println!("core clock ≈ {:.2} GHz (dependent IMUL chain)", 1e-9 / cyc);

    println!("-- peak: N independent zmm accumulators, no memory operands");
    let reps = 1 << 22;
    for (which, label, per) in [
        (0u8, "VFMADD231PS zmm (16 MAC)", 16.0),
        (1, "VDPBF16PS zmm (32 MAC)", 32.0),
        (2, "VPDPBUSD zmm (64 MAC)", 64.0),
    ] {
        // 12 chains hide a latency of 6 cycles at 2 per cycle; 24 chains one of 12.
        for n in [12, 24] {
            let s = best(|| {
                // SAFETY: the CPU has AVX-512F/BW/BF16/VNNI (checked above).
                let r = unsafe {
                    if n == 12 {
                        peak::<12>(which, reps)
                    } else {
                        peak::<24>(which, reps / 2)
                    }
                };
                black_box(r);
            });
            let ins = (reps * 12) as f64;
            println!(
                "{:<44} {:>7.2} instr/cycle {:>7.1} MAC/cycle",
                format!("{label}, N = {n}"),
                ins / (s / cyc),
                ins * per / (s / cyc)
            );
        }
    }

    if available() {
        let words = vec![0x3F80_3F80u32; 256];
        for (int8, label, per) in [
            (false, "TDPBF16PS (16x16x32 = 8192 MAC)", 8192.0),
            (true, "TDPBSUD (16x16x64 = 16384 MAC)", 16384.0),
        ] {
            let reps = 1 << 16;
            let s = best(|| {
                // SAFETY: AMX is usable (checked).
                unsafe { amx_peak(int8, reps, &words) };
            });
            let ins = (reps * 4) as f64;
            println!(
                "{label:<44} {:>7.3} instr/cycle {:>7.1} MAC/cycle",
                ins / (s / cyc),
                ins * per / (s / cyc)
            );
        }
    }

    println!("-- tiles on L1-resident operands (128 words per row)");
    let mut r = Rng::seed(3);
    let mut rand_words =
        |n: usize| -> Vec<u32> { (0..n).map(|_| r.next_u64() as u32 & 0x3F3F_3F3F).collect() };
    let steps = 128;
    let (qw, xw) = (rand_words(32 * steps), rand_words(32 * steps));
    let qf: Vec<f32> = (0..32 * steps * 2).map(|i| (i % 7) as f32 * 0.1).collect();
    let xf: Vec<f32> = (0..6 * steps * 2).map(|i| (i % 5) as f32 * 0.1).collect();
    let calls = 20_000usize;
    let d32 = 2 * steps; // f32 dimension with the bf16 tile's multiply-adds per row
    let s = best(|| {
        (0..calls).for_each(|_| {
            // SAFETY: the CPU has AVX-512F/BW/BF16/VNNI (checked above).
            black_box(unsafe { tile_f32(black_box(&qf), &xf, d32) });
        })
    });
    report(
        "f32 FMA tile 6x32 (d = 256)",
        (calls * 6 * 32 * d32) as f64,
        s,
        cyc,
    );
    let s = best(|| {
        (0..calls).for_each(|_| {
            // SAFETY: the CPU has AVX-512F/BW/BF16/VNNI (checked above).
            black_box(unsafe { tile_bf16(black_box(&qw), &xw, steps) });
        })
    });
    report(
        "bf16 VDPBF16PS tile 6x32 (d = 256)",
        (calls * 6 * 32 * 2 * steps) as f64,
        s,
        cyc,
    );
    let s = best(|| {
        (0..calls).for_each(|_| {
            // SAFETY: the CPU has AVX-512F/BW/BF16/VNNI (checked above).
            black_box(unsafe { tile_int8(black_box(&qw), &xw, steps) });
        })
    });
    report(
        "int8 VPDPBUSD tile 6x32 (d = 512)",
        (calls * 6 * 32 * 4 * steps) as f64,
        s,
        cyc,
    );
    if available() {
        let mut out: Box<Block<u32>> = Box::new(Block([[0; NR]; MR]));
        let calls = calls / 4;
        // 128 words per row: A and B (16 KiB each) in L1; 256: 32 KiB each, not both.
        for steps in [128, 256] {
            let (qw, xw) = (rand_words(32 * steps), rand_words(32 * steps));
            for (int8, name, per) in [
                (false, "bf16 AMX TDPBF16PS", 2),
                (true, "int8 AMX TDPBSUD", 4),
            ] {
                let s = best(|| {
                    // SAFETY: AMX is usable (checked); q and x hold 32 × steps words, out
                    // 32 × 32, and the tiles are configured while `_tiles` lives.
                    unsafe {
                        let _tiles = Tiles::configure();
                        for _ in 0..calls {
                            let o = out.0.as_mut_ptr().cast();
                            if int8 {
                                block::<true>(black_box(qw.as_ptr()), xw.as_ptr(), steps, o);
                            } else {
                                block::<false>(black_box(qw.as_ptr()), xw.as_ptr(), steps, o);
                            }
                            black_box(&out);
                        }
                    }
                });
                let label = format!("{name} block 32x32 (d = {})", per * steps);
                report(&label, (calls * MR * NR * per * steps) as f64, s, cyc);
            }
        }
    } else {
        println!("(AMX not usable here)");
    }

    println!("-- whole scans: 2048 rows x 256 queries, warm top-10 lists, d = 512");
    let d = 512;
    let mut rng = Rng::seed(5);
    let mut m = |rows: usize| {
        let v = (0..rows * d).map(|_| rng.normal() as f32).collect();
        Embeddings::new(v, d).unwrap()
    };
    let (db, q) = (m(2048), m(256));
    {
        use crate::exact::kernel::{Kernel, Panels, scan as scan_f32};
        let panels = Panels::pack(q.as_slice(), d, 32, false);
        let mut top = TopK::new(10, panels.queries, panels.padded());
        let run = |top: &mut TopK| {
            scan_f32(Kernel::Avx512, &panels, db.as_slice(), 0, None, top, None);
        };
        run(&mut top);
        let s = best(|| run(&mut top));
        report("scan AVX-512F f32", (db.len() * q.len() * d) as f64, s, cyc);
    }
    let mut kernels = vec![
        (Precision::Bf16, QuantKernel::Avx512),
        (Precision::Int8, QuantKernel::Avx512),
    ];
    if available() {
        kernels.extend([
            (Precision::Bf16, QuantKernel::Amx),
            (Precision::Int8, QuantKernel::Amx),
        ]);
    }
    for (p, k) in kernels {
        let qdb = QuantDb::build(p, db.view().into()).unwrap();
        let t = Instant::now();
        let panels = QuantPanels::pack(p, q.as_slice(), d, k);
        let pack = t.elapsed().as_secs_f64();
        let mut top = TopK::new(10, panels.queries, panels.padded());
        scan(k, &panels, &qdb, 0, db.len(), &mut top, None);
        let s = best(|| scan(k, &panels, &qdb, 0, db.len(), &mut top, None));
        let label = format!("scan {} {p}", k.name(p));
        report(&label, (db.len() * q.len() * d) as f64, s, cyc);
        println!(
            "{:<44} {:>7.3} ms (packing the 256 queries)",
            "",
            pack * 1e3
        );
    }
}
