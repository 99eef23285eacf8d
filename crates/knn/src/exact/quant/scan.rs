//! The reduced-precision scan: query panels of packed words, the micro-kernels (portable here,
//! AVX-512 and the rest in `x86.rs`, AMX tiles in `amx.rs`) and the loop that feeds every tile
//! of approximate scores into the exact search's top-k lists (and, in both-ways scans, the
//! rows' lists of queries).

use super::{Precision, QuantDb, pack_row, steps};
use crate::exact::kernel::{Back, Kernel, offer_row};
use crate::exact::topk::TopK;

/// Which micro-kernel scans the quantised copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuantKernel {
    /// Plain Rust, 4 rows × 16 queries.
    Portable,
    /// AVX2 (int8 only): `VPMADDUBSW` on sign-folded codes, 6 rows × 16 queries.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-VNNI (`VPDPBUSD` on 256-bit registers; int8 only), 6 rows × 16 queries.
    #[cfg(target_arch = "x86_64")]
    AvxVnni,
    /// AVX-512 BF16 / VNNI, 6 rows × 32 queries.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AMX tiles (`TDPBF16PS` / `TDPBSUD`), 32 rows × 32 queries.
    #[cfg(target_arch = "x86_64")]
    Amx,
    /// aarch64 `SDOT` (int8 only), 6 rows × 16 queries.
    #[cfg(target_arch = "aarch64")]
    Sdot,
}

impl QuantKernel {
    /// The quantised kernel for the search's `kernel` choice (already resolved): the widest
    /// one the choice allows that has `precision`'s instructions on this CPU, the portable one
    /// otherwise. `Kernel::Amx` allows the AMX kernels and all the others below,
    /// `Kernel::Avx512` the three x86 SIMD kernels, `Kernel::AvxVnni` the AVX-VNNI and AVX2
    /// ones, `Kernel::Avx2` the AVX2 one only (so each can be forced in tests); `Kernel::Neon`
    /// allows `SDOT`.
    pub(crate) fn for_kernel(kernel: Kernel, precision: Precision) -> QuantKernel {
        #[cfg(target_arch = "aarch64")]
        if kernel == Kernel::Neon && precision == Precision::Int8 && neon::sdot_available() {
            return QuantKernel::Sdot;
        }
        #[cfg(target_arch = "x86_64")]
        {
            let reduced = matches!(precision, Precision::Bf16 | Precision::Int8);
            if kernel == Kernel::Amx && reduced && x86::amx::available() {
                return QuantKernel::Amx;
            }
            let avx512 = matches!(kernel, Kernel::Amx | Kernel::Avx512);
            if avx512 && x86::available(precision) {
                return QuantKernel::Avx512;
            }
            let vnni = matches!(kernel, Kernel::Amx | Kernel::Avx512 | Kernel::AvxVnni);
            if vnni && precision == Precision::Int8 && x86::avxvnni_available() {
                return QuantKernel::AvxVnni;
            }
            let avx2 = matches!(
                kernel,
                Kernel::Amx | Kernel::Avx512 | Kernel::AvxVnni | Kernel::Avx2
            );
            if avx2 && x86::avx2_available(precision) {
                return QuantKernel::Avx2;
            }
        }
        let _ = (kernel, precision);
        QuantKernel::Portable
    }

