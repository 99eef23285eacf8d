//! The spanning-tree basis of the network simplex, stored as an augmented threaded index: for
//! each node its parent, the tree arc to the parent (id, direction, flow, cost), its potential,
//! and a preorder thread with subtree sizes and last descendants, so that a pivot touches only
//! the cycle, the re-hung stem and the moved subtree.
//!
//! Nodes are the `n` supply rows (`0..n`), the `m` demand columns (`n..n + m`) and a root
//! (`n + m`) that every component of the initial forest hangs from. Arc ids: `i * m + j` for
//! row `i` → column `j`; `n * m + i` for row `i` → root (the slack of the partial form, an
//! artificial zero-flow arc in the balanced form); `n * m + n + j` for column `j` → root
//! (artificial, zero flow). Every arc into the root points towards it, so the tree is
//! strongly feasible from the start (zero-flow arcs point to the root) and the leaving-arc
//! rule keeps it so, which rules out cycling.
//!
//! Reduced cost of an arc `x → y` with cost `c`: `c + π(x) − π(y)`; tree arcs have zero.

/// "No node" (the root's parent).
pub(super) const NONE: usize = usize::MAX;

/// The basis tree and the scratch space its pivots reuse.
#[derive(Debug, Default, Clone)]
pub(super) struct Tree {
    /// Number of rows and columns, and the root node `n + m`.
    pub(super) n: usize,
    pub(super) m: usize,
    pub(super) root: usize,
    pub(super) parent: Vec<usize>,
    /// Arc id of the tree arc between a node and its parent.
    pub(super) pred: Vec<usize>,
    /// Whether that arc points from the node to its parent.
    pub(super) up: Vec<bool>,
    /// Flow on that arc.
    pub(super) flow: Vec<f64>,
    /// Cost of that arc.
    pub(super) pcost: Vec<f64>,
    /// Node potentials.
    pub(super) pot: Vec<f64>,
    /// Preorder successor (circular, through the root).
    thread: Vec<usize>,
    /// Preorder predecessor.
    rev: Vec<usize>,
    /// Subtree sizes.
    succ: Vec<usize>,
    /// Last node of each subtree in preorder.
    last: Vec<usize>,
    // Scratch: the stem of a pivot and old values along it.
    stem: Vec<usize>,
    old: Vec<[usize; 4]>,
    order: Vec<usize>,
    stack: Vec<(usize, usize)>,
    adj_start: Vec<usize>,
    adj: Vec<(usize, usize)>,
    scratch: Vec<usize>,
}

/// One allocation of an initial basic solution: `mass` on row `i` → column `j`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Alloc {
    pub(super) i: usize,
    pub(super) j: usize,
    pub(super) mass: f64,
}

