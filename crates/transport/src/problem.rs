//! Transport problems and their solutions: a dense cost matrix, two weight vectors, the balance
//! mode (exact marginals, or the partial form of Zhang et al. 2016, Eq. 1), and the sparse plan a
//! solver returns.

use crate::error::{Error, Result};

/// A dense, row-major cost matrix borrowed from the caller: `cost(i, j) = data[i * cols + j]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostMatrix<'a> {
    data: &'a [f64],
    rows: usize,
    cols: usize,
}

impl<'a> CostMatrix<'a> {
    /// View `data` as a `rows × cols` matrix.
    ///
    /// # Errors
    /// [`Error::Shape`] when `data.len() != rows * cols` (or the product overflows).
    pub fn new(data: &'a [f64], rows: usize, cols: usize) -> Result<Self> {
        if rows.checked_mul(cols) != Some(data.len()) {
            return Err(Error::Shape(format!(
                "a {rows} × {cols} cost matrix needs {} values, got {}",
                rows.saturating_mul(cols),
                data.len()
            )));
        }
        Ok(Self { data, rows, cols })
    }

    /// Number of rows (source items).
    #[must_use]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (target items).
    #[must_use]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The cost of moving mass from source `i` to target `j`.
    ///
    /// # Panics
    /// When `i` or `j` is out of range.
    #[must_use]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(j < self.cols, "column {j} out of range");
        self.data[i * self.cols + j]
    }

    /// Row `i`.
    #[must_use]
    pub fn row(&self, i: usize) -> &'a [f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All values, row-major.
    #[must_use]
    pub fn as_slice(&self) -> &'a [f64] {
        self.data
    }

    /// The first non-finite value, as [`Error::BadCost`].
    ///
    /// # Errors
    /// [`Error::BadCost`] naming the row and column.
    pub fn check_finite(&self) -> Result<()> {
        match self.data.iter().position(|c| !c.is_finite()) {
            None => Ok(()),
            Some(k) => Err(self.bad_cost(k)),
        }
    }

    pub(crate) fn bad_cost(&self, k: usize) -> Error {
        Error::BadCost {
            row: k / self.cols,
            col: k % self.cols,
            value: self.data[k],
        }
    }
}

/// How the two sides' masses must relate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Balance {
    /// Both marginals are met exactly: the masses must agree within the solver's relative mass
    /// tolerance (the target weights are then rescaled to the source mass, as POT does).
    #[default]
    Equal,
    /// Zhang et al. (2016), Eq. 1: the lighter side is transported completely and the heavier
    /// side ships at most its weights (`Σ_j W_ij ≤ t_i`, `Σ_i W_ij = s_j`), whichever side is
    /// heavier ("swap the roles of earth and holes when infeasible"). With equal masses it is
    /// [`Balance::Equal`].
    Partial,
}

/// A transport problem: source weights `a`, target weights `b`, and the cost of moving a unit
/// of mass from source `i` to target `j`.
///
/// ```
/// use bitext_transport::{CostMatrix, Problem};
/// # fn main() -> bitext_transport::Result<()> {
/// let cost = [0.0, 1.0, 1.0, 0.0];
/// let p = Problem::new(&[0.5, 0.5], &[0.5, 0.5], CostMatrix::new(&cost, 2, 2)?)?;
/// assert_eq!(p.masses(), (1.0, 1.0));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Problem<'a> {
    a: &'a [f64],
    b: &'a [f64],
    cost: CostMatrix<'a>,
    balance: Balance,
    mass_a: f64,
    mass_b: f64,
}

impl<'a> Problem<'a> {
    /// A balanced problem ([`Balance::Equal`]).
    ///
    /// # Errors
    /// [`Error::Shape`] when the weights do not match the matrix; [`Error::BadWeight`] for a
    /// negative, NaN or infinite weight; [`Error::ZeroMass`] when a side weighs nothing.
    pub fn new(a: &'a [f64], b: &'a [f64], cost: CostMatrix<'a>) -> Result<Self> {
        if a.len() != cost.rows() || b.len() != cost.cols() {
            return Err(Error::Shape(format!(
                "{} source and {} target weights for a {} × {} cost matrix",
                a.len(),
                b.len(),
                cost.rows(),
                cost.cols()
            )));
        }
        let mass_a = check_weights(a, "source")?;
        let mass_b = check_weights(b, "target")?;
        Ok(Self {
            a,
            b,
            cost,
            balance: Balance::Equal,
            mass_a,
            mass_b,
        })
    }

