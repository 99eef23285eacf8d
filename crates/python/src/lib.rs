//! `bitext-python`: the Python extension module `bitext._bitext`, packaged by maturin as the
//! `bitext` wheel (`python/bitext/`). Every function is a thin layer over the library crates,
//! with no logic of its own beyond checking and converting its arguments:
//!
//! | Python | library |
//! |---|---|
//! | `knn`, `knn_both` | `bitext_knn::IndexSpec` (exact search, f32 / bf16 / int8), `OnePass` |
//! | `mine`, `margin_scores` | `bitext_mine::MineSpec` (what `bitext mine` runs) and its `MarginScorer` |
//! | `emd` | `bitext_transport::NetworkSimplex` |
//! | `score`, `levenshtein`, `Ibm1` | `bitext_mine::ScorerSpec`'s sentence scorers, `bitext_lexical` |
//! | `calibrate`, `Calibration` | `bitext_eval::calibration` |
//! | `Classifier` | `bitext_classify` (what `bitext train classifier` saves) |
//! | `Encoder` | `bitext_encode::EncoderSpec` (bag of words), `bitext-neural`, `bitext-onnx` |
//!
//! Arrays come in as numpy arrays: C-contiguous `float32` matrices are read in place (no
//! copy), `float16` ones are widened into a copy; any other dtype or layout, a wrong number of
//! dimensions and non-finite values raise `ValueError` naming the argument (`arrays.rs`).
//! Every call that searches, trains, solves or encodes releases the GIL. Library errors
//! become `ValueError` with the library's message (`error.rs`).
//!
//! The type stubs (`python/bitext/bitext/_bitext.pyi`) list exactly the functions and classes
//! registered here; `tests/stubs.rs` checks both ways.

mod arrays;
mod calibration;
mod classifier;
mod encoder;
mod error;
mod lexical;
mod search;
mod transport;

use pyo3::prelude::*;

/// The names the module registers, in order: what the type stubs must list.
pub const FUNCTIONS: &[&str] = &[
    "knn",
    "knn_both",
    "mine",
    "margin_scores",
    "emd",
    "score",
    "levenshtein",
    "calibrate",
];

/// The classes the module registers.
pub const CLASSES: &[&str] = &["Encoder", "Ibm1", "Calibration", "Classifier"];

/// Functions registered for the tests only (a leading underscore: not part of the API).
pub const TEST_FUNCTIONS: &[&str] = &["_input_address"];

/// The extension module `bitext._bitext` (re-exported by the `bitext` package).
#[pymodule]
#[pyo3(name = "_bitext")]
fn bitext_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // `hf:ORG/NAME` specs resolve in the Hugging Face cache, as the CLI's do.
    #[cfg(feature = "onnx")]
    bitext::onnx::hub::install();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(search::knn, m)?)?;
    m.add_function(wrap_pyfunction!(search::knn_both, m)?)?;
    m.add_function(wrap_pyfunction!(search::mine, m)?)?;
    m.add_function(wrap_pyfunction!(search::margin_scores, m)?)?;
    m.add_function(wrap_pyfunction!(transport::emd, m)?)?;
    m.add_function(wrap_pyfunction!(lexical::score, m)?)?;
    m.add_function(wrap_pyfunction!(lexical::levenshtein, m)?)?;
    m.add_function(wrap_pyfunction!(calibration::calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(search::_input_address, m)?)?;
    m.add_class::<encoder::Encoder>()?;
    m.add_class::<lexical::Ibm1>()?;
    m.add_class::<calibration::Calibration>()?;
    m.add_class::<classifier::Classifier>()?;
    Ok(())
}
