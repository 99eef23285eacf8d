//! Sentence encoders that need no neural network (filled by the margin-mining issue): the
//! `SentenceEncoder` trait (a batch of sentences → [`bitext_core::Embeddings`]) and a
//! bag-of-words encoder averaging bilingual word embeddings, optionally TF-IDF weighted.
//!
//! Nothing is implemented here yet.
