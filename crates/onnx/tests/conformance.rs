//! `OnnxEncoder` through the `SentenceEncoder` conformance checks (`bitext_testkit::encoder`),
//! over a transformer-style graph built in code (an embedding table, masked token states, mean
//! pooling) and a sentencepiece model trained on the suite's words. The checks are called one
//! by one rather than through `sentence_encoder_suite!` so that, without the ONNX Runtime
//! library (`BITEXT_ONNXRUNTIME`), the test can say so and pass instead of failing.

use std::path::PathBuf;
use std::sync::OnceLock;

use bitext_encode::{OnnxSpec, Pooling};
use bitext_onnx::OnnxEncoder;
use bitext_onnx::graph::build::token_states;
use bitext_testkit::encoder::{self as suite, Expect};
use bitext_testkit::needs::{self, group};
use bitext_tokenize::{SequenceConfig, TokenizerSpec};

mod common;
use common::{small_spm, write};

/// The files the encoder is loaded from (kept for the whole test binary).
fn files() -> &'static (tempfile::TempDir, PathBuf, PathBuf) {
    static FILES: OnceLock<(tempfile::TempDir, PathBuf, PathBuf)> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (src, tgt) = bitext_testkit::data::parallel_text(200, 11);
        let trained = small_spm(&[("src", &src[..]), ("tgt", &tgt[..])], 28);
        let spm = write(dir.path(), "spm.model", trained.tokenizer().to_bytes());
        let (graph, _) = token_states(trained.tokenizer().pieces().len(), 8, 3, false);
        let path = write(dir.path(), "encoder.onnx", graph);
        (dir, path, spm)
    })
}

fn make() -> OnnxEncoder {
    let (_, path, spm) = files();
    OnnxEncoder::load(&OnnxSpec {
        tokenizer: Some(TokenizerSpec::Sentencepiece {
            model: spm.clone(),
            sequence: SequenceConfig::default(),
        }),
        pooling: Pooling::Mean,
        batch: 7,
        ..OnnxSpec::new(path)
    })
    .unwrap()
}

#[test]
fn onnx_encoder_passes_the_sentence_encoder_suite() {
    let runtime = bitext_onnx::runtime_path(None).ok();
    if needs::file(group::ONNX_RUNTIME, runtime).is_none() {
        return;
    }
    let e = Expect::within(1e-6);
    suite::one_row_per_sentence(make, e);
    suite::batching_does_not_change_rows(make, e);
    suite::deterministic_across_threads(make, e);
    suite::unencodable_sentences_are_errors_or_rows(make, e);
    suite::forwards_through_pointers(make, e);
    suite::translations_are_nearest(make, e);
}
