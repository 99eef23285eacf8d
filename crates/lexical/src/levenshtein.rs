//! Character-level Levenshtein distance (unit-cost insertions, deletions and substitutions of
//! Unicode scalar values), by Myers' bit-parallel algorithm (Myers 1999) in Hyyrö's blocked
//! form: a column of the dynamic-programming table is 64 rows per machine word, so comparing
//! an `m`-character pattern with an `n`-character text costs `n · ⌈m / 64⌉` word steps instead
//! of `n · m` cell updates.
//!
//! [`Pattern::within`] is the bounded variant for search: it gives up as soon as the distance
//! is certain to exceed a bound (by the length difference, then column by column: the last
//! row's value can fall by at most one per remaining column), which is what a nearest-sentence
//! search with a best-so-far bound needs ([`crate::LevenshteinScorer::nearest`]).
//!
//! ```
//! use bitext_lexical::levenshtein::{Pattern, distance, normalized};
//! let a: Vec<char> = "kitten".chars().collect();
//! let b: Vec<char> = "sitting".chars().collect();
//! assert_eq!(distance(&a, &b), 3);
//! assert_eq!(Pattern::new(&a).within(&b, 2), None);
//! assert!((normalized(&a, &b) - 3.0 / 7.0).abs() < 1e-12);
//! ```

/// A string prepared for repeated comparisons: for each distinct character, the bit mask of
/// its positions (Myers' `Peq`), 64 positions per block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    len: usize,
    blocks: usize,
    /// Distinct characters, sorted.
    chars: Vec<char>,
    /// `masks[c * blocks + k]`: positions `64k..64k+64` holding `chars[c]`.
    masks: Vec<u64>,
}

impl Pattern {
    /// Prepare `pattern`.
    #[must_use]
    pub fn new(pattern: &[char]) -> Self {
        let blocks = pattern.len().div_ceil(64);
        let mut chars = pattern.to_vec();
        chars.sort_unstable();
        chars.dedup();
        let mut masks = vec![0u64; chars.len() * blocks];
        for (i, c) in pattern.iter().enumerate() {
            let at = chars.binary_search(c).unwrap_or_default();
            masks[at * blocks + i / 64] |= 1 << (i % 64);
        }
        Self {
            len: pattern.len(),
            blocks,
            chars,
            masks,
        }
    }

    /// Number of characters.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the pattern has no character.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The distance to `text`.
    #[must_use]
    pub fn distance(&self, text: &[char]) -> usize {
        self.within(text, usize::MAX).unwrap_or(usize::MAX)
    }

    /// The distance to `text` if it is at most `max`, else `None` (found early when possible).
    #[must_use]
    pub fn within(&self, text: &[char], max: usize) -> Option<usize> {
        let (m, n) = (self.len, text.len());
        if m.abs_diff(n) > max {
            return None;
        }
        if m == 0 {
            return Some(n);
        }
        let blocks = self.blocks;
        let mut pv = vec![!0u64; blocks];
        let mut mv = vec![0u64; blocks];
        let last_high = 1u64 << ((m - 1) % 64);
        let mut score = m;
        for (j, c) in text.iter().enumerate() {
            let eqs = self
                .chars
                .binary_search(c)
                .ok()
                .map(|at| &self.masks[at * blocks..(at + 1) * blocks]);
            // Row 0 of the table is 0, 1, 2, …: each column adds one at the top.
            let mut hin: i8 = 1;
            for k in 0..blocks {
                let eq = eqs.map_or(0, |e| e[k]);
                let (p, mm) = (pv[k], mv[k]);
                let xv = eq | mm;
                let eq = if hin < 0 { eq | 1 } else { eq };
                let xh = ((eq & p).wrapping_add(p) ^ p) | eq;
                let mut ph = mm | !(xh | p);
                let mut mh = p & xh;
                let high = if k + 1 == blocks { last_high } else { 1 << 63 };
                let hout = if ph & high != 0 {
                    1
                } else if mh & high != 0 {
                    -1
                } else {
                    0
                };
                ph <<= 1;
                mh <<= 1;
                if hin < 0 {
                    mh |= 1;
                } else if hin > 0 {
                    ph |= 1;
                }
                pv[k] = mh | !(xv | ph);
                mv[k] = ph & xv;
                hin = hout;
            }
            score = score.checked_add_signed(isize::from(hin))?;
            // Each remaining column lowers the last row by at most one.
            if score.saturating_sub(n - j - 1) > max {
                return None;
            }
        }
        (score <= max).then_some(score)
    }
}

/// The Levenshtein distance between two character sequences.
#[must_use]
pub fn distance(a: &[char], b: &[char]) -> usize {
    // The shorter string is the pattern: fewer blocks per column.
    if a.len() <= b.len() {
        Pattern::new(a).distance(b)
    } else {
        Pattern::new(b).distance(a)
    }
}

/// The distance divided by the longer length, in `[0, 1]` (0 for two empty strings).
#[must_use]
pub fn normalized(a: &[char], b: &[char]) -> f64 {
    let longer = a.len().max(b.len());
    if longer == 0 {
        0.0
    } else {
        distance(a, b) as f64 / longer as f64
    }
}

/// The textbook dynamic program (one row, `O(|a| · |b|)`): the reference the tests compare
/// the bit-parallel algorithm with.
#[must_use]
pub fn distance_dp(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != cb)).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn known_distances() {
        for (a, b, d) in [
            ("", "", 0),
            ("", "abc", 3),
            ("abc", "", 3),
            ("kitten", "sitting", 3),
            ("flaw", "lawn", 2),
            ("Straße", "Strasse", 2),
            ("über", "uber", 1),
            ("abc", "abc", 0),
        ] {
            assert_eq!(distance(&chars(a), &chars(b)), d, "{a} / {b}");
            assert_eq!(distance_dp(&chars(a), &chars(b)), d, "{a} / {b}");
        }
    }

    #[test]
    fn long_strings_cross_blocks() {
        let a: Vec<char> = (0..200)
            .map(|i| char::from(b'a' + (i * 7 % 26) as u8))
            .collect();
        let mut b = a.clone();
        b.remove(63);
        b.insert(130, 'z');
        b[190] = 'Q';
        assert_eq!(distance(&a, &b), distance_dp(&a, &b));
        assert_eq!(distance(&a, &b), 3);
    }

    proptest! {
        #[test]
        fn bit_parallel_equals_the_dynamic_program(
            a in proptest::collection::vec(prop_oneof![Just('a'), Just('b'), Just('c'), Just('é')], 0..170),
            b in proptest::collection::vec(prop_oneof![Just('a'), Just('b'), Just('c'), Just('ß')], 0..170),
            max in 0usize..200,
        ) {
            let d = distance_dp(&a, &b);
            prop_assert_eq!(Pattern::new(&a).distance(&b), d);
            prop_assert_eq!(Pattern::new(&b).distance(&a), d);
            prop_assert_eq!(Pattern::new(&a).within(&b, max), (d <= max).then_some(d));
        }
    }
}
