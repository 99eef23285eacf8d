//! Training text in a model's tokens: each side cut to a length and counted, and the pairs
//! whose two sides both have tokens (the one tokenization of every family's text training).

use bitext_encode::Side;

use crate::error::{Error, Result};
use crate::text::TextCodec;

/// One side of a list of sentences in a model's tokens, each cut to a length.
#[derive(Debug, Default)]
pub(crate) struct SideTokens {
    /// The token ids of each sentence.
    pub(crate) ids: Vec<Vec<u32>>,
    /// The token texts of each sentence (none unless asked for).
    pub(crate) pieces: Vec<Vec<String>>,
    /// Whether each sentence was cut.
    pub(crate) cut: Vec<bool>,
    /// Tokens the vocabulary does not know (`<unk>`), and all tokens, after the cut.
    pub(crate) unknown: (usize, usize),
}

impl SideTokens {
    /// The sentences `text` of `side` in `codec`'s tokens (with their texts when `pieces`),
    /// cut to `max_len`.
    ///
    /// # Errors
    /// The tokenizer's.
    pub(crate) fn new(
        codec: &TextCodec,
        side: Side,
        text: &[String],
        max_len: Option<usize>,
        pieces: bool,
    ) -> Result<Self> {
        let refs: Vec<&str> = text.iter().map(String::as_str).collect();
        let tok = codec.tokenizer(side);
        let (mut ids, mut texts) = if pieces {
            tok.encode_batch(&refs)?
                .into_iter()
                .map(|e| (e.ids, e.pieces))
                .unzip()
        } else {
            (tok.encode_batch_ids(&refs)?, Vec::new())
        };
        let unk = tok.special_ids().unk;
        let (mut cut, mut unknown) = (Vec::with_capacity(ids.len()), (0, 0));
        for (k, s) in ids.iter_mut().enumerate() {
            let long = max_len.is_some_and(|m| s.len() > m);
            if let (true, Some(m)) = (long, max_len) {
                s.truncate(m);
                if let Some(p) = texts.get_mut(k) {
                    p.truncate(m);
                }
            }
            cut.push(long);
            unknown.0 += s.iter().filter(|&&id| Some(id) == unk).count();
            unknown.1 += s.len();
        }
        Ok(Self {
            ids,
            pieces: texts,
            cut,
            unknown,
        })
    }

    /// Sentences cut.
    pub(crate) fn cut(&self) -> usize {
        self.cut.iter().filter(|&&c| c).count()
    }
}

/// Pairs of sentences in a model's tokens: both sides whole ([`SideTokens`]) and the pairs
/// kept, those whose two sides both have tokens.
#[derive(Debug, Default)]
pub(crate) struct PairTokens {
    /// The source side of every pair.
    pub(crate) src: SideTokens,
    /// The target side of every pair.
    pub(crate) tgt: SideTokens,
    /// The indices of the pairs kept, ascending.
    pub(crate) kept: Vec<usize>,
}

impl PairTokens {
    /// The pairs `src`/`tgt` in `codec`'s tokens (with their texts when `pieces`), cut to
    /// `max_len`.
    ///
    /// # Errors
    /// [`Error::Input`] for sides of different lengths; the tokenizer's.
    pub(crate) fn new(
        codec: &TextCodec,
        (src, tgt): (&[String], &[String]),
        max_len: Option<usize>,
        pieces: bool,
    ) -> Result<Self> {
        Error::check_sides(src.len(), tgt.len())?;
        let src = SideTokens::new(codec, Side::Source, src, max_len, pieces)?;
        let tgt = SideTokens::new(codec, Side::Target, tgt, max_len, pieces)?;
        let kept = (0..src.ids.len())
            .filter(|&k| !src.ids[k].is_empty() && !tgt.ids[k].is_empty())
            .collect();
        Ok(Self { src, tgt, kept })
    }

    /// Sentences of the kept pairs that were cut.
    pub(crate) fn cut_kept(&self) -> usize {
        self.kept
            .iter()
            .map(|&k| usize::from(self.src.cut[k]) + usize::from(self.tgt.cut[k]))
            .sum()
    }

    /// The kept pairs' token ids (source, target), taken out.
    pub(crate) fn take_ids(&mut self) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let take = |s: &mut SideTokens, kept: &[usize]| {
            kept.iter()
                .map(|&k| std::mem::take(&mut s.ids[k]))
                .collect()
        };
        (
            take(&mut self.src, &self.kept),
            take(&mut self.tgt, &self.kept),
        )
    }

    /// The kept pairs' token texts (source, target), taken out (empty unless asked for).
    pub(crate) fn take_pieces(&mut self) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
        let take = |s: &mut SideTokens, kept: &[usize]| {
            if s.pieces.is_empty() {
                return Vec::new();
            }
            kept.iter()
                .map(|&k| std::mem::take(&mut s.pieces[k]))
                .collect()
        };
        (
            take(&mut self.src, &self.kept),
            take(&mut self.tgt, &self.kept),
        )
    }
}
