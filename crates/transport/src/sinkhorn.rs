//! Entropic optimal transport (Cuturi 2013) by Sinkhorn iterations in the log domain, which
//! stays finite for small regularisations where `exp(−C/ε)` underflows. An approximate
//! alternative to the exact network simplex behind the same [`TransportSolver`] trait.

use crate::error::{Error, Result};
use crate::problem::{Flow, Problem, Transport};
use crate::solver::{TransportSolver, check_common, setters};

/// Parameters of the Sinkhorn solver; [`SinkhornParams::check`] turns them into a solver.
///
/// ```
/// use bitext_transport::SinkhornParams;
/// assert!(SinkhornParams::default().reg(0.01).check().is_ok());
/// assert!(SinkhornParams::default().reg(0.0).check().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SinkhornParams {
    /// Entropic regularisation `ε`, as a fraction of the largest cost of each problem.
    pub reg: f64,
    /// Most iterations (one iteration updates both potentials).
    pub max_iterations: usize,
    /// Stop when the source marginal is off by at most this fraction of the mass (L1).
    /// Sinkhorn converges linearly, slowly for small `reg` on degenerate problems (subsets of
    /// the two sides with equal mass, common with term-frequency weights), so very small
    /// tolerances can take many iterations.
    pub tolerance: f64,
    /// Relative tolerance within which two masses count as equal (see
    /// [`crate::SimplexParams::mass_tolerance`]).
    pub mass_tolerance: f64,
    /// ε-scaling in the log domain: start at the largest cost and halve the regularisation
    /// down to `reg`, warm-starting each level (much faster convergence for small `reg`).
    /// Problems whose cost range is at most 200 ε run in the kernel form instead
    /// (`exp(−C/ε)` computed once, no scaling).
    pub scaling: bool,
}

/// Sweeps per intermediate level of ε-scaling.
const SCALING_SWEEPS: usize = 10;

impl Default for SinkhornParams {
    fn default() -> Self {
        Self {
            reg: 0.01,
            max_iterations: 100_000,
            tolerance: 1e-6,
            mass_tolerance: 1e-9,
            scaling: true,
        }
    }
}

setters!(SinkhornParams {
    reg: f64,
    max_iterations: usize,
    tolerance: f64,
    mass_tolerance: f64,
    scaling: bool,
});

impl SinkhornParams {
    /// Validate and build the solver.
    ///
    /// # Errors
    /// [`Error::Param`] for a regularisation that is not positive and finite, a zero iteration
    /// cap, or tolerances outside `(0, 1)` / `[0, 0.1]`.
    pub fn check(self) -> Result<Sinkhorn> {
        if !(self.reg.is_finite() && self.reg > 0.0) {
            return Err(Error::Param(format!(
                "reg must be positive and finite, got {}",
                self.reg
            )));
        }
        check_common(self.max_iterations, self.mass_tolerance)?;
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            return Err(Error::Param(format!(
                "tolerance must be in (0, 1), got {}",
                self.tolerance
            )));
        }
        Ok(Sinkhorn {
            params: self,
            ws: Workspace::default(),
        })
    }
}

/// Log-domain Sinkhorn. The plan is dense (every entry positive); entries that underflow to
/// zero are left out of [`Transport::plan`].
///
/// ```
/// use bitext_transport::{CostMatrix, Problem, SinkhornParams, TransportSolver};
/// # fn main() -> bitext_transport::Result<()> {
/// let cost = [0.0, 1.0, 1.0, 0.0];
/// let p = Problem::new(&[0.75, 0.25], &[0.5, 0.5], CostMatrix::new(&cost, 2, 2)?)?;
/// let t = SinkhornParams::default().reg(0.001).check()?.solve(&p)?;
/// assert!((t.cost - 0.25).abs() < 1e-3);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Sinkhorn {
    params: SinkhornParams,
    ws: Workspace,
}

#[derive(Debug, Default, Clone)]
struct Workspace {
    /// Costs of the compacted problem (with a zero-cost slack column or row in the partial
    /// form), row-major.
    c: Vec<f64>,
    log_a: Vec<f64>,
    log_b: Vec<f64>,
    f: Vec<f64>,
    g: Vec<f64>,
    tmp: Vec<f64>,
    /// The kernel `exp(−(C − min C)/ε)`.
    k: Vec<f64>,
    kernel_capped: bool,
    rows: Vec<usize>,
    cols: Vec<usize>,
}

impl Sinkhorn {
    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &SinkhornParams {
        &self.params
    }

