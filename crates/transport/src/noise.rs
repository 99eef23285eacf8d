//! The noise protocol of Zhang et al. (2016), "Bilingual Corpus Filtering": corrupt one side
//! of half the pairs of a parallel corpus by replacing `⌈l·n⌉` of a sentence's `l` words with
//! random vocabulary words (noise level `n`), then ask a filter to keep the best half and
//! measure the share of clean pairs it kept.

use bitext_core::Rng;

use crate::error::{Error, Result};

/// Replaces `⌈l·level⌉` random words of a sentence with random words of a vocabulary.
/// Seeded: the same seed corrupts the same way.
///
/// ```
/// use bitext_transport::noise::Noise;
/// let vocab: Vec<String> = ["x", "y"].map(String::from).to_vec();
/// let noise = Noise::new(0.5, vocab)?;
/// let mut rng = bitext_core::Rng::seed(1);
/// let s = ["a", "b", "c"].map(String::from);
/// let out = noise.corrupt(&s, &mut rng);
/// // ⌈3 · 0.5⌉ = 2 of the 3 words are replaced.
/// assert_eq!(out.iter().filter(|w| *w == "x" || *w == "y").count(), 2);
/// # Ok::<(), bitext_transport::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Noise {
    level: f64,
    vocabulary: Vec<String>,
}

impl Noise {
    /// Noise at `level` in `[0, 1]` drawing replacements uniformly from `vocabulary`.
    ///
    /// # Errors
    /// [`Error::Param`] for a level outside `[0, 1]` or an empty vocabulary.
    pub fn new(level: f64, vocabulary: Vec<String>) -> Result<Self> {
        if !(0.0..=1.0).contains(&level) {
            return Err(Error::Param(format!(
                "noise level must be in [0, 1], got {level}"
            )));
        }
        if vocabulary.is_empty() {
            return Err(Error::Param("the noise vocabulary is empty".into()));
        }
        Ok(Self { level, vocabulary })
    }

    /// The noise level.
    #[must_use]
    pub fn level(&self) -> f64 {
        self.level
    }

    /// How many of `len` words are replaced: `⌈len · level⌉`.
    #[must_use]
    pub fn replaced(&self, len: usize) -> usize {
        // Guard the product against rounding up past an exact integer (0.2 · 10 = 2.0000…4).
        let x = len as f64 * self.level;
        let r = x.round();
        let k = if (x - r).abs() < 1e-9 { r } else { x.ceil() };
        (k as usize).min(len)
    }

    /// A copy of `words` with `⌈l·level⌉` distinct positions replaced by random vocabulary
    /// words (a replacement may by chance equal the word it replaces).
    pub fn corrupt<S: AsRef<str>>(&self, words: &[S], rng: &mut Rng) -> Vec<String> {
        let mut out: Vec<String> = words.iter().map(|w| w.as_ref().to_string()).collect();
        for pos in rng.sample_indices(out.len(), self.replaced(out.len())) {
            out[pos] = self.vocabulary[rng.below(self.vocabulary.len())].clone();
        }
        out
    }

    /// Corrupt the sentences of `side` (one side of a parallel corpus) for a randomly chosen
    /// half of the pairs (`⌊len/2⌋`); returns the new side and, per pair, whether it is
    /// still clean.
    pub fn corrupt_half<S: AsRef<str>>(
        &self,
        side: &[Vec<S>],
        seed: u64,
    ) -> (Vec<Vec<String>>, Vec<bool>) {
        let mut rng = Rng::seed(seed);
        let mut clean = vec![true; side.len()];
        for i in rng.sample_indices(side.len(), side.len() / 2) {
            clean[i] = false;
        }
        let out = side
            .iter()
            .zip(&clean)
            .map(|(s, &c)| {
                if c {
                    s.iter().map(|w| w.as_ref().to_string()).collect()
                } else {
                    self.corrupt(s, &mut rng)
                }
            })
            .collect();
        (out, clean)
    }
}

/// Keep the best half of the pairs by score (higher = better, ties broken by position) and
/// return the share of clean pairs among them: the filtering accuracy of Zhang et al. (with
/// half the corpus noisy, precision, recall and accuracy coincide).
///
/// # Errors
/// [`Error::Shape`] when the lengths differ; [`Error::Invalid`] for fewer than two pairs or a
/// non-finite score.
pub fn keep_best_half_accuracy(scores: &[f64], clean: &[bool]) -> Result<f64> {
    if scores.len() != clean.len() {
        return Err(Error::Shape(format!(
            "{} scores for {} pairs",
            scores.len(),
            clean.len()
        )));
    }
    if scores.len() < 2 {
        return Err(Error::Invalid("need at least two pairs".into()));
    }
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(Error::Invalid(format!("score {i} is {}", scores[i])));
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let half = scores.len() / 2;
    let kept_clean = order[..half].iter().filter(|&&i| clean[i]).count();
    Ok(kept_clean as f64 / half as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vec<String> {
        (0..50).map(|i| format!("v{i}")).collect()
    }

    #[test]
    fn replaces_the_ceiling_of_the_share() {
        let n = Noise::new(0.2, vocab()).unwrap();
        assert_eq!(
            [1, 4, 5, 6, 10, 11].map(|l| n.replaced(l)),
            [1, 1, 1, 2, 2, 3]
        );
        assert_eq!(Noise::new(0.0, vocab()).unwrap().replaced(7), 0);
        assert_eq!(Noise::new(1.0, vocab()).unwrap().replaced(7), 7);
        let words: Vec<String> = (0..10).map(|i| format!("w{i}")).collect();
        let mut rng = Rng::seed(3);
        let out = n.corrupt(&words, &mut rng);
        assert_eq!(out.len(), 10);
        let changed = out.iter().zip(&words).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 2);
        assert!(out.iter().filter(|w| w.starts_with('v')).count() == 2);
        assert!(Noise::new(1.5, vocab()).is_err());
        assert!(Noise::new(0.5, Vec::new()).is_err());
    }

    #[test]
    fn corrupts_half_reproducibly() {
        let n = Noise::new(0.5, vocab()).unwrap();
        let side: Vec<Vec<String>> = (0..11)
            .map(|i| (0..4).map(|j| format!("w{i}_{j}")).collect())
            .collect();
        let (a, clean) = n.corrupt_half(&side, 7);
        let (b, clean2) = n.corrupt_half(&side, 7);
        assert_eq!((&a, &clean), (&b, &clean2));
        assert_eq!(clean.iter().filter(|c| !**c).count(), 5);
        for ((orig, new), c) in side.iter().zip(&a).zip(&clean) {
            let changed = orig.iter().zip(new).filter(|(x, y)| x != y).count();
            assert_eq!(changed == 0, *c);
        }
    }

    #[test]
    fn best_half_accuracy_by_hand() {
        let clean = [true, false, true, false];
        assert_eq!(
            keep_best_half_accuracy(&[0.9, 0.1, 0.8, 0.2], &clean).unwrap(),
            1.0
        );
        assert_eq!(
            keep_best_half_accuracy(&[0.9, 0.95, 0.1, 0.2], &clean).unwrap(),
            0.5
        );
        // Ties go to the earlier pair.
        assert_eq!(keep_best_half_accuracy(&[1.0; 4], &clean).unwrap(), 0.5);
        assert!(keep_best_half_accuracy(&[1.0], &[true]).is_err());
        assert!(keep_best_half_accuracy(&[1.0, f64::NAN], &[true, false]).is_err());
        assert!(keep_best_half_accuracy(&[1.0, 2.0], &[true]).is_err());
    }
}
