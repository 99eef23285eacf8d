//! Framing token sequences for a model: language tag, bos and eos tokens, and truncation to a
//! maximum length (the seed papers train on sentences of at most 60 or 80 tokens).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::tokenizer::{Encoding, SpecialIds};

/// How a sequence of token ids is framed: `[<lang>] [<s>] content… [</s>]`, cut to at most
/// `max_len` ids.
///
/// `max_len` counts **every** id of the result, special tokens included: the content is cut
/// at its end to `max_len` minus the number of special tokens, and the special tokens are
/// always kept (so a truncated sentence still ends with `</s>`). With the default (no
/// specials, no limit) the ids are left as they are.
///
/// ```
/// use bitext_tokenize::{SequenceConfig, SpecialIds};
/// # fn main() -> bitext_tokenize::Result<()> {
/// let specials = SpecialIds { pad: Some(0), unk: Some(1), bos: Some(2), eos: Some(3) };
/// let seq = SequenceConfig { add_bos: true, add_eos: true, max_len: Some(5) };
/// let mut ids = vec![10, 11, 12, 13, 14];
/// seq.apply_ids(&mut ids, &specials, Some(7))?;
/// assert_eq!(ids, [7, 2, 10, 11, 3]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SequenceConfig {
    /// Put the beginning-of-sentence token first (after the language tag, if any).
    pub add_bos: bool,
    /// Put the end-of-sentence token last.
    pub add_eos: bool,
    /// Keep at most this many ids, special tokens included.
    pub max_len: Option<usize>,
}

impl SequenceConfig {
    /// Check the parameters: `max_len` must leave room for one content token besides bos and
    /// eos.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`].
    pub fn check(&self) -> Result<()> {
        self.content_room(false).map(|_| ())
    }

    /// How many content ids fit (`None`: no limit).
    fn content_room(&self, with_lang: bool) -> Result<Option<usize>> {
        let specials =
            usize::from(with_lang) + usize::from(self.add_bos) + usize::from(self.add_eos);
        match self.max_len {
            None => Ok(None),
            Some(m) if m > specials => Ok(Some(m - specials)),
            Some(m) => Err(Error::InvalidArgument(format!(
                "max_len {m} leaves no room for content besides {specials} special token(s)"
            ))),
        }
    }

    /// The ids to put before and after the content.
    fn frame(&self, specials: &SpecialIds, lang: Option<u32>) -> Result<(Vec<u32>, Option<u32>)> {
        let missing = |what: &str| {
            Error::InvalidArgument(format!(
                "{what} requested but the vocabulary has no {what} token"
            ))
        };
        let mut before = Vec::with_capacity(2);
        before.extend(lang);
        if self.add_bos {
            before.push(specials.bos.ok_or_else(|| missing("bos"))?);
        }
        let after = if self.add_eos {
            Some(specials.eos.ok_or_else(|| missing("eos"))?)
        } else {
            None
        };
        Ok((before, after))
    }

    /// Frame and truncate `ids` in place; `lang` is the id of a language tag to put first.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when bos/eos is requested but `specials` lacks it, or
    /// `max_len` leaves no room for content.
    pub fn apply_ids(
        &self,
        ids: &mut Vec<u32>,
        specials: &SpecialIds,
        lang: Option<u32>,
    ) -> Result<()> {
        let room = self.content_room(lang.is_some())?;
        let (before, after) = self.frame(specials, lang)?;
        if let Some(room) = room {
            ids.truncate(room);
        }
        if !before.is_empty() {
            ids.splice(0..0, before);
        }
        ids.extend(after);
        Ok(())
    }

    /// Frame and truncate an [`Encoding`] in place; `piece` names the piece of a special id.
    ///
    /// # Errors
    /// As [`SequenceConfig::apply_ids`].
    pub fn apply(
        &self,
        enc: &mut Encoding,
        specials: &SpecialIds,
        lang: Option<u32>,
        piece: impl Fn(u32) -> String,
    ) -> Result<()> {
        let room = self.content_room(lang.is_some())?;
        let (before, after) = self.frame(specials, lang)?;
        if let Some(room) = room {
            enc.ids.truncate(room);
            enc.pieces.truncate(room);
        }
        if !before.is_empty() {
            enc.pieces.splice(0..0, before.iter().map(|&id| piece(id)));
            enc.ids.splice(0..0, before);
        }
        if let Some(id) = after {
            enc.ids.push(id);
            enc.pieces.push(piece(id));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SP: SpecialIds = SpecialIds {
        pad: Some(0),
        unk: Some(1),
        bos: Some(2),
        eos: Some(3),
    };

    #[test]
    fn framing_and_truncation() {
        let run = |seq: SequenceConfig, n: u32, lang: Option<u32>| {
            let mut ids: Vec<u32> = (10..10 + n).collect();
            seq.apply_ids(&mut ids, &SP, lang).map(|()| ids)
        };
        let none = SequenceConfig::default();
        assert_eq!(run(none, 3, None).unwrap(), [10, 11, 12]);
        let eos80 = SequenceConfig {
            add_eos: true,
            max_len: Some(80),
            ..none
        };
        let long = run(eos80, 100, None).unwrap();
        assert_eq!((long.len(), long[78], long[79]), (80, 88, 3));
        assert_eq!(run(eos80, 2, Some(5)).unwrap(), [5, 10, 11, 3]);
        let tight = SequenceConfig {
            add_bos: true,
            add_eos: true,
            max_len: Some(2),
        };
        assert!(tight.check().is_err());
        assert!(run(tight, 1, None).is_err());
        let no_eos = SpecialIds { eos: None, ..SP };
        assert!(eos80.apply_ids(&mut vec![1], &no_eos, None).is_err());
    }

    #[test]
    fn encoding_pieces_follow_ids() {
        let seq = SequenceConfig {
            add_bos: true,
            add_eos: true,
            max_len: Some(4),
        };
        let mut enc = Encoding {
            ids: vec![10, 11, 12],
            pieces: vec!["a".into(), "b".into(), "c".into()],
        };
        seq.apply(&mut enc, &SP, None, |id| format!("#{id}"))
            .unwrap();
        assert_eq!(enc.ids, [2, 10, 11, 3]);
        assert_eq!(enc.pieces, ["#2", "a", "b", "#3"]);
    }
}
