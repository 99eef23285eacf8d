//! [`ClassifierScorer`]: a classifier as a [`PairScorer`] over two lists of sentences, so that
//! every command that ranks, filters or thresholds scores (`bitext filter`, `bitext clean`)
//! takes it like any other scorer.

use std::sync::Arc;

use bitext_similarity::PairScorer;

use crate::model::Classifier;

/// Pairs scored at a time.
const BATCH: usize = 4096;

/// Scores pair `(i, j)` as the classifier scores `(src[i], tgt[j])`, in `[0, 1]`
/// ([`Classifier::scores_of`]).
#[derive(Debug, Clone)]
pub struct ClassifierScorer {
    classifier: Arc<Classifier>,
    src: Vec<String>,
    tgt: Vec<String>,
}

impl ClassifierScorer {
    /// The scorer of `classifier` over the two lists.
    #[must_use]
    pub fn new(classifier: Arc<Classifier>, src: Vec<String>, tgt: Vec<String>) -> Self {
        Self {
            classifier,
            src,
            tgt,
        }
    }
}

impl PairScorer for ClassifierScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        let mut out = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(BATCH) {
            let s: Vec<&str> = chunk.iter().map(|p| self.src[p.0].as_str()).collect();
            let t: Vec<&str> = chunk.iter().map(|p| self.tgt[p.1].as_str()).collect();
            out.extend(
                self.classifier
                    .score(&s, &t)
                    .map_err(|e| bitext_similarity::Error::Invalid(e.to_string()))?,
            );
        }
        Ok(out)
    }
}
