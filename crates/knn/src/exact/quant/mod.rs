//! Reduced-precision scans with a certified `f32` re-rank: the exact top-k at the speed of
//! bf16 or int8 arithmetic.
//!
//! A search at [`Precision::Bf16`] or [`Precision::Int8`] runs in three steps:
//!
//! 1. **Scan** a quantised copy of the database with quantised queries (`scan.rs`; micro-kernels
//!    for AMX tiles, AVX-512 `VDPBF16PS` / `VPDPBUSD`, AVX-VNNI, AVX2 `VPMADDUBSW`, Arm `SDOT`, or
//!    portable Rust: [`QuantKernel`]), keeping the `k' > k` best
//!    *approximate* scores per query in the one top-k of the exact search.
//! 2. **Re-rank** the `k'` candidates with the `f32` kernel's own [`super::dot`], so their
//!    scores are bit for bit those of the `f32` search, and take the best `k` (ties to the lower
//!    id).
//! 3. **Certify** (`certify.rs`): every vector left out has an approximate score at most the
//!    `k'`-th candidate's `a'`, and its exact `f32` score exceeds its approximate one by at most
//!    a bound `B` (below). When `a' + B < s_k`, the `k`-th exact score, nothing left out can
//!    reach the top k, and the result *is* the `f32` search's: same ids, same scores, same tie
//!    order. Queries where the proof fails are scanned again with `8 k'` candidates, and those
//!    that still fail are searched in `f32`. [`Certification`] counts the three outcomes.
//!
//! # The bound
//!
//! With `x̂`, `ŷ` the vectors the scan multiplies (bf16-rounded, or `scale × codes`),
//! `|x·y − x̂·ŷ| ≤ ‖x − x̂‖‖y‖ + ‖x̂‖‖y − ŷ‖` (add and subtract `x̂·y`, then Cauchy–Schwarz).
//! The scores are floating-point sums, so `B` adds their rounding: the `f32` dot product of
//! `d` fused multiply-adds is within `γ_d ‖x‖‖y‖` of `x·y`, the scan's within
//! `γ_{2d+8} ‖x̂‖‖ŷ‖` of `x̂·ŷ` (`γ_n = n u / (1 − n u)`, `u = 2⁻²⁴`), plus an absolute term for
//! underflow (bf16 hardware flushes subnormals to zero). For a query, `B` takes the database's
//! largest `‖y‖`, `‖ŷ‖`, `‖y − ŷ‖` (kept with the quantised copy), and it is evaluated in
//! `f64` with a relative margin of 10⁻⁹.
//!
//! # Quantisation
//!
//! - **bf16**: round to nearest even (toward zero where that would overflow); subnormal
//!   results become zero, as the hardware reads them. Rows are padded to an even length.
//! - **int8**: per vector, `scale = max |x_i| / 127` and `codes = round(x_i / scale)` in
//!   `[-127, 127]`; rows padded to a multiple of 4. `VPDPBUSD` multiplies unsigned by signed
//!   bytes, so queries are stored as `code + 128` and `128 Σ y_codes` is subtracted per row;
//!   integer sums are exact for `d ≤ 65,536`.
//!
//! # Exact duplicates
//!
//! The copy keeps only distinct rows (same `f32` bits, found by hashing and compared bit for
//! bit). A later copy scores exactly what its first copy scores and ranks right after it, so
//! the re-rank puts the copies back behind their first copy, and a copy's backward list (both
//! ways) is its first copy's. Duplicates are common in crawled and localisation text, and without
//! this an exact tie straddling the `k'` cut would defeat every certificate.
//!
//! # When it pays
//!
//! The bound is a property of the quantisation, not of the data; whether it certifies depends
//! on how crowded a query's neighbourhood is. On isotropic embeddings (d = 1024) the bf16 bound
//! (~0.003 for unit vectors) certifies nearly everything with 20 candidates, and the int8 bound
//! (~0.015) with 128. On dense real neighbourhoods (bag-of-words sentence vectors of a
//! localisation corpus, where hundreds of sentences lie within 0.015 of the 4th neighbour) int8
//! needs thousands of candidates and their `f32` re-scoring is memory-bound: bf16 is the
//! precision for such data. The counts say which case a run was.
//!
//! # Which precision runs
//!
//! The precision is a speed choice only: every one returns the `f32` search's result.
//! [`Precision::Auto`] (the default) is the exact path measured fastest on this CPU for the
//! search at hand (`crate::exact::auto`: each timed on a sample, the rates cached per CPU), so
//! that no rule written from the flags decides: `VDPBF16PS` was the fastest path on a Zen 4 and
//! 1.7× slower than `f32` on an Intel Xeon with the same flags. An explicit `bf16` or `int8`
//! runs where this CPU has a SIMD kernel for it ([`QuantKernel::fast`]), and otherwise runs
//! `f32`, with a note in the [`Certification`] saying why. On AVX2 without VNNI the int8
//! kernel (16-bit products summed by `VPMADDWD`) does half the multiply-adds per instruction
//! that the `f32` FMA kernel does and lost to it on every CPU measured (docs/BENCHMARKS.md), and
//! bf16 widened to `f32` does the `f32` arithmetic plus the widening: it was written, measured
//! slower than `f32`, and removed. A forced kernel ([`crate::ExactParams::kernel`]) runs the
//! precision asked for whatever its speed; that is how the tests reach every kernel the machine
//! can run, each bit-identical to the portable one (AMX bf16 sums in another order: its
//! scores stay within the same bound, and the results are the `f32` search's all the same).
//!
//! On Intel CPUs with AMX (Sapphire Rapids and later, where Linux grants the tile state) the
//! scan also runs on tiles (`TDPBF16PS`, `TDPBSUD`, as inline assembly: their intrinsics are
//! not stable Rust; `x86.rs`'s `amx` module): 32 rows × 32 queries per block, about 430 bf16
//! multiply-adds per cycle where `VDPBF16PS` does 16 and the `f32` FMA 32 on an Emerald Rapids
//! Xeon (docs/BENCHMARKS.md). `auto` times them with the rest.
//!
//! Only the inner product is scanned in reduced precision; an L2 search runs in `f32` and says
//! so. Not done: Arm `BFDOT` (no stable intrinsics, and no Arm machine here to measure whether
//! it beats `FMLA`).

