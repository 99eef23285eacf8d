//! Plots written as SVG documents (`calibrate --plot`, `eval --plot`).

use anyhow::Result;
use bitext_core::io::AtomicFile;

/// Write an SVG document through the one writer.
pub(crate) fn write_svg(path: &std::path::Path, svg: &str) -> Result<()> {
    use std::io::Write as _;
    let mut out = AtomicFile::create_text(path)?;
    out.write_all(svg.as_bytes()).map_err(|e| out.err(e))?;
    out.commit()?;
    Ok(())
}
