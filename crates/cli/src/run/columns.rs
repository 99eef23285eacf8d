//! The source and target columns of a TSV, read whole: the reference corpus of a scorer that
//! counts an IDF over its input (`score`, `filter`, `calibrate`), or pairs to encode.

use anyhow::Result;
use bitext_core::io::rejects::{BadLines, Rejected};
use bitext_core::io::tsv::BitextTsvReader;

/// The source and target columns (0-based) of a TSV under the policy `bad`, with the lines it
/// skipped. Standard input (`-`) is held in memory first, so that the pass over the lines that
/// follows reads it again.
pub(crate) fn read_columns_skipping(
    path: &std::path::Path,
    (src_col, tgt_col): (usize, usize),
    bad: BadLines,
) -> Result<(Vec<String>, Vec<String>, Vec<Rejected>)> {
    if bitext_core::io::is_stdio(path) {
        // A first pass (the scorer's reference corpus): the main pass reads it again.
        bitext_core::io::stream::hold_stdin()?;
    }
    let (mut s, mut t) = (Vec::new(), Vec::new());
    let mut reader = BitextTsvReader::open(path, src_col, tgt_col)?.bad_lines(bad);
    for rec in reader.by_ref() {
        let rec = rec?;
        s.push(rec.src);
        t.push(rec.tgt);
    }
    if s.is_empty() {
        anyhow::bail!("{}: no sentence pairs", path.display());
    }
    Ok((s, t, reader.take_rejected()))
}
