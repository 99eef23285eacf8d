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

/// What a sentence with nothing to encode becomes: for the bag of words a sentence with no
/// known word (no token in its side's vocabulary), for the encoders that read token ids (a
/// neural model, an ONNX graph) a sentence with no token at all (an empty line, or a line the
/// tokenizer drops whole, such as `&nbsp;&nbsp;` for a word vocabulary, which unescapes HTML
/// entities). Every encoder spec spells it `"no_known_word": "error"` (the default) or
/// `"zero"`. A sentence of unknown words only is not such a sentence for those encoders: their
/// tokenizers give it `<unk>` tokens or pieces, which are encoded.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NoKnownWord {
    /// Encoding fails with [`Error::NoKnownWord`] (bag of words) or [`Error::NoToken`],
    /// naming the side, the sentence's position and its text.
    #[default]
    Error,
    /// A zero row: its cosine with any vector is 0 (the bag of words lists it in
    /// [`crate::Coverage::no_known_word`]).
    Zero,
}

impl NoKnownWord {
    /// The rows of a batch of `sentences` of `side`, tokenised as `ids`, for an encoder that
    /// cannot encode a sentence without tokens: a sentence whose ids are empty is
    /// [`Error::NoToken`] (the first one, under [`NoKnownWord::Error`]) or a zero row
    /// ([`NoKnownWord::Zero`]); the others are encoded by `encode`, called once with their ids
    /// in order (not at all when there are none).
    ///
    /// # Errors
    /// As said; `encode`'s errors; `encode` giving another number of rows or another
    /// dimension than `dim`.
    pub fn encode_ids<E: From<Error>>(
        self,
        side: Side,
        sentences: &[&str],
        ids: Vec<Vec<u32>>,
        dim: usize,
        encode: impl FnOnce(&[Vec<u32>]) -> std::result::Result<Embeddings, E>,
    ) -> std::result::Result<Embeddings, E> {
        let empty: Vec<bool> = ids.iter().map(Vec::is_empty).collect();
        let Some(first) = empty.iter().position(|&e| e) else {
            return encode(&ids);
        };
        if self == NoKnownWord::Error {
            return Err(Error::NoToken {
                side,
                index: first,
                sentence: sentences
                    .get(first)
                    .map_or_else(String::new, |s| (*s).to_owned()),
            }
            .into());
        }
        let kept: Vec<Vec<u32>> = ids.into_iter().filter(|x| !x.is_empty()).collect();
        let mut out = Embeddings::zeros(empty.len(), dim).map_err(Error::from)?;
        if kept.is_empty() {
            return Ok(out);
        }
        let rows = encode(&kept)?;
        if rows.len() != kept.len() || rows.dim() != dim {
            return Err(Error::Invalid(format!(
                "encoder returned {}×{} for {} sentences of dimension {dim}",
                rows.len(),
                rows.dim(),
                kept.len()
            ))
            .into());
        }
        let targets = empty.iter().enumerate().filter(|(_, e)| !**e);
        for ((i, _), row) in targets.zip(rows.rows()) {
            out.row_mut(i).copy_from_slice(row);
        }
        Ok(out)
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

    /// What the encoder chose by measuring on this machine (e.g. an ONNX encoder's sessions ×
    /// threads), for a run's summary; `None` when it measured nothing.
    fn tuning(&self) -> Option<String> {
        None
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
            fn tuning(&self) -> Option<String> {
                (**self).tuning()
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
    fn sentences_without_tokens_are_errors_or_zero_rows() {
        let sentences = ["a b", "", "c"];
        let ids = || vec![vec![1, 2], vec![], vec![3]];
        // Each sentence's row: its ids summed, in the first column.
        let sums = |ids: &[Vec<u32>]| -> Result<Embeddings> {
            Ok(Embeddings::from_rows(
                ids.iter().map(|x| [x.iter().sum::<u32>() as f32, 1.0]),
                2,
            )?)
        };
        let e = NoKnownWord::Error
            .encode_ids(Side::Target, &sentences, ids(), 2, sums)
            .unwrap_err();
        assert!(matches!(e, Error::NoToken { index: 1, .. }), "{e}");
        assert_eq!(e.to_string(), "target sentence 1 has no token: \"\"");
        assert!(matches!(e.shifted(4), Error::NoToken { index: 5, .. }));
        let z = NoKnownWord::Zero
            .encode_ids(Side::Target, &sentences, ids(), 2, sums)
            .unwrap();
        assert_eq!(z.as_slice(), [3.0, 1.0, 0.0, 0.0, 3.0, 1.0]);
        // Nothing to encode: no call at all.
        let none = NoKnownWord::Zero
            .encode_ids(
                Side::Source,
                &["", " "],
                vec![vec![], vec![]],
                2,
                |_| -> Result<Embeddings> { unreachable!("no sentence has tokens") },
            )
            .unwrap();
        assert_eq!(none.as_slice(), [0.0; 4]);
        // A wrong shape from the encoder is an error, not a panic.
        let short = NoKnownWord::Zero.encode_ids(Side::Source, &sentences, ids(), 2, |_| {
            Ok::<_, Error>(Embeddings::zeros(1, 2)?)
        });
        assert!(short.is_err());
        let serde: NoKnownWord = serde_json::from_str("\"zero\"").unwrap();
        assert_eq!(serde, NoKnownWord::Zero);
    }

    #[test]
    fn wrong_batch_shape_is_an_error() {
        assert!(Broken.encode(Side::Source, &["a", "b"]).is_err());
    }
}
