//! Tokenization for bitext (filled by the tokenization issue): a `Tokenizer` trait with a
//! serde-tagged spec, a sentencepiece backend, joint subword training for two languages, a
//! Unicode-aware word tokenizer for word-level methods, and vocabularies with special tokens.
//!
//! Nothing is implemented here yet.
