//! `Encoder`: any sentence encoder of an `EncoderSpec`, built by `bitext::build` as `bitext
//! embed --encoder` builds it: a bag of words (`bow:FILE` or JSON), a trained neural model
//! (`model:DIR`, feature `neural`) or a pretrained ONNX graph (`onnx:FILE`, or `hf:ORG/NAME`
//! in the Hugging Face cache, feature `onnx`; ONNX Runtime found at run time as for the CLI,
//! e.g. `BITEXT_ONNXRUNTIME`).

use bitext_encode::{EncoderSpec, SentenceEncoder, Side};
use numpy::PyArray2;
use pyo3::prelude::*;

use crate::arrays::{sentences, table};
use crate::error::{OrRaise, invalid};

/// A sentence encoder: `Encoder(spec).encode(sentences, side="source")` → `float32` array of
/// `len(sentences) × dim`.
#[pyclass(module = "bitext", frozen)]
pub(crate) struct Encoder {
    spec: String,
    encoder: Box<dyn SentenceEncoder>,
}

fn build(spec: &EncoderSpec, reference: Option<&[String]>) -> PyResult<Box<dyn SentenceEncoder>> {
    bitext::build::encoder(spec, reference).or_raise()
}

#[pymethods]
impl Encoder {
    /// The encoder of `spec` (`bow:FILE`, `model:DIR`, `onnx:FILE`, `hf:ORG/NAME[@REVISION]`
    /// in the Hugging Face cache, or a JSON spec). A TF-IDF
    /// bag of words counts its IDF over `idf_reference` (sentences) when its spec names no
    /// `idf_corpus`.
    #[new]
    #[pyo3(signature = (spec, *, idf_reference = None))]
    fn new(py: Python<'_>, spec: &str, idf_reference: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let parsed: EncoderSpec = spec
            .parse()
            .map_err(|e| invalid(format!("encoder spec {spec:?}: {e}")))?;
        let reference = idf_reference
            .map(|r| sentences(r, "idf_reference"))
            .transpose()?;
        let encoder = py.detach(|| build(&parsed, reference.as_deref()))?;
        Ok(Self {
            spec: spec.to_string(),
            encoder,
        })
    }

    /// The vectors' dimension.
    #[getter]
    fn dim(&self) -> usize {
        self.encoder.dim()
    }

    /// Encode sentences (a sequence of str) as one side (`"source"` or `"target"`: models with
    /// a network per language use it; the others ignore it): `float32`, `len × dim`.
    #[pyo3(signature = (sentences, *, side = "source"))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        sentences: &Bound<'py, PyAny>,
        side: &str,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let side = match side {
            "source" | "src" => Side::Source,
            "target" | "tgt" => Side::Target,
            other => {
                return Err(invalid(format!(
                    "side: expected \"source\" or \"target\", got {other:?}"
                )));
            }
        };
        let s = crate::arrays::sentences(sentences, "sentences")?;
        let refs: Vec<&str> = s.iter().map(String::as_str).collect();
        let e = py.detach(|| self.encoder.encode(side, &refs)).or_raise()?;
        let (n, dim) = (e.len(), e.dim());
        table(py, e.into_vec(), n, dim)
    }

    fn __repr__(&self) -> String {
        format!("Encoder({:?}, dim={})", self.spec, self.encoder.dim())
    }
}
