//! Logistic regression over standardised features, fitted by Newton's method (iteratively
//! reweighted least squares) with an L2 penalty: a handful of columns and tens of thousands of
//! pairs fit in milliseconds, deterministically, to the unique optimum (the penalty makes the
//! loss strictly convex, so separable data has one too).
//!
//! Missing values (`NaN`) are replaced by the column's training mean (a standardised 0), the
//! feature's `_missing` flag carrying the information; a column constant over the training
//! pairs gets weight 0.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::extract::Matrix;

/// A fitted model: per column its mean and scale, its weight; and the bias.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    /// The columns' names, in order.
    pub names: Vec<String>,
    /// Each column's training mean (over its present values).
    pub mean: Vec<f64>,
    /// Each column's training standard deviation (1 for a constant column).
    pub scale: Vec<f64>,
    /// Each column's weight, per standard deviation.
    pub weights: Vec<f64>,
    /// The bias (the logit of a pair at every mean).
    pub bias: f64,
}

/// Options of the fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FitOptions {
    /// L2 penalty on the weights, per training pair (default 1e-4).
    pub l2: f64,
    /// Most Newton steps (default 100).
    pub max_iter: usize,
}

impl Default for FitOptions {
    fn default() -> Self {
        Self {
            l2: 1e-4,
            max_iter: 100,
        }
    }
}

/// The logistic function.
#[must_use]
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

impl Logistic {
    /// Fit on the rows of `x` with labels `y` (true: parallel).
    ///
    /// # Errors
    /// [`Error::Invalid`]: no rows, labels of another length, a single class, a bad option.
    pub fn fit(x: &Matrix, y: &[bool], options: &FitOptions) -> Result<Self> {
        let n = x.rows();
        if n == 0 || y.len() != n {
            return Err(Error::Invalid(format!(
                "{n} feature rows and {} labels",
                y.len()
            )));
        }
        if y.iter().all(|&b| b) || !y.iter().any(|&b| b) {
            return Err(Error::Invalid(
                "training needs both parallel and non-parallel pairs".into(),
            ));
        }
        if !(options.l2.is_finite() && options.l2 >= 0.0) || options.max_iter == 0 {
            return Err(Error::Invalid(
                "the L2 penalty must be at least 0 and max_iter at least 1".into(),
            ));
        }
        let d = x.columns.len();
        let mut mean = vec![0.0; d];
        let mut scale = vec![1.0; d];
        let mut active = vec![false; d];
        for (c, col) in x.columns.iter().enumerate() {
            let present: Vec<f64> = col.iter().copied().filter(|v| !v.is_nan()).collect();
            if present.is_empty() {
                continue;
            }
            let m = present.iter().sum::<f64>() / present.len() as f64;
            let var = present.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / present.len() as f64;
            mean[c] = m;
            if var > 1e-24 && var.is_finite() {
                scale[c] = var.sqrt();
                active[c] = true;
            }
        }
        let cols: Vec<usize> = (0..d).filter(|&c| active[c]).collect();
        // The design matrix of the active columns, row-major, with a leading 1 for the bias.
        let k = cols.len() + 1;
        let mut z = vec![0.0; n * k];
        for i in 0..n {
            z[i * k] = 1.0;
            for (j, &c) in cols.iter().enumerate() {
                let v = x.columns[c][i];
                z[i * k + j + 1] = if v.is_nan() {
                    0.0
                } else {
                    (v - mean[c]) / scale[c]
                };
            }
        }
        let beta = newton(&z, y, k, options.l2 * n as f64, options.max_iter)?;
        let mut weights = vec![0.0; d];
        for (j, &c) in cols.iter().enumerate() {
            weights[c] = beta[j + 1];
        }
        Ok(Self {
            names: x.names.clone(),
            mean,
            scale,
            weights,
            bias: beta[0],
        })
    }

    /// The standardised value of column `c` (0 for a missing value).
    #[must_use]
    pub fn standardised(&self, c: usize, value: f64) -> f64 {
        if value.is_nan() {
            0.0
        } else {
            (value - self.mean[c]) / self.scale[c]
        }
    }

    /// Each column's contribution to the logit of row `i` (weight times standardised value).
    #[must_use]
    pub fn contributions(&self, x: &Matrix, i: usize) -> Vec<f64> {
        (0..self.weights.len())
            .map(|c| self.weights[c] * self.standardised(c, x.columns[c][i]))
            .collect()
    }

    /// The first of `gates` (columns) whose flag row `i` of `x` raises: the hard rule it fails.
    pub(crate) fn gate(&self, gates: &[usize], x: &Matrix, i: usize) -> Option<usize> {
        gates.iter().copied().find(|&c| x.columns[c][i] > 0.0)
    }

    /// The logit of every row of `x`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the columns are not the model's.
    pub fn logits(&self, x: &Matrix) -> Result<Vec<f64>> {
        if x.names != self.names {
            return Err(Error::Invalid(format!(
                "features {:?} do not match the model's {:?}",
                x.names, self.names
            )));
        }
        Ok((0..x.rows())
            .map(|i| self.bias + self.contributions(x, i).iter().sum::<f64>())
            .collect())
    }
}