    /// Run to convergence; returns the iterations and leaves the potentials in the workspace.
    fn run(&mut self, p: &Problem<'_>) -> Result<(usize, f64, usize, usize)> {
        let equal = p.masses_equal(self.params.mass_tolerance)?;
        let (ma, mb) = p.masses();
        let c = p.cost();
        c.check_finite()?;
        let ws = &mut self.ws;
        ws.rows.clear();
        ws.rows.extend((0..p.a().len()).filter(|&i| p.a()[i] > 0.0));
        ws.cols.clear();
        ws.cols.extend((0..p.b().len()).filter(|&j| p.b()[j] > 0.0));
        let b_scale = if equal { ma / mb } else { 1.0 };
        // The slack takes the heavier side's excess at zero cost (partial form).
        let (slack_col, slack_row) = (!equal && ma > mb, !equal && mb > ma);
        let n = ws.rows.len() + usize::from(slack_row);
        let m = ws.cols.len() + usize::from(slack_col);
        ws.log_a.clear();
        ws.log_a.extend(ws.rows.iter().map(|&i| p.a()[i].ln()));
        if slack_row {
            ws.log_a.push((mb - ma).ln());
        }
        ws.log_b.clear();
        ws.log_b
            .extend(ws.cols.iter().map(|&j| (p.b()[j] * b_scale).ln()));
        if slack_col {
            ws.log_b.push((ma - mb).ln());
        }
        ws.c.clear();
        ws.c.reserve(n * m);
        let mut cmax = 0.0f64;
        for &i in &ws.rows {
            let row = c.row(i);
            for &j in &ws.cols {
                cmax = cmax.max(row[j].abs());
                ws.c.push(row[j]);
            }
            if slack_col {
                ws.c.push(0.0);
            }
        }
        if slack_row {
            ws.c.extend(std::iter::repeat_n(0.0, m));
        }
        let eps = if cmax > 0.0 {
            self.params.reg * cmax
        } else {
            self.params.reg
        };
        ws.f.clear();
        ws.f.resize(n, 0.0);
        ws.g.clear();
        ws.g.resize(m, 0.0);
        let mass = ma.min(mb * b_scale) + if equal { 0.0 } else { (ma - mb).abs() };
        let (lo, hi) =
            ws.c.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
                    (l.min(x), h.max(x))
                });
        if (hi - lo) / eps <= KERNEL_RANGE {
            // exp(−C/ε) cannot underflow: iterate with the kernel, no exp per sweep.
            let tol = self.params.tolerance * mass;
            if let Some(k) = kernel_iterations(ws, m, eps, lo, self.params.max_iterations, tol) {
                return Ok((k, eps, n, m));
            }
            if ws.kernel_capped {
                return Err(Error::NotConverged {
                    solver: "sinkhorn",
                    iterations: self.params.max_iterations,
                });
            }
            // The scalings overflowed: start again in the log domain.
            ws.f.fill(0.0);
            ws.g.fill(0.0);
        }
        // Log domain with ε-scaling: start at the cost scale and halve towards ε, a few sweeps
        // per level (warm-started potentials), then iterate at ε until the marginals match.
        let mut level = if self.params.scaling {
            cmax.max(eps)
        } else {
            eps
        };
        let mut it = 0;
        loop {
            let last = level <= eps;
            let sweeps = if last {
                self.params.max_iterations - it
            } else {
                SCALING_SWEEPS
            };
            for _ in 0..sweeps.min(self.params.max_iterations - it) {
                it += 1;
                update_rows(&ws.c, m, &ws.log_a, &ws.g, &mut ws.f, level);
                update_cols(&ws.c, m, &ws.log_b, &ws.f, &mut ws.g, &mut ws.tmp, level);
                if last && (it % 10 == 0 || it == self.params.max_iterations) {
                    let err = row_error(&ws.c, m, &ws.log_a, &ws.f, &ws.g, eps);
                    if !err.is_finite() {
                        return Err(Error::Numerical {
                            solver: "sinkhorn",
                            reason: format!("marginal error became {err} (regularisation {eps})"),
                        });
                    }
                    if err <= self.params.tolerance * mass {
                        return Ok((it, eps, n, m));
                    }
                }
            }
            if last || it >= self.params.max_iterations {
                break;
            }
            level = (level / 2.0).max(eps);
        }
        Err(Error::NotConverged {
            solver: "sinkhorn",
            iterations: self.params.max_iterations,
        })
    }
}

impl TransportSolver for Sinkhorn {
    fn solve(&mut self, problem: &Problem<'_>) -> Result<Transport> {
        let (iterations, eps, _, m) = self.run(problem)?;
        let ws = &self.ws;
        let mut t = Transport {
            iterations,
            ..Transport::default()
        };
        for (ii, &i) in ws.rows.iter().enumerate() {
            let row = &ws.c[ii * m..(ii + 1) * m];
            for (jj, &j) in ws.cols.iter().enumerate() {
                let mass = ((ws.f[ii] + ws.g[jj] - row[jj]) / eps).exp();
                if mass > 0.0 {
                    t.cost += mass * row[jj];
                    t.mass += mass;
                    t.plan.push(Flow {
                        src: i,
                        tgt: j,
                        mass,
                    });
                }
            }
        }
        Ok(t)
    }

    fn name(&self) -> &'static str {
        "sinkhorn"
    }
}

/// Largest cost range, in units of ε, for which the kernel `exp(−(C − min C)/ε)` is used.
const KERNEL_RANGE: f64 = 200.0;

