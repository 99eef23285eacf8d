//! Inference with the siamese classifier: encoding many sentences in length-sorted batches,
//! and a `PairScorer` that encodes each sentence once and classifies pairs of vectors.

use bitext_core::Embeddings;
use bitext_encode::Side;
use bitext_similarity::PairScorer;
use burn::module::Module;

use crate::batch::Bucketing;
use crate::encoding::head_over_rows;
use crate::error::Result;
use crate::siamese::Siamese;
use crate::text::TextNetwork;

impl Siamese {
    /// Probabilities that `src.row(i)` and `tgt.row(i)` (sentence vectors from
    /// [`TextNetwork::encode_all`](crate::text::TextNetwork::encode_all)) translate each other, for rows `pairs`.
    ///
    /// # Errors
    /// [`Error::Input`](crate::Error::Input) for a wrong dimension or an index out of range.
    pub fn classify_vectors(
        &self,
        src: &Embeddings,
        tgt: &Embeddings,
        pairs: &[(usize, usize)],
    ) -> Result<Vec<f64>> {
        let device = self.matching.weight.device();
        head_over_rows(src, tgt, pairs, self.dim(), &device, |a, b| {
            self.head_probability(a, b)
        })
    }
}

/// A [`PairScorer`] over two corpora: every sentence is encoded once, then each pair's
/// vectors go through the classifier's head; the score is the probability that the pair is
/// parallel.
#[derive(Debug)]
pub struct SiameseScorer {
    model: Siamese,
    src: Embeddings,
    tgt: Embeddings,
}

impl SiameseScorer {
    /// Encode `src` (source side) and `tgt` (target side) as token ids.
    ///
    /// # Errors
    /// As [`TextNetwork::encode_all`](crate::text::TextNetwork::encode_all).
    pub fn from_ids(
        model: &Siamese,
        src: &[&[u32]],
        tgt: &[&[u32]],
        batching: &Bucketing,
    ) -> Result<Self> {
        let model = model.valid();
        let s = model.encode_all(src, Side::Source, batching)?;
        let t = model.encode_all(tgt, Side::Target, batching)?;
        Ok(Self::from_vectors(&model, s, t))
    }

    /// A scorer over sentence vectors already computed by `model`.
    #[must_use]
    pub fn from_vectors(model: &Siamese, src: Embeddings, tgt: Embeddings) -> Self {
        Self {
            model: model.valid(),
            src,
            tgt,
        }
    }

    /// The source sentence vectors.
    #[must_use]
    pub fn src_vectors(&self) -> &Embeddings {
        &self.src
    }

    /// The target sentence vectors.
    #[must_use]
    pub fn tgt_vectors(&self) -> &Embeddings {
        &self.tgt
    }
}

impl PairScorer for SiameseScorer {
    fn sizes(&self) -> (usize, usize) {
        (self.src.len(), self.tgt.len())
    }

    fn score_batch(&self, pairs: &[(usize, usize)]) -> bitext_similarity::Result<Vec<f64>> {
        Ok(self.model.classify_vectors(&self.src, &self.tgt, pairs)?)
    }
}
