//! Vectorised GRU and LSTM cell updates for the host recurrence ([`super::host`]): given a
//! step's projected inputs and recurrent products, update the states in place.
//!
//! The activations are branch-free polynomial approximations that the compiler vectorises:
//! `exp` is Cephes' `expf` (range reduction by `ln 2`, degree-6 polynomial, exponent bits
//! built directly), the sigmoid is `1 / (1 + exp(−x))` and `tanh` is the rational
//! approximation of Eigen (the one PyTorch's CPU kernels descend from). Both stay within a few
//! units in the last place of `f32` (checked against `f64` in the tests). The same source is
//! compiled for AVX-512F, for AVX2 + FMA and without either, and chosen at run time; no step
//! fuses a multiply and an add, so the three give identical results.

#![allow(unsafe_code)]
// calls of the `#[target_feature]` copies after run-time detection
// The published coefficients, digit for digit (each still rounds to the intended `f32`).
#![allow(clippy::excessive_precision)]

/// `1.5 × 2²³`: adding it rounds a float of magnitude below 2²² to an integer held in the low
/// mantissa bits.
const ROUND: f32 = 12_582_912.0;

/// `e^x` for `x` in about `[−87, 88]` (clamped there; NaN stays NaN).
#[inline(always)]
fn exp(x: f32) -> f32 {
    let x = x.clamp(-87.0, 88.0);
    let t = x * std::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    // x − n·ln 2 in two parts (Cephes' C1 + C2), exact enough for the polynomial.
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 5.000_000_1e-1;
    let y = p * r * r + r + 1.0;
    // 2^n from n's bits: t's mantissa holds 0x40_0000 + n.
    let scale = f32::from_bits(t.to_bits().wrapping_sub(0x4B40_0000 - 127) << 23);
    y * scale
}

/// The logistic sigmoid.
#[inline(always)]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// The hyperbolic tangent (Eigen's rational approximation on `[−7.9, 7.9]`, where `tanh`
/// reaches 1 in `f32`; the identity below `4·10⁻⁴`).
#[inline(always)]
fn tanh(x: f32) -> f32 {
    const CLAMP: f32 = 7.905_311;
    let c = x.clamp(-CLAMP, CLAMP);
    let x2 = c * c;
    let mut p = -2.760_768_5e-16_f32;
    p = p * x2 + 2.000_187_9e-13;
    p = p * x2 - 8.604_671_5e-11;
    p = p * x2 + 5.122_297e-8;
    p = p * x2 + 1.485_722_4e-5;
    p = p * x2 + 6.372_619_3e-4;
    p = p * x2 + 4.893_524_6e-3;
    let mut q = 1.198_258_4e-6_f32;
    q = q * x2 + 1.185_347_1e-4;
    q = q * x2 + 2.268_434_6e-3;
    q = q * x2 + 4.893_525_2e-3;
    let y = c * p / q;
    if x.abs() < 4e-4 { x } else { y }
}

/// GRU update of every row: `gi` and `rec` hold `[rows, 3H]` (gates r, z, n), `h` `[rows, H]`.
#[inline(always)]
fn gru_body(gi: &[f32], rec: &[f32], b_hn: &[f32], h: &mut [f32], hd: usize) {
    let b = &b_hn[..hd];
    for ((gi, rec), h) in gi
        .chunks_exact(3 * hd)
        .zip(rec.chunks_exact(3 * hd))
        .zip(h.chunks_exact_mut(hd))
    {
        let (gr, gz, gn) = (&gi[..hd], &gi[hd..2 * hd], &gi[2 * hd..3 * hd]);
        let (rr, rz, rn) = (&rec[..hd], &rec[hd..2 * hd], &rec[2 * hd..3 * hd]);
        let h = &mut h[..hd];
        for j in 0..hd {
            let r = sigmoid(gr[j] + rr[j]);
            let z = sigmoid(gz[j] + rz[j]);
            let n = tanh(gn[j] + r * (rn[j] + b[j]));
            h[j] = n + z * (h[j] - n);
        }
    }
}