    /// The kernel that makes `precision` faster than the `f32` search on this CPU, if any
    /// (`docs/BENCHMARKS.md` "Reduced precision on every CPU" has the measurements behind
    /// this choice): AMX where the OS grants it (on an Emerald Rapids Xeon, bf16 searches
    /// 2.5–3.9× and int8 1.1–2.8× as fast as the `f32` AVX-512 one, where `VDPBF16PS`, which
    /// does half the multiply-adds per cycle of the `f32` FMA, ran at 0.56–1.0×); AVX-512
    /// BF16 for bf16; AVX-512 VNNI, AVX-VNNI or `SDOT` for int8 (four products per lane and
    /// instruction, where `f32` does one; AVX-VNNI and `SDOT` are not
    /// measured: no such CPU was at hand). The AVX2 int8 kernel and the portable ones give the
    /// same results but were measured slower than the `f32` search (AVX2 int8: 0.67–0.81× on a
    /// Zen 1 EPYC), so they run only when forced.
    pub(crate) fn fast(precision: Precision) -> Option<QuantKernel> {
        #[cfg(target_arch = "aarch64")]
        if precision == Precision::Int8 && neon::sdot_available() {
            return Some(QuantKernel::Sdot);
        }
        #[cfg(target_arch = "x86_64")]
        {
            let reduced = matches!(precision, Precision::Bf16 | Precision::Int8);
            if reduced && x86::amx::available() {
                return Some(QuantKernel::Amx);
            }
            if precision != Precision::F32 && x86::available(precision) {
                return Some(QuantKernel::Avx512);
            }
            if precision == Precision::Int8 && x86::avxvnni_available() {
                return Some(QuantKernel::AvxVnni);
            }
        }
        let _ = precision;
        None
    }

    /// Whether the AMX kernels run here (CPU and OS; see `amx.rs`). x86-64 only: elsewhere
    /// `Kernel::Amx` is never available and nothing asks.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn amx_available() -> bool {
        x86::amx::available()
    }

    /// Queries per panel.
    pub(crate) fn panel_width(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            QuantKernel::Avx512 | QuantKernel::Amx => 32,
            _ => 16,
        }
    }

    /// What int8 query codes are stored as: `code + 128` (unsigned bytes, for `VPDPBUSD`,
    /// `TDPBSUD` and the portable kernel that computes what they do) or the signed code (the
    /// AVX2 kernel).
    pub(crate) fn int8_bias(self) -> i32 {
        match self {
            #[cfg(target_arch = "x86_64")]
            QuantKernel::Avx2 => 0,
            #[cfg(target_arch = "aarch64")]
            QuantKernel::Sdot => 0,
            _ => 128,
        }
    }

    /// The kernel's name, as run summaries print it.
    pub(crate) fn name(self, precision: Precision) -> &'static str {
        match (self, precision) {
            (QuantKernel::Portable, _) => "portable",
            #[cfg(target_arch = "x86_64")]
            (QuantKernel::Avx2, _) => "AVX2 (VPMADDUBSW)",
            #[cfg(target_arch = "x86_64")]
            (QuantKernel::AvxVnni, _) => "AVX-VNNI (VPDPBUSD)",
            #[cfg(target_arch = "x86_64")]
            (QuantKernel::Avx512, Precision::Int8) => "AVX-512 VNNI (VPDPBUSD)",
            #[cfg(target_arch = "x86_64")]
            (QuantKernel::Avx512, _) => "AVX-512 BF16 (VDPBF16PS)",
            #[cfg(target_arch = "x86_64")]
            (QuantKernel::Amx, Precision::Int8) => "AMX-INT8 (TDPBSUD)",
            #[cfg(target_arch = "x86_64")]
            (QuantKernel::Amx, _) => "AMX-BF16 (TDPBF16PS)",
            #[cfg(target_arch = "aarch64")]
            (QuantKernel::Sdot, _) => "NEON SDOT",
        }
    }
}

#[cfg(target_arch = "aarch64")]
use super::neon;
#[cfg(target_arch = "x86_64")]
use super::x86;

/// The `mr` stored rows of `db` from row `i0`, `r` of them real: the rows themselves when
/// `r == mr`, else copied into `pad` and padded with zero words (a partial block of the
/// scan's last rows).
pub(crate) fn row_block<'a>(
    db: &'a QuantDb,
    i0: usize,
    r: usize,
    mr: usize,
    pad: &'a mut Vec<u32>,
) -> &'a [u32] {
    let st = db.steps;
    if r == mr {
        return &db.words[i0 * st..(i0 + mr) * st];
    }
    pad.clear();
    pad.extend_from_slice(&db.words[i0 * st..(i0 + r) * st]);
    pad.resize(mr * st, 0);
    pad
}

