//! `Classifier`: a pair classifier trained by `bitext train classifier` (bitext-classify),
//! loaded from its directory with every feature this module can build (`bitext::build`):
//! `score` (what `bitext score --classifier` writes), `probability`, `min_score`, `explain`.

use std::path::PathBuf;
use std::sync::Arc;

use numpy::PyArray1;
use pyo3::prelude::*;

use crate::arrays::{f64_array, sentence_pairs, vector};
use crate::error::OrRaise;

/// A pair classifier (`bitext train classifier`): `Classifier.load(dir)`, `score(src, tgt)`
/// (in [0, 1]; a pair failing a hard rule below 0.5), `probability(scores)` (the calibrated
/// P(parallel)), `min_score(precision)`, `explain(src, tgt)` (each feature's contribution).
#[pyclass(module = "bitext", frozen)]
pub(crate) struct Classifier {
    c: Arc<bitext_classify::Classifier>,
}

#[pymethods]
impl Classifier {
    /// Load the classifier saved in `dir` (its features built: IBM-1 tables, language
    /// identification, encoders).
    #[staticmethod]
    fn load(py: Python<'_>, dir: PathBuf) -> PyResult<Self> {
        let c = py.detach(|| bitext::build::classifier(&dir)).or_raise()?;
        Ok(Self { c: Arc::new(c) })
    }

    /// The score of each pair `(src[i], tgt[i])`, as `bitext score --classifier` writes it.
    fn score<'py>(
        &self,
        py: Python<'py>,
        src: &Bound<'py, PyAny>,
        tgt: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (s, t) = sentence_pairs(src, tgt)?;
        let scores = py
            .detach(|| {
                let (s, t): (Vec<&str>, Vec<&str>) = (
                    s.iter().map(String::as_str).collect(),
                    t.iter().map(String::as_str).collect(),
                );
                self.c.score(&s, &t)
            })
            .or_raise()?;
        Ok(vector(py, scores))
    }

    /// The calibrated probability that a pair of each score is parallel.
    fn probability<'py>(
        &self,
        py: Python<'py>,
        scores: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let s = f64_array::<numpy::ndarray::Ix1>(scores, "scores")?;
        let p: Vec<f64> = s
            .as_array()
            .iter()
            .map(|&x| self.c.probability(x))
            .collect();
        Ok(vector(py, p))
    }

    /// The lowest score whose kept set reaches `precision` on the calibration sample.
    fn min_score(&self, precision: f64) -> PyResult<f64> {
        self.c.min_score(precision).or_raise()
    }

    /// Why each pair scores what it does: a dict per pair of each feature's contribution to
    /// the logit, with `"bias"`, and `"gate"` (the hard rule it fails, or None).
    fn explain<'py>(
        &self,
        py: Python<'py>,
        src: &Bound<'py, PyAny>,
        tgt: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Bound<'py, pyo3::types::PyDict>>> {
        let (s, t) = sentence_pairs(src, tgt)?;
        let x = py
            .detach(|| {
                let (s, t): (Vec<&str>, Vec<&str>) = (
                    s.iter().map(String::as_str).collect(),
                    t.iter().map(String::as_str).collect(),
                );
                self.c.features(&s, &t)
            })
            .or_raise()?;
        (0..x.rows())
            .map(|i| {
                let e = self.c.explain(&x, i);
                let d = pyo3::types::PyDict::new(py);
                d.set_item("bias", e.bias)?;
                for (name, v) in &e.contributions {
                    d.set_item(name, v)?;
                }
                d.set_item("gate", e.gate)?;
                Ok(d)
            })
            .collect()
    }

    /// The features' column names, in order.
    #[getter]
    fn features(&self) -> Vec<String> {
        self.c.description().model.names.clone()
    }
}
