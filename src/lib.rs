//! **bitext**: mining and filtering parallel sentences with bilingual sentence embeddings.
//!
//! This facade re-exports the member crates under short names; depend on a member crate
//! directly to compile less.
//!
//! | module | crate | holds |
//! |---|---|---|
//! | [`core`] | `bitext-core` | embedding matrices (also memory-mapped, binary16), file formats, errors, seeded RNG |
//! | [`tokenize`] | `bitext-tokenize` | tokenizers and vocabularies |
//! | [`lid`] | `bitext-lid` | language identification: the `LanguageIdentifier` trait, fastText models read natively |
//! | [`clean`] | `bitext-clean` | rule filters, language identification and near-duplicates for cleaning a crawl |
//! | [`encode`] | `bitext-encode` | the `SentenceEncoder` trait, bag-of-words encoders, encoder specs |
//! | [`knn`] | `bitext-knn` | k-nearest-neighbour indexes, the exact search both ways |
//! | [`similarity`] | `bitext-similarity` | cosine, CSLS, margin scoring, `PairScorer` |
//! | [`transport`] | `bitext-transport` | Earth Mover's Distance, word translation |
//! | [`lexical`] | `bitext-lexical` | IBM Model 1, Levenshtein, length ratio (lexical baselines) |
//! | [`mine`] | `bitext-mine` | the mining recipe, retrieval strategies, filtering, extraction |
//! | [`eval`] | `bitext-eval` | BUCC F1, alignment recovery, PR curves, calibration, word translation |
//! | [`classify`] | `bitext-classify` | a pair classifier over every scorer's features, trained from clean pairs, calibrated |
//! | [`shard`] | `bitext-shard` | sharded, resumable mining: plans and their steps |
//! | `neural` (feature `neural`) | `bitext-neural` | burn models: siamese BiGRU, shared-decoder autoencoder, word-alignment BiLSTM, MLP similarity, training loop |
//! | `onnx` (feature `onnx`) | `bitext-onnx` | pretrained encoders as ONNX graphs, run by ONNX Runtime |
//!
//! [`build`] is the one place that builds every spec (encoders, scorers, neural models) into
//! its implementation, with what this build's features allow.
//!
//! Features: `sentencepiece` (sentencepiece models and subword training, C++), `faiss` (the
//! faiss kNN backend, C++), `neural` (the burn models; without it nothing here compiles burn),
//! `onnx` (ONNX Runtime, loaded at run time).

pub mod build;

pub use bitext_classify as classify;
pub use bitext_clean as clean;
pub use bitext_core as core;
pub use bitext_encode as encode;
pub use bitext_eval as eval;
pub use bitext_knn as knn;
pub use bitext_lexical as lexical;
pub use bitext_lid as lid;
pub use bitext_mine as mine;
#[cfg(feature = "neural")]
pub use bitext_neural as neural;
#[cfg(feature = "onnx")]
pub use bitext_onnx as onnx;
pub use bitext_shard as shard;
pub use bitext_similarity as similarity;
pub use bitext_tokenize as tokenize;
pub use bitext_transport as transport;
