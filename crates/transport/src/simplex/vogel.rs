//! Vogel's approximation method for the initial basis, in `O(n·m + (n + m)²)` on dense costs.
//!
//! Each step allocates at the cheapest live cell of the row or column whose two cheapest live
//! cells differ most (the regret of not taking the cheapest), then retires the exhausted line.
//! Every line keeps a sorted shortlist of its `K` cheapest cells, skipped over lazily as the
//! lines they point to die and rebuilt only when fewer than two stay alive, so a "hub" column
//! that is cheap for many rows does not force many full rescans when it fills up.

use super::tree::Alloc;

/// Shortlist length.
const K: usize = 8;
const NONE: usize = usize::MAX;

/// The shortlists and penalties of one side (rows or columns).
#[derive(Debug, Default, Clone)]
struct Side {
    cost: Vec<f64>,
    idx: Vec<usize>,
    len: Vec<usize>,
    head: Vec<usize>,
    arg1: Vec<usize>,
    arg2: Vec<usize>,
    pen: Vec<f64>,
    dead: Vec<bool>,
    alive: Vec<usize>,
}

impl Side {
    fn reset(&mut self, lines: usize) {
        self.cost.clear();
        self.cost.resize(lines * K, f64::INFINITY);
        self.idx.clear();
        self.idx.resize(lines * K, NONE);
        for v in [&mut self.len, &mut self.head] {
            v.clear();
            v.resize(lines, 0);
        }
        for v in [&mut self.arg1, &mut self.arg2] {
            v.clear();
            v.resize(lines, NONE);
        }
        self.pen.clear();
        self.pen.resize(lines, f64::NEG_INFINITY);
        self.dead.clear();
        self.dead.resize(lines, false);
        self.alive.clear();
        self.alive.extend(0..lines);
    }

    /// Offer cell `(line, at)` of cost `c` to the line's shortlist (kept sorted).
    #[inline]
    fn offer(&mut self, line: usize, c: f64, at: usize) {
        if c < self.cost[line * K + K - 1] {
            self.insert(line, c, at);
        }
    }

    /// Insert into a shortlist that `c` belongs to.
    #[inline(never)]
    fn insert(&mut self, line: usize, c: f64, at: usize) {
        let base = line * K;
        let len = self.len[line];
        let mut t = len.min(K - 1);
        while t > 0 && self.cost[base + t - 1] > c {
            self.cost[base + t] = self.cost[base + t - 1];
            self.idx[base + t] = self.idx[base + t - 1];
            t -= 1;
        }
        self.cost[base + t] = c;
        self.idx[base + t] = at;
        self.len[line] = (len + 1).min(K);
    }

    /// Skip dead cells and recompute `arg1`, `arg2` and the penalty; `false` when the
    /// shortlist no longer knows the two cheapest live cells and must be rebuilt.
    fn refresh(&mut self, line: usize, other_dead: &[bool], others_alive: usize) -> bool {
        let base = line * K;
        let len = self.len[line];
        let mut h = self.head[line];
        while h < len && other_dead[self.idx[base + h]] {
            h += 1;
        }
        self.head[line] = h;
        let mut h2 = h + 1;
        while h2 < len && other_dead[self.idx[base + h2]] {
            h2 += 1;
        }
        let known = (h2 < len) as usize + (h < len) as usize;
        if len == K && known < 2.min(others_alive) {
            return false;
        }
        let (c1, c2) = (
            if h < len {
                self.cost[base + h]
            } else {
                f64::INFINITY
            },
            if h2 < len {
                self.cost[base + h2]
            } else {
                f64::INFINITY
            },
        );
        self.arg1[line] = if h < len { self.idx[base + h] } else { NONE };
        self.arg2[line] = if h2 < len { self.idx[base + h2] } else { NONE };
        self.pen[line] = if c1.is_infinite() {
            f64::NEG_INFINITY
        } else if c2.is_infinite() {
            f64::MAX
        } else {
            c2 - c1
        };
        true
    }

