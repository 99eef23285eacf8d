//! Pretrained sentence encoders as ONNX graphs, run through ONNX Runtime: the `onnx` variant
//! of [`bitext_encode::EncoderSpec`] ([`bitext_encode::OnnxSpec`]), built by
//! [`OnnxEncoder::load`] into a [`bitext_encode::SentenceEncoder`].
//!
//! ONNX Runtime is loaded at run time from a shared library (`load-dynamic`; nothing is
//! downloaded or linked at build time): the spec's `runtime`, else a `libonnxruntime.so*`
//! beside the running binary (or in `../lib` from it), else the `BITEXT_ONNXRUNTIME` /
//! `ORT_DYLIB_PATH` environment variable ([`find_runtime`]), naming `libonnxruntime.so` ≥ 1.17,
//! e.g. the one in the `onnxruntime` PyPI wheel (`onnxruntime/capi/libonnxruntime.so.1.*`).
//! The choice of runtime, against the pure-Rust tract, is in ARCHITECTURE.md.
//!
//! Models are also named as on the Hugging Face hub, `hf:ORG/NAME[@REVISION]`, and resolved in
//! its cache on disk ([`hub`]; fetched with the feature `hub`).
//!
//! Graphs with an onnxruntime-extensions `SentencepieceTokenizer` inside (Universal Sentence
//! Encoder Multilingual) are cut at the tokenizer's outputs ([`graph`]) and fed ids from
//! bitext's own sentencepiece with the model the node carries; transformer exports
//! (`input_ids`, `attention_mask`[, `token_type_ids`]) are fed padded ids from the spec's
//! tokenizer and pooled (mean under the mask, or the first token).

mod encoder;
pub mod graph;
pub mod hub;
mod runtime;
pub mod split;

pub use encoder::OnnxEncoder;
pub use runtime::{LIBRARY_NAME, RUNTIME_VARS, beside_exe, find_runtime, runtime_path};
