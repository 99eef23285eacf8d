//! Scorers of sentence pairs given as text: `score` (any sentence scorer of bitext-mine's
//! `ScorerSpec`, as `bitext score --scorer` builds it: the EMD sentence distance, IBM-1,
//! Levenshtein, length ratio), `levenshtein`, and the `Ibm1` class (train, save, load, score).

use std::path::PathBuf;
use std::sync::Arc;

use bitext_lexical::{Ibm1Config, Segmenter};
use bitext_mine::{ScorerSpec, SentenceScorers};
use bitext_tokenize::WordConfig;
use numpy::PyArray1;
use pyo3::prelude::*;

use crate::arrays::{sentence_pairs, sentences, vector};
use crate::error::{OrRaise, invalid};

/// Scores of the aligned pairs `(src[i], tgt[i])` under `scorer`, a `bitext score --scorer`
/// spec of sentences: `"levenshtein"`, `"ibm1:DIR"`, or JSON such as `{"type": "emd",
/// "src_vectors": "de.vec", "tgt_vectors": "en.vec"}` or `{"type": "length_ratio", "unit":
/// "chars"}`. Higher is better (the EMD scores minus the distance). `reference` (source and
/// target sentences) counts the EMD's IDF when the spec names no IDF files; by default the
/// pairs themselves, as `bitext score` counts its input.
#[pyfunction]
#[pyo3(signature = (scorer, src, tgt, *, reference = None))]
pub(crate) fn score<'py>(
    py: Python<'py>,
    scorer: &str,
    src: &Bound<'py, PyAny>,
    tgt: &Bound<'py, PyAny>,
    reference: Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let spec: ScorerSpec = scorer
        .parse()
        .map_err(|e| invalid(format!("scorer {scorer:?}: {e}")))?;
    let (s, t) = sentence_pairs(src, tgt)?;
    let reference = match reference {
        Some((rs, rt)) => Some((
            sentences(&rs, "reference[0]")?,
            sentences(&rt, "reference[1]")?,
        )),
        None => None,
    };
    let scores = py
        .detach(|| -> bitext_mine::Result<Vec<f64>> {
            let (rs, rt) = match &reference {
                Some((a, b)) => (a, b),
                None => (&s, &t),
            };
            let scorers = spec.sentence_scorers(Some((rs.as_slice(), rt.as_slice())))?;
            aligned(&scorers, &s, &t)
        })
        .or_raise()?;
    Ok(vector(py, scores))
}

/// The scores of `(src[i], tgt[i])` by a built scorer.
fn aligned(
    scorers: &SentenceScorers,
    src: &[String],
    tgt: &[String],
) -> bitext_mine::Result<Vec<f64>> {
    let scorer = scorers.build(src, tgt)?;
    let pairs: Vec<(usize, usize)> = (0..src.len()).map(|i| (i, i)).collect();
    Ok(scorer.score(&pairs)?)
}

/// The Levenshtein distance between two strings, in characters (Unicode scalar values); with
/// `normalized=True`, divided by the longer length (0.0 for two empty strings).
#[pyfunction]
#[pyo3(signature = (a, b, *, normalized = false))]
pub(crate) fn levenshtein<'py>(
    py: Python<'py>,
    a: &str,
    b: &str,
    normalized: bool,
) -> PyResult<Bound<'py, PyAny>> {
    use bitext_lexical::levenshtein;
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    Ok(if normalized {
        let x = py.detach(|| levenshtein::normalized(&a, &b));
        x.into_pyobject(py)?.into_any()
    } else {
        let d = py.detach(|| levenshtein::distance(&a, &b));
        d.into_pyobject(py)?.into_any()
    })
}

/// IBM Model 1 trained both ways (bitext-lexical's `Ibm1`, what `bitext train ibm1` trains):
/// `Ibm1.train(src, tgt)`, `Ibm1.load(dir)`, `save(dir)`, `score(src, tgt)`.
#[pyclass(module = "bitext", frozen)]
pub(crate) struct Ibm1 {
    model: Arc<bitext_lexical::Ibm1>,
}

#[pymethods]
impl Ibm1 {
    /// Train on line-parallel sentences: `iterations` of EM per direction, with the NULL word
    /// unless `null_word=False`; tokens are lowercased words (`keep_case=True` keeps the case),
    /// or the pieces of the sentencepiece model `spm`.
    #[staticmethod]
    #[pyo3(signature = (src, tgt, *, iterations = 5, null_word = true, keep_case = false, spm = None))]
    fn train(
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        tgt: &Bound<'_, PyAny>,
        iterations: usize,
        null_word: bool,
        keep_case: bool,
        spm: Option<PathBuf>,
    ) -> PyResult<Self> {
        let (s, t) = (sentences(src, "src")?, sentences(tgt, "tgt")?);
        let segmenter = Segmenter::sentencepiece_or_words(
            spm,
            WordConfig {
                lowercase: !keep_case,
                ..WordConfig::default()
            },
        );
        let config = Ibm1Config {
            iterations,
            null_word,
        };
        let model = py
            .detach(|| bitext_lexical::Ibm1::train(&config, segmenter, &s, &t, &mut |_| {}))
            .or_raise()?;
        Ok(Self {
            model: Arc::new(model),
        })
    }

    /// Load a model directory saved by `save` or by `bitext train ibm1`.
    #[staticmethod]
    fn load(py: Python<'_>, dir: PathBuf) -> PyResult<Self> {
        let model = py.detach(|| bitext_lexical::Ibm1::load(&dir)).or_raise()?;
        Ok(Self {
            model: Arc::new(model),
        })
    }

    /// Save the model into directory `dir` (what `bitext score --scorer ibm1:DIR` loads).
    fn save(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        py.detach(|| self.model.save(&dir)).or_raise()
    }

    /// The IBM-1 scores of the aligned pairs `(src[i], tgt[i])` (`float64`; the scorer of
    /// `bitext score --scorer ibm1:DIR`).
    fn score<'py>(
        &self,
        py: Python<'py>,
        src: &Bound<'py, PyAny>,
        tgt: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (s, t) = sentence_pairs(src, tgt)?;
        let scorers = SentenceScorers::Ibm1(self.model.clone());
        let scores = py.detach(|| aligned(&scorers, &s, &t)).or_raise()?;
        Ok(vector(py, scores))
    }

    /// Sentence pairs it was trained on.
    #[getter]
    fn pairs(&self) -> usize {
        self.model.pairs()
    }

    /// `t(tgt | src)`, the forward translation probability of one pair of tokens.
    fn t(&self, src: &str, tgt: &str) -> f64 {
        self.model.t(src, tgt)
    }

    fn __repr__(&self) -> String {
        let (f, b) = self.model.entries();
        format!("Ibm1(pairs={}, entries=({f}, {b}))", self.model.pairs())
    }
}
