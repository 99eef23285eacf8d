//! The input lines a command skipped under `--bad-lines skip`: written to `--rejects` as they
//! come (`line<TAB>reason<TAB>text`), and counted on standard error at the end. A command that
//! reads several files names the file at the start of each reason.

use std::path::{Path, PathBuf};

use anyhow::Result;
use bitext_core::io::rejects::{BadLines, Rejected, RejectsWriter};
use bitext_core::io::stream::input_name;

use crate::flags::BadLinesArgs;

/// Where the skipped lines of a command's inputs go.
pub(crate) struct RejectSink {
    writer: Option<(RejectsWriter, PathBuf)>,
    bad: BadLines,
    /// Lines skipped per input named by [`RejectSink::add_named`] or
    /// [`RejectSink::add_pairs`], in the order first seen.
    counts: Vec<(String, usize)>,
}

impl RejectSink {
    /// The sink of the flags: a rejects file under `--bad-lines skip`, none otherwise.
    ///
    /// # Errors
    /// `--rejects` without `--bad-lines skip`; a rejects file that cannot be created.
    pub(crate) fn new(args: &BadLinesArgs) -> Result<Self> {
        let bad = args.bad_lines();
        let writer = match (bad, &args.rejects) {
            (BadLines::Skip, Some(path)) => Some((RejectsWriter::create(path)?, path.clone())),
            (BadLines::Skip, None) => anyhow::bail!("--bad-lines skip needs --rejects FILE"),
            (BadLines::Error, Some(_)) => {
                anyhow::bail!("--rejects lists skipped lines: it needs --bad-lines skip")
            }
            (BadLines::Error, None) => None,
        };
        Ok(Self {
            writer,
            bad,
            counts: Vec::new(),
        })
    }

    /// The policy of the readers that feed this sink.
    pub(crate) fn bad_lines(&self) -> BadLines {
        self.bad
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

    /// Keep `rejected`, lines of `input`, one of several inputs of the command: each reason
    /// starts with the file's name (`FILE: reason`).
    ///
    /// # Errors
    /// The rejects file cannot be written.
    pub(crate) fn add_named(&mut self, input: &Path, mut rejected: Vec<Rejected>) -> Result<()> {
        let name = input_name(input).display().to_string();
        for r in &mut rejected {
            r.reason = format!("{name}: {}", r.reason);
        }
        self.count(name, rejected.len());
        self.add(&rejected)
    }

    /// Keep `rejected`, pairs of lines of the line-parallel files `src` and `tgt` (whose
    /// reasons already name the file of each side that failed).
    // Read only by the training commands, which need the `neural` feature.
    #[cfg_attr(not(feature = "neural"), allow(dead_code))]
    ///
    /// # Errors
    /// The rejects file cannot be written.
    pub(crate) fn add_pairs(
        &mut self,
        (src, tgt): (&Path, &Path),
        rejected: &[Rejected],
    ) -> Result<()> {
        let name = format!(
            "{} with {}",
            input_name(src).display(),
            input_name(tgt).display()
        );
        self.count(name, rejected.len());
        self.add(rejected)
    }

    fn count(&mut self, name: String, n: usize) {
        match self.counts.iter_mut().find(|(m, _)| *m == name) {
            Some((_, c)) => *c += n,
            None => self.counts.push((name, n)),
        }
    }

    /// Rename the rejects file into place and say on standard error how many lines of
    /// `input` were skipped (even with `--quiet`: nothing is skipped silently).
    ///
    /// # Errors
    /// The rejects file cannot be renamed into place.
    pub(crate) fn finish(self, input: &Path) -> Result<()> {
        let what = input_name(input).display().to_string();
        self.finish_saying(|n| format!("{n} line{} of {what}", plural(n)))
    }

    /// [`RejectSink::finish`] for the inputs of [`RejectSink::add_named`] and
    /// [`RejectSink::add_pairs`]: how many lines of each were skipped.
    ///
    /// # Errors
    /// The rejects file cannot be renamed into place.
    pub(crate) fn finish_inputs(self) -> Result<()> {
        let each: Vec<String> = self
            .counts
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(name, n)| format!("{n} of {name}"))
            .collect();
        let each = each.join(", ");
        self.finish_saying(|n| format!("{n} line{} ({each})", plural(n)))
    }

    fn finish_saying(self, what: impl FnOnce(usize) -> String) -> Result<()> {
        if let Some((w, path)) = self.writer {
            let n = w.count();
            w.commit()?;
            if n > 0 {
                eprintln!(
                    "skipped {} that could not be read: line, reason and text in {}",
                    what(n),
                    path.display()
                );
            }
        }
        Ok(())
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
