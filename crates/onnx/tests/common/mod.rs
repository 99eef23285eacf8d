//! Helpers shared by this crate's integration tests: a small sentencepiece model trained here,
//! a transformer-like export over its pieces, and files written into a test's folder.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bitext_onnx::graph::build::token_states;
use bitext_testkit::data::word_lines;
use bitext_tokenize::{Sentencepiece, SubwordTrainer, TrainedModel};

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

/// A small sentencepiece model trained on generated text, its bytes.
pub(crate) fn spm_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let words = [
            "haus", "katze", "baum", "house", "cat", "tree", "der", "the", "rot",
        ];
        let text = word_lines(&words, 300, 6, 6, 5);
        small_spm(&[("xx", &text[..])], 24).to_bytes().to_vec()
    })
}

/// A transformer export: input_ids, attention_mask, token_type_ids [B, L] → token states
/// `table[id] · mask` [B, L, 4] (`graph::build::token_states`).
pub(crate) fn transformer_like(vocab: usize) -> (Vec<u8>, Vec<f32>) {
    token_states(vocab, 4, 9, true)
}

/// [`spm_bytes`] as `dir/spm.model` and a [`transformer_like`] export over its pieces as
/// `dir/tr.onnx`: the two files, the sentencepiece model and the export's table.
pub(crate) fn transformer_files(dir: &Path) -> (PathBuf, PathBuf, Sentencepiece, Vec<f32>) {
    let spm = write(dir, "spm.model", spm_bytes());
    let sp = Sentencepiece::open(&spm).unwrap();
    let (m, table) = transformer_like(sp.pieces().len());
    (spm, write(dir, "tr.onnx", m), sp, table)
}
