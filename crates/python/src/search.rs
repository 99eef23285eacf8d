//! `knn`, `knn_both`, `mine` and `margin_scores`: bitext-knn's exact search and
//! bitext-mine's `MineSpec`, the recipe `bitext mine` runs, over numpy matrices.

use bitext_knn::{BidirectionalSearch, IndexSpec, Metric, Neighbors, Precision};
use bitext_mine::{MineSpec, Miner, Retrieval, Threshold};
use bitext_similarity::{MarginFunction, MarginSpec, PairScorer};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;

use crate::arrays::{matrix, pairs, table, vector};
use crate::error::{OrRaise, invalid};

/// `(scores, ids)` of neighbour lists: `float32` and `int64` arrays of `len × k`.
type Lists<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<i64>>);

/// `(pairs, scores)` of mined pairs: an `n × 2` int64 array and `n` float64 scores.
type Mined<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<f64>>);

fn metric(name: &str) -> PyResult<Metric> {
    match name {
        "ip" | "inner_product" | "cosine" => Ok(Metric::InnerProduct),
        "l2" => Ok(Metric::L2),
        other => Err(invalid(format!(
            "metric: expected \"ip\" (inner product; the cosine of unit rows) or \"l2\" \
             (squared Euclidean distance), got {other:?}"
        ))),
    }
}

fn precision(name: &str) -> PyResult<Precision> {
    name.parse::<Precision>()
        .map_err(|e| invalid(format!("precision: {e}")))
}

/// The exact index spec of `metric`, `precision` and `threads` (0: one per core).
fn exact(metric_name: &str, precision_name: &str, threads: usize) -> PyResult<IndexSpec> {
    Ok(IndexSpec::exact(metric(metric_name)?)
        .with_precision(precision(precision_name)?)
        .with_threads(threads))
}

fn lists(py: Python<'_>, nb: Neighbors) -> PyResult<Lists<'_>> {
    let (n, k) = (nb.len(), nb.k());
    let ids = nb
        .all_ids()
        .iter()
        .map(|&i| i64::try_from(i).map_err(|_| invalid("an id beyond int64")))
        .collect::<PyResult<Vec<i64>>>()?;
    let scores = nb.all_scores().to_vec();
    Ok((table(py, scores, n, k)?, table(py, ids, n, k)?))
}

/// The `k` nearest rows of `database` for every row of `queries`, best first: `(scores, ids)`.
#[pyfunction]
#[pyo3(signature = (queries, database, k, *, metric = "ip", precision = "auto", threads = 0))]
pub(crate) fn knn<'py>(
    py: Python<'py>,
    queries: &Bound<'py, PyAny>,
    database: &Bound<'py, PyAny>,
    k: usize,
    metric: &str,
    precision: &str,
    threads: usize,
) -> PyResult<Lists<'py>> {
    let spec = exact(metric, precision, threads)?;
    let (q, d) = (matrix(queries, "queries")?, matrix(database, "database")?);
    let (qv, dv) = (q.view(), d.view());
    let nb = py
        .detach(|| {
            let index = spec.build_over(dv)?;
            index.search(qv, k)
        })
        .or_raise()?;
    lists(py, nb)
}

/// Both directions at once: the `k_src` nearest targets of every source row and the `k_tgt`
/// nearest sources of every target row, from one pass over the similarities (bitext-knn's
/// `OnePass`): `((scores, ids), (scores, ids))`.
#[pyfunction]
#[pyo3(signature = (src, tgt, k = 4, *, k_tgt = None, metric = "ip", precision = "auto", threads = 0))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn knn_both<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    tgt: &Bound<'py, PyAny>,
    k: usize,
    k_tgt: Option<usize>,
    metric: &str,
    precision: &str,
    threads: usize,
) -> PyResult<(Lists<'py>, Lists<'py>)> {
    let spec = exact(metric, precision, threads)?;
    let (s, t) = (matrix(src, "src")?, matrix(tgt, "tgt")?);
    let (sv, tv) = (s.view(), t.view());
    let nb = py
        .detach(|| spec.search_both(sv, tv, k, k_tgt.unwrap_or(k), &mut |_, _, _| {}))
        .or_raise()?;
    Ok((lists(py, nb.forward)?, lists(py, nb.backward)?))
}

/// The margin function of `name`, by bitext-similarity's own names (LASER's and CSLS).
fn margin_function(name: &str) -> PyResult<MarginFunction> {
    name.parse().map_err(|e| invalid(format!("margin: {e}")))
}

/// The retrieval of `name`, by bitext-mine's own names.
fn retrieval(name: &str) -> PyResult<Retrieval> {
    name.parse().map_err(|e| invalid(format!("retrieval: {e}")))
}

