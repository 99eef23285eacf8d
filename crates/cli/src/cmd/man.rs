//! `bitext man [-o DIR]` (hidden): manual pages in roff (clap_mangen), made from the same
//! definitions as `--help`. Without `-o`, `bitext.1` on standard output; with `-o DIR`, `bitext.1`
//! and one page per subcommand, nested ones included (`bitext-mine.1`, `bitext-train-mlp.1`),
//! each written atomically into DIR (created when missing). Hidden commands (this one and
//! `completions`) get no page. Release archives (`cargo xtask dist`) ship the pages under
//! `share/man/man1/`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use bitext_core::io::AtomicFile;
use clap::Args;
use clap_mangen::Man;

/// Arguments of `bitext man`.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write every page (`bitext.1`, `bitext-mine.1`, …) into this directory instead of
    /// printing `bitext.1`.
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
}

/// The pages of `cli` and of its visible subcommands, depth first, each as its file name
/// (`bitext-train-mlp.1`) and its roff text.
pub(crate) fn pages(cli: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    fn walk(cmd: clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
        let subs: Vec<clap::Command> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .cloned()
            .collect();
        let man = Man::new(cmd);
        let mut text = Vec::new();
        man.render(&mut text)
            .with_context(|| format!("rendering {}", man.get_filename()))?;
        out.push((man.get_filename(), text));
        for sub in subs {
            walk(sub, out)?;
        }
        Ok(())
    }
    // As clap_mangen's `generate_to`: no `help` subcommand page; `build` names each
    // subcommand `bitext-…` (its display name, hence its file name) and propagates the version.
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let mut out = Vec::new();
    walk(cli, &mut out)?;
    Ok(out)
}

/// Write `text` to `path` atomically.
fn write_page(path: &Path, text: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(text).map_err(|e| f.err(e))?;
    f.commit()?;
    Ok(())
}

/// Print `bitext.1`, or write every page into `-o DIR`.
pub(crate) fn run(a: &ManArgs, cli: clap::Command) -> Result<()> {
    match &a.output {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the directory {}", dir.display()))?;
            for (name, text) in pages(cli)? {
                write_page(&dir.join(name), &text)?;
            }
        }
        None => {
            let (_, top) = pages(cli)?.swap_remove(0);
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(&top)?;
            stdout.flush()?;
        }
    }
    Ok(())
}
