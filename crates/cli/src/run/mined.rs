//! Mined pairs written as `score<TAB>src<TAB>tgt` lines (`bitext mine`, `bitext extract`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use bitext_core::io::AtomicFile;
use bitext_eval::calibration::Calibration;
use bitext_mine::ScoredPair;

use crate::input::Labels;

/// Writes `score<TAB>src<TAB>tgt` lines, with a calibration `score<TAB>src<TAB>tgt<TAB>probability`:
/// the first three columns stay what `eval bucc` and LASER's readers read.
pub(crate) struct Output<'a> {
    pub(crate) src: &'a Labels,
    pub(crate) trg: &'a Labels,
    pub(crate) decimals: Option<usize>,
    pub(crate) calibration: Option<&'a Calibration>,
}

impl Output<'_> {
    pub(crate) fn write(&self, path: Option<&PathBuf>, pairs: &[ScoredPair]) -> Result<()> {
        let mut line = String::new();
        let mut emit = |w: &mut dyn Write, p: &ScoredPair| -> std::io::Result<()> {
            use std::fmt::Write as _;
            line.clear();
            let _ = match self.decimals {
                Some(d) => write!(line, "{:.d$}", p.score),
                None => write!(line, "{}", p.score),
            };
            for label in [self.src.get(p.src), self.trg.get(p.tgt)] {
                if label.contains(['\t', '\n', '\r']) {
                    return Err(std::io::Error::other(format!(
                        "sentence {label:?} holds a tab or line break and cannot be written \
                         to a TSV field"
                    )));
                }
                line.push('\t');
                line.push_str(&label);
            }
            if let Some(c) = self.calibration {
                let prob = c.probability(p.score);
                let _ = match self.decimals {
                    Some(d) => write!(line, "\t{prob:.d$}"),
                    None => write!(line, "\t{prob}"),
                };
            }
            line.push('\n');
            w.write_all(line.as_bytes())
        };
        match path {
            Some(p) => {
                let mut f = AtomicFile::create_text(p)?;
                for pair in pairs {
                    emit(&mut f, pair).with_context(|| format!("writing {}", p.display()))?;
                }
                f.commit()?;
            }
            None => {
                let stdout = std::io::stdout();
                let mut w = std::io::BufWriter::new(stdout.lock());
                for pair in pairs {
                    emit(&mut w, pair)?;
                }
                w.flush()?;
            }
        }
        Ok(())
    }
}
