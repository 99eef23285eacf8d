//! The [`Tokenizer`] trait (text → token ids and pieces, ids → text), the [`Encoding`] it
//! returns, and the one switch that turns batch parallelism off ([`set_parallelism`], or the
//! environment variable `BITEXT_PARALLELISM=false`).

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;

use crate::error::{Error, Result};

/// The result of encoding one text: token ids and the pieces they came from, one each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Encoding {
    /// Token ids, each below [`Tokenizer::vocab_size`].
    pub ids: Vec<u32>,
    /// The piece of text behind each id (`pieces.len() == ids.len()`). A piece that is not in
    /// the vocabulary keeps its text while its id is the unknown token's, as in sentencepiece.
    pub pieces: Vec<String>,
}

impl Encoding {
    /// Number of tokens.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are no tokens.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// Ids of the special tokens a model needs, where the vocabulary has them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SpecialIds {
    /// Padding.
    pub pad: Option<u32>,
    /// Unknown token.
    pub unk: Option<u32>,
    /// Beginning of sentence.
    pub bos: Option<u32>,
    /// End of sentence.
    pub eos: Option<u32>,
}

/// Turns text into token ids and back.
///
/// Implementors write [`Tokenizer::encode`], [`Tokenizer::decode`], [`Tokenizer::vocab_size`]
/// and [`Tokenizer::token_to_id`]. The provided methods add ids-only encoding (override it
/// when ids come cheaper than pieces), batch encoding on all cores, and the special-token ids
/// under their conventional names (`<pad>`, `<unk>`, `<s>`, `</s>`, language tags `<de>`),
/// which sentencepiece models and [`crate::Vocab`] share.
pub trait Tokenizer: Send + Sync {
    /// Encode one text.
    ///
    /// # Errors
    /// When the backend fails; the error says why.
    fn encode(&self, text: &str) -> Result<Encoding>;

    /// Turn ids back into text.
    ///
    /// # Errors
    /// [`Error::UnknownId`] for an id outside the vocabulary.
    fn decode(&self, ids: &[u32]) -> Result<String>;

    /// Number of ids; every id is below it.
    fn vocab_size(&self) -> usize;

    /// The id of a token (piece), if the vocabulary has it.
    fn token_to_id(&self, token: &str) -> Option<u32>;

    /// Encode one text to ids only.
    ///
    /// # Errors
    /// As [`Tokenizer::encode`].
    fn encode_ids(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.encode(text)?.ids)
    }

    /// Ids of the special tokens, looked up under their conventional names `<pad>`, `<unk>`,
    /// `<s>` and `</s>`.
    fn special_ids(&self) -> SpecialIds {
        SpecialIds {
            pad: self.token_to_id("<pad>"),
            unk: self.token_to_id("<unk>"),
            bos: self.token_to_id("<s>"),
            eos: self.token_to_id("</s>"),
        }
    }

    /// The id of the language tag `<lang>` (e.g. `lang_id("de")` looks up `<de>`).
    fn lang_id(&self, lang: &str) -> Option<u32> {
        self.token_to_id(&format!("<{lang}>"))
    }

    /// Encode many texts, on all cores unless [`parallelism`] is off. The result is the same
    /// either way: item `i` encodes `texts[i]`.
    ///
    /// # Errors
    /// [`Error::Item`] naming the first text (in batch order) that failed.
    fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Encoding>> {
        map_batch(texts, |t| self.encode(t))
    }

    /// Encode many texts to ids only, on all cores unless [`parallelism`] is off.
    ///
    /// # Errors
    /// As [`Tokenizer::encode_batch`].
    fn encode_batch_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        map_batch(texts, |t| self.encode_ids(t))
    }
}

macro_rules! forward_tokenizer {
    ($($ty:ty),*) => {$(
        impl<T: Tokenizer + ?Sized> Tokenizer for $ty {
            fn encode(&self, text: &str) -> Result<Encoding> {
                (**self).encode(text)
            }
            fn decode(&self, ids: &[u32]) -> Result<String> {
                (**self).decode(ids)
            }
            fn vocab_size(&self) -> usize {
                (**self).vocab_size()
            }
            fn token_to_id(&self, token: &str) -> Option<u32> {
                (**self).token_to_id(token)
            }
            fn encode_ids(&self, text: &str) -> Result<Vec<u32>> {
                (**self).encode_ids(text)
            }
            fn special_ids(&self) -> SpecialIds {
                (**self).special_ids()
            }
            fn lang_id(&self, lang: &str) -> Option<u32> {
                (**self).lang_id(lang)
            }
            fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Encoding>> {
                (**self).encode_batch(texts)
            }
            fn encode_batch_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
                (**self).encode_batch_ids(texts)
            }
        }
    )*};
}
forward_tokenizer!(&T, Box<T>, Arc<T>);

