//! A small seeded pseudo-random generator (xoshiro256**, seeded through SplitMix64), so that
//! sampling, shuffling and synthetic data are reproducible across platforms and dependency
//! versions.

/// A seeded pseudo-random generator (xoshiro256**). Not for cryptography.
///
/// The same seed gives the same stream on every platform and in every version of bitext.
///
/// ```
/// use bitext_core::Rng;
/// let mut a = Rng::seed(7);
/// let mut b = Rng::seed(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// let x = a.below(10);
/// assert!(x < 10);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The 64-bit FNV-1a hash of `key` (the same on every platform).
fn fnv1a64(key: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for &b in key {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl Rng {
    /// A generator seeded with `seed`.
    #[must_use]
    pub fn seed(seed: u64) -> Self {
        let mut st = seed;
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        Self { s }
    }

    /// An independent generator for sub-stream `stream` (e.g. one per thread or per epoch),
    /// derived from this generator's seed state without advancing it.
    #[must_use]
    pub fn fork(&self, stream: u64) -> Self {
        let mut st =
            self.s[0] ^ self.s[2].rotate_left(17) ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
        Self::seed(splitmix64(&mut st))
    }

    /// An independent generator keyed by `key` (a sentence's bytes, say): [`fork`](Self::fork)
    /// with the 64-bit FNV-1a hash of `key` as the stream, so that the same seed and key give
    /// the same stream whatever else is drawn, and in what order, on every platform.
    ///
    /// ```
    /// use bitext_core::Rng;
    /// let rng = Rng::seed(7);
    /// assert_eq!(rng.fork_key(b"a").next_u64(), Rng::seed(7).fork_key(b"a").next_u64());
    /// assert_ne!(rng.fork_key(b"a").next_u64(), rng.fork_key(b"b").next_u64());
    /// ```
    #[must_use]
    pub fn fork_key(&self, key: &[u8]) -> Self {
        self.fork(fnv1a64(key))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, 1)` with 24 random bits.
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Uniform integer in `0..n` without modulo bias (Lemire's method).
    ///
    /// # Panics
    /// When `n == 0`.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        let n = n as u64;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as usize;
            }
        }
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// Standard normal sample (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64(); // (0, 1]
        let u2 = self.next_f64();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// `true` with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }

    /// Shuffle `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// A uniformly chosen element, or `None` when `items` is empty.
    pub fn choose<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }

    /// `k` distinct indices from `0..n`, in random order (Floyd's algorithm for small `k`).
    ///
    /// # Panics
    /// When `k > n`.
    pub fn sample_indices(&mut self, n: usize, k: usize) -> Vec<usize> {
        assert!(k <= n, "cannot sample {k} distinct indices from {n}");
        if k * 4 > n {
            let mut all: Vec<usize> = (0..n).collect();
            self.shuffle(&mut all);
            all.truncate(k);
            return all;
        }
        let mut chosen = std::collections::HashSet::with_capacity(k);
        let mut out = Vec::with_capacity(k);
        for j in n - k..n {
            let t = self.below(j + 1);
            let pick = if chosen.contains(&t) { j } else { t };
            chosen.insert(pick);
            out.push(pick);
        }
        self.shuffle(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_forks_differ() {
        let mut a = Rng::seed(1);
        let mut b = Rng::seed(1);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        let mut f1 = a.fork(1);
        let mut f2 = a.fork(2);
        assert_ne!(f1.next_u64(), f2.next_u64());
    }

    /// The key's hash is FNV-1a's published 64-bit values, so a keyed stream is the same
    /// everywhere.
    #[test]
    fn fork_key_hashes_with_fnv1a() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        let r = Rng::seed(5);
        assert_eq!(r.fork_key(b"foobar"), r.fork(0x8594_4171_f739_67e8));
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::seed(42);
        let mut counts = [0usize; 6];
        for _ in 0..60_000 {
            counts[r.below(6)] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn floats_in_unit_interval_and_normal_moments() {
        let mut r = Rng::seed(3);
        let n = 50_000;
        let mut sum = 0.0;
        let mut sq = 0.0;
        for _ in 0..n {
            let u = r.next_f64();
            assert!((0.0..1.0).contains(&u));
            let f = r.next_f32();
            assert!((0.0..1.0).contains(&f));
            let z = r.normal();
            sum += z;
            sq += z * z;
        }
        let mean = sum / n as f64;
        let var = sq / n as f64 - mean * mean;
        assert!(
            mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
    }

    #[test]
    fn sample_indices_distinct() {
        let mut r = Rng::seed(9);
        for (n, k) in [(10, 10), (100, 5), (1000, 300), (5, 0)] {
            let mut s = r.sample_indices(n, k);
            assert_eq!(s.len(), k);
            s.sort_unstable();
            s.dedup();
            assert_eq!(s.len(), k);
            assert!(s.iter().all(|&i| i < n));
        }
    }
}