mod certify;
mod file;
#[cfg(target_arch = "aarch64")]
mod neon;
mod precision;
mod scan;
#[cfg(target_arch = "x86_64")]
mod x86;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::exact::rows::Rows;
use file::Buf;

pub use certify::{Certification, CertifiedNeighbors};
pub(crate) use certify::{search_both, search_one_way};
pub use precision::{Precision, Resolved};
pub(crate) use scan::{QuantKernel, QuantPanels, scan};

/// Largest dimension whose int8 dot products are exact in `i32`.
const MAX_INT8_DIM: usize = 1 << 16;

/// The bf16 value the scan multiplies for `x`: nearest even, toward zero where rounding would
/// overflow, subnormals flushed to (signed) zero.
#[inline]
pub(crate) fn to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    let rounded = b.wrapping_add(0x7FFF + ((b >> 16) & 1));
    let mut h = (rounded >> 16) as u16;
    if h & 0x7F80 == 0x7F80 {
        // Rounding carried into the infinity exponent: truncate instead (finite inputs only).
        h = (b >> 16) as u16;
    }
    if h & 0x7F80 == 0 {
        h &= 0x8000;
    }
    h
}

/// A bf16 value widened to `f32` (exact).
#[inline]
pub(crate) fn from_bf16(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// The int8 scale of a vector: `max |x_i| / 127` (0 for a zero vector).
#[inline]
pub(crate) fn int8_scale(row: &[f32]) -> f32 {
    row.iter().fold(0.0f32, |m, &x| m.max(x.abs())) / 127.0
}

/// The int8 code of `x` at `scale` (`inv` = `1 / scale`, 0 for a zero scale): `x · inv`
/// clamped to ±127 and rounded to nearest even by adding and subtracting 1.5 · 2²³ (exact for
/// magnitudes below 2²², and an addition instead of a call to `roundf`).
#[inline]
pub(crate) fn to_int8(x: f32, inv: f32) -> i8 {
    const MAGIC: f32 = 12_582_912.0;
    let v = (x * inv).clamp(-127.0, 127.0);
    ((v + MAGIC) - MAGIC) as i8
}

/// Norms of one vector and of its quantised version, in `f64`: what the bound needs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Norms {
    /// `‖x‖`.
    pub(crate) norm: f64,
    /// `‖x̂‖`.
    pub(crate) quant: f64,
    /// `‖x − x̂‖`.
    pub(crate) resid: f64,
    /// The int8 scale (0 for bf16).
    pub(crate) scale: f64,
}

