//! Where the labelled scores of a calibration come from:
//!
//! - [`read_labelled_tsv`]: a TSV with a score column and a 0/1 label column (any other columns
//!   are ignored), e.g. a scored sample checked by hand;
//! - [`label_mined_pairs`]: pairs mined with ids (`bitext mine` over BUCC sentence files,
//!   `score<TAB>src_id<TAB>tgt_id`) labelled by a BUCC gold file; recall is against the gold;
//! - [`noisy_labels`]: no labels at all — the user's own parallel pairs, a share of their
//!   targets replaced by unrelated sentences (the noisy-parallel protocol of
//!   [`crate::noisy`]), scored by the scorer to calibrate.

use std::path::Path;

use bitext_core::io::LineReader;
use bitext_core::io::tsv::MinedPair;
use bitext_similarity::PairScorer;

use super::LabelledScores;
use crate::bucc::GoldSet;
use crate::error::{Error, Result};
use crate::noisy::{NoisyParallel, NoisyTarget};

/// Read labelled scores from a TSV: the score in column `score_col` and the label (`0` or `1`)
/// in column `label_col`, both **0-based**; lines may have more columns.
///
/// # Errors
/// Naming the file and line: a missing column, a score that is not a finite number, a label
/// other than `0`/`1`; an empty file.
pub fn read_labelled_tsv(
    path: impl AsRef<Path>,
    score_col: usize,
    label_col: usize,
) -> Result<LabelledScores> {
    if score_col == label_col {
        return Err(Error::Invalid(format!(
            "the score and the label are both in column {}",
            score_col + 1
        )));
    }
    let mut scored = Vec::new();
    let need = score_col.max(label_col) + 1;
    LineReader::open(path)?.each_line("labelled scores", |r, line| {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() < need {
            return Err(r.error(format!(
                "{} tab-separated fields, but the score and label columns need {need}",
                fields.len()
            )));
        }
        let (s, l) = (fields[score_col].trim(), fields[label_col].trim());
        let score: f64 = s
            .parse()
            .map_err(|_| r.error(format!("score {s:?} is not a number")))?;
        if !score.is_finite() {
            return Err(r.error(format!("score {s} is not a finite number")));
        }
        let label = match l {
            "1" => true,
            "0" => false,
            _ => return Err(r.error(format!("label {l:?} is not 0 or 1"))),
        };
        scored.push((score, label));
        Ok(())
    })?;
    LabelledScores::new(scored)
}

/// Label mined pairs (ids) with a gold set: a pair is parallel when the gold holds it; recall
/// is against every gold pair, mined or not.
///
/// # Errors
/// [`Error::DuplicatePair`] when a pair is mined twice; [`Error::NonFiniteScore`].
pub fn label_mined_pairs(gold: &GoldSet<String>, mined: &[MinedPair]) -> Result<LabelledScores> {
    let candidates: Vec<(f64, String, String)> = mined
        .iter()
        .map(|p| (p.score, p.src.clone(), p.tgt.clone()))
        .collect();
    LabelledScores::with_relevant(gold.label(&candidates)?, gold.len())
}

/// Which pairs of a noisy-parallel test are scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoisyPairs {
    /// The `N` aligned pairs `(j, j)`: parallel unless target `j` was replaced. Calibrates a
    /// filter of aligned pairs whose noise share is the test's ratio.
    Aligned,
    /// The whole `N × N` product (the protocol's own test): calibrates scoring of all pairs,
    /// where almost every pair is non-parallel.
    Product,
}

