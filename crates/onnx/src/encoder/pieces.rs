//! What an [`OnnxEncoder`] gives of single pieces: the pieces of the graph's own tokenizer
//! and the vector of each piece fed alone (a student's starting table when the spec's output
//! is the graph's embedding lookup).

use bitext_core::Embeddings;
use bitext_encode::{Error, Result};

use super::OnnxEncoder;

impl OnnxEncoder {
    /// The pieces of the graph's own tokenizer by id (`None` for a graph fed by the spec's
    /// tokenizer).
    #[must_use]
    pub fn pieces(&self) -> Option<&[String]> {
        self.pieces.as_deref()
    }

    /// The vector of each piece id alone: `ids[i]` fed as a sentence of that one piece (no
    /// BOS or EOS), the spec's output read (normalised as the spec says). With `output` naming
    /// the graph's embedding lookup (an intermediate tensor, one row per piece), these are the
    /// graph's own input vectors of its vocabulary: what a student encoder can start from
    /// (`bitext train --init-vectors onnx:SPEC`). `progress` gets the number done.
    ///
    /// # Errors
    /// An id outside the vocabulary, or as [`bitext_encode::SentenceEncoder::encode_batch`].
    pub fn piece_vectors(
        &self,
        ids: &[u32],
        progress: &mut dyn FnMut(usize),
    ) -> Result<Embeddings> {
        let vocab = self.tokenizer.vocab_size();
        if let Some(&bad) = ids.iter().find(|&&i| i as usize >= vocab) {
            return Err(Error::Invalid(format!(
                "{}: piece id {bad} is outside the vocabulary of {vocab}",
                self.spec.model.display()
            )));
        }
        let mut rows = Vec::with_capacity(ids.len() * self.dim);
        self.sessions.with_free(&mut |session| {
            for chunk in ids.chunks(self.spec.batch.max(1)) {
                let sentences: Vec<Vec<u32>> = chunk.iter().map(|&i| vec![i]).collect();
                let (r, d) = self.run_ids(session, &sentences)?;
                if d != self.dim {
                    return Err(Error::Invalid(format!(
                        "{}: output dimension {d}, expected {}",
                        self.spec.model.display(),
                        self.dim
                    )));
                }
                rows.extend_from_slice(&r);
                progress(rows.len() / self.dim.max(1));
            }
            Ok(())
        })?;
        Ok(Embeddings::new(rows, self.dim)?)
    }
}
