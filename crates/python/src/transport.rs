//! `emd`: the Earth Mover's Distance of two weight vectors under a cost matrix, solved exactly
//! by bitext-transport's network simplex (POT's `ot.emd2` / `ot.emd`).

use bitext_transport::{CostMatrix, NetworkSimplex, Problem, TransportSolver};
use numpy::ndarray::{Ix1, Ix2};
use numpy::{PyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::arrays::{f64_array, table};
use crate::error::OrRaise;

/// The optimal transport cost `Σ W_ij C_ij` of weights `a` (sources) and `b` (targets) under
/// `cost` (`len(a) × len(b)`, float64); with `plan=True`, `(cost, plan)` with the dense plan
/// `W`. `partial=True` is Zhang et al.'s form for unequal masses (the lighter side moves
/// completely); otherwise the masses must agree (`b` is rescaled to `a`'s mass, as POT does).
#[pyfunction]
#[pyo3(signature = (a, b, cost, *, plan = false, partial = false))]
pub(crate) fn emd<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    cost: &Bound<'py, PyAny>,
    plan: bool,
    partial: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let a = f64_array::<Ix1>(a, "a")?;
    let b = f64_array::<Ix1>(b, "b")?;
    let cost = f64_array::<Ix2>(cost, "cost")?;
    let (rows, cols) = (cost.shape()[0], cost.shape()[1]);
    let (av, bv, cv) = (
        a.as_slice().expect("`f64_array` checked the layout"),
        b.as_slice().expect("`f64_array` checked the layout"),
        cost.as_slice().expect("`f64_array` checked the layout"),
    );
    let t = py
        .detach(|| -> bitext_transport::Result<_> {
            let matrix = CostMatrix::new(cv, rows, cols)?;
            matrix.check_finite()?;
            let mut problem = Problem::new(av, bv, matrix)?;
            if partial {
                problem = problem.partial();
            }
            NetworkSimplex::default().solve(&problem)
        })
        .or_raise()?;
    if !plan {
        return Ok(t.cost.into_pyobject(py)?.into_any());
    }
    let mut dense = vec![0.0f64; rows * cols];
    for f in &t.plan {
        dense[f.src * cols + f.tgt] = f.mass;
    }
    let w: Bound<'py, PyArray2<f64>> = table(py, dense, rows, cols)?;
    Ok((t.cost, w).into_pyobject(py)?.into_any())
}
