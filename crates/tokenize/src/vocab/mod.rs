//! Vocabularies: token ↔ id with special tokens (pad, unk, bos, eos, language tags), built
//! from token counts ([`TokenCounter`], [`VocabBuilder`]) and saved in a small text format
//! ([`Vocab::save`], described in [`file`](mod@file)).

mod build;
pub mod file;

use std::fmt;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::tokenizer::SpecialIds;

pub use build::{TokenCounter, VocabBuilder};

/// The strings of the four required special tokens.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SpecialTokens {
    /// Padding. Default `<pad>`.
    pub pad: String,
    /// Unknown token. Default `<unk>`.
    pub unk: String,
    /// Beginning of sentence. Default `<s>`.
    pub bos: String,
    /// End of sentence. Default `</s>`.
    pub eos: String,
}

impl Default for SpecialTokens {
    fn default() -> Self {
        Self {
            pad: "<pad>".into(),
            unk: "<unk>".into(),
            bos: "<s>".into(),
            eos: "</s>".into(),
        }
    }
}

/// What a special token is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Padding.
    Pad,
    /// Unknown token.
    Unk,
    /// Beginning of sentence.
    Bos,
    /// End of sentence.
    Eos,
    /// A language tag such as `<de>`.
    Lang,
}

impl Role {
    /// The name used in vocabulary files (`special=pad`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Pad => "pad",
            Role::Unk => "unk",
            Role::Bos => "bos",
            Role::Eos => "eos",
            Role::Lang => "lang",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [Role::Pad, Role::Unk, Role::Bos, Role::Eos, Role::Lang]
            .into_iter()
            .find(|r| r.name() == name)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The language tag token of a language code: `de` → `<de>`.
#[must_use]
pub fn lang_tag(lang: &str) -> String {
    format!("<{lang}>")
}

/// A token ↔ id map with special tokens.
///
/// Ids are dense (`0..len()`). A vocabulary always has exactly one pad, unk, bos and eos token,
/// any number of language tags, and regular tokens with their corpus counts. Built vocabularies
/// put pad, unk, bos, eos at ids 0–3, then the language tags, then regular tokens by
/// decreasing count (ties by token, byte order).
///
/// ```
/// use bitext_tokenize::{TokenCounter, VocabBuilder, WordTokenizer};
/// # fn main() -> bitext_tokenize::Result<()> {
/// let words = WordTokenizer::default();
/// let counts = TokenCounter::from_texts(&words, &["der Hund .", "der Hund bellt ."]);
/// let vocab = VocabBuilder::new().lang_tags(["de", "en"]).min_count(2).build(&counts)?;
/// assert_eq!(vocab.len(), 4 + 2 + 3); // specials, <de> <en>, "."/"Hund"/"der"
/// assert_eq!(vocab.id("."), Some(6));
/// assert_eq!(vocab.id_or_unk("bellt"), vocab.unk_id());
/// assert_eq!(vocab.lang_id("de"), Some(4));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocab {
    tokens: Vec<Box<str>>,
    /// Corpus count per id; 0 for special tokens.
    counts: Vec<u64>,
    roles: Vec<Option<Role>>,
    index: FxHashMap<Box<str>, u32>,
    specials: [u32; 4],
}

/// One entry of a vocabulary: a special token or a counted one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    Special(Role),
    Count(u64),
}

/// A vocabulary under construction: checks each entry as it comes, so that file readers can
/// name the line at fault.
#[derive(Debug, Default)]
pub(crate) struct VocabParts {
    tokens: Vec<Box<str>>,
    counts: Vec<u64>,
    roles: Vec<Option<Role>>,
    index: FxHashMap<Box<str>, u32>,
    specials: [Option<u32>; 4],
}

impl VocabParts {
    /// Add an entry; the error reason is in words, for the caller to place.
    pub(crate) fn push(&mut self, token: &str, entry: Entry) -> std::result::Result<u32, String> {
        check_token(token)?;
        let id = u32::try_from(self.tokens.len())
            .map_err(|_| "vocabulary has more than 2^32 entries".to_string())?;
        if let Some(&first) = self.index.get(token) {
            return Err(format!("duplicate token {token:?} (first at id {first})"));
        }
        let (count, role) = match entry {
            Entry::Special(role) => {
                if let Some(slot) = special_slot(role) {
                    if let Some(first) = self.specials[slot] {
                        return Err(format!(
                            "second {role} token {token:?} (the first is {:?})",
                            self.tokens[first as usize]
                        ));
                    }
                    self.specials[slot] = Some(id);
                }
                (0, Some(role))
            }
            Entry::Count(c) => (c, None),
        };
        self.tokens.push(token.into());
        self.counts.push(count);
        self.roles.push(role);
        self.index.insert(token.into(), id);
        Ok(id)
    }

