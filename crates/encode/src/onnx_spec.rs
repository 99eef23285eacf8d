//! [`OnnxSpec`]: a pretrained sentence encoder as an ONNX graph (the `onnx` variant of
//! [`crate::EncoderSpec`]), run by `bitext-onnx` through ONNX Runtime, which this crate never
//! depends on.
//!
//! ```text
//! {"type": "onnx", "model": "usem.onnx"}
//! {"type": "onnx", "model": "e5.onnx", "tokenizer": {"type": "sentencepiece", "model": "spm.model",
//!  "sequence": {"add_bos": true, "add_eos": true, "max_len": 512}}, "pooling": "mean", "threads": 2}
//! {"type": "onnx", "model": "labse.onnx", "tokenizer": {"type": "tokenizer_json",
//!  "file": "tokenizer.json"}, "pooling": "cls", "batch": 8, "threads": 1, "sessions": 2}
//! ```

use std::path::PathBuf;

use bitext_tokenize::TokenizerSpec;
use serde::{Deserialize, Serialize};

use crate::encoder::NoKnownWord;
use crate::error::{Error, Result};

/// How a graph's per-token output becomes one vector per sentence. A graph whose output is
/// already one vector per sentence (`[batch, dim]`) is taken as it is, whatever this says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Pooling {
    /// The mean of the token states under the attention mask (sentence-transformers' default).
    #[default]
    Mean,
    /// The first token's state (`[CLS]`, `<s>`).
    Cls,
}

/// In which order sentences are batched (the spec's `order`; absent: by length for graphs fed
/// padded ids, where it saves the padding, and in input order for graphs with their own
/// tokenizer, which are fed no padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum BatchOrder {
    /// By length, so that a batch holds sentences of similar length (no padding waste); the
    /// vectors are written back in input order.
    Length,
    /// In input order. Graphs that quantise their activations per tensor at run time
    /// (`DynamicQuantizeLinear`, as USE-Multilingual's) give a sentence a vector that depends
    /// on the rest of its batch; in input order, with the reference's batch size, the vectors
    /// are those of a script that batches the file as it comes.
    Input,
}

/// A pretrained sentence encoder as an ONNX graph.
///
/// Two families of graphs are run:
/// - **a tokenizer inside the graph** (an onnxruntime-extensions `SentencepieceTokenizer` node,
///   as in Universal Sentence Encoder Multilingual's ONNX export): the graph is cut at the
///   tokenizer's outputs when it is loaded, and bitext's own sentencepiece (with the model
///   bytes, `add_bos` and `add_eos` the node carries) makes the ids; `tokenizer` must be absent;
/// - **transformer sentence-embedding graphs** as Hugging Face and sentence-transformers export
///   them (`input_ids`, `attention_mask`, optionally `token_type_ids`, each `[batch, length]`,
///   → token states `[batch, length, dim]` or a pooled `[batch, dim]`), tokenised by
///   `tokenizer` (a sentencepiece model, or the Hugging Face `tokenizer.json` exported with
///   the model), pooled by `pooling`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnnxSpec {
    /// The `.onnx` file.
    pub model: PathBuf,
    /// The tokenizer of a graph without one inside (its `sequence` adds the model's special
    /// tokens and truncates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<TokenizerSpec>,
    /// The graph output to read (default: its first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Pooling of per-token outputs.
    #[serde(default, skip_serializing_if = "is_mean")]
    pub pooling: Pooling,
    /// L2-normalise the vectors (default: on).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub normalize: bool,
    /// Sentences per batch.
    #[serde(default = "default_batch")]
    pub batch: usize,
    /// Batch order (absent: see [`BatchOrder`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<BatchOrder>,
    /// Largest number of tokens a sentence may have (special tokens included); a longer one is
    /// an error naming it. `None`: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<usize>,
    /// Threads of ONNX Runtime's operators in each session (0: ONNX Runtime's default, all
    /// cores); with `sessions: 0`, the cores to split (0: all).
    #[serde(default = "one")]
    pub threads: usize,
    /// ONNX Runtime sessions that run batches side by side, each with `threads` operator
    /// threads (default 1). Batches, not operators, in parallel: on 2 cores two one-thread
    /// sessions embed about 13% more sentences per second than one two-thread session (see
    /// docs/BENCHMARKS.md), at the cost of a second copy of the graph's tensors. The vectors
    /// do not change: every batch is the same batch, run by one session. `0`: measured on
    /// this CPU (`bitext_onnx::split`: every split of `threads` cores into sessions timed on a
    /// sample of the first large enough call's batches, the fastest kept and cached).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub sessions: usize,
    /// What a sentence whose tokenizer gives no token at all becomes ([`NoKnownWord`]). A
    /// tokenizer that adds special tokens (`add_bos`, `add_eos`, a `tokenizer.json`'s
    /// template) gives every sentence some, so the graph encodes even an empty line.
    #[serde(default, skip_serializing_if = "crate::spec::is_error")]
    pub no_known_word: NoKnownWord,
    /// The ONNX Runtime shared library (`libonnxruntime.so`, e.g. from the `onnxruntime` PyPI
    /// wheel's `onnxruntime/capi/`); absent: a `libonnxruntime.so*` beside the running
    /// program or in `../lib` from it, else the `BITEXT_ONNXRUNTIME` or `ORT_DYLIB_PATH`
    /// environment variable (`bitext_onnx::runtime_path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<PathBuf>,
}

fn yes() -> bool {
    true
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_mean(p: &Pooling) -> bool {
    *p == Pooling::Mean
}

fn default_batch() -> usize {
    128
}

impl OnnxSpec {
    /// The graph in `model` with default settings (its own tokenizer, mean pooling, normalised
    /// vectors, batches of 128 in the graph's default order, one thread).
    #[must_use]
    pub fn new(model: impl Into<PathBuf>) -> Self {
        OnnxSpec {
            model: model.into(),
            tokenizer: None,
            output: None,
            pooling: Pooling::Mean,
            normalize: true,
            batch: default_batch(),
            order: None,
            max_tokens: None,
            threads: 1,
            sessions: 1,
            no_known_word: NoKnownWord::Error,
            runtime: None,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an empty model path, `batch: 0`, `max_tokens: 0`, `sessions`
    /// above 256 or an empty output name.
    pub fn check(&self) -> Result<()> {
        if self.model.as_os_str().is_empty() {
            return Err(Error::Invalid("the onnx spec's model is empty".into()));
        }
        if self.batch == 0 {
            return Err(Error::Invalid(
                "the onnx spec's batch must be at least 1".into(),
            ));
        }
        if self.sessions > 256 {
            return Err(Error::Invalid(format!(
                "the onnx spec's sessions must be 0 (measured) or 1 to 256, not {}",
                self.sessions
            )));
        }
        if self.max_tokens == Some(0) {
            return Err(Error::Invalid(
                "the onnx spec's max_tokens must be at least 1".into(),
            ));
        }
        if self.output.as_deref().is_some_and(|o| o.trim().is_empty()) {
            return Err(Error::Invalid(
                "the onnx spec's output name is empty".into(),
            ));
        }
        Ok(())
    }

    /// The error of a crate that cannot build this spec.
    #[must_use]
    pub fn onnx_only(&self, what: &str) -> String {
        format!(
            "the {what} spec names the ONNX graph {}: ONNX graphs are run by bitext-onnx \
             (bitext_onnx::OnnxEncoder), which this crate does not depend on",
            self.model.display()
        )
    }
}