impl Norms {
    /// The component-wise maximum.
    fn max(self, o: Norms) -> Norms {
        Norms {
            norm: self.norm.max(o.norm),
            quant: self.quant.max(o.quant),
            resid: self.resid.max(o.resid),
            scale: self.scale.max(o.scale),
        }
    }
}

/// Norms of `row` quantised at `precision`.
pub(crate) fn norms_of_row(precision: Precision, row: &[f32]) -> Norms {
    let (mut n, mut q, mut r) = (0.0f64, 0.0f64, 0.0f64);
    let mut scale = 0.0;
    let mut add = |x: f32, xh: f64| {
        let x = f64::from(x);
        n += x * x;
        q += xh * xh;
        r += (x - xh) * (x - xh);
    };
    match precision {
        Precision::F32 | Precision::Auto => row.iter().for_each(|&x| add(x, f64::from(x))),
        Precision::Bf16 => row
            .iter()
            .for_each(|&x| add(x, f64::from(from_bf16(to_bf16(x))))),
        Precision::Int8 => {
            let s = int8_scale(row);
            let inv = if s > 0.0 { 1.0 / s } else { 0.0 };
            scale = f64::from(s);
            row.iter()
                .for_each(|&x| add(x, f64::from(to_int8(x, inv)) * f64::from(s)));
        }
    }
    Norms {
        norm: n.sqrt(),
        quant: q.sqrt(),
        resid: r.sqrt(),
        scale,
    }
}

/// A quantised copy of a matrix (row-major, rows padded to whole 32-bit words: two bf16 values
/// or four int8 codes per word, little-endian, the lower dimension first) with the largest
/// norms the certificate needs.
#[derive(Debug, Clone)]
pub(crate) struct QuantDb {
    pub(crate) precision: Precision,
    /// Words per stored row.
    pub(crate) steps: usize,
    /// Dimension of the vectors.
    pub(crate) dim: usize,
    /// Rows of the matrix (with its duplicates).
    pub(crate) len: usize,
    /// How the matrix was stored ([`Rows::kind`]).
    pub(crate) kind: &'static str,
    /// Fingerprint of the matrix ([`Rows::fingerprint`]).
    pub(crate) source: u64,
    /// The codes, owned or mapped from a saved copy.
    pub(crate) words: Buf<u32>,
    /// int8: each row's scale (empty for bf16).
    pub(crate) scales: Buf<f32>,
    /// int8: each row's `128 Σ codes` (empty for bf16).
    pub(crate) offsets: Buf<i32>,
    /// Each stored row's norms (the backward certificates of both-ways searches).
    pub(crate) norms: Vec<Norms>,
    /// Component-wise maxima over the rows.
    pub(crate) max: Norms,
    /// The matrix's exact duplicates, when it has any: only distinct rows are stored and
    /// scanned.
    pub(crate) distinct: Option<Distinct>,
}

/// The distinct rows of a matrix with exact duplicates (the same `f32` bits, hence the same
/// score against any query, ranked by id). Only the first copy is scanned; a later copy can
/// be in a top k only right after its first, so the re-rank puts the copies back there.
#[derive(Debug, Clone)]
pub(crate) struct Distinct {
    /// Id of each distinct row's first copy (ascending).
    pub(crate) first: Vec<usize>,
    /// `later[start[u]..start[u + 1]]`: the other copies of distinct row `u`, ascending.
    pub(crate) start: Vec<usize>,
    pub(crate) later: Vec<usize>,
    /// The distinct row of every row of the matrix.
    pub(crate) of_row: Vec<u32>,
}

