//! Helpers shared by this crate's integration tests: a small sentencepiece model trained here,
//! and files written into a test's folder.

use std::path::{Path, PathBuf};

use bitext_tokenize::{SubwordTrainer, TrainedModel};

/// A sentencepiece model of `vocab` pieces trained on `corpora` (`(name, lines)`), every
/// character covered, on one thread (the same model every run).
pub(crate) fn small_spm<S: AsRef<str>>(corpora: &[(&str, &[S])], vocab: usize) -> TrainedModel {
    SubwordTrainer::new()
        .vocab_size(vocab)
        .character_coverage(1.0)
        .threads(Some(1))
        .train_corpora(corpora)
        .unwrap()
}

/// Write `bytes` to `dir/name` and return the path.
pub(crate) fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}