impl Tree {
    /// Build the initial tree from a forest of allocations (each component holds at most one
    /// row with `residual > 0`, its slack) hung from the root. Returns nothing; the costs of
    /// tree arcs are taken from `cw` (row-major `n × m`).
    pub(super) fn build(
        &mut self,
        n: usize,
        m: usize,
        allocs: &[Alloc],
        residual: &[f64],
        cw: &[f64],
    ) {
        let nodes = n + m + 1;
        let root = n + m;
        self.n = n;
        self.m = m;
        self.root = root;
        for v in [
            &mut self.parent,
            &mut self.pred,
            &mut self.thread,
            &mut self.rev,
            &mut self.succ,
            &mut self.last,
        ] {
            v.clear();
            v.resize(nodes, NONE);
        }
        self.up.clear();
        self.up.resize(nodes, true);
        for v in [&mut self.flow, &mut self.pcost, &mut self.pot] {
            v.clear();
            v.resize(nodes, 0.0);
        }
        // Adjacency of the forest (CSR over nodes).
        self.adj_start.clear();
        self.adj_start.resize(nodes + 1, 0);
        for a in allocs {
            self.adj_start[a.i + 1] += 1;
            self.adj_start[n + a.j + 1] += 1;
        }
        for k in 0..nodes {
            self.adj_start[k + 1] += self.adj_start[k];
        }
        self.adj.clear();
        self.adj.resize(2 * allocs.len(), (0, 0));
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.adj_start);
        for (e, a) in allocs.iter().enumerate() {
            self.adj[self.scratch[a.i]] = (n + a.j, e);
            self.scratch[a.i] += 1;
            self.adj[self.scratch[n + a.j]] = (a.i, e);
            self.scratch[n + a.j] += 1;
        }
        // Preorder from the root: components anchored at their unexhausted row first, then at
        // any row, then (isolated columns) at a column.
        self.order.clear();
        self.order.push(root);
        self.parent[root] = NONE;
        let anchors = (0..n).filter(|&i| residual[i] > 0.0).chain(0..n + m);
        for anchor in anchors {
            if self.parent[anchor] != NONE {
                continue;
            }
            self.parent[anchor] = root;
            self.up[anchor] = true;
            self.pcost[anchor] = 0.0;
            self.pred[anchor] = n * m + anchor;
            self.flow[anchor] = if anchor < n { residual[anchor] } else { 0.0 };
            self.dfs(anchor, allocs, cw);
        }
        // Thread, sizes, last descendants.
        let len = self.order.len();
        debug_assert_eq!(len, nodes);
        for k in 0..len {
            let (x, y) = (self.order[k], self.order[(k + 1) % len]);
            self.thread[x] = y;
            self.rev[y] = x;
        }
        self.scratch.clear();
        self.scratch.resize(nodes, 0);
        for (k, &x) in self.order.iter().enumerate() {
            self.scratch[x] = k;
            self.succ[x] = 1;
        }
        for k in (1..len).rev() {
            let x = self.order[k];
            let p = self.parent[x];
            self.succ[p] += self.succ[x];
        }
        for &x in &self.order {
            self.last[x] = self.order[self.scratch[x] + self.succ[x] - 1];
        }
        self.refresh_potentials();
    }

    /// Depth-first search of the forest from `start` (already hung), appending to the preorder.
    fn dfs(&mut self, start: usize, allocs: &[Alloc], cw: &[f64]) {
        let (n, m) = (self.n, self.m);
        self.stack.clear();
        self.stack.push((start, self.adj_start[start]));
        self.order.push(start);
        while let Some(top) = self.stack.last_mut() {
            let (x, k) = *top;
            if k == self.adj_start[x + 1] {
                self.stack.pop();
                continue;
            }
            top.1 += 1;
            let (y, e) = self.adj[k];
            if y == self.parent[x] {
                continue;
            }
            let a = allocs[e];
            let arc = a.i * m + a.j;
            self.parent[y] = x;
            self.pred[y] = arc;
            self.up[y] = y < n;
            self.flow[y] = a.mass;
            self.pcost[y] = cw[arc];
            self.order.push(y);
            self.stack.push((y, self.adj_start[y]));
        }
    }

    /// Potentials of every node from the root down the thread.
    pub(super) fn refresh_potentials(&mut self) {
        self.pot[self.root] = 0.0;
        let mut x = self.thread[self.root];
        while x != self.root {
            self.set_potential(x);
            x = self.thread[x];
        }
    }

    #[inline]
    fn set_potential(&mut self, x: usize) {
        let p = self.parent[x];
        self.pot[x] = if self.up[x] {
            self.pot[p] - self.pcost[x]
        } else {
            self.pot[p] + self.pcost[x]
        };
    }

    /// Pivot the arc `i → y` (row `i` to column node or root `y`, id `arc`, cost `cost`) into
    /// the basis; returns the arc that left.
    pub(super) fn pivot(&mut self, i: usize, y: usize, arc: usize, cost: f64) -> Leaving {
        let parent = &self.parent[..];
        let succ = &self.succ[..];
        let up = &self.up[..];
        let flow = &mut self.flow[..];
        // The join: the first common ancestor of i and y.
        let (mut u, mut v) = (i, y);
        while u != v {
            if succ[u] < succ[v] {
                u = parent[u];
            } else {
                v = parent[v];
            }
        }
        let join = u;
        // Leaving arc: the last blocking arc met going round the cycle in the direction of the
        // flow from the join (join → i → y → join), which keeps the tree strongly feasible.
        // Arcs that point up the i side and down the y side carry flow against the cycle.
        let mut delta = f64::INFINITY;
        let mut u_out = NONE;
        let mut on_y_side = false;
        let mut x = i;
        while x != join {
            let cap = if up[x] { flow[x] } else { f64::INFINITY };
            if cap < delta {
                delta = cap;
                u_out = x;
            }
            x = parent[x];
        }
        x = y;
        while x != join {
            let cap = if up[x] { f64::INFINITY } else { flow[x] };
            if cap <= delta {
                delta = cap;
                u_out = x;
                on_y_side = true;
            }
            x = parent[x];
        }
        debug_assert!(u_out != NONE, "a cycle without a blocking arc");
        if delta > 0.0 {
            x = i;
            while x != join {
                flow[x] += if up[x] { -delta } else { delta };
                x = parent[x];
            }
            x = y;
            while x != join {
                flow[x] += if up[x] { delta } else { -delta };
                x = parent[x];
            }
        }
        let leaving = Leaving {
            arc: self.pred[u_out],
            cost: self.pcost[u_out],
        };
        let (u_in, v_in) = if on_y_side { (y, i) } else { (i, y) };
        let entering = Entering {
            arc,
            up: u_in == i,
            flow: delta,
            cost,
        };
        self.rehang(u_in, v_in, u_out, join, entering);
        leaving
    }

    /// Replace the tree arc of `u_out` by the entering arc `u_in — v_in`: the subtree of
    /// `u_out` is re-rooted at `u_in` (reversing the stem `u_in … u_out`) and hung below `v_in`.
    fn rehang(&mut self, u_in: usize, v_in: usize, u_out: usize, join: usize, e: Entering) {
        let Self {
            parent,
            pred,
            up,
            flow,
            pcost,
            pot,
            thread,
            rev,
            succ,
            last,
            stem,
            old,
            ..
        } = self;
        let (parent, pred, up, flow, pcost, pot) = (
            &mut parent[..],
            &mut pred[..],
            &mut up[..],
            &mut flow[..],
            &mut pcost[..],
            &mut pot[..],
        );
        let (thread, rev, succ, last) =
            (&mut thread[..], &mut rev[..], &mut succ[..], &mut last[..]);
        let v_out = parent[u_out];
        stem.clear();
        old.clear();
        let mut x = u_in;
        loop {
            stem.push(x);
            let l = last[x];
            old.push([l, rev[x], thread[l], succ[x]]);
            if x == u_out {
                break;
            }
            x = parent[x];
        }
        let k = stem.len() - 1;
        let size = succ[u_out];
        // Unlink the subtree of u_out from the thread.
        let [l, p, q, _] = old[k];
        link(thread, rev, p, q);
        relast_path(last, parent, v_out, l, p);
        resize_path(succ, parent, v_out, join, |s| s - size);
        // Preorder of the re-rooted subtree: the subtree of s0, then for each stem node s_t its
        // part before s_{t-1}'s subtree, then its part after it.
        let mut cur = old[0][0];
        for t in 1..=k {
            let [ls_prev, rv_prev, tn_prev, _] = old[t - 1];
            let ls_t = old[t][0];
            link(thread, rev, cur, stem[t]);
            if ls_prev == ls_t {
                cur = rv_prev;
            } else {
                link(thread, rev, rv_prev, tn_prev);
                cur = ls_t;
            }
        }
        let new_last = cur;
        // Insert it as the first child of v_in.
        let r = thread[v_in];
        let v_in_leaf = last[v_in] == v_in;
        link(thread, rev, v_in, u_in);
        link(thread, rev, new_last, r);
        if v_in_leaf {
            relast_path(last, parent, v_in, v_in, new_last);
        }
        resize_path(succ, parent, v_in, join, |s| s + size);
        // Reverse the stem: parents, tree arcs, sizes, last descendants.
        let mut acc = 0;
        for t in (1..=k).rev() {
            let (st, prev) = (stem[t], stem[t - 1]);
            acc += old[t][3] - old[t - 1][3];
            succ[st] = acc;
            last[st] = new_last;
            parent[st] = prev;
            pred[st] = pred[prev];
            up[st] = !up[prev];
            flow[st] = flow[prev];
            pcost[st] = pcost[prev];
        }
        succ[u_in] = size;
        last[u_in] = new_last;
        parent[u_in] = v_in;
        pred[u_in] = e.arc;
        up[u_in] = e.up;
        flow[u_in] = e.flow;
        pcost[u_in] = e.cost;
        // Potentials of the moved subtree: shifted so that the entering arc is tight.
        let p_in = pot[v_in];
        let target = if e.up { p_in - e.cost } else { p_in + e.cost };
        let sigma = target - pot[u_in];
        if sigma != 0.0 {
            let mut x = u_in;
            for _ in 0..size {
                pot[x] += sigma;
                x = thread[x];
            }
        }
    }

    /// Nodes other than the root, with their tree arcs: `(node, arc, flow, cost)`.
    pub(super) fn arcs(&self) -> impl Iterator<Item = (usize, usize, f64, f64)> + '_ {
        (0..self.root).map(|x| (x, self.pred[x], self.flow[x], self.pcost[x]))
    }

    /// Check the structure (tests): thread is a preorder consistent with parents, sizes and
    /// last descendants are right, potentials make tree arcs tight.
    #[cfg(test)]
    pub(super) fn check(&self) {
        let nodes = self.root + 1;
        let mut seen = vec![false; nodes];
        let mut x = self.root;
        let mut order = Vec::new();
        loop {
            assert!(!seen[x], "thread revisits {x}");
            seen[x] = true;
            order.push(x);
            assert_eq!(self.rev[self.thread[x]], x);
            x = self.thread[x];
            if x == self.root {
                break;
            }
        }
        assert_eq!(order.len(), nodes);
        let mut pos = vec![0; nodes];
        for (k, &x) in order.iter().enumerate() {
            pos[x] = k;
        }
        let mut size = vec![1usize; nodes];
        for &x in order.iter().skip(1).rev() {
            let p = self.parent[x];
            assert!(pos[p] < pos[x], "parent after child");
            size[p] += size[x];
        }
        for &x in &order {
            assert_eq!(self.succ[x], size[x], "size of {x}");
            assert_eq!(self.last[x], order[pos[x] + size[x] - 1], "last of {x}");
            if x != self.root {
                let p = self.parent[x];
                let rc = if self.up[x] {
                    self.pcost[x] + self.pot[x] - self.pot[p]
                } else {
                    self.pcost[x] + self.pot[p] - self.pot[x]
                };
                assert!(
                    rc.abs() <= 1e-9 * (1.0 + self.pot[x].abs()),
                    "rc {rc} at {x}"
                );
                assert!(self.flow[x] >= 0.0);
            }
        }
    }
}

/// The arc that left the basis in a pivot.
#[derive(Debug, Clone, Copy)]
pub(super) struct Leaving {
    /// Its id.
    pub(super) arc: usize,
    /// Its cost.
    pub(super) cost: f64,
}

/// The arc entering the basis.
#[derive(Debug, Clone, Copy)]
struct Entering {
    arc: usize,
    up: bool,
    flow: f64,
    cost: f64,
}

/// Make `b` follow `a` in the thread.
#[inline]
fn link(thread: &mut [usize], rev: &mut [usize], a: usize, b: usize) {
    thread[a] = b;
    rev[b] = a;
}

/// From `a` up the tree, while a node's last descendant is `from`, make it `to`.
#[inline]
fn relast_path(last: &mut [usize], parent: &[usize], mut a: usize, from: usize, to: usize) {
    while a != NONE && last[a] == from {
        last[a] = to;
        a = parent[a];
    }
}

/// Apply `f` to the subtree size of `a` and of each ancestor of it below `join`.
#[inline]
fn resize_path(
    succ: &mut [usize],
    parent: &[usize],
    mut a: usize,
    join: usize,
    f: impl Fn(usize) -> usize,
) {
    while a != join {
        succ[a] = f(succ[a]);
        a = parent[a];
    }
}