/// LSTM update of every row: `gi` and `rec` hold `[rows, 4H]` (gates i, f, o, g), `h` and
/// `c` `[rows, H]`.
#[inline(always)]
fn lstm_body(gi: &[f32], rec: &[f32], h: &mut [f32], c: &mut [f32], hd: usize) {
    for (((gi, rec), h), c) in gi
        .chunks_exact(4 * hd)
        .zip(rec.chunks_exact(4 * hd))
        .zip(h.chunks_exact_mut(hd))
        .zip(c.chunks_exact_mut(hd))
    {
        let (gi_, gf, go, gg) = (
            &gi[..hd],
            &gi[hd..2 * hd],
            &gi[2 * hd..3 * hd],
            &gi[3 * hd..4 * hd],
        );
        let (ri, rf, ro, rg) = (
            &rec[..hd],
            &rec[hd..2 * hd],
            &rec[2 * hd..3 * hd],
            &rec[3 * hd..4 * hd],
        );
        let (h, c) = (&mut h[..hd], &mut c[..hd]);
        for j in 0..hd {
            let i = sigmoid(gi_[j] + ri[j]);
            let f = sigmoid(gf[j] + rf[j]);
            let o = sigmoid(go[j] + ro[j]);
            let g = tanh(gg[j] + rg[j]);
            let cj = f * c[j] + i * g;
            c[j] = cj;
            h[j] = o * tanh(cj);
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn gru_avx512(gi: &[f32], rec: &[f32], b_hn: &[f32], h: &mut [f32], hd: usize) {
    gru_body(gi, rec, b_hn, h, hd);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn gru_avx2(gi: &[f32], rec: &[f32], b_hn: &[f32], h: &mut [f32], hd: usize) {
    gru_body(gi, rec, b_hn, h, hd);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn lstm_avx512(gi: &[f32], rec: &[f32], h: &mut [f32], c: &mut [f32], hd: usize) {
    lstm_body(gi, rec, h, c, hd);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn lstm_avx2(gi: &[f32], rec: &[f32], h: &mut [f32], c: &mut [f32], hd: usize) {
    lstm_body(gi, rec, h, c, hd);
}

/// The widest instruction set, among those the cells are compiled for, that this CPU has.
#[derive(Clone, Copy)]
enum Simd {
    /// AVX-512F.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// Neither: the portable copy.
    Scalar,
}

/// The instruction set the cells run with on this CPU (detected at run time; the detection
/// is cached by the standard library).
#[inline]
fn simd() -> Simd {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Simd::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Simd::Avx2;
        }
    }
    Simd::Scalar
}

/// GRU step of `h.len() / hd` rows (PyTorch's equations, see [`super`]): `gi` `[rows, 3H]`
/// is `x·W_ih + b` (with the r and z recurrent biases folded in), `rec` `[rows, 3H]` is
/// `h·W_hh`, `b_hn` `[H]` the candidate's recurrent bias; `h` is updated in place.
pub(crate) fn gru(gi: &[f32], rec: &[f32], b_hn: &[f32], h: &mut [f32], hd: usize) {
    let rows = h.len() / hd.max(1);
    assert!(
        gi.len() == 3 * hd * rows && rec.len() == gi.len() && b_hn.len() == hd,
        "GRU cell operands of mismatched sizes"
    );
    match simd() {
        // SAFETY: `simd` names only extensions the CPU has (detected at run time).
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { gru_avx512(gi, rec, b_hn, h, hd) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { gru_avx2(gi, rec, b_hn, h, hd) },
        Simd::Scalar => gru_body(gi, rec, b_hn, h, hd),
    }
}

/// LSTM step of `h.len() / hd` rows: `gi` and `rec` `[rows, 4H]` as for [`gru`] (gates i,
/// f, o, g); `h` and `c` are updated in place.
pub(crate) fn lstm(gi: &[f32], rec: &[f32], h: &mut [f32], c: &mut [f32], hd: usize) {
    let rows = h.len() / hd.max(1);
    assert!(
        gi.len() == 4 * hd * rows && rec.len() == gi.len() && c.len() == h.len(),
        "LSTM cell operands of mismatched sizes"
    );
    match simd() {
        // SAFETY: `simd` names only extensions the CPU has (detected at run time).
        #[cfg(target_arch = "x86_64")]
        Simd::Avx512 => unsafe { lstm_avx512(gi, rec, h, c, hd) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Simd::Avx2 => unsafe { lstm_avx2(gi, rec, h, c, hd) },
        Simd::Scalar => lstm_body(gi, rec, h, c, hd),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 1/4096 between −20 and 20, plus the far ends.
    fn grid() -> impl Iterator<Item = f32> {
        (-20 * 4096..=20 * 4096)
            .map(|i| i as f32 / 4096.0)
            .chain([-1e4, -90.0, -88.5, 88.5, 90.0, 1e4, 1e-6, -1e-6, 0.0])
    }

    #[test]
    fn activations_match_f64_to_a_few_ulp() {
        let (mut es, mut et) = (0.0f64, 0.0f64);
        for x in grid() {
            let s = 1.0 / (1.0 + (-f64::from(x)).exp());
            let t = f64::from(x).tanh();
            // Relative error where the value is large, absolute near zero (one f32 ulp of 1
            // is 1.2e-7).
            es = es.max((f64::from(sigmoid(x)) - s).abs() / s.max(1e-3));
            et = et.max((f64::from(tanh(x)) - t).abs() / t.abs().max(1e-3));
        }
        assert!(es < 6e-7, "sigmoid: relative error {es:e}");
        assert!(et < 6e-7, "tanh: relative error {et:e}");
        for x in [-80.0f32, -10.0, -1.0, -0.1, 0.0, 0.1, 1.0, 10.0, 80.0] {
            let e = f64::from(x).exp();
            let d = (f64::from(exp(x)) - e).abs() / e;
            assert!(d < 3e-7, "exp({x}): relative error {d:e}");
        }
        assert!(sigmoid(f32::NAN).is_nan() && tanh(f32::NAN).is_nan());
        assert_eq!(tanh(1e-6), 1e-6);
    }

    #[test]
    fn dispatched_cells_equal_the_portable_body() {
        let hd = 37; // not a multiple of any vector width
        let rows = 3;
        let mut rng = bitext_core::Rng::seed(5);
        let mut draw =
            |n: usize| -> Vec<f32> { (0..n).map(|_| rng.uniform(-6.0, 6.0) as f32).collect() };
        let (gi, rec, b) = (draw(4 * hd * rows), draw(4 * hd * rows), draw(hd));
        let (h0, c0) = (draw(hd * rows), draw(hd * rows));
        let g3 = 3 * hd * rows;
        let (mut h1, mut h2) = (h0.clone(), h0.clone());
        gru(&gi[..g3], &rec[..g3], &b, &mut h1, hd);
        gru_body(&gi[..g3], &rec[..g3], &b, &mut h2, hd);
        assert_eq!(h1, h2);
        let (mut h1, mut h2, mut c1, mut c2) = (h0.clone(), h0, c0.clone(), c0);
        lstm(&gi, &rec, &mut h1, &mut c1, hd);
        lstm_body(&gi, &rec, &mut h2, &mut c2, hd);
        assert_eq!((h1, c1), (h2, c2));
    }
}
