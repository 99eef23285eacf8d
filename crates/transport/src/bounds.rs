//! Cheap lower bounds on the optimal transport cost, for pruning when many pairs are scored
//! (Kusner et al. 2015): the word centroid distance `O(d·(n + m))` and the relaxed EMD
//! `O(n·m)`, both far cheaper than an exact solve.

use crate::error::{Error, Result};
use crate::problem::{Balance, Problem};

/// Word centroid distance: `‖Σ_i a_i x_i − Σ_j b_j y_j‖` for weights normalised to sum 1, a
/// lower bound on the Earth Mover's Distance ([`crate::Transport::distance`]) of a balanced
/// problem whose costs are the Euclidean distances `‖x_i − y_j‖` (by the triangle inequality,
/// `Σ W_ij ‖x_i − y_j‖ ≥ ‖Σ W_ij (x_i − y_j)‖`).
///
/// `x` holds `a.len()` rows of dimension `dim`, `y` holds `b.len()` rows.
///
/// ```
/// use bitext_transport::bounds::centroid_distance;
/// let d = centroid_distance(&[1.0], &[0.0, 0.0], &[0.5, 0.5], &[3.0, 4.0, 3.0, -4.0], 2)?;
/// assert!((d - 3.0).abs() < 1e-12);
/// # Ok::<(), bitext_transport::Error>(())
/// ```
///
/// # Errors
/// [`Error::Shape`] when the vectors do not match the weights; [`Error::BadWeight`] /
/// [`Error::ZeroMass`] as for a [`Problem`].
pub fn centroid_distance(a: &[f64], x: &[f32], b: &[f64], y: &[f32], dim: usize) -> Result<f64> {
    if x.len() != a.len() * dim || y.len() != b.len() * dim {
        return Err(Error::Shape(format!(
            "{} and {} weights need {} and {} values of dimension {dim}, got {} and {}",
            a.len(),
            b.len(),
            a.len() * dim,
            b.len() * dim,
            x.len(),
            y.len()
        )));
    }
    let mut diff = vec![0.0f64; dim];
    for (w, sign, v, side) in [(a, 1.0, x, "source"), (b, -1.0, y, "target")] {
        let total: f64 = crate::problem::check_weights(w, side)?;
        for (wi, row) in w.iter().zip(v.chunks_exact(dim.max(1))) {
            let s = sign * wi / total;
            for (d, &xv) in diff.iter_mut().zip(row) {
                *d += s * f64::from(xv);
            }
        }
    }
    Ok(diff.iter().map(|d| d * d).sum::<f64>().sqrt())
}

/// Relaxed transport cost (the "relaxed WMD" of Kusner et al.): every unit of mass that must
/// move travels at least to its cheapest destination, so `Σ_i a_i min_j C_ij` (and, for a
/// balanced problem, `Σ_j b_j min_i C_ij`) bounds the optimal cost from below. Returns the
/// largest valid bound on the total cost [`crate::Transport::cost`].
///
/// In the partial form only the lighter side must move all its mass, so only its bound holds.
/// For a balanced problem the target weights are rescaled to the source mass, as the solvers
/// do.
///
/// ```
/// use bitext_transport::{bounds::relaxed_cost, CostMatrix, Problem};
/// let cost = [1.0, 2.0, 4.0, 3.0];
/// let p = Problem::new(&[0.5, 0.5], &[0.5, 0.5], CostMatrix::new(&cost, 2, 2)?)?;
/// // rows: 0.5·1 + 0.5·3 = 2; columns: 0.5·1 + 0.5·2 = 1.5; the optimum is 2.
/// assert_eq!(relaxed_cost(&p), 2.0);
/// # Ok::<(), bitext_transport::Error>(())
/// ```
#[must_use]
pub fn relaxed_cost(p: &Problem<'_>) -> f64 {
    let c = p.cost();
    let (ma, mb) = p.masses();
    let (n, m) = (c.rows(), c.cols());
    let mut col_min = vec![f64::INFINITY; m];
    let mut rows_bound = 0.0;
    for (i, &ai) in p.a().iter().enumerate() {
        let row = c.row(i);
        let mut rmin = f64::INFINITY;
        for (cm, &cij) in col_min.iter_mut().zip(row) {
            rmin = rmin.min(cij);
            *cm = cm.min(cij);
        }
        if ai > 0.0 && n > 0 {
            rows_bound += ai * rmin;
        }
    }
    let cols_bound: f64 = p
        .b()
        .iter()
        .zip(&col_min)
        .filter(|(b, _)| **b > 0.0)
        .map(|(b, cm)| b * cm)
        .sum();
    let equal = (ma - mb).abs() <= 1e-9 * ma.max(mb);
    match p.balance() {
        Balance::Partial if !equal => {
            if ma < mb {
                rows_bound
            } else {
                cols_bound
            }
        }
        _ => rows_bound.max(cols_bound * ma / mb),
    }
}