impl Distinct {
    /// The duplicates of `v` (`None` when every row is distinct or there are 2³² rows or
    /// more).
    fn find(v: Rows<'_>, hashes: &[u64]) -> Option<Distinct> {
        use std::collections::HashMap;
        if u32::try_from(v.len()).is_err() {
            return None;
        }
        let same = |a: usize, b: usize| v.same(a, b);
        // Hash → distinct rows with that hash (collisions are compared bit for bit).
        let mut seen: HashMap<u64, Vec<u32>> = HashMap::with_capacity(v.len());
        let mut first = Vec::new();
        let mut of_row = Vec::with_capacity(v.len());
        for (r, &h) in hashes.iter().enumerate() {
            let bucket = seen.entry(h).or_default();
            let u = match bucket.iter().find(|&&u| same(first[u as usize], r)) {
                Some(&u) => u,
                None => {
                    let u = first.len() as u32;
                    first.push(r);
                    bucket.push(u);
                    u
                }
            };
            of_row.push(u);
        }
        if first.len() == v.len() {
            return None;
        }
        let mut start = vec![0usize; first.len() + 1];
        for (r, &u) in of_row.iter().enumerate() {
            if first[u as usize] != r {
                start[u as usize + 1] += 1;
            }
        }
        for u in 0..first.len() {
            start[u + 1] += start[u];
        }
        let mut fill = start.clone();
        let mut later = vec![0usize; start[first.len()]];
        for (r, &u) in of_row.iter().enumerate() {
            if first[u as usize] != r {
                later[fill[u as usize]] = r;
                fill[u as usize] += 1;
            }
        }
        Some(Distinct {
            first,
            start,
            later,
            of_row,
        })
    }
}

/// Rows quantised per parallel task.
const CHUNK: usize = 1024;

/// Words per row of `precision` for dimension `dim`.
pub(crate) fn steps(precision: Precision, dim: usize) -> usize {
    match precision {
        Precision::Int8 => dim.div_ceil(4),
        _ => dim.div_ceil(2),
    }
}

/// Pack `row` into `out` (its words): bf16 pairs, or int8 codes plus `bias` (0 for the
/// database's signed codes, 128 for the queries' unsigned ones). Returns the int8 scale and
/// the sum of the codes (0 for bf16).
pub(crate) fn pack_row(
    precision: Precision,
    row: &[f32],
    bias: i32,
    out: &mut [u32],
) -> (f32, i32) {
    match precision {
        Precision::Int8 => {
            let s = int8_scale(row);
            let inv = if s > 0.0 { 1.0 / s } else { 0.0 };
            let mut sum = 0;
            for (w, quad) in out.iter_mut().zip(row.chunks(4)) {
                let mut word = 0u32;
                for (i, &x) in quad.iter().enumerate() {
                    let c = i32::from(to_int8(x, inv));
                    sum += c;
                    word |= ((c + bias) as u32 & 0xFF) << (8 * i);
                }
                if quad.len() < 4 {
                    // Padding codes are zero (stored as `bias`).
                    for i in quad.len()..4 {
                        word |= (bias as u32 & 0xFF) << (8 * i);
                    }
                }
                *w = word;
            }
            (s, sum)
        }
        _ => {
            for (w, pair) in out.iter_mut().zip(row.chunks(2)) {
                let lo = u32::from(to_bf16(pair[0]));
                let hi = pair.get(1).map_or(0, |&x| u32::from(to_bf16(x)));
                *w = lo | (hi << 16);
            }
            (0.0, 0)
        }
    }
}

