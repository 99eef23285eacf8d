//! k-nearest-neighbour search (filled by the margin-mining issue): the `KnnIndex` trait, an exact
//! blocked-GEMM backend with per-row top-k, and a faiss backend behind the `faiss` feature.
//!
//! Nothing is implemented here yet.
