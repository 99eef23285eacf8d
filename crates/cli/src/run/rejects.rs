//! The input lines a command skipped under `--bad-lines skip`: written to `--rejects` as they
//! come (`line<TAB>reason<TAB>text`), and counted on standard error at the end.

use std::path::{Path, PathBuf};

use anyhow::Result;
use bitext_core::io::rejects::{BadLines, Rejected, RejectsWriter};

use crate::flags::BadLinesArgs;

/// Where the skipped lines of one input go.
pub(crate) struct RejectSink {
    writer: Option<(RejectsWriter, PathBuf)>,
}

impl RejectSink {
    /// The sink of the flags: a rejects file under `--bad-lines skip`, none otherwise.
    ///
    /// # Errors
    /// `--rejects` without `--bad-lines skip`; a rejects file that cannot be created.
    pub(crate) fn new(args: &BadLinesArgs) -> Result<Self> {
        let writer = match (args.bad_lines(), &args.rejects) {
            (BadLines::Skip, Some(path)) => Some((RejectsWriter::create(path)?, path.clone())),
            (BadLines::Skip, None) => anyhow::bail!("--bad-lines skip needs --rejects FILE"),
            (BadLines::Error, Some(_)) => {
                anyhow::bail!("--rejects lists skipped lines: it needs --bad-lines skip")
            }
            (BadLines::Error, None) => None,
        };
        Ok(Self { writer })
    }

    /// Keep `rejected` (lines that can only have been skipped under `--bad-lines skip`).
    ///
    /// # Errors
    /// The rejects file cannot be written.
    pub(crate) fn add(&mut self, rejected: &[Rejected]) -> Result<()> {
        if let Some((w, _)) = &mut self.writer {
            w.write(rejected)?;
        }
        Ok(())
    }

    /// Rename the rejects file into place and say on standard error how many lines of
    /// `input` were skipped (even with `--quiet`: nothing is skipped silently).
    ///
    /// # Errors
    /// The rejects file cannot be renamed into place.
    pub(crate) fn finish(self, input: &Path) -> Result<()> {
        if let Some((w, path)) = self.writer {
            let n = w.count();
            w.commit()?;
            if n > 0 {
                eprintln!(
                    "skipped {n} line{} of {} that could not be read: line, reason and text in {}",
                    if n == 1 { "" } else { "s" },
                    bitext_core::io::stream::input_name(input).display(),
                    path.display()
                );
            }
        }
        Ok(())
    }
}