/// The kNN index of `mine` / `margin_scores`: `"exact"` (one pass both ways, at `precision`)
/// or a faiss factory string (in a build with the `faiss` feature), ranking by inner product.
fn mine_index(index: &str, precision_name: &str, threads: usize) -> PyResult<IndexSpec> {
    let spec: IndexSpec = index
        .parse()
        .map_err(|e| invalid(format!("index {index:?}: {e}")))?;
    if spec.metric() != Metric::InnerProduct {
        return Err(invalid(format!(
            "index {index:?}: margin scoring needs an inner-product index"
        )));
    }
    spec.check()
        .map_err(|e| invalid(format!("index {index:?}: {e}")))?;
    let p = precision(precision_name)?;
    if spec.is_faiss() && matches!(p, Precision::Bf16 | Precision::Int8) {
        return Err(invalid(format!(
            "precision {p} applies to the exact index; faiss chooses its own in the factory string"
        )));
    }
    let spec = spec.with_threads(threads);
    Ok(if p == Precision::Auto {
        spec
    } else {
        spec.with_precision(p)
    })
}

/// Margin mining as `bitext mine` does it: both sides L2-normalised, searched both ways, the
/// candidates scored by the margin, then retrieval, threshold (`score > threshold`), one-to-one
/// and top-N. Returns `(pairs, scores)`: an `n × 2` int64 array of (source row, target row)
/// and their `float64` scores, best first.
#[pyfunction]
#[pyo3(signature = (
    src, tgt, *, k = 4, k_tgt = None, margin = "ratio", retrieval = "max", threshold = None,
    top_n = None, one_to_one = false, index = "exact", precision = "auto", threads = 0
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn mine<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    tgt: &Bound<'py, PyAny>,
    k: usize,
    k_tgt: Option<usize>,
    margin: &str,
    retrieval: &str,
    threshold: Option<f64>,
    top_n: Option<usize>,
    one_to_one: bool,
    index: &str,
    precision: &str,
    threads: usize,
) -> PyResult<Mined<'py>> {
    if let Some(t) = threshold.filter(|t| !t.is_finite()) {
        return Err(invalid(format!(
            "threshold must be a finite number, got {t}"
        )));
    }
    let margin = MarginSpec::with_k(margin_function(margin)?, k, k_tgt.unwrap_or(k));
    let mut miner = Miner::new(margin)
        .retrieval(self::retrieval(retrieval)?)
        .one_to_one(one_to_one);
    if let Some(value) = threshold {
        miner = miner.threshold(Threshold::Above { value });
    }
    if let Some(n) = top_n {
        miner = miner.top_n(n);
    }
    let spec = MineSpec::new(miner).index(mine_index(index, precision, threads)?);
    let (s, t) = (matrix(src, "src")?, matrix(tgt, "tgt")?);
    let (sv, tv) = (s.view(), t.view());
    let mined = py
        .detach(|| spec.mine(sv, tv, &mut |_, _, _| {}))
        .or_raise()?;
    let n = mined.len();
    let mut ids = Vec::with_capacity(2 * n);
    let mut scores = Vec::with_capacity(n);
    for p in mined {
        ids.push(i64::try_from(p.src).map_err(|_| invalid("a row beyond int64"))?);
        ids.push(i64::try_from(p.tgt).map_err(|_| invalid("a row beyond int64"))?);
        scores.push(p.score);
    }
    Ok((table(py, ids, n, 2)?, vector(py, scores)))
}

/// The margin scores of given (source row, target row) pairs over the two sides'
/// neighbourhoods (`bitext mine --mode score` for aligned pairs): `float64`, in order.
#[pyfunction]
#[pyo3(signature = (src, tgt, pairs, *, k = 4, k_tgt = None, margin = "ratio", index = "exact", precision = "auto", threads = 0))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn margin_scores<'py>(
    py: Python<'py>,
    src: &Bound<'py, PyAny>,
    tgt: &Bound<'py, PyAny>,
    pairs: &Bound<'py, PyAny>,
    k: usize,
    k_tgt: Option<usize>,
    margin: &str,
    index: &str,
    precision: &str,
    threads: usize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let margin = MarginSpec::with_k(margin_function(margin)?, k, k_tgt.unwrap_or(k));
    let spec = MineSpec::new(Miner::new(margin)).index(mine_index(index, precision, threads)?);
    let asked = self::pairs(pairs, "pairs")?;
    let (s, t) = (matrix(src, "src")?, matrix(tgt, "tgt")?);
    let (sv, tv) = (s.view(), t.view());
    let scores = py
        .detach(|| -> bitext_mine::Result<Vec<f64>> {
            let hoods = spec.neighbourhoods(sv, tv, &mut |_, _, _| {})?;
            Ok(hoods.scorer()?.score(&asked)?)
        })
        .or_raise()?;
    Ok(vector(py, scores))
}

/// The address of the `float32` rows the library reads for a matrix argument: the numpy
/// buffer's own (`array.ctypes.data`) when it is read in place. For the tests of "no copy".
#[pyfunction]
pub(crate) fn _input_address(array: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(matrix(array, "array")?.address())
}
