//! Confidence intervals for a proportion: the Wilson score interval and the normal quantile it
//! needs.

/// A closed interval `[lo, hi]` of a proportion.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

impl Interval {
    /// Whether `x` lies in the interval.
    #[must_use]
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{:.4}, {:.4}]", self.lo, self.hi)
    }
}

/// The Wilson score interval of the proportion `successes / trials` (Wilson 1927) for the
/// normal quantile `z` (1.96 for 95%): unlike the normal approximation `p ± z·√(p(1−p)/n)` it
/// stays in `[0, 1]` and keeps its coverage near 0 and 1, where the precision of good
/// thresholds lies. With no trials the interval is `[0, 1]`.
#[must_use]
pub fn wilson(successes: usize, trials: usize, z: f64) -> Interval {
    if trials == 0 {
        return Interval { lo: 0.0, hi: 1.0 };
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Interval {
        lo: (centre - half).clamp(0.0, 1.0),
        hi: (centre + half).clamp(0.0, 1.0),
    }
}

/// The standard normal quantile `Φ⁻¹(p)` for `p` in `(0, 1)` (Acklam's rational approximation,
/// relative error below 1.2e-9); NaN outside.
#[must_use]
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    const LOW: f64 = 0.024_25;
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_the_usual_confidences() {
        assert!((normal_quantile(0.975) - 1.959_963_985).abs() < 1e-8);
        assert!((normal_quantile(0.995) - 2.575_829_304).abs() < 1e-8);
        assert!((normal_quantile(0.05) + 1.644_853_627).abs() < 1e-8);
        assert_eq!(normal_quantile(0.5), 0.0);
        assert!(normal_quantile(1.0).is_nan() && normal_quantile(f64::NAN).is_nan());
    }

    #[test]
    fn wilson_by_hand() {
        // 8 of 10 at z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71676, half 0.23937...
        let w = wilson(8, 10, 1.96);
        assert!(
            (w.lo - 0.4902).abs() < 1e-4 && (w.hi - 0.9433).abs() < 1e-4,
            "{w}"
        );
        let all = wilson(10, 10, 1.96);
        assert!(all.hi == 1.0 && all.lo > 0.69 && all.lo < 0.73);
        assert_eq!(wilson(0, 0, 1.96), Interval { lo: 0.0, hi: 1.0 });
        assert_eq!(wilson(0, 5, 1.96).lo, 0.0);
    }
}
