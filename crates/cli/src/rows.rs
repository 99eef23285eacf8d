//! Which embedding rows take part in `bitext mine`: all-zero rows (`--skip-zero-rows`) and
//! sentences that repeat an earlier one (`--unify`, as LASER's `mine_bitexts.py`) are left out
//! of the search, and the mined pairs are mapped back to the original rows: the first
//! occurrence of each sentence, or every occurrence.

use std::collections::HashMap;

use anyhow::{Result, bail};
use bitext_core::{Embeddings, EmbeddingsView};
use bitext_mine::ScoredPair;
use clap::ValueEnum;

use crate::input::{Matrix, Sentences};

/// How `--unify` maps pairs of unique sentences back to the input rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Unify {
    /// Each pair once, at the first occurrence of its two sentences (LASER).
    First,
    /// Every combination of the occurrences of the two sentences (e.g. every pair of BUCC ids).
    All,
}

/// One side's kept rows.
#[derive(Default)]
struct Side {
    /// The copy without the left-out rows, and the original row of each of its rows.
    kept: Option<(Embeddings, Vec<usize>)>,
    /// `--unify`: every row holding the sentence of each first occurrence.
    occurrences: HashMap<usize, Vec<usize>>,
}

impl Side {
    fn view<'a>(&'a self, m: &'a Matrix) -> EmbeddingsView<'a> {
        self.kept
            .as_ref()
            .map_or_else(|| m.view(), |(e, _)| e.view())
    }

    fn original(&self, i: usize) -> usize {
        self.kept.as_ref().map_or(i, |(_, rows)| rows[i])
    }

    fn all(&self, first: usize) -> Vec<usize> {
        self.occurrences
            .get(&first)
            .cloned()
            .unwrap_or_else(|| vec![first])
    }
}

/// The rows mined on each side, and the way back.
pub(crate) struct Rows {
    src: Side,
    trg: Side,
    unify: Option<Unify>,
}

/// What to leave out, from the flags.
pub(crate) struct RowOptions {
    /// `--skip-zero-rows`.
    pub(crate) skip_zero_rows: bool,
    /// `--unify`.
    pub(crate) unify: Option<Unify>,
    /// Aligned pairs (`--mode score`): a pair goes when either of its rows does.
    pub(crate) aligned: bool,
}

fn list(rows: &[usize]) -> String {
    let shown: Vec<String> = rows.iter().take(10).map(ToString::to_string).collect();
    let more = if rows.len() > 10 { ", …" } else { "" };
    format!("{} ({}{more})", rows.len(), shown.join(", "))
}

fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut u: Vec<usize> = a.iter().chain(b).copied().collect();
    u.sort_unstable();
    u.dedup();
    u
}

impl Rows {
    /// Decide which rows of each side take part (printing a notice of what is left out).
    ///
    /// Zero rows are an error naming the file, the row and `--skip-zero-rows` unless that flag
    /// is given; `--unify` needs the sentences of both sides.
    pub(crate) fn new(
        o: &RowOptions,
        (src, trg): (&Matrix, &Matrix),
        (src_text, trg_text): (Option<&Sentences>, Option<&Sentences>),
    ) -> Result<Self> {
        let (mut sz, mut tz) = (src.view().zero_rows(), trg.view().zero_rows());
        if !o.skip_zero_rows && (!sz.is_empty() || !tz.is_empty()) {
            let (m, rows) = if sz.is_empty() {
                (trg, &tz)
            } else {
                (src, &sz)
            };
            bail!(
                "{}: row {} is all zeros ({} such rows): it has no direction, so no cosine; \
                 --skip-zero-rows leaves such rows out of the candidates",
                m.path().display(),
                rows[0],
                rows.len()
            );
        }
        if o.aligned && (!sz.is_empty() || !tz.is_empty()) {
            sz = union(&sz, &tz);
            tz.clone_from(&sz);
        }
        if !sz.is_empty() || !tz.is_empty() {
            eprintln!(
                "--skip-zero-rows: left out all-zero rows: {} of {}, {} of {}",
                list(&sz),
                src.path().display(),
                list(&tz),
                trg.path().display()
            );
        }
        let (mut src_side, mut trg_side) = (Side::default(), Side::default());
        if o.unify.is_some() {
            if o.aligned {
                bail!("--unify mines unique sentences: it does not apply to --mode score");
            }
            let (Some(st), Some(tt)) = (src_text, trg_text) else {
                bail!(
                    "--unify finds repeated sentences by their text: give --src-text and --tgt-text"
                );
            };
            for (side, text, zeros) in [(&mut src_side, st, &mut sz), (&mut trg_side, tt, &mut tz)]
            {
                let (dups, occ) = bitext_mine::unify::repeats(&text.sentences);
                eprintln!(
                    "--unify: {} of {} sentences of {} repeat an earlier one",
                    dups.len(),
                    text.len(),
                    text.path.display()
                );
                *zeros = union(zeros, &dups);
                side.occurrences = occ;
            }
        }
        let cut =
            |m: &Matrix, rows: &[usize]| (!rows.is_empty()).then(|| m.view().without_rows(rows));
        src_side.kept = cut(src, &sz);
        trg_side.kept = cut(trg, &tz);
        Ok(Self {
            src: src_side,
            trg: trg_side,
            unify: o.unify,
        })
    }

    /// The rows searched on each side.
    pub(crate) fn views<'a>(
        &'a self,
        src: &'a Matrix,
        trg: &'a Matrix,
    ) -> (EmbeddingsView<'a>, EmbeddingsView<'a>) {
        (self.src.view(src), self.trg.view(trg))
    }

    /// A pair of searched rows as a pair of original rows.
    pub(crate) fn original(&self, p: ScoredPair) -> ScoredPair {
        ScoredPair::new(p.score, self.src.original(p.src), self.trg.original(p.tgt))
    }

    /// Mined pairs of searched rows as pairs of original rows: with `--unify all`, one per
    /// combination of the occurrences of the two sentences (in input order after the pair's
    /// place); else one each.
    pub(crate) fn expand(&self, pairs: Vec<ScoredPair>) -> Vec<ScoredPair> {
        let pairs = pairs.into_iter().map(|p| self.original(p));
        if self.unify != Some(Unify::All) {
            return pairs.collect();
        }
        pairs
            .flat_map(|p| {
                let targets = self.trg.all(p.tgt);
                self.src.all(p.src).into_iter().flat_map(move |i| {
                    targets
                        .clone()
                        .into_iter()
                        .map(move |j| ScoredPair::new(p.score, i, j))
                })
            })
            .collect()
    }
}
