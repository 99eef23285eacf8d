//! What the CLI's neural commands share: reading parallel sentence inputs and the process
//! settings of neural commands. Loading a trained model directory (`bitext train` writes them)
//! as an encoder or a scorer is the library's `bitext_neural::spec::NeuralModel`.
//!
//! Compiled only with the cargo feature `neural` (on by default); without it the neural
//! commands fail with the error of `neural_unavailable` in `cmd/mod.rs`.

use std::path::Path;

use anyhow::{Result, bail};
use bitext_core::io::text::{EmptyLines, read_parallel};
use bitext_core::io::tsv::BitextTsvReader;

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

/// Parallel sentences from a TSV (two columns) or two line-parallel files.
pub(crate) fn read_pairs(
    tsv: Option<&Path>,
    cols: (usize, usize),
    files: (Option<&Path>, Option<&Path>),
) -> Result<(Vec<String>, Vec<String>)> {
    match (tsv, files) {
        (Some(t), (None, None)) => {
            let (mut s, mut g) = (Vec::new(), Vec::new());
            for rec in BitextTsvReader::open(t, cols.0, cols.1)? {
                let r = rec?;
                s.push(r.src);
                g.push(r.tgt);
            }
            Ok((s, g))
        }
        (None, (Some(a), Some(b))) => Ok(read_parallel(a, b, EmptyLines::Reject)?),
        _ => bail!("give either a TSV or both line-parallel files"),
    }
}