/// 0: not set (use the environment), 1: on, 2: off.
static PARALLELISM: AtomicU8 = AtomicU8::new(0);

/// Whether batch operations of this crate use all cores (rayon).
///
/// On unless turned off by [`set_parallelism`]`(false)` or, when that was never called, by
/// the environment variable `BITEXT_PARALLELISM` set to `0`, `false`, `off` or `no` (read once,
/// like `TOKENIZERS_PARALLELISM` of HuggingFace tokenizers). Turn it off when the caller
/// already runs one tokenizer per core.
#[must_use]
pub fn parallelism() -> bool {
    match PARALLELISM.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            static FROM_ENV: OnceLock<bool> = OnceLock::new();
            *FROM_ENV.get_or_init(|| {
                std::env::var("BITEXT_PARALLELISM").map_or(true, |v| {
                    !matches!(
                        v.trim().to_ascii_lowercase().as_str(),
                        "0" | "false" | "off" | "no"
                    )
                })
            })
        }
    }
}

/// Turn batch parallelism on or off for the whole process (overrides `BITEXT_PARALLELISM`).
pub fn set_parallelism(on: bool) {
    PARALLELISM.store(if on { 1 } else { 2 }, Ordering::Relaxed);
}

/// Map `f` over `items` in order, in parallel when [`parallelism`] is on; the first error (in
/// item order) is returned as [`Error::Item`].
pub(crate) fn map_batch<I: Sync, T: Send>(
    items: &[I],
    f: impl Fn(&I) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let wrap = |index: usize, r: Result<T>| {
        r.map_err(|e| Error::Item {
            index,
            source: Box::new(e),
        })
    };
    if parallelism() && items.len() > 1 {
        let results: Vec<Result<T>> = items.par_iter().with_min_len(32).map(&f).collect();
        results
            .into_iter()
            .enumerate()
            .map(|(i, r)| wrap(i, r))
            .collect()
    } else {
        items
            .iter()
            .enumerate()
            .map(|(i, x)| wrap(i, f(x)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tokenizer over a fixed alphabet: one id per ASCII lowercase letter, `?` fails.
    struct Letters;

    impl Tokenizer for Letters {
        fn encode(&self, text: &str) -> Result<Encoding> {
            let mut e = Encoding::default();
            for c in text.chars() {
                let id = self
                    .token_to_id(c.encode_utf8(&mut [0; 4]))
                    .ok_or_else(|| Error::InvalidArgument(format!("no letter {c:?}")))?;
                e.ids.push(id);
                e.pieces.push(c.to_string());
            }
            Ok(e)
        }
        fn decode(&self, ids: &[u32]) -> Result<String> {
            ids.iter()
                .map(|&id| match u8::try_from(id) {
                    Ok(b) if b < 26 => Ok(char::from(b'a' + b)),
                    _ => Err(Error::UnknownId { id, vocab_size: 26 }),
                })
                .collect()
        }
        fn vocab_size(&self) -> usize {
            26
        }
        fn token_to_id(&self, token: &str) -> Option<u32> {
            match token.as_bytes() {
                [b @ b'a'..=b'z'] => Some(u32::from(b - b'a')),
                _ => None,
            }
        }
    }

    #[test]
    fn provided_methods_and_forwarding() {
        let boxed: Box<dyn Tokenizer> = Box::new(Letters);
        let arc: Arc<dyn Tokenizer> = Arc::new(Letters);
        assert_eq!(boxed.encode_ids("cab").unwrap(), vec![2, 0, 1]);
        fn generic<T: Tokenizer>(t: T) -> String {
            t.decode(&[7, 8]).unwrap()
        }
        assert_eq!(generic(&arc), "hi");
        assert_eq!(generic(&boxed), "hi");
        assert_eq!(arc.special_ids(), SpecialIds::default());
        assert_eq!(boxed.lang_id("de"), None);
        let texts: Vec<String> = (0..200).map(|i| "ab".repeat(i % 7)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let batch = boxed.encode_batch_ids(&refs).unwrap();
        for (t, ids) in refs.iter().zip(&batch) {
            assert_eq!(&Letters.encode_ids(t).unwrap(), ids);
        }
        assert!(matches!(
            Letters.decode(&[26]),
            Err(Error::UnknownId { id: 26, .. })
        ));
    }

    #[test]
    fn batch_error_names_the_first_failing_text() {
        let texts = ["ab", "a?", "ok", "??"];
        let e = Letters.encode_batch(&texts).unwrap_err();
        assert!(matches!(e, Error::Item { index: 1, .. }), "{e}");
        assert!(e.to_string().starts_with("text 1 of the batch: "), "{e}");
    }
}