impl QuantDb {
    /// Quantise `v` (rows already checked finite).
    ///
    /// # Errors
    /// [`Error::Invalid`] for `F32` (nothing to quantise) or an int8 dimension above 65,536.
    pub(crate) fn build(precision: Precision, v: Rows<'_>) -> Result<Self> {
        let dim = v.dim();
        if matches!(precision, Precision::F32 | Precision::Auto) {
            return Err(Error::Invalid(format!(
                "{precision} needs no quantised copy"
            )));
        }
        if precision == Precision::Int8 && dim > MAX_INT8_DIM {
            return Err(Error::Invalid(format!(
                "int8 scans support dimensions up to {MAX_INT8_DIM}, got {dim}; use bf16"
            )));
        }
        let st = steps(precision, dim);
        let hashes = v.row_hashes();
        let source = v.fingerprint(&hashes);
        let distinct = Distinct::find(v, &hashes);
        drop(hashes);
        let row_of = |u: usize| distinct.as_ref().map_or(u, |d| d.first[u]);
        let rows = distinct.as_ref().map_or(v.len(), |d| d.first.len());
        let mut words = vec![0u32; rows * st];
        let int8 = precision == Precision::Int8;
        let per_row = if int8 { rows } else { 0 };
        let (mut scales, mut offsets) = (vec![0f32; per_row], vec![0i32; per_row]);
        let mut sc = vec![(0f32, 0i32); rows];
        let mut norms = vec![Norms::default(); rows];
        words
            .par_chunks_mut(CHUNK * st)
            .zip(sc.par_chunks_mut(CHUNK))
            .zip(norms.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(c, ((w, sc), nm))| {
                let mut buf = vec![0f32; dim];
                let rows = w.chunks_exact_mut(st).zip(sc).zip(nm);
                for (i, ((wrow, sc), nm)) in rows.enumerate() {
                    let row = v.row(row_of(c * CHUNK + i), &mut buf);
                    *nm = norms_of_row(precision, row);
                    *sc = pack_row(precision, row, 0, wrow);
                }
            });
        let max = norms.iter().copied().fold(Norms::default(), Norms::max);
        if int8 {
            for ((s, o), &(scale, sum)) in scales.iter_mut().zip(&mut offsets).zip(&sc) {
                *s = scale;
                *o = 128 * sum;
            }
        }
        Ok(Self {
            precision,
            steps: st,
            dim,
            len: v.len(),
            kind: v.kind(),
            source,
            words: words.into(),
            scales: scales.into(),
            offsets: offsets.into(),
            norms,
            max,
            distinct,
        })
    }

    /// Rows stored and scanned (the distinct ones).
    pub(crate) fn rows(&self) -> usize {
        self.norms.len()
    }

    /// Bytes held by the codes and per-row data.
    #[must_use]
    pub(crate) fn bytes(&self) -> usize {
        let dups = self.distinct.as_ref().map_or(0, |d| {
            (d.first.len() + d.start.len() + d.later.len()) * 8 + d.of_row.len() * 4
        });
        self.words.len() * 4 + self.scales.len() * 8 + self.norms.len() * size_of::<Norms>() + dups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even_and_never_overflows() {
        assert_eq!(from_bf16(to_bf16(1.0)), 1.0);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
        assert_eq!(from_bf16(to_bf16(1.0 + 2f32.powi(-8))), 1.0);
        assert_eq!(
            from_bf16(to_bf16(1.0 + 3.0 * 2f32.powi(-8))),
            1.0 + 2f32.powi(-6)
        );
        assert!(from_bf16(to_bf16(f32::MAX)).is_finite());
        assert!(from_bf16(to_bf16(-f32::MAX)).is_finite());
        assert_eq!(from_bf16(to_bf16(1e-39)), 0.0);
        for x in [0.1f32, -3.7, 1234.5, 1e-30] {
            let r = (from_bf16(to_bf16(x)) - x).abs() / x.abs();
            assert!(r <= 2f32.powi(-8), "{x}: {r}");
        }
    }

    #[test]
    fn int8_codes_and_norms() {
        let row = [0.5f32, -1.0, 0.25, 0.0];
        let s = int8_scale(&row);
        assert_eq!(s, 1.0 / 127.0);
        assert_eq!(to_int8(-1.0, 1.0 / s), -127);
        let n = norms_of_row(Precision::Int8, &row);
        assert!((n.norm - (0.25f64 + 1.0 + 0.0625).sqrt()).abs() < 1e-12);
        assert!(n.resid < 0.5 / 127.0 * 2.0);
        assert_eq!(norms_of_row(Precision::Int8, &[0.0; 3]).resid, 0.0);
        assert!("int8".parse::<Precision>().is_ok() && "f16".parse::<Precision>().is_err());
    }
}
