//! The compute core of the exact search: query panels, the micro-kernels that compute a tile of
//! dot products, and the scan that feeds every tile straight into the per-query top-k lists (so
//! no score matrix is ever stored).
//!
//! Every kernel computes each score as the same sequence of fused multiply-adds,
//! `s = fma(q[p], x[p], s)` for `p = 0, 1, …, d − 1` starting from `s = +0`, one SIMD lane per
//! (query, row) pair. Scores are therefore bit-identical whichever kernel, block size or
//! thread count is used, and equal to [`dot`].

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::exact::topk::TopK;

/// Which micro-kernel computes the dot products of the exact search. All give bit-identical
/// scores; they differ only in speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Kernel {
    /// The fastest kernel this CPU supports (detected at run time).
    #[default]
    Auto,
    /// Plain Rust, any CPU. Uses `f32::mul_add`, which is slow on x86-64 CPUs without FMA.
    Portable,
    /// x86-64 AVX2 + FMA (6 rows × 16 queries per tile); reduced-precision scans with the
    /// AVX2 kernels.
    Avx2,
    /// x86-64 AVX2 + FMA for `f32`, as [`Kernel::Avx2`]; int8 scans with AVX-VNNI
    /// (`VPDPBUSD` on 256-bit registers: Intel Alder Lake and later, AMD Zen 5).
    AvxVnni,
    /// x86-64 AVX-512F (6 rows × 32 queries per tile); reduced-precision scans with
    /// AVX-512 BF16 / VNNI where the CPU has them.
    Avx512,
    /// x86-64 AVX-512F for `f32` (as [`Kernel::Avx512`]; AMX has no `f32` arithmetic);
    /// reduced-precision scans with AMX tiles (`TDPBF16PS`, `TDPBSUD`: Intel Sapphire Rapids
    /// and later, where the OS grants the tile state).
    Amx,
    /// aarch64 NEON (6 rows × 16 queries per tile); int8 scans with `SDOT` where the CPU has
    /// the dot-product extension.
    Neon,
}

impl Kernel {
    /// Whether this CPU can run the kernel (`Auto` always can).
    #[must_use]
    pub fn is_available(self) -> bool {
        match self {
            Kernel::Auto | Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::AvxVnni => {
                Kernel::Avx2.is_available() && std::arch::is_x86_feature_detected!("avxvnni")
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Amx => {
                Kernel::Avx512.is_available() && crate::exact::quant::QuantKernel::amx_available()
            }
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx2 | Kernel::AvxVnni | Kernel::Avx512 | Kernel::Amx => false,
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            #[cfg(not(target_arch = "aarch64"))]
            Kernel::Neon => false,
        }
    }

    /// The kernel `Auto` stands for on this CPU.
    #[must_use]
    pub fn detect() -> Kernel {
        [Kernel::Avx512, Kernel::AvxVnni, Kernel::Avx2, Kernel::Neon]
            .into_iter()
            .find(|k| k.is_available())
            .unwrap_or(Kernel::Portable)
    }

    /// `Auto` resolved to a concrete kernel; others checked against the CPU.
    ///
    /// # Errors
    /// [`Error::Invalid`] when this CPU cannot run the kernel.
    pub fn resolve(self) -> Result<Kernel> {
        match self {
            Kernel::Auto => Ok(Kernel::detect()),
            k if k.is_available() => Ok(k),
            k => Err(Error::Invalid(format!(
                "the {k:?} kernel needs CPU features this machine lacks; use \"auto\""
            ))),
        }
    }

    /// The kernel's name, as run summaries print it (of the kernel `Auto` stands for).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Auto => Kernel::detect().name(),
            Kernel::Portable => "portable",
            Kernel::Avx2 | Kernel::AvxVnni => "AVX2 + FMA",
            Kernel::Avx512 | Kernel::Amx => "AVX-512F",
            Kernel::Neon => "NEON",
        }
    }

    /// Queries per panel (the SIMD width of a tile).
    pub(crate) fn panel_width(self) -> usize {
        match self {
            Kernel::Avx512 | Kernel::Amx => 32,
            _ => 16,
        }
    }
}

/// A block of queries packed into panels of `width` queries, each stored dimension-major
/// (`panel[p * width + j]` is value `p` of the panel's query `j`), zero-padded to whole panels.
#[derive(Debug)]
pub(crate) struct Panels {
    pub(crate) data: Vec<f32>,
    pub(crate) width: usize,
    pub(crate) queries: usize,
    pub(crate) dim: usize,
    /// Squared norms of the queries (L2 only; padded with zeros).
    pub(crate) norms: Vec<f32>,
}

