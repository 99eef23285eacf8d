//! `bitext completions SHELL` (hidden): the completion script of the whole command tree for
//! bash, zsh, fish, elvish or PowerShell (clap_complete), on standard output or, with `-o FILE`,
//! written atomically (whole or not at all). Release archives (`cargo xtask dist`) ship the
//! bash, zsh and fish scripts under `share/`.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use bitext_core::io::AtomicFile;
use clap::Args;
use clap_complete::Shell;

/// Arguments of `bitext completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash (source it, or put it in `~/.local/share/bash-completion/completions/
    /// bitext`), zsh (a file `_bitext` on `$fpath`), fish (`~/.config/fish/completions/
    /// bitext.fish`), elvish or powershell.
    #[arg(value_enum)]
    shell: Shell,
    /// Write the script to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// The completion script of `cli` (the whole command tree, as its binary `bitext`) for `shell`.
pub(crate) fn script(shell: Shell, mut cli: clap::Command) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cli, "bitext", &mut out);
    out
}

/// Print or write the script of `cli`.
pub(crate) fn run(a: &CompletionsArgs, cli: clap::Command) -> Result<()> {
    let text = script(a.shell, cli);
    match &a.output {
        Some(path) => {
            let mut f = AtomicFile::create(path)?;
            f.write_all(&text).map_err(|e| f.err(e))?;
            f.commit()?;
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(&text)?;
            stdout.flush()?;
        }
    }
    Ok(())
}