/// A block of quantised queries in panels of `width`: word `t` of the panel's query `j` at
/// `data[(panel · steps + t) · width + j]`; int8 codes biased by +128 (unsigned bytes) or
/// signed, as the kernel reads them ([`QuantKernel::int8_bias`]).
#[derive(Debug)]
pub(crate) struct QuantPanels {
    pub(crate) data: Vec<u32>,
    pub(crate) width: usize,
    pub(crate) queries: usize,
    pub(crate) steps: usize,
    /// int8: each query's scale (0 for the padding); empty for bf16.
    pub(crate) scales: Vec<f32>,
}

impl QuantPanels {
    /// Quantise and pack `rows` (row-major, `dim` values each) for `kernel`.
    pub(crate) fn pack(
        precision: Precision,
        rows: &[f32],
        dim: usize,
        kernel: QuantKernel,
    ) -> Self {
        let width = kernel.panel_width();
        let queries = rows.len() / dim;
        let st = steps(precision, dim);
        let padded = queries.div_ceil(width) * width;
        let int8 = precision == Precision::Int8;
        let bias = if int8 { kernel.int8_bias() } else { 0 };
        // Padding queries are all-zero codes (biased when the codes are) with scale 0.
        let fill = if bias == 0 { 0 } else { 0x8080_8080 };
        let mut data = vec![fill; padded * st];
        let mut scales = vec![0.0; if int8 { padded } else { 0 }];
        let mut words = vec![0u32; st];
        for (q, row) in rows.chunks_exact(dim).enumerate() {
            let (scale, _) = pack_row(precision, row, bias, &mut words);
            if int8 {
                scales[q] = scale;
            }
            let base = (q / width) * width * st + q % width;
            for (t, &w) in words.iter().enumerate() {
                data[base + t * width] = w;
            }
        }
        Self {
            data,
            width,
            queries,
            steps: st,
            scales,
        }
    }

    /// Number of queries counting the padding.
    pub(crate) fn padded(&self) -> usize {
        self.data.len() / self.steps.max(1)
    }
}

/// A 4 × 16 bf16 tile in plain Rust (widened values, sequential fused multiply-adds).
#[inline(always)]
fn tile_bf16_portable(q: &[u32], x: &[u32], steps: usize) -> [[f32; 16]; 4] {
    let mut acc = [[0.0f32; 16]; 4];
    let lo = |w: u32| f32::from_bits(w << 16);
    let hi = |w: u32| f32::from_bits(w & 0xFFFF_0000);
    for (t, qv) in q.chunks_exact(16).take(steps).enumerate() {
        for (i, a) in acc.iter_mut().enumerate() {
            let xw = x[i * steps + t];
            let (x0, x1) = (lo(xw), hi(xw));
            for (s, &qw) in a.iter_mut().zip(qv) {
                *s = lo(qw).mul_add(x0, *s);
                *s = hi(qw).mul_add(x1, *s);
            }
        }
    }
    acc
}

/// A 4 × 16 int8 tile in plain Rust: `Σ (q + 128) · x` per pair, as `VPDPBUSD` computes it.
#[inline(always)]
fn tile_int8_portable(q: &[u32], x: &[u32], steps: usize) -> [[i32; 16]; 4] {
    let mut acc = [[0i32; 16]; 4];
    for (t, qv) in q.chunks_exact(16).take(steps).enumerate() {
        for (i, a) in acc.iter_mut().enumerate() {
            let xb = x[i * steps + t].to_le_bytes().map(|b| i32::from(b as i8));
            for (s, &qw) in a.iter_mut().zip(qv) {
                let qb = qw.to_le_bytes();
                *s += i32::from(qb[0]) * xb[0]
                    + i32::from(qb[1]) * xb[1]
                    + i32::from(qb[2]) * xb[2]
                    + i32::from(qb[3]) * xb[3];
            }
        }
    }
    acc
}