/// Newton's method for the penalised logistic loss over `z` (`n × k`, row-major; column 0 the
/// bias, which is not penalised).
fn newton(z: &[f64], y: &[bool], k: usize, l2: f64, max_iter: usize) -> Result<Vec<f64>> {
    let n = y.len();
    let mut beta = vec![0.0; k];
    let positives = y.iter().filter(|&&b| b).count() as f64;
    beta[0] = (positives / (n as f64 - positives)).ln();
    for _ in 0..max_iter {
        let mut grad = vec![0.0; k];
        let mut hess = vec![0.0; k * k];
        for i in 0..n {
            let row = &z[i * k..(i + 1) * k];
            let eta: f64 = row.iter().zip(&beta).map(|(a, b)| a * b).sum();
            let p = sigmoid(eta);
            let r = p - f64::from(u8::from(y[i]));
            let w = (p * (1.0 - p)).max(1e-12);
            for a in 0..k {
                grad[a] += r * row[a];
                let wa = w * row[a];
                for b in a..k {
                    hess[a * k + b] += wa * row[b];
                }
            }
        }
        for a in 0..k {
            for b in 0..a {
                hess[a * k + b] = hess[b * k + a];
            }
            if a > 0 {
                grad[a] += l2 * beta[a];
                hess[a * k + a] += l2;
            }
            hess[a * k + a] += 1e-9;
        }
        let step = solve(&mut hess, &grad, k)
            .ok_or_else(|| Error::Invalid("the features are degenerate (a singular fit)".into()))?;
        let mut largest = 0.0f64;
        for (b, s) in beta.iter_mut().zip(&step) {
            *b -= s;
            largest = largest.max(s.abs());
        }
        if !beta.iter().all(|b| b.is_finite()) {
            return Err(Error::Invalid("the fit diverged".into()));
        }
        if largest < 1e-10 {
            break;
        }
    }
    Ok(beta)
}

/// Solve `a x = b` for a symmetric positive definite `a` (`k × k`, overwritten) by Cholesky.
fn solve(a: &mut [f64], b: &[f64], k: usize) -> Option<Vec<f64>> {
    for j in 0..k {
        let mut d = a[j * k + j];
        for p in 0..j {
            d -= a[j * k + p] * a[j * k + p];
        }
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        let d = d.sqrt();
        a[j * k + j] = d;
        for i in j + 1..k {
            let mut s = a[i * k + j];
            for p in 0..j {
                s -= a[i * k + p] * a[j * k + p];
            }
            a[i * k + j] = s / d;
        }
    }
    let mut x = b.to_vec();
    for i in 0..k {
        for p in 0..i {
            x[i] -= a[i * k + p] * x[p];
        }
        x[i] /= a[i * k + i];
    }
    for i in (0..k).rev() {
        for p in i + 1..k {
            x[i] -= a[p * k + i] * x[p];
        }
        x[i] /= a[i * k + i];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use bitext_core::Rng;

    use super::*;

    fn matrix(columns: Vec<Vec<f64>>) -> Matrix {
        Matrix {
            names: (0..columns.len()).map(|c| format!("f{c}")).collect(),
            columns,
        }
    }

    #[test]
    fn recovers_the_weights_of_a_logistic_model() {
        let mut rng = Rng::seed(3);
        let n = 20_000;
        let (mut a, mut b, mut y) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..n {
            let (x1, x2) = (rng.normal(), rng.normal());
            a.push(x1);
            b.push(x2);
            y.push(rng.bernoulli(sigmoid(0.5 + 2.0 * x1 - 1.0 * x2)));
        }
        let x = matrix(vec![a, b]);
        let m = Logistic::fit(
            &x,
            &y,
            &FitOptions {
                l2: 0.0,
                max_iter: 50,
            },
        )
        .unwrap();
        let w: Vec<f64> = m.weights.iter().zip(&m.scale).map(|(w, s)| w / s).collect();
        assert!(
            (w[0] - 2.0).abs() < 0.1 && (w[1] + 1.0).abs() < 0.1,
            "{w:?}"
        );
        let bias =
            m.bias - m.weights[0] * m.mean[0] / m.scale[0] - m.weights[1] * m.mean[1] / m.scale[1];
        assert!((bias - 0.5).abs() < 0.1, "{bias}");
    }

    #[test]
    fn separable_data_has_a_finite_fit_and_constant_columns_weigh_nothing() {
        let x = matrix(vec![
            vec![0.0, 1.0, 2.0, 3.0],
            vec![5.0; 4],
            vec![f64::NAN, 1.0, 1.0, f64::NAN],
        ]);
        let y = [false, false, true, true];
        let m = Logistic::fit(&x, &y, &FitOptions::default()).unwrap();
        assert!(m.weights[0] > 1.0 && m.weights.iter().all(|w| w.is_finite()));
        assert_eq!(m.weights[1], 0.0);
        let l = m.logits(&x).unwrap();
        assert!(l[0] < l[1] && l[1] < l[2] && l[2] < l[3], "{l:?}");
        // A missing value counts as the mean.
        assert_eq!(m.standardised(2, f64::NAN), 0.0);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let x = matrix(vec![vec![0.0, 1.0]]);
        assert!(Logistic::fit(&x, &[true, true], &FitOptions::default()).is_err());
        assert!(Logistic::fit(&x, &[true], &FitOptions::default()).is_err());
        let bad = FitOptions {
            l2: f64::NAN,
            max_iter: 10,
        };
        assert!(Logistic::fit(&x, &[true, false], &bad).is_err());
        let other = matrix(vec![vec![0.0], vec![1.0]]);
        let m = Logistic::fit(&x, &[true, false], &FitOptions::default()).unwrap();
        assert!(m.logits(&other).is_err());
    }
}
