//! The [`SentenceEncoder`] trait: sentences in, one embedding row per sentence out.

use std::sync::Arc;

use bitext_core::Embeddings;

use crate::error::{Error, Result};

/// Which side of a bitext sentences come from. Encoders with one network per language (Kim et
/// al. 2019) choose by side; language-agnostic encoders (a shared BiGRU, LASER) ignore it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The source language.
    Source,
    /// The target language.
    Target,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Source => "source",
            Side::Target => "target",
        })
    }
}

/// Turns sentences into fixed-size vectors in a space shared by both languages.
///
/// Implementors write [`SentenceEncoder::dim`] and [`SentenceEncoder::encode_batch`]; the
/// provided [`SentenceEncoder::encode`] splits any number of sentences into batches of
/// [`SentenceEncoder::batch_size`].
pub trait SentenceEncoder: Send + Sync {
    /// Embedding dimension.
    fn dim(&self) -> usize;

    /// Encode one batch: row `i` of the result embeds `sentences[i]`.
    ///
    /// # Errors
    /// When a sentence cannot be encoded; the error says which and why.
    fn encode_batch(&self, side: Side, sentences: &[&str]) -> Result<Embeddings>;

    /// Sentences per batch used by [`SentenceEncoder::encode`].
    fn batch_size(&self) -> usize {
        256
    }

    /// Encode any number of sentences, batch by batch, calling `progress` with the number of
    /// sentences done after each batch.
    ///
    /// # Errors
    /// As [`SentenceEncoder::encode_batch`]; a batch whose shape is wrong.
    fn encode_with_progress(
        &self,
        side: Side,
        sentences: &[&str],
        progress: &mut dyn FnMut(usize),
    ) -> Result<Embeddings> {
        let mut out = Embeddings::with_capacity(self.dim(), sentences.len())?;
        let mut done = 0;
        for chunk in sentences.chunks(self.batch_size().max(1)) {
            // Errors name sentences by their position in `sentences`, not in the batch.
            let e = self
                .encode_batch(side, chunk)
                .map_err(|e| e.shifted(done))?;
            if e.len() != chunk.len() || e.dim() != self.dim() {
                return Err(Error::Invalid(format!(
                    "encoder returned {}×{} for a batch of {} sentences of dimension {}",
                    e.len(),
                    e.dim(),
                    chunk.len(),
                    self.dim()
                )));
            }
            out.extend_from_view(e.view())?;
            done += chunk.len();
            progress(done);
        }
        Ok(out)
    }

    /// Encode any number of sentences.
    ///
    /// # Errors
    /// As [`SentenceEncoder::encode_with_progress`].
    fn encode(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
        self.encode_with_progress(side, sentences, &mut |_| {})
    }
}

macro_rules! forward_encoder {
    ($($ty:ty),*) => {$(
        impl<T: SentenceEncoder + ?Sized> SentenceEncoder for $ty {
            fn dim(&self) -> usize {
                (**self).dim()
            }
            fn encode_batch(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
                (**self).encode_batch(side, sentences)
            }
            fn batch_size(&self) -> usize {
                (**self).batch_size()
            }
            // Forwarded too: an encoder may batch its own way (`bitext_onnx::OnnxEncoder`
            // sorts by length), and a box or reference must not fall back to the default.
            fn encode_with_progress(
                &self,
                side: Side,
                sentences: &[&str],
                progress: &mut dyn FnMut(usize),
            ) -> Result<Embeddings> {
                (**self).encode_with_progress(side, sentences, progress)
            }
        }
    )*};
}
forward_encoder!(&T, Box<T>, Arc<T>);

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes a sentence as (length, side) — enough to check batching and forwarding.
    struct Len;

    impl SentenceEncoder for Len {
        fn dim(&self) -> usize {
            2
        }
        fn encode_batch(&self, side: Side, sentences: &[&str]) -> Result<Embeddings> {
            let s = if side == Side::Source { 0.0 } else { 1.0 };
            Ok(Embeddings::from_rows(
                sentences.iter().map(|x| [x.len() as f32, s]),
                2,
            )?)
        }
        fn batch_size(&self) -> usize {
            2
        }
    }

    #[test]
    fn encode_batches_in_order_and_reports_progress() {
        let sents = ["a", "bb", "ccc", "dddd", "eeeee"];
        let mut seen = Vec::new();
        let boxed: Box<dyn SentenceEncoder> = Box::new(Len);
        let e = boxed
            .encode_with_progress(Side::Target, &sents, &mut |n| seen.push(n))
            .unwrap();
        assert_eq!(seen, vec![2, 4, 5]);
        assert_eq!(e.len(), 5);
        assert_eq!(e.row(4), &[5.0, 1.0]);
    }

    struct Broken;

    impl SentenceEncoder for Broken {
        fn dim(&self) -> usize {
            3
        }
        fn encode_batch(&self, _: Side, _: &[&str]) -> Result<Embeddings> {
            Ok(Embeddings::zeros(1, 3)?)
        }
    }

    #[test]
    fn wrong_batch_shape_is_an_error() {
        assert!(Broken.encode(Side::Source, &["a", "b"]).is_err());
    }
}
