//! What the CLI's neural commands share: reading parallel sentence inputs and the process
//! settings of neural commands. Loading a trained model directory (`bitext train` writes them)
//! as an encoder or a scorer is the library's `bitext_neural::spec::NeuralModel`.
//!
//! Compiled only with the cargo feature `neural` (on by default); without it the neural
//! commands fail with the error of `neural_unavailable` in `run/mod.rs`.

use std::path::Path;

use anyhow::{Result, bail};
use bitext_core::io::text::{EmptyLines, read_lines_skipping, read_parallel_skipping};
use bitext_core::io::tsv::BitextTsvReader;

use crate::run::RejectSink;

/// Process-wide settings of a command that trains or runs a neural model: call it first thing
/// in that command, before threads start and before heavy allocation.
///
/// It makes glibc reuse large freed blocks (`bitext_neural::backend::tune_allocator`): about
/// 20% faster training, but the process keeps its peak heap until it exits, which is why the
/// commands that run no neural model (mine, filter, tokenize, emd, eval, bag-of-words embed)
/// never call it.
pub(crate) fn start_neural_command() {
    bitext_neural::backend::tune_allocator();
}

/// Parallel sentences from a TSV (two columns) or two line-parallel files, under the policy of
/// `rejects`, which keeps the lines (of line-parallel files: the pairs) left out.
pub(crate) fn read_pairs(
    tsv: Option<&Path>,
    cols: (usize, usize),
    files: (Option<&Path>, Option<&Path>),
    skip_empty: bool,
    rejects: &mut RejectSink,
) -> Result<(Vec<String>, Vec<String>)> {
    let empty = if skip_empty {
        EmptyLines::Keep
    } else {
        EmptyLines::Reject
    };
    let bad = rejects.bad_lines();
    let (s, g) = match (tsv, files) {
        (Some(t), (None, None)) => {
            let (mut s, mut g) = (Vec::new(), Vec::new());
            let reader = BitextTsvReader::open(t, cols.0, cols.1)?;
            let mut reader = reader.empty_fields(empty).bad_lines(bad);
            for rec in reader.by_ref() {
                let r = rec?;
                s.push(r.src);
                g.push(r.tgt);
            }
            rejects.add_named(t, reader.take_rejected())?;
            (s, g)
        }
        (None, (Some(a), Some(b))) => {
            let (s, g, rejected) = read_parallel_skipping(a, b, empty, bad)?;
            rejects.add_pairs((a, b), &rejected)?;
            (s, g)
        }
        _ => bail!("give either a TSV or both line-parallel files"),
    };
    if !skip_empty {
        return Ok((s, g));
    }
    let (mut ks, mut kg, mut skipped) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (a, b)) in s.into_iter().zip(g).enumerate() {
        if a.trim().is_empty() || b.trim().is_empty() {
            skipped.push((i + 1).to_string());
        } else {
            ks.push(a);
            kg.push(b);
        }
    }
    let name = tsv
        .or(files.0)
        .map_or_else(String::new, |p| p.display().to_string());
    if !skipped.is_empty() {
        let (total, more) = (skipped.len(), if skipped.len() > 10 { ", …" } else { "" });
        skipped.truncate(10);
        eprintln!(
            "{name}: skipped {total} {} with an empty side ({} {}{more}); {} kept",
            if total == 1 { "pair" } else { "pairs" },
            if total == 1 { "line" } else { "lines" },
            skipped.join(", "),
            ks.len()
        );
    }
    if ks.is_empty() {
        bail!("{name}: no pairs left after skipping those with an empty side");
    }
    Ok((ks, kg))
}

/// The lines of a text file of sentences (`--mono`, `--teacher-text`), none empty, under the
/// policy of `rejects`, which keeps the lines left out.
pub(crate) fn read_sentences(path: &Path, rejects: &mut RejectSink) -> Result<Vec<String>> {
    let (lines, rejected) = read_lines_skipping(path, EmptyLines::Reject, rejects.bad_lines())?;
    rejects.add_named(path, rejected)?;
    Ok(lines)
}
