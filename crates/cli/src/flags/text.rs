//! `--src-text FILE --tgt-text FILE`: the two sides of a text, each needing the other
//! ([`TextPair`]), declared once for the commands that take them together (`eval bucc`,
//! `align-docs`, the text models' `train`). What the files hold differs by command: each says
//! it in its own [`TextPairHelp`].

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use clap::Args;

/// What `--help` says of a command's `--src-text` and `--tgt-text`, and the old spelling each
/// still takes (hidden; `None`: none).
pub(crate) struct TextPairDocs {
    /// The help of `--src-text`.
    pub(crate) src: &'static str,
    /// The help of `--tgt-text`.
    pub(crate) tgt: &'static str,
    /// The old spellings of `--src-text` and `--tgt-text`.
    pub(crate) aliases: [Option<&'static str>; 2],
}

/// A command whose flags hold a [`TextPair`]`<Self>`: what its help says of the two files.
pub(crate) trait TextPairHelp {
    /// The help of the two flags.
    const TEXT: TextPairDocs;
}

/// `--src-text FILE --tgt-text FILE`, each needing the other (argument ids `src` and `tgt`, for
/// the command's own `requires` and `conflicts_with`), with the help of `H`, the command.
#[derive(Debug, Args)]
pub(crate) struct TextPair<H: TextPairHelp> {
    // The source side.
    #[arg(long = "src-text", alias = H::TEXT.aliases[0], help = H::TEXT.src)]
    #[arg(value_name = "FILE", requires = "tgt")]
    src: Option<PathBuf>,
    // The target side.
    #[arg(long = "tgt-text", alias = H::TEXT.aliases[1], help = H::TEXT.tgt)]
    #[arg(value_name = "FILE", requires = "src")]
    tgt: Option<PathBuf>,
    #[arg(skip)]
    help: PhantomData<H>,
}

impl<H: TextPairHelp> TextPair<H> {
    /// The source and the target file, when they are given.
    pub(crate) fn paths(&self) -> Option<(&Path, &Path)> {
        Some((self.src.as_deref()?, self.tgt.as_deref()?))
    }
}