impl Panels {
    /// Pack `rows` (row-major, `dim` values each).
    pub(crate) fn pack(rows: &[f32], dim: usize, width: usize, norms: bool) -> Self {
        let queries = rows.len() / dim;
        let padded = queries.div_ceil(width) * width;
        let mut data = vec![0.0; padded * dim];
        for (q, row) in rows.chunks_exact(dim).enumerate() {
            let base = (q / width) * width * dim + q % width;
            for (p, &v) in row.iter().enumerate() {
                data[base + p * width] = v;
            }
        }
        let mut n = Vec::new();
        if norms {
            n = vec![0.0; padded];
            sq_norms(rows, dim, &mut n[..queries]);
        }
        Self {
            data,
            width,
            queries,
            dim,
            norms: n,
        }
    }

    /// Number of queries counting the padding.
    pub(crate) fn padded(&self) -> usize {
        self.data.len() / self.dim
    }
}

/// The dot product every kernel computes: sequential fused multiply-adds from `+0` (with the
/// CPU's FMA instruction where it has one, detected at run time; the same bits either way).
#[must_use]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(s) = x86::dot(a, b) {
        return s;
    }
    dot_body(a, b)
}

/// [`dot`] of `x` with each of `rows` (bit for bit), into `out`: eight rows at a time as
/// interleaved chains of fused multiply-adds, so that the latency of one chain hides behind
/// the others (the candidates' re-rank of reduced-precision searches).
pub(crate) fn dot_many(x: &[f32], rows: &[&[f32]], out: &mut Vec<f32>) {
    #[cfg(target_arch = "x86_64")]
    if x86::dot_many(x, rows, out) {
        return;
    }
    dot_many_body(x, rows, out);
}

#[inline(always)]
fn dot_many_body(x: &[f32], rows: &[&[f32]], out: &mut Vec<f32>) {
    out.clear();
    for group in rows.chunks(8) {
        if group.len() < 8 || group.iter().any(|r| r.len() != x.len()) {
            out.extend(group.iter().map(|r| dot_body(x, r)));
            continue;
        }
        let mut s = [0.0f32; 8];
        for (p, &xp) in x.iter().enumerate() {
            for (sj, r) in s.iter_mut().zip(group) {
                *sj = xp.mul_add(r[p], *sj);
            }
        }
        out.extend_from_slice(&s);
    }
}

#[inline(always)]
fn dot_body(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).fold(0.0, |s, (&x, &y)| x.mul_add(y, s))
}

#[inline(always)]
fn sq_norms_body(rows: &[f32], dim: usize, out: &mut [f32]) {
    for (row, o) in rows.chunks_exact(dim).zip(out.iter_mut()) {
        *o = row.iter().fold(0.0f32, |s, &x| x.mul_add(x, s));
    }
}

/// Squared L2 norms of `rows` as [`dot`] computes them (`out[i] = dot(row_i, row_i)`).
pub(crate) fn sq_norms(rows: &[f32], dim: usize, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if x86::sq_norms(rows, dim, out) {
        return;
    }
    sq_norms_body(rows, dim, out);
}

/// What the scan needs besides the scores: how to turn a dot product into a key (larger is
/// better) for the L2 metric.
#[derive(Debug, Clone, Copy)]
pub(crate) struct L2Norms<'a> {
    /// Squared norms of the scanned database rows.
    pub(crate) rows: &'a [f32],
}

/// The ranking key of a squared L2 distance `(‖q‖² + ‖x‖²) − 2 q·x`, clamped at 0 against
/// rounding (and NaN, possible only when the norms overflow, read as +∞): its negation.
#[inline(always)]
pub(crate) fn l2_key(qn: f32, xn: f32, dot: f32) -> f32 {
    let dist = (qn + xn) - 2.0 * dot;
    let dist = if dist.is_nan() {
        f32::INFINITY
    } else {
        dist.max(0.0)
    };
    -dist
}

/// The other direction of a both-ways scan: the best queries of every database row.
#[derive(Debug)]
pub(crate) struct Back<'t> {
    /// One list per database row (indexed by database id), of query ids.
    pub(crate) top: &'t mut TopK,
    /// Id of the first query of the scanned block.
    pub(crate) q_off: usize,
    /// Real queries in the block (its panels are padded with zeros past them).
    pub(crate) queries: usize,
}

