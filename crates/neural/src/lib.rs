//! Neural models on burn (filled by the neural-encoder issues): the siamese BiGRU classifier,
//! the MLP similarity, the shared-decoder autoencoder and the word-alignment BiLSTM, with their
//! training loop and batching. This is the only crate of bitext that depends on burn.
//!
//! Nothing is implemented here yet.
