//! Deduplication of a text side before embedding (`bitext mine --unify --shards N` from text,
//! LASER's `--unify`): the `dedup-src` / `dedup-trg` step reads every shard of the side once
//! and keeps the first occurrence of each sentence (exact text, as the single-process
//! `--unify`), so that each distinct sentence is embedded and searched once. Its output lists,
//! per shard, the lines read and the kept lines; the embed steps encode only the kept lines,
//! and [`Plan::original_lines`] maps mined rows back to the input's lines (each pair at the
//! first occurrence of its sentences). The first occurrences are `bitext_mine::unify`'s, the
//! single-process `--unify`'s own. Memory: 24 bytes per distinct sentence plus the map's
//! overhead, and 8 bytes per kept line.

use std::path::Path;

use crate::arrays::{self, Array};
use crate::error::{Error, Result};
use crate::plan::{Plan, PlannedSide, Side};

/// The dedup step of `side`: every shard's line count, kept count and kept lines (local).
pub(crate) fn dedup(plan: &Plan, side: Side, out: &Path) -> Result<()> {
    let PlannedSide::Text(text) = plan.side(side) else {
        return Err(Error::Invalid(format!(
            "the {} side is not text",
            side.name()
        )));
    };
    let mut seen = bitext_mine::unify::Occurrences::new();
    let (mut lines, mut counts, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for s in 0..text.bytes.len() {
        let (mut n, before) = (0u64, kept.len());
        text.each_sentence(s, |x| {
            let (row, first) = seen.push(x);
            if row == first {
                kept.push(n);
            }
            n += 1;
            Ok(())
        })?;
        lines.push(n);
        counts.push((kept.len() - before) as u64);
    }
    let shape = vec![text.bytes.len(), kept.len()];
    let arrays = [Array::u64s(lines), Array::u64s(counts), Array::u64s(kept)];
    arrays::write(out, "unique", shape, &arrays)
}

/// What a dedup step found: per shard, the lines read and the kept lines (local indices).
pub(crate) struct Unique {
    /// Lines of each shard.
    pub(crate) lines: Vec<usize>,
    /// Kept lines of each shard, ascending.
    pub(crate) kept: Vec<Vec<usize>>,
}

/// The output of `side`'s dedup step in `dir`.
pub(crate) fn read(plan: &Plan, dir: &Path, side: Side) -> Result<Unique> {
    let path = dir.join(plan.step(&format!("dedup-{}", side.name()))?.output());
    let r = arrays::read(&path, "unique", &[8, 8, 8])?;
    let lines = r.usizes(0, &path, usize::MAX)?;
    let counts = r.usizes(1, &path, usize::MAX)?;
    let all = r.usizes(2, &path, usize::MAX)?;
    let corrupt = |why: &str| Error::Corrupt {
        path: path.clone(),
        reason: why.into(),
    };
    if lines.len() != plan.shards || counts.len() != plan.shards {
        return Err(corrupt("not one count per shard"));
    }
    if counts.iter().sum::<usize>() != all.len() {
        return Err(corrupt("kept counts that do not add up"));
    }
    let mut kept = Vec::with_capacity(plan.shards);
    let mut at = 0;
    for (&c, &n) in counts.iter().zip(&lines) {
        let k = all[at..at + c].to_vec();
        if k.iter().any(|&i| i >= n) || k.windows(2).any(|w| w[0] >= w[1]) {
            return Err(corrupt("kept lines out of order or range"));
        }
        kept.push(k);
        at += c;
    }
    Ok(Unique { lines, kept })
}

impl Plan {
    /// With `--unify` (a text plan that deduplicates): the input's line count of `side` and
    /// the line of each searched row (its sentence's first occurrence), from the dedup step in
    /// `dir`; `None` for a plan that does not deduplicate `side`.
    ///
    /// # Errors
    /// The dedup step has not completed, or its output is malformed.
    pub fn original_lines(&self, dir: &Path, side: Side) -> Result<Option<(usize, Vec<usize>)>> {
        if !self.unify || !matches!(self.side(side), PlannedSide::Text(_)) {
            return Ok(None);
        }
        let u = read(self, dir, side)?;
        let (mut first, mut rows) = (0, Vec::new());
        for (n, kept) in u.lines.iter().zip(&u.kept) {
            rows.extend(kept.iter().map(|&i| first + i));
            first += n;
        }
        Ok(Some((first, rows)))
    }
}