/// Turn tile row `i` (database row `id`) into keys and offer those that reach the thresholds:
/// to the queries' lists, and (both-ways scans) to the row's list of queries.
#[inline(always)]
pub(crate) fn offer_row<const NR: usize>(
    scores: &[f32; NR],
    q0: usize,
    qnorms: Option<&[f32]>,
    xnorm: f32,
    id: usize,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    let mut keys = *scores;
    if let Some(qn) = qnorms {
        let qn: &[f32; NR] = qn[q0..q0 + NR].try_into().expect("padded panel norms");
        for j in 0..NR {
            keys[j] = l2_key(qn[j], xnorm, scores[j]);
        }
    }
    let thr: &[f32; NR] = top.thresholds(q0, NR).try_into().expect("padded");
    let mut mask = 0u64;
    for j in 0..NR {
        mask |= u64::from(keys[j] >= thr[j]) << j;
    }
    while mask != 0 {
        let j = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        top.offer(q0 + j, keys[j], id);
    }
    if let Some(b) = back {
        // Padding queries (past `queries`) are zeros, not queries: never offered.
        let real = b.queries.saturating_sub(q0).min(NR);
        let thr = b.top.thresholds(id, 1)[0];
        let mut mask = 0u64;
        for (j, &key) in keys.iter().enumerate().take(real) {
            mask |= u64::from(key >= thr) << j;
        }
        while mask != 0 {
            let j = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            b.top.offer(id, keys[j], b.q_off + q0 + j);
        }
    }
}

/// Expands to the body of a SIMD micro-kernel's tile: the dot products of `$mr` rows of `$x`
/// (`$d` words each, row-major) with the `$nr` queries of the panel `$q` (`$nr` words per step,
/// dimension-major), as `[[T; $nr]; $mr]` of the output zero `$zero_out`'s type. Each row keeps
/// `$v` accumulators started from `$zero`. Per step `p`:
/// - `load: |qp| …` reads the panel's `$nr` words at `qp` (a pointer to `$q[$nr · p..]`) into
///   the value the pattern of `fma` takes apart;
/// - `bcast: |w| …` spreads word `w = $x[i · $d + p]` of row `i`;
/// - `fma: |a, pattern, b| {…}` adds the products into row `i`'s accumulators `a`.
///
/// Then `store: |o, a| {…}` writes a row's accumulators `a` to `o`, a pointer to its `$nr`
/// outputs. `load` and `store` run in `unsafe` blocks whose pointers are valid for those `$nr`
/// elements only: they must read and write no more. The macro adds no call, so the expressions
/// compile with the enclosing function's target features.
macro_rules! simd_tile {
    (
        $q:ident, $x:ident, $d:ident, $mr:literal x $nr:literal, out: $zero_out:expr,
        acc: [$zero:expr; $v:literal],
        load: |$qp:ident| $load:expr,
        bcast: |$w:ident| $bcast:expr,
        fma: |$a:ident, $qv:pat, $b:ident| $fma:block,
        store: |$o:ident, $sa:ident| $store:block $(,)?
    ) => {{
        assert!(
            $q.len() >= $nr * $d && $x.len() >= $mr * $d,
            "tile operands too short"
        );
        let (qp, xp) = ($q.as_ptr(), $x.as_ptr());
        let mut acc = [[$zero; $v]; $mr];
        for p in 0..$d {
            // SAFETY: p < d, so `load` reads q[NR·p..NR·p + NR] ⊂ q[..NR·d], and x[i·d + p]
            // with i < MR lies in x[..MR·d]; both bounds are asserted above.
            let $qv = unsafe {
                let $qp = qp.add(p * $nr);
                $load
            };
            for (i, $a) in acc.iter_mut().enumerate() {
                // SAFETY: as above.
                let $b = {
                    let $w = unsafe { *xp.add(i * $d + p) };
                    $bcast
                };
                $fma
            }
        }
        let mut out = [[$zero_out; $nr]; $mr];
        for (o, $sa) in out.iter_mut().zip(acc) {
            let $o = o.as_mut_ptr();
            // SAFETY: `o` holds the row's NR outputs, all that `store` writes.
            unsafe { $store }
        }
        out
    }};
}
pub(crate) use simd_tile;