    fn clear_list(&mut self, line: usize) {
        self.len[line] = 0;
        self.head[line] = 0;
        self.cost[line * K..(line + 1) * K].fill(f64::INFINITY);
    }

    /// The live line with the largest penalty.
    fn best(&self) -> (usize, f64) {
        let mut best = (NONE, f64::NEG_INFINITY);
        for &l in &self.alive {
            let p = self.pen[l];
            if p > best.1 {
                best = (l, p);
            }
        }
        best
    }

    fn kill(&mut self, line: usize) {
        self.dead[line] = true;
        self.pen[line] = f64::NEG_INFINITY;
        if let Some(k) = self.alive.iter().position(|&a| a == line) {
            self.alive.swap_remove(k);
        }
    }
}

/// Scratch space of Vogel's method.
#[derive(Debug, Default, Clone)]
pub(super) struct Vogel {
    rows: Side,
    cols: Side,
    /// Each column's K-th shortlist cost while the lists are built.
    col_bar: Vec<f64>,
}

impl Vogel {
    /// Allocate the supplies in `residual` (rows) to `demand` (columns) over the `n × m`
    /// row-major costs `cw`, appending to `allocs`; both are left with what is unallocated.
    pub(super) fn run(
        &mut self,
        n: usize,
        m: usize,
        cw: &[f64],
        demand: &mut [f64],
        allocs: &mut Vec<Alloc>,
        residual: &mut [f64],
    ) {
        let Self {
            rows,
            cols,
            col_bar,
        } = self;
        rows.reset(n);
        cols.reset(m);
        col_bar.clear();
        col_bar.resize(m, f64::INFINITY);
        for i in 0..n {
            let row = &cw[i * m..(i + 1) * m];
            let mut bar = f64::INFINITY;
            for (j, &c) in row.iter().enumerate() {
                if c < bar {
                    rows.insert(i, c, j);
                    bar = rows.cost[i * K + K - 1];
                }
            }
            // Column shortlists: compare with each column's K-th cost, insert rarely.
            for (j, (&c, bar)) in row.iter().zip(col_bar.iter_mut()).enumerate() {
                if c < *bar {
                    cols.insert(j, c, i);
                    *bar = cols.cost[j * K + K - 1];
                }
            }
        }
        for i in 0..n {
            rows.refresh(i, &cols.dead, m);
        }
        for j in 0..m {
            cols.refresh(j, &rows.dead, n);
        }
        loop {
            let (r, rp) = rows.best();
            let (c, cp) = cols.best();
            if rp == f64::NEG_INFINITY && cp == f64::NEG_INFINITY {
                break;
            }
            let (i, j) = if rp >= cp {
                (r, rows.arg1[r])
            } else {
                (cols.arg1[c], c)
            };
            let x = residual[i].min(demand[j]);
            allocs.push(Alloc { i, j, mass: x });
            residual[i] -= x;
            demand[j] -= x;
            if demand[j] == 0.0 {
                cols.kill(j);
                retire(rows, cols, j, |r, a| cw[r * m + a]);
            }
            if residual[i] == 0.0 {
                rows.kill(i);
                retire(cols, rows, i, |c, a| cw[a * m + c]);
            }
        }
    }
}

/// Line `gone` of side `other` died: refresh the lines of `side` that pointed at it, rebuilding
/// their shortlists from `other`'s live lines when needed (`cost(line, other_line)`).
fn retire(side: &mut Side, other: &Side, gone: usize, cost: impl Fn(usize, usize) -> f64) {
    let others_alive = other.alive.len();
    for k in 0..side.alive.len() {
        let l = side.alive[k];
        if side.arg1[l] != gone && side.arg2[l] != gone {
            continue;
        }
        if !side.refresh(l, &other.dead, others_alive) {
            side.clear_list(l);
            for &a in &other.alive {
                side.offer(l, cost(l, a), a);
            }
            side.refresh(l, &other.dead, others_alive);
        }
    }
}
