//! The source and target columns of a TSV, read whole: the reference corpus of a scorer that
//! counts an IDF over its input (`score`, `filter`, `calibrate`), or pairs to encode.

use anyhow::Result;
use bitext_core::io::tsv::BitextTsvReader;

/// The source and target columns (0-based) of a TSV. Standard input (`-`) is held in memory
/// first, so that the pass over the lines that follows reads it again.
pub(crate) fn read_columns(
    path: &std::path::Path,
    src_col: usize,
    tgt_col: usize,
) -> Result<(Vec<String>, Vec<String>)> {
    if bitext_core::io::is_stdio(path) {
        // A first pass (the scorer's reference corpus): the main pass reads it again.
        bitext_core::io::stream::hold_stdin()?;
    }
    let (mut s, mut t) = (Vec::new(), Vec::new());
    for rec in BitextTsvReader::open(path, src_col, tgt_col)? {
        let rec = rec?;
        s.push(rec.src);
        t.push(rec.tgt);
    }
    if s.is_empty() {
        anyhow::bail!("{}: no sentence pairs", path.display());
    }
    Ok((s, t))
}