/// Where a tile sits: what turns int8 sums into approximate scores.
pub(crate) struct TileAt<'a> {
    pub(crate) panels: &'a QuantPanels,
    pub(crate) db: &'a QuantDb,
    /// First database row of the tile.
    pub(crate) i0: usize,
    /// Real rows in the tile (the rest is padding).
    pub(crate) rows: usize,
    /// First query of the tile's panel.
    pub(crate) q0: usize,
}

/// Approximate scores of an int8 tile: `((Σ (q + 128) x − 128 Σ x) · scale_q) · scale_x` from
/// the sums of biased query codes (`BIASED`), `((Σ q x) · scale_q) · scale_x` from those of
/// signed ones. The integer is the same either way (exact in `i32`), so are the scores.
#[inline(always)]
pub(crate) fn int8_keys<const MR: usize, const NR: usize, const BIASED: bool>(
    acc: [[i32; NR]; MR],
    at: &TileAt<'_>,
) -> [[f32; NR]; MR] {
    let qs: &[f32; NR] = at.panels.scales[at.q0..at.q0 + NR]
        .try_into()
        .expect("padded scales");
    std::array::from_fn(|i| {
        let (off, xs) = if i < at.rows {
            (at.db.offsets[at.i0 + i], at.db.scales[at.i0 + i])
        } else {
            (0, 0.0)
        };
        let off = if BIASED { off } else { 0 };
        std::array::from_fn(|j| (acc[i][j].wrapping_sub(off) as f32 * qs[j]) * xs)
    })
}

/// Portable bf16 tiles as scores.
#[inline(always)]
fn bf16_portable(q: &[u32], x: &[u32], steps: usize, _: &TileAt<'_>) -> [[f32; 16]; 4] {
    tile_bf16_portable(q, x, steps)
}

/// Portable int8 tiles as scores.
#[inline(always)]
fn int8_portable(q: &[u32], x: &[u32], steps: usize, at: &TileAt<'_>) -> [[f32; 16]; 4] {
    int8_keys::<4, 16, true>(tile_int8_portable(q, x, steps), at)
}

