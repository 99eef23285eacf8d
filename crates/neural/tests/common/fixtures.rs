//! Fixtures several integration tests build alike: corpora, ranking terms, small aligners, and
//! the check that every parameter learns.

use std::path::Path;

use bitext_neural::aligner::{AlignerConfig, AlignerModel, RankingTerm};
use bitext_neural::backend::BackendSpec;
use bitext_neural::text::{TextCorpus, WordVocabConfig};
use burn::module::Module;
use burn::optim::GradientsParams;

use super::{grad_norms, params};

/// A training corpus of the pairs `src`/`tgt` whose word vocabularies keep every word seen
/// (`min_count` 1), one for both languages when `joint`, validated on `valid` when given.
pub fn every_word_corpus<'a>(
    src: &'a [String],
    tgt: &'a [String],
    valid: Option<(&'a [String], &'a [String])>,
    joint: bool,
) -> TextCorpus<'a> {
    TextCorpus {
        valid,
        vocab: WordVocabConfig {
            joint,
            min_count: 1,
            ..WordVocabConfig::default()
        },
        ..TextCorpus::new(src, tgt)
    }
}

/// The in-batch ranking term of the aligner tests: weight 0.5, scale 20, margin 0.2, over each
/// batch's parallel examples.
pub fn pair_ranking() -> RankingTerm {
    RankingTerm {
        weight: 0.5,
        scale: 20.0,
        margin: 0.2,
        pairs: 0,
    }
}

/// `network` with the small widths of the aligners trained from text: embeddings 12, hidden
/// size 8.
pub fn small_widths(network: AlignerConfig) -> AlignerConfig {
    network.with_encoder(|e| {
        e.emb_dim = 12;
        e.hidden = 8;
    })
}

/// The aligner saved in `dir`, on the Flex backend.
pub fn load_aligner(dir: &Path) -> AlignerModel {
    AlignerModel::load(dir, BackendSpec::Flex).unwrap()
}

/// Assert that `grads` hold a nonzero, finite gradient for every parameter of `model`; `what`
/// begins each failure's message.
pub fn assert_every_param_learns<M: Module>(model: &M, grads: &GradientsParams, what: &str) {
    let norms = grad_norms(model, grads);
    assert_eq!(norms.len(), params(model).len());
    for (k, n) in norms.iter().enumerate() {
        assert!(
            n.is_some_and(|n| n > 0.0 && n.is_finite()),
            "{what}parameter {k} got gradient {n:?}"
        );
    }
}

/// Copy the directory `from` with everything below it to `to` (e.g. a model directory to
/// resume in).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}
