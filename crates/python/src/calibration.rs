//! `calibrate` and `Calibration`: bitext-eval's isotonic calibration of raw scores (what
//! `bitext calibrate` fits and `--calibration` / `--min-precision` apply): a score's estimated
//! probability of being parallel, and the threshold that reaches a precision.

use std::path::PathBuf;

use bitext_eval::calibration::{self, FitOptions, LabelledScores};
use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::arrays::{f64_array, vector};
use crate::error::{OrRaise, invalid};

/// Fit a calibration to `scores` (float64) and `labels` (bool or 0/1: parallel or not).
/// `relevant`: the parallel pairs that should have been found, when the sample is a mined list
/// that missed some (recall's denominator; default: the positives). `confidence`: of the
/// Wilson intervals in the threshold table.
#[pyfunction]
#[pyo3(signature = (scores, labels, *, relevant = None, confidence = 0.95, source = ""))]
pub(crate) fn calibrate(
    py: Python<'_>,
    scores: &Bound<'_, PyAny>,
    labels: &Bound<'_, PyAny>,
    relevant: Option<usize>,
    confidence: f64,
    source: &str,
) -> PyResult<Calibration> {
    let s = f64_array::<numpy::ndarray::Ix1>(scores, "scores")?;
    let labels: Vec<bool> = match labels.cast::<PyArray1<bool>>() {
        Ok(a) => a.readonly().as_array().to_vec(),
        Err(_) => {
            let ints: Vec<i64> = labels
                .extract()
                .map_err(|_| invalid("labels: expected a sequence of bool or of 0 and 1"))?;
            ints.into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    0 => Ok(false),
                    1 => Ok(true),
                    other => Err(invalid(format!(
                        "labels[{i}] is {other}: expected 0 (not parallel) or 1 (parallel)"
                    ))),
                })
                .collect::<PyResult<_>>()?
        }
    };
    if labels.len() != s.len() {
        return Err(invalid(format!(
            "{} scores but {} labels",
            s.len(),
            labels.len()
        )));
    }
    let scored: Vec<(f64, bool)> = s.as_array().iter().copied().zip(labels).collect();
    let options = FitOptions {
        confidence,
        source: source.to_string(),
        ..FitOptions::default()
    };
    let cal = py
        .detach(|| -> bitext_eval::Result<_> {
            let sample = match relevant {
                Some(r) => LabelledScores::with_relevant(scored, r)?,
                None => LabelledScores::new(scored)?,
            };
            calibration::Calibration::fit(&sample, &options)
        })
        .or_raise()?;
    Ok(Calibration { cal })
}

/// A fitted calibration: `probability(scores)`, `min_score(precision)`, the threshold table
/// (`thresholds`, as dicts), `save(path)` / `Calibration.load(path)` in the JSON format of
/// `bitext calibrate`.
#[pyclass(module = "bitext", frozen)]
pub(crate) struct Calibration {
    cal: calibration::Calibration,
}

#[pymethods]
impl Calibration {
    /// Load a calibration file written by `save` or by `bitext calibrate`.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        Ok(Self {
            cal: calibration::Calibration::load(&path).or_raise()?,
        })
    }

    /// Write the calibration as JSON (atomically), for `bitext mine --calibration FILE`.
    fn save(&self, path: PathBuf) -> PyResult<()> {
        self.cal.save(&path).or_raise()
    }

    /// The estimated probability of being parallel of each score (float64 array).
    fn probability<'py>(
        &self,
        py: Python<'py>,
        scores: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let s = f64_array::<numpy::ndarray::Ix1>(scores, "scores")?;
        let out = s
            .as_array()
            .iter()
            .map(|&x| self.cal.probability(x))
            .collect();
        Ok(vector(py, out))
    }

    /// The lowest raw score to keep so that the kept pairs reach `precision` on the calibration
    /// sample (`--min-precision`); `ValueError` when no threshold reaches it.
    fn min_score(&self, precision: f64) -> PyResult<f64> {
        self.cal.min_score(precision).or_raise()
    }

    /// The threshold table: one dict per reachable target (precision and recall levels, the
    /// F1-optimal row last), with the kept set's precision, recall, F1 and intervals.
    #[getter]
    fn thresholds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(self.cal.thresholds()).or_raise()?;
        py.import("json")?.call_method1("loads", (json,))
    }

    /// The calibration as the JSON text `save` writes.
    fn to_json(&self) -> PyResult<String> {
        self.cal.to_json().or_raise()
    }

    fn __repr__(&self) -> String {
        let s = self.cal.samples();
        format!(
            "Calibration(blocks={}, pairs={}, positives={}, relevant={})",
            self.cal.blocks().len(),
            s.pairs,
            s.positives,
            s.relevant
        )
    }
}