/// Sinkhorn in the kernel form, warm-started from the log potentials `f`, `g` and leaving
/// its result in them: `P_ij = u_i K_ij v_j` with `K_ij = exp(−(C_ij − lo)/ε)`. Returns the
/// sweeps it took to bring the row marginal error under `tol`; `None` when it ran out of
/// `max` sweeps (`kernel_capped`) or the scalings left the floating-point range (then the
/// log-domain iterations take over from the unchanged potentials).
fn kernel_iterations(
    ws: &mut Workspace,
    m: usize,
    eps: f64,
    lo: f64,
    max: usize,
    tol: f64,
) -> Option<usize> {
    ws.kernel_capped = false;
    let shift = ws.f.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    ws.k.clear();
    ws.k.extend(ws.c.iter().map(|&c| (-(c - lo) / eps).exp()));
    let a: Vec<f64> = ws.log_a.iter().map(|x| x.exp()).collect();
    let b: Vec<f64> = ws.log_b.iter().map(|x| x.exp()).collect();
    let mut u: Vec<f64> = ws.f.iter().map(|f| ((f - shift) / eps).exp()).collect();
    let mut v: Vec<f64> =
        ws.g.iter()
            .map(|g| ((g + shift - lo) / eps).exp())
            .collect();
    let mut kv = vec![0.0; u.len()];
    let mut ktu = vec![0.0; m];
    let finite = |x: &[f64]| x.iter().all(|y| y.is_finite() && *y > 0.0);
    if !finite(&u) || !finite(&v) {
        return None;
    }
    for it in 1..=max {
        for ((row, ui), ai) in ws.k.chunks_exact(m).zip(u.iter_mut()).zip(&a) {
            *ui = ai / row.iter().zip(&v).map(|(k, v)| k * v).sum::<f64>();
        }
        ktu.fill(0.0);
        for (row, ui) in ws.k.chunks_exact(m).zip(&u) {
            for (t, k) in ktu.iter_mut().zip(row) {
                *t += k * ui;
            }
        }
        for ((vj, t), bj) in v.iter_mut().zip(&ktu).zip(&b) {
            *vj = bj / t;
        }
        if it % 10 == 0 || it == max {
            if !finite(&u) || !finite(&v) {
                return None;
            }
            for (kvi, row) in kv.iter_mut().zip(ws.k.chunks_exact(m)) {
                *kvi = row.iter().zip(&v).map(|(k, v)| k * v).sum::<f64>();
            }
            let err: f64 = u
                .iter()
                .zip(&kv)
                .zip(&a)
                .map(|((ui, kvi), ai)| (ui * kvi - ai).abs())
                .sum();
            if err <= tol {
                for (f, ui) in ws.f.iter_mut().zip(&u) {
                    *f = eps * ui.ln() + shift;
                }
                for (g, vj) in ws.g.iter_mut().zip(&v) {
                    *g = eps * vj.ln() - shift + lo;
                }
                return Some(it);
            }
        }
    }
    ws.kernel_capped = true;
    None
}

/// `f_i = ε log a_i − ε log Σ_j exp((g_j − C_ij)/ε)`, stabilised by the row maximum.
fn update_rows(c: &[f64], m: usize, log_a: &[f64], g: &[f64], f: &mut [f64], eps: f64) {
    for (i, fi) in f.iter_mut().enumerate() {
        let row = &c[i * m..(i + 1) * m];
        let mx = row
            .iter()
            .zip(g)
            .map(|(c, g)| g - c)
            .fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = row
            .iter()
            .zip(g)
            .map(|(c, g)| ((g - c - mx) / eps).exp())
            .sum();
        *fi = eps * log_a[i] - mx - eps * s.ln();
    }
}

/// `g_j = ε log b_j − ε log Σ_i exp((f_i − C_ij)/ε)`, stabilised by the column maximum.
fn update_cols(
    c: &[f64],
    m: usize,
    log_b: &[f64],
    f: &[f64],
    g: &mut [f64],
    sum: &mut Vec<f64>,
    eps: f64,
) {
    g.fill(f64::NEG_INFINITY);
    for (row, fi) in c.chunks_exact(m).zip(f) {
        for (gj, cij) in g.iter_mut().zip(row) {
            *gj = gj.max(fi - cij);
        }
    }
    sum.clear();
    sum.resize(m, 0.0);
    for (row, fi) in c.chunks_exact(m).zip(f) {
        for ((s, gj), cij) in sum.iter_mut().zip(g.iter()).zip(row) {
            *s += ((fi - cij - gj) / eps).exp();
        }
    }
    for ((gj, s), lb) in g.iter_mut().zip(sum.iter()).zip(log_b) {
        *gj = eps * lb - *gj - eps * s.ln();
    }
}

/// `Σ_i |Σ_j P_ij − a_i|`.
fn row_error(c: &[f64], m: usize, log_a: &[f64], f: &[f64], g: &[f64], eps: f64) -> f64 {
    c.chunks_exact(m)
        .zip(f)
        .zip(log_a)
        .map(|((row, fi), la)| {
            let r: f64 = row
                .iter()
                .zip(g)
                .map(|(cij, gj)| ((fi + gj - cij) / eps).exp())
                .sum();
            (r - la.exp()).abs()
        })
        .sum()
}