    /// The vocabulary; fails (in words) when a required special token is missing.
    pub(crate) fn finish(self) -> std::result::Result<Vocab, String> {
        let mut specials = [0; 4];
        for (slot, role) in [Role::Pad, Role::Unk, Role::Bos, Role::Eos]
            .iter()
            .enumerate()
        {
            specials[slot] = self.specials[slot]
                .ok_or_else(|| format!("missing special token: no entry marked special={role}"))?;
        }
        Ok(Vocab {
            tokens: self.tokens,
            counts: self.counts,
            roles: self.roles,
            index: self.index,
            specials,
        })
    }
}

fn special_slot(role: Role) -> Option<usize> {
    match role {
        Role::Pad => Some(0),
        Role::Unk => Some(1),
        Role::Bos => Some(2),
        Role::Eos => Some(3),
        Role::Lang => None,
    }
}

/// A token must be non-empty and hold no tab or line break (it could not be saved).
pub(crate) fn check_token(token: &str) -> std::result::Result<(), String> {
    if token.is_empty() {
        return Err("empty token".into());
    }
    if token.contains(['\t', '\n', '\r']) {
        return Err(format!("token {token:?} holds a tab or line break"));
    }
    Ok(())
}

impl Vocab {
    /// Number of tokens (ids are `0..len()`).
    #[must_use]
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Always `false`: a vocabulary holds at least its four special tokens.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The id of `token`.
    #[must_use]
    pub fn id(&self, token: &str) -> Option<u32> {
        self.index.get(token).copied()
    }

    /// The id of `token`, or the unknown token's id.
    #[must_use]
    pub fn id_or_unk(&self, token: &str) -> u32 {
        self.id(token).unwrap_or(self.specials[1])
    }

    /// The token with id `id`.
    #[must_use]
    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(|t| &**t)
    }

    /// The corpus count of `id` (0 for special tokens).
    #[must_use]
    pub fn count(&self, id: u32) -> Option<u64> {
        self.counts.get(id as usize).copied()
    }

    /// The special role of `id`, if it is a special token.
    #[must_use]
    pub fn role(&self, id: u32) -> Option<Role> {
        self.roles.get(id as usize).copied().flatten()
    }

    /// Whether `id` is a special token (pad, unk, bos, eos or a language tag).
    #[must_use]
    pub fn is_special(&self, id: u32) -> bool {
        self.role(id).is_some()
    }

    /// Id of the padding token.
    #[must_use]
    pub fn pad_id(&self) -> u32 {
        self.specials[0]
    }

    /// Id of the unknown token.
    #[must_use]
    pub fn unk_id(&self) -> u32 {
        self.specials[1]
    }

    /// Id of the beginning-of-sentence token.
    #[must_use]
    pub fn bos_id(&self) -> u32 {
        self.specials[2]
    }

    /// Id of the end-of-sentence token.
    #[must_use]
    pub fn eos_id(&self) -> u32 {
        self.specials[3]
    }

    /// The four special ids.
    #[must_use]
    pub fn special_ids(&self) -> SpecialIds {
        SpecialIds {
            pad: Some(self.pad_id()),
            unk: Some(self.unk_id()),
            bos: Some(self.bos_id()),
            eos: Some(self.eos_id()),
        }
    }

    /// The id of the language tag of `lang` (`"de"` → the id of `<de>`), if the vocabulary has
    /// it as a language tag.
    #[must_use]
    pub fn lang_id(&self, lang: &str) -> Option<u32> {
        self.id(&lang_tag(lang))
            .filter(|&id| self.role(id) == Some(Role::Lang))
    }

    /// Ids of `tokens`, unknown ones mapped to the unknown token.
    #[must_use]
    pub fn encode<S: AsRef<str>>(&self, tokens: &[S]) -> Vec<u32> {
        tokens.iter().map(|t| self.id_or_unk(t.as_ref())).collect()
    }

    /// Tokens of `ids`.
    ///
    /// # Errors
    /// [`Error::UnknownId`] for an id outside the vocabulary.
    pub fn decode(&self, ids: &[u32]) -> Result<Vec<&str>> {
        ids.iter()
            .map(|&id| {
                self.token(id).ok_or(Error::UnknownId {
                    id,
                    vocab_size: self.len(),
                })
            })
            .collect()
    }

    /// Iterate over `(id, token, count)` in id order (count 0 for special tokens).
    pub fn iter(&self) -> impl Iterator<Item = (u32, &str, u64)> + '_ {
        self.tokens
            .iter()
            .zip(&self.counts)
            .enumerate()
            .map(|(i, (t, &c))| (i as u32, &**t, c))
    }
}