/// Expands to a scan: rows `r0..r1` of `db` against all panels, approximate scores offered to
/// `top` and `back`. `$tile(q, x, steps, at)` computes an `MR × NR` tile of scores. With
/// `checked $safe if $cond` after them, also a safe `$safe` that asserts `$cond` (that the CPU
/// has the target features in `$attr`) and calls the scan.
macro_rules! quant_scan_fn {
    (
        $(#[$attr:meta])* $name:ident, $tile:path, $mr:literal, $nr:literal,
        $(#[$doc:meta])* checked $safe:ident if $cond:expr
    ) => {
        quant_scan_fn!($(#[$attr])* $name, $tile, $mr, $nr);

        $(#[$doc])*
        pub(crate) fn $safe(
            panels: &QuantPanels,
            db: &QuantDb,
            r0: usize,
            r1: usize,
            top: &mut TopK,
            back: Option<&mut Back<'_>>,
        ) {
            assert!($cond);
            // SAFETY: the CPU has the scan's target features (`$cond`, asserted above).
            unsafe { $name(panels, db, r0, r1, top, back) }
        }
    };
    ($(#[$attr:meta])* $name:ident, $tile:path, $mr:literal, $nr:literal) => {
        $(#[$attr])*
        pub(crate) fn $name(
            panels: &QuantPanels,
            db: &QuantDb,
            r0: usize,
            r1: usize,
            top: &mut TopK,
            mut back: Option<&mut Back<'_>>,
        ) {
            const MR: usize = $mr;
            const NR: usize = $nr;
            let st = db.steps;
            let mut pad = Vec::new();
            let mut i0 = r0;
            while i0 < r1 {
                let r = (r1 - i0).min(MR);
                let x = $crate::exact::quant::scan::row_block(db, i0, r, MR, &mut pad);
                for (pi, q) in panels.data.chunks_exact(NR * st).enumerate() {
                    let at = TileAt { panels, db, i0, rows: r, q0: pi * NR };
                    let tile: [[f32; NR]; MR] = $tile(q, x, st, &at);
                    for (i, row) in tile.iter().enumerate().take(r) {
                        offer_row::<NR>(row, at.q0, None, 0.0, i0 + i, top, back.as_deref_mut());
                    }
                }
                i0 += MR;
            }
        }
    };
}
pub(crate) use quant_scan_fn;

quant_scan_fn!(scan_bf16_portable, bf16_portable, 4, 16);
quant_scan_fn!(scan_int8_portable, int8_portable, 4, 16);

/// Scan rows `r0..r1` of `db` against `panels` (packed for `kernel`'s width).
///
/// # Panics
/// When `kernel` has no scan of `db`'s precision (the AVX-VNNI, AVX2 and `SDOT` kernels scan
/// int8 only), or the CPU lacks its instructions (callers choose kernels with
/// [`QuantKernel::for_kernel`]).
pub(crate) fn scan(
    kernel: QuantKernel,
    panels: &QuantPanels,
    db: &QuantDb,
    r0: usize,
    r1: usize,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    debug_assert_eq!(kernel.panel_width(), panels.width);
    let int8 = db.precision == Precision::Int8;
    match kernel {
        QuantKernel::Portable if int8 => scan_int8_portable(panels, db, r0, r1, top, back),
        QuantKernel::Portable => scan_bf16_portable(panels, db, r0, r1, top, back),
        #[cfg(target_arch = "x86_64")]
        QuantKernel::Avx512 if int8 => x86::scan_int8_avx512(panels, db, r0, r1, top, back),
        #[cfg(target_arch = "x86_64")]
        QuantKernel::Avx512 => x86::scan_bf16_avx512(panels, db, r0, r1, top, back),
        #[cfg(target_arch = "x86_64")]
        QuantKernel::Amx if int8 => x86::amx::scan_int8(panels, db, r0, r1, top, back),
        #[cfg(target_arch = "x86_64")]
        QuantKernel::Amx => x86::amx::scan_bf16(panels, db, r0, r1, top, back),
        #[cfg(target_arch = "x86_64")]
        QuantKernel::AvxVnni if int8 => x86::scan_int8_avxvnni(panels, db, r0, r1, top, back),
        #[cfg(target_arch = "x86_64")]
        QuantKernel::Avx2 if int8 => x86::scan_int8_avx2(panels, db, r0, r1, top, back),
        #[cfg(target_arch = "aarch64")]
        QuantKernel::Sdot if int8 => neon::scan_int8_sdot(panels, db, r0, r1, top, back),
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        _ => panic!("the {kernel:?} kernel has no {:?} scan", db.precision),
    }
}

/// What the tests of the SIMD kernels share.
#[cfg(test)]
pub(super) mod testing {
    use super::{QuantKernel, QuantPanels, scan};
    use crate::exact::quant::{Precision, QuantDb};
    use crate::exact::topk::TopK;
    use bitext_core::{Embeddings, Rng};

    /// Every approximate score of a scan of `db` by `queries` with `kernel`, per query, by id.
    pub(crate) fn all_scores(
        kernel: QuantKernel,
        p: Precision,
        db: &Embeddings,
        q: &Embeddings,
    ) -> Vec<u32> {
        let qdb = QuantDb::build(p, db.view().into()).unwrap();
        let panels = QuantPanels::pack(p, q.as_slice(), q.dim(), kernel);
        let n = db.len();
        let mut top = TopK::new(n, panels.queries, panels.padded());
        scan(kernel, &panels, &qdb, 0, n, &mut top, None);
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
    pub(crate) fn cases() -> Vec<(Embeddings, Embeddings)> {
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
}