    /// Choose the balance mode.
    #[must_use]
    pub fn with_balance(mut self, balance: Balance) -> Self {
        self.balance = balance;
        self
    }

    /// The partial form of Zhang et al. (2016): see [`Balance::Partial`].
    #[must_use]
    pub fn partial(self) -> Self {
        self.with_balance(Balance::Partial)
    }

    /// Source weights.
    #[must_use]
    pub fn a(&self) -> &'a [f64] {
        self.a
    }

    /// Target weights.
    #[must_use]
    pub fn b(&self) -> &'a [f64] {
        self.b
    }

    /// The cost matrix.
    #[must_use]
    pub fn cost(&self) -> CostMatrix<'a> {
        self.cost
    }

    /// The balance mode.
    #[must_use]
    pub fn balance(&self) -> Balance {
        self.balance
    }

    /// Total source and target mass.
    #[must_use]
    pub fn masses(&self) -> (f64, f64) {
        (self.mass_a, self.mass_b)
    }

    /// Check that the masses agree within `tolerance` (relative) for [`Balance::Equal`];
    /// returns whether they are treated as equal.
    pub(crate) fn masses_equal(&self, tolerance: f64) -> Result<bool> {
        let (sa, sb) = (self.mass_a, self.mass_b);
        let equal = (sa - sb).abs() <= tolerance * sa.max(sb);
        if !equal && self.balance == Balance::Equal {
            return Err(Error::Unbalanced {
                source_mass: sa,
                target_mass: sb,
                tolerance,
            });
        }
        Ok(equal)
    }
}

/// Sum the weights, rejecting negative and non-finite values and an all-zero side.
pub(crate) fn check_weights(w: &[f64], side: &'static str) -> Result<f64> {
    let mut sum = 0.0;
    for (index, &value) in w.iter().enumerate() {
        if !(value.is_finite() && value >= 0.0) {
            return Err(Error::BadWeight { side, index, value });
        }
        sum += value;
    }
    if !sum.is_finite() {
        return Err(Error::Invalid(format!(
            "the {side} weights sum to {sum}: too large to transport"
        )));
    }
    if sum <= 0.0 {
        return Err(Error::ZeroMass { side });
    }
    Ok(sum)
}

/// One non-zero entry of a transport plan: `mass` moves from source `src` to target `tgt`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Flow {
    /// Source index (row of the cost matrix).
    pub src: usize,
    /// Target index (column of the cost matrix).
    pub tgt: usize,
    /// Mass moved.
    pub mass: f64,
}

/// A solved transport problem: the total cost and the sparse plan.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transport {
    /// Total cost `Σ W_ij C_ij`.
    pub cost: f64,
    /// Total mass moved `Σ W_ij` (the lighter side's mass in the partial form).
    pub mass: f64,
    /// Non-zero plan entries, sorted by `(src, tgt)`.
    pub plan: Vec<Flow>,
    /// Iterations the solver used (pivots for the network simplex, sweeps for Sinkhorn).
    pub iterations: usize,
}

impl Transport {
    /// The Earth Mover's Distance of Zhang et al. (2016), Eq. 3: cost per unit of mass moved.
    #[must_use]
    pub fn distance(&self) -> f64 {
        if self.mass > 0.0 {
            self.cost / self.mass
        } else {
            0.0
        }
    }

    /// Mass leaving each source (`rows` entries).
    #[must_use]
    pub fn row_sums(&self, rows: usize) -> Vec<f64> {
        let mut s = vec![0.0; rows];
        for f in &self.plan {
            s[f.src] += f.mass;
        }
        s
    }

    /// Mass reaching each target (`cols` entries).
    #[must_use]
    pub fn col_sums(&self, cols: usize) -> Vec<f64> {
        let mut s = vec![0.0; cols];
        for f in &self.plan {
            s[f.tgt] += f.mass;
        }
        s
    }
}
