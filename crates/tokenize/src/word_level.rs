//! [`WordLevel`]: the word tokenizer and a vocabulary together, as a [`Tokenizer`] (one id per
//! word, unknown words mapped to `<unk>`).

use crate::error::{Error, Result};
use crate::sequence::SequenceConfig;
use crate::tokenizer::{Encoding, SpecialIds, Tokenizer};
use crate::vocab::Vocab;
use crate::word::WordTokenizer;

/// A word-level tokenizer: [`WordTokenizer`] splits, [`Vocab`] maps words to ids, a
/// [`SequenceConfig`] adds bos/eos and truncates.
///
/// Pieces are the words as the word tokenizer produced them (an unknown word keeps its text
/// while its id is `<unk>`'s); special tokens appear under their vocabulary strings.
/// [`Tokenizer::decode`] joins the words of the ids with single spaces, leaving out pad, bos,
/// eos and language tags; it does not undo tokenization (`Hund , sagte` stays spaced).
///
/// ```
/// use bitext_tokenize::{SequenceConfig, TokenCounter, Tokenizer, VocabBuilder, WordLevel, WordTokenizer};
/// # fn main() -> bitext_tokenize::Result<()> {
/// let words = WordTokenizer::builder().lowercase(true).build();
/// let counts = TokenCounter::from_texts(&words, &["Der Hund bellt .", "Der Hund schläft ."]);
/// let vocab = VocabBuilder::new().lang_tags(["de"]).build(&counts)?;
/// let seq = SequenceConfig { add_eos: true, ..SequenceConfig::default() };
/// let tok = WordLevel::new(words, vocab, seq)?;
/// let enc = tok.encode("Der Hund miaut.")?;
/// assert_eq!(enc.pieces, ["der", "hund", "miaut", ".", "</s>"]);
/// assert_eq!(enc.ids[2], tok.vocab().unk_id());
/// assert_eq!(tok.decode(&enc.ids)?, "der hund <unk> .");
/// assert_eq!(tok.encode_ids_lang("hund", "de")?, [4, tok.vocab().id("hund").unwrap(), 3]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordLevel {
    words: WordTokenizer,
    vocab: Vocab,
    sequence: SequenceConfig,
}

impl WordLevel {
    /// Combine a word tokenizer, a vocabulary and a framing.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `sequence` fails [`SequenceConfig::check`].
    pub fn new(words: WordTokenizer, vocab: Vocab, sequence: SequenceConfig) -> Result<Self> {
        sequence.check()?;
        Ok(Self {
            words,
            vocab,
            sequence,
        })
    }

    /// The word tokenizer.
    #[must_use]
    pub fn words(&self) -> &WordTokenizer {
        &self.words
    }

    /// The vocabulary.
    #[must_use]
    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// The framing.
    #[must_use]
    pub fn sequence(&self) -> &SequenceConfig {
        &self.sequence
    }

    fn lang(&self, lang: Option<&str>) -> Result<Option<u32>> {
        lang.map(|l| {
            self.vocab.lang_id(l).ok_or_else(|| {
                Error::InvalidArgument(format!("the vocabulary has no language tag <{l}>"))
            })
        })
        .transpose()
    }

    fn encode_opt(&self, text: &str, lang: Option<&str>) -> Result<Encoding> {
        let lang = self.lang(lang)?;
        let mut enc = Encoding::default();
        self.words.for_each_token(text, |t| {
            enc.ids.push(self.vocab.id_or_unk(t));
            enc.pieces.push(t.to_owned());
        });
        let vocab = &self.vocab;
        self.sequence
            .apply(&mut enc, &vocab.special_ids(), lang, |id| {
                vocab.token(id).unwrap_or_default().to_owned()
            })?;
        Ok(enc)
    }

    fn encode_ids_opt(&self, text: &str, lang: Option<&str>) -> Result<Vec<u32>> {
        let lang = self.lang(lang)?;
        let mut ids = Vec::new();
        self.words
            .for_each_token(text, |t| ids.push(self.vocab.id_or_unk(t)));
        self.sequence
            .apply_ids(&mut ids, &self.vocab.special_ids(), lang)?;
        Ok(ids)
    }

    /// Encode `text` with the language tag of `lang` (`<de>`) first.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the vocabulary has no tag for `lang`.
    pub fn encode_lang(&self, text: &str, lang: &str) -> Result<Encoding> {
        self.encode_opt(text, Some(lang))
    }

    /// Encode `text` to ids with the language tag of `lang` first.
    ///
    /// # Errors
    /// As [`WordLevel::encode_lang`].
    pub fn encode_ids_lang(&self, text: &str, lang: &str) -> Result<Vec<u32>> {
        self.encode_ids_opt(text, Some(lang))
    }
}

impl Tokenizer for WordLevel {
    fn encode(&self, text: &str) -> Result<Encoding> {
        self.encode_opt(text, None)
    }

    fn encode_ids(&self, text: &str) -> Result<Vec<u32>> {
        self.encode_ids_opt(text, None)
    }

    fn decode(&self, ids: &[u32]) -> Result<String> {
        let mut out = String::new();
        for (&id, token) in ids.iter().zip(self.vocab.decode(ids)?) {
            if self.vocab.is_special(id) && id != self.vocab.unk_id() {
                continue;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(token);
        }
        Ok(out)
    }

    fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.vocab.id(token)
    }

    fn special_ids(&self) -> SpecialIds {
        self.vocab.special_ids()
    }

    fn lang_id(&self, lang: &str) -> Option<u32> {
        self.vocab.lang_id(lang)
    }
}