/// Labelled scores from a noisy-parallel test: `scorer` is built over the `N` sources and the
/// test's `N` targets ([`NoisyParallel::target_items`]); a pair is parallel when it is
/// `(j, j)` and target `j` was kept.
///
/// # Errors
/// [`Error::Invalid`] when the scorer is not `N × N`; the scorer's errors.
pub fn noisy_labels(
    test: &NoisyParallel,
    scorer: &dyn PairScorer,
    pairs: NoisyPairs,
) -> Result<LabelledScores> {
    let n = test.len();
    if scorer.sizes() != (n, n) {
        return Err(Error::Invalid(format!(
            "the scorer holds {:?} sentences, the test {n} × {n}",
            scorer.sizes()
        )));
    }
    let parallel = |i: usize, j: usize| {
        i == j && matches!(test.targets()[j], NoisyTarget::Parallel(k) if k == j)
    };
    let mut scored = Vec::new();
    let rows: Vec<Vec<(usize, usize)>> = match pairs {
        NoisyPairs::Aligned => vec![(0..n).map(|j| (j, j)).collect()],
        NoisyPairs::Product => (0..n).map(|i| (0..n).map(|j| (i, j)).collect()).collect(),
    };
    for row in rows {
        let s = scorer.score(&row)?;
        scored.extend(
            s.into_iter()
                .zip(&row)
                .map(|(s, &(i, j))| (s, parallel(i, j))),
        );
    }
    LabelledScores::with_relevant(scored, test.gold().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitext_core::Rng;

    #[test]
    fn tsv_reader_checks_every_field() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("l.tsv");
        std::fs::write(&p, "x\t0.5\t1\ny\t-1e-2\t0\n").unwrap();
        let l = read_labelled_tsv(&p, 1, 2).unwrap();
        assert_eq!(l.scored, vec![(0.5, true), (-0.01, false)]);
        assert_eq!(l.relevant, 1);
        for (content, want) in [
            ("x\t0.5\t2\n", ":1: label \"2\" is not 0 or 1"),
            (
                "x\t0.5\t1\ny\tNaN\t0\n",
                ":2: score NaN is not a finite number",
            ),
            ("x\tabc\t1\n", ":1: score \"abc\" is not a number"),
            ("x\t0.5\n", ":1: 2 tab-separated fields"),
            ("", "file is empty"),
        ] {
            std::fs::write(&p, content).unwrap();
            let e = read_labelled_tsv(&p, 1, 2).unwrap_err().to_string();
            assert!(e.contains("l.tsv") && e.contains(want), "{e}");
        }
        assert!(read_labelled_tsv(&p, 1, 1).is_err());
    }

    /// Scores pair `(i, j)` 1 when target `j` is source `i`'s own sentence, else 0.
    struct Oracle(Vec<NoisyTarget>);

    impl PairScorer for Oracle {
        fn sizes(&self) -> (usize, usize) {
            (self.0.len(), self.0.len())
        }
        fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
            let own = |i: usize, j: usize| matches!(self.0[j], NoisyTarget::Parallel(k) if k == i);
            Ok(pairs
                .iter()
                .map(|&(i, j)| f64::from(u8::from(own(i, j))))
                .collect())
        }
    }

    #[test]
    fn noisy_labels_mark_the_kept_aligned_pairs() {
        let t = NoisyParallel::build(10, 10, 0.3, &mut Rng::seed(3)).unwrap();
        let oracle = Oracle(t.targets().to_vec());
        let a = noisy_labels(&t, &oracle, NoisyPairs::Aligned).unwrap();
        assert_eq!((a.scored.len(), a.positives(), a.relevant), (10, 7, 7));
        assert!(a.scored.iter().all(|&(s, y)| (s == 1.0) == y));
        let p = noisy_labels(&t, &oracle, NoisyPairs::Product).unwrap();
        assert_eq!((p.scored.len(), p.positives()), (100, 7));
        assert!(p.scored.iter().all(|&(s, y)| (s == 1.0) == y));
    }

    #[test]
    fn mined_pairs_are_labelled_against_the_gold() {
        let gold =
            GoldSet::new([("a".to_string(), "x".to_string()), ("b".into(), "y".into())]).unwrap();
        let mined = [
            MinedPair {
                score: 1.2,
                src: "a".into(),
                tgt: "x".into(),
            },
            MinedPair {
                score: 1.1,
                src: "b".into(),
                tgt: "x".into(),
            },
        ];
        let l = label_mined_pairs(&gold, &mined).unwrap();
        assert_eq!((l.scored, l.relevant), (vec![(1.2, true), (1.1, false)], 2));
    }
}
