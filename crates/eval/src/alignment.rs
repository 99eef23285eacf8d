//! Sentence-alignment recovery error (Kim et al. 2019, §4.1): shuffle one side of a
//! line-parallel test set, retrieve for every sentence its best match on the other side, and
//! count the retrievals that miss the original partner — in each direction, and their mean.

use crate::error::{Error, Result};

/// Error rates of alignment recovery.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AlignmentError {
    /// Number of sentences per side.
    pub n: usize,
    /// Wrong source → target retrievals.
    pub src_to_tgt_errors: usize,
    /// Wrong target → source retrievals.
    pub tgt_to_src_errors: usize,
    /// `src_to_tgt_errors / n`.
    pub src_to_tgt: f64,
    /// `tgt_to_src_errors / n`.
    pub tgt_to_src: f64,
    /// Mean of the two error rates.
    pub mean: f64,
}

/// Alignment-recovery error.
///
/// - `fwd[i]`: the target row retrieved for source `i`;
/// - `bwd[j]`: the source row retrieved for target `j`;
/// - `gold[i]`: the target row that truly translates source `i` (a permutation of `0..n`; the
///   identity for an unshuffled line-parallel set, see [`line_parallel_error`]).
///
/// # Errors
/// [`Error::Invalid`] when the lengths differ, the set is empty, `gold` is not a permutation, or
/// a retrieved index is out of range.
pub fn alignment_recovery_error(
    fwd: &[usize],
    bwd: &[usize],
    gold: &[usize],
) -> Result<AlignmentError> {
    let n = gold.len();
    if n == 0 {
        return Err(Error::Invalid(
            "alignment recovery needs at least one sentence pair".into(),
        ));
    }
    if fwd.len() != n || bwd.len() != n {
        return Err(Error::Invalid(format!(
            "{} forward and {} backward retrievals for {n} gold pairs",
            fwd.len(),
            bwd.len()
        )));
    }
    let mut inverse = vec![usize::MAX; n];
    for (i, &j) in gold.iter().enumerate() {
        if j >= n || inverse[j] != usize::MAX {
            return Err(Error::Invalid(format!(
                "gold is not a permutation of 0..{n} (entry {i} = {j})"
            )));
        }
        inverse[j] = i;
    }
    if let Some((i, &x)) = fwd.iter().chain(bwd).enumerate().find(|(_, x)| **x >= n) {
        return Err(Error::Invalid(format!(
            "retrieved index {x} (item {i}) is out of range 0..{n}"
        )));
    }
    let e_fwd = fwd.iter().zip(gold).filter(|(r, g)| r != g).count();
    let e_bwd = bwd.iter().zip(&inverse).filter(|(r, g)| r != g).count();
    let (f, b) = (e_fwd as f64 / n as f64, e_bwd as f64 / n as f64);
    Ok(AlignmentError {
        n,
        src_to_tgt_errors: e_fwd,
        tgt_to_src_errors: e_bwd,
        src_to_tgt: f,
        tgt_to_src: b,
        mean: (f + b) / 2.0,
    })
}

/// Alignment-recovery error on a line-parallel set (source `i` translates target `i`).
///
/// # Errors
/// As [`alignment_recovery_error`].
pub fn line_parallel_error(fwd: &[usize], bwd: &[usize]) -> Result<AlignmentError> {
    let gold: Vec<usize> = (0..fwd.len()).collect();
    alignment_recovery_error(fwd, bwd, &gold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        // 4 pairs; forward gets 3 right (25 % error), backward gets 2 right (50 %).
        let e = line_parallel_error(&[0, 1, 2, 0], &[0, 0, 2, 2]).unwrap();
        assert_eq!((e.src_to_tgt_errors, e.tgt_to_src_errors), (1, 2));
        assert_eq!((e.src_to_tgt, e.tgt_to_src, e.mean), (0.25, 0.5, 0.375));
    }

    #[test]
    fn shuffled_gold() {
        // Source i translates target gold[i].
        let gold = [2, 0, 1];
        let e = alignment_recovery_error(&[2, 0, 1], &[1, 2, 0], &gold).unwrap();
        assert_eq!(e.mean, 0.0);
        let e = alignment_recovery_error(&[2, 0, 0], &[1, 2, 1], &gold).unwrap();
        assert_eq!((e.src_to_tgt_errors, e.tgt_to_src_errors), (1, 1));
    }

    #[test]
    fn bad_inputs() {
        assert!(line_parallel_error(&[], &[]).is_err());
        assert!(line_parallel_error(&[0], &[0, 1]).is_err());
        assert!(line_parallel_error(&[5, 0], &[0, 1]).is_err());
        assert!(alignment_recovery_error(&[0, 0], &[0, 0], &[1, 1]).is_err());
    }
}