/// Expands to a scan function: every database row of `db` (ids from `id0`) against every query
/// of `panels`, offering the results to `top` and, in both-ways scans, to `back`.
/// `$tile(q, x, d)` computes an `MR × NR` tile. With `checked $safe if $cond` after them, also a
/// safe `$safe` that asserts `$cond` (that the CPU has the target features in `$attr`) and
/// calls the scan.
macro_rules! scan_fn {
    (
        $(#[$attr:meta])* $name:ident, $tile:path, $mr:literal, $nr:literal,
        $(#[$doc:meta])* checked $safe:ident if $cond:expr
    ) => {
        scan_fn!($(#[$attr])* $name, $tile, $mr, $nr);

        $(#[$doc])*
        pub(super) fn $safe(
            panels: &Panels,
            db: &[f32],
            id0: usize,
            l2: Option<L2Norms<'_>>,
            top: &mut TopK,
            back: Option<&mut Back<'_>>,
        ) {
            assert!($cond);
            // SAFETY: the CPU has the scan's target features (`$cond`, asserted above).
            unsafe { $name(panels, db, id0, l2, top, back) }
        }
    };
    ($(#[$attr:meta])* $name:ident, $tile:path, $mr:literal, $nr:literal) => {
        $(#[$attr])*
        fn $name(
            panels: &Panels,
            db: &[f32],
            id0: usize,
            l2: Option<L2Norms<'_>>,
            top: &mut TopK,
            mut back: Option<&mut Back<'_>>,
        ) {
            const MR: usize = $mr;
            const NR: usize = $nr;
            let d = panels.dim;
            let rows = db.len() / d;
            let qnorms = l2.map(|_| &panels.norms[..]);
            let mut pad = Vec::new();
            let mut i0 = 0;
            while i0 < rows {
                let r = (rows - i0).min(MR);
                let x = if r == MR {
                    &db[i0 * d..(i0 + MR) * d]
                } else {
                    pad.clear();
                    pad.extend_from_slice(&db[i0 * d..(i0 + r) * d]);
                    pad.resize(MR * d, 0.0);
                    &pad[..]
                };
                for (pi, q) in panels.data.chunks_exact(NR * d).enumerate() {
                    let tile: [[f32; NR]; MR] = $tile(q, x, d);
                    for (i, row) in tile.iter().enumerate().take(r) {
                        let xn = l2.map_or(0.0, |n| n.rows[i0 + i]);
                        offer_row::<NR>(
                            row,
                            pi * NR,
                            qnorms,
                            xn,
                            id0 + i0 + i,
                            top,
                            back.as_deref_mut(),
                        );
                    }
                }
                i0 += MR;
            }
        }
    };
}

#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod x86;

/// A 4 × 16 tile in plain Rust.
#[inline(always)]
fn tile_portable(q: &[f32], x: &[f32], d: usize) -> [[f32; 16]; 4] {
    let mut acc = [[0.0f32; 16]; 4];
    let xs: [&[f32]; 4] = std::array::from_fn(|i| &x[i * d..(i + 1) * d]);
    for (p, qv) in q.chunks_exact(16).take(d).enumerate() {
        for (a, xr) in acc.iter_mut().zip(xs) {
            let xv = xr[p];
            for (s, &qj) in a.iter_mut().zip(qv) {
                *s = qj.mul_add(xv, *s);
            }
        }
    }
    acc
}

scan_fn!(scan_portable, tile_portable, 4, 16);

/// Scan `db` (row-major rows with ids `id0..`) against the query panels with `kernel` (a
/// resolved kernel whose panel width is `panels.width`); `back`, when given, also receives
/// every score for the database rows' lists of queries.
pub(crate) fn scan(
    kernel: Kernel,
    panels: &Panels,
    db: &[f32],
    id0: usize,
    l2: Option<L2Norms<'_>>,
    top: &mut TopK,
    back: Option<&mut Back<'_>>,
) {
    debug_assert_eq!(kernel.panel_width(), panels.width);
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx512 | Kernel::Amx => x86::scan_avx512(panels, db, id0, l2, top, back),
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 | Kernel::AvxVnni => x86::scan_avx2(panels, db, id0, l2, top, back),
        #[cfg(target_arch = "aarch64")]
        Kernel::Neon => neon::scan_neon(panels, db, id0, l2, top, back),
        _ => scan_portable(panels, db, id0, l2, top, back),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_many_equals_dot_bit_for_bit() {
        let mut r = bitext_core::Rng::seed(6);
        for (d, n) in [(1, 3), (37, 17), (300, 8), (1024, 21)] {
            let x: Vec<f32> = (0..d).map(|_| r.normal() as f32).collect();
            let rows: Vec<Vec<f32>> = (0..n)
                .map(|_| (0..d).map(|_| r.normal() as f32).collect())
                .collect();
            let refs: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
            let mut out = Vec::new();
            dot_many(&x, &refs, &mut out);
            let want: Vec<u32> = refs.iter().map(|y| dot(&x, y).to_bits()).collect();
            assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want);
        }
    }

    #[test]
    fn dot_with_hardware_fma_equals_the_portable_fold() {
        let mut r = bitext_core::Rng::seed(5);
        for d in [1, 7, 37, 300, 1024] {
            let a: Vec<f32> = (0..d).map(|_| r.normal() as f32).collect();
            let b: Vec<f32> = (0..d).map(|_| r.normal() as f32).collect();
            assert_eq!(dot(&a, &b).to_bits(), dot_body(&a, &b).to_bits(), "d = {d}");
        }
    }
}
