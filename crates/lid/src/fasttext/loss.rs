//! fastText's output layers at prediction time (`loss.cc`): softmax, hierarchical softmax
//! (a Huffman tree over the label counts, searched depth first as fastText does), and the
//! one-vs-all sigmoids of `ova` and `ns`. Scores are fastText's: sums of `log(p + 1e-5)`
//! in `f32`, so that `exp(score)` is the probability `fasttext predict` prints.

use super::heap::TopK;
use super::matrix::Matrix;

/// `log(x + 1e-5)` as fastText computes it (`std_log`: the sum in `double`, the result `float`).
pub(super) fn std_log(x: f32) -> f32 {
    (f64::from(x) + 1e-5).ln() as f32
}

/// fastText's `loss_name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossKind {
    /// Hierarchical softmax (`-loss hs`; lid.176's).
    HierarchicalSoftmax,
    /// Negative sampling (`-loss ns`): one sigmoid per label at prediction time.
    NegativeSampling,
    /// Softmax (`-loss softmax`).
    Softmax,
    /// One-vs-all (`-loss ova`): one sigmoid per label.
    OneVsAll,
}

impl LossKind {
    /// The loss of fastText's code (`hs = 1, ns, softmax, ova`).
    pub(super) fn from_code(code: i32) -> Option<Self> {
        Some(match code {
            1 => Self::HierarchicalSoftmax,
            2 => Self::NegativeSampling,
            3 => Self::Softmax,
            4 => Self::OneVsAll,
            _ => return None,
        })
    }
}

/// A node of the Huffman tree: leaves `0..n` are the labels, `n..2n-1` the inner nodes, whose
/// inner-node index `i - n` is their row of the output matrix; the root is `2n - 2`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    left: usize,
    right: usize,
}

/// The output layer of a model.
#[derive(Debug)]
pub(super) enum Loss {
    /// Softmax over the labels.
    Softmax,
    /// Hierarchical softmax.
    Tree {
        /// `2n - 1` nodes; leaves have no children (`usize::MAX`).
        nodes: Vec<Node>,
        /// Each node's parent (the root's: `usize::MAX`) and whether it is its right child.
        parents: Vec<(usize, bool)>,
    },
    /// One sigmoid per label, looked up in fastText's table.
    Sigmoid(Box<[f32; SIGMOID_TABLE + 1]>),
}

const SIGMOID_TABLE: usize = 512;
const MAX_SIGMOID: f32 = 8.0;
const NO_CHILD: usize = usize::MAX;

impl Loss {
    /// The output layer of `kind` for labels counted `counts` (the tree of hierarchical
    /// softmax is built from them as fastText's `buildTree` does; counts are clamped below
    /// fastText's 1e15 sentinel, so that every node has two children).
    pub(super) fn new(kind: LossKind, counts: &[i64]) -> Self {
        match kind {
            LossKind::Softmax => Loss::Softmax,
            LossKind::NegativeSampling | LossKind::OneVsAll => {
                let mut t = Box::new([0.0f32; SIGMOID_TABLE + 1]);
                for (i, v) in t.iter_mut().enumerate() {
                    let x =
                        (i * 2 * MAX_SIGMOID as usize) as f32 / SIGMOID_TABLE as f32 - MAX_SIGMOID;
                    *v = (1.0 / (1.0 + f64::from((-x).exp()))) as f32;
                }
                Loss::Sigmoid(t)
            }
            LossKind::HierarchicalSoftmax => Self::tree(counts),
        }
    }

    fn tree(counts: &[i64]) -> Self {
        const SENTINEL: i64 = 1_000_000_000_000_000;
        let n = counts.len();
        let mut count = vec![SENTINEL; 2 * n - 1];
        let mut nodes = vec![
            Node {
                left: NO_CHILD,
                right: NO_CHILD
            };
            2 * n - 1
        ];
        let mut parents = vec![(NO_CHILD, false); 2 * n - 1];
        for (c, &v) in count.iter_mut().zip(counts) {
            *c = v.min(SENTINEL - 1);
        }
        let mut leaf = n as isize - 1;
        let mut node = n;
        for i in n..2 * n - 1 {
            let mut mini = [0usize; 2];
            for m in &mut mini {
                if leaf >= 0 && count[leaf as usize] < count[node] {
                    *m = leaf as usize;
                    leaf -= 1;
                } else {
                    *m = node;
                    node += 1;
                }
            }
            nodes[i] = Node {
                left: mini[0],
                right: mini[1],
            };
            count[i] = count[mini[0]].saturating_add(count[mini[1]]);
            parents[mini[0]] = (i, false);
            parents[mini[1]] = (i, true);
        }
        Loss::Tree { nodes, parents }
    }

    fn sigmoid(table: &[f32; SIGMOID_TABLE + 1], x: f32) -> f32 {
        if x < -MAX_SIGMOID {
            0.0
        } else if x > MAX_SIGMOID {
            1.0
        } else {
            let i = ((x + MAX_SIGMOID) * SIGMOID_TABLE as f32 / MAX_SIGMOID / 2.0) as usize;
            table[i.min(SIGMOID_TABLE)]
        }
    }

    /// The probability of each label (`computeOutput`), for softmax and sigmoids.
    fn outputs(&self, hidden: &[f32], output: &Matrix, n: usize) -> Vec<f32> {
        let mut out: Vec<f32> = (0..n).map(|i| output.dot_row(hidden, i)).collect();
        match self {
            Loss::Softmax => {
                let max = out.iter().fold(out[0], |m, &v| if v < m { m } else { v });
                let mut z = 0.0f32;
                for v in &mut out {
                    // `exp` of a `float` there is C's `double exp(double)`.
                    *v = f64::from(*v - max).exp() as f32;
                    z += *v;
                }
                for v in &mut out {
                    *v /= z;
                }
            }
            Loss::Sigmoid(table) => {
                for v in &mut out {
                    *v = Self::sigmoid(table, *v);
                }
            }
            Loss::Tree { .. } => {}
        }
        out
    }

    /// The probability that inner node `inner` sends the search right.
    fn branch(hidden: &[f32], output: &Matrix, inner: usize) -> f32 {
        let f = output.dot_row(hidden, inner);
        (1.0 / f64::from(1.0 + (-f).exp())) as f32
    }

    /// The best `k` labels as `(score, label)`, best first (`Loss::predict` with fastText's
    /// default threshold 0). Hierarchical softmax, as fastText's, leaves out the labels whose
    /// path drops below `log(1e-5)`: then fewer than `k` come back.
    pub(super) fn predict(
        &self,
        hidden: &[f32],
        output: &Matrix,
        n: usize,
        k: usize,
    ) -> Vec<(f32, usize)> {
        let floor = std_log(0.0);
        let mut heap = TopK::new(k);
        match self {
            Loss::Tree { nodes, .. } => {
                // fastText's recursive `dfs`, with an explicit stack (left subtree first).
                let mut stack = vec![(2 * n - 2, 0.0f32)];
                while let Some((node, score)) = stack.pop() {
                    if score < floor || heap.rejects(score) {
                        continue;
                    }
                    let Node { left, right } = nodes[node];
                    if left == NO_CHILD {
                        heap.push((score, node));
                        continue;
                    }
                    let f = Self::branch(hidden, output, node - n);
                    stack.push((right, score + std_log(f)));
                    stack.push((left, score + std_log((1.0 - f64::from(f)) as f32)));
                }
            }
            _ => {
                for (i, p) in self.outputs(hidden, output, n).into_iter().enumerate() {
                    // `findKBest` with threshold 0 (no output is below it).
                    let s = std_log(p);
                    if !heap.rejects(s) {
                        heap.push((s, i));
                    }
                }
            }
        }
        heap.into_sorted()
    }

    /// The score of `label`, as [`Loss::predict`] and [`Loss::scores`] give it.
    pub(super) fn score(&self, hidden: &[f32], output: &Matrix, n: usize, label: usize) -> f32 {
        match self {
            Loss::Tree { parents, .. } => path_score(parents, n, label, |inner| {
                Self::branch(hidden, output, inner)
            }),
            _ => std_log(self.outputs(hidden, output, n)[label]),
        }
    }

    /// The score of every label (with hierarchical softmax, its path's, however low).
    pub(super) fn scores(&self, hidden: &[f32], output: &Matrix, n: usize) -> Vec<f32> {
        match self {
            Loss::Tree { parents, .. } => {
                let mut branches = vec![None; n.saturating_sub(1)];
                (0..n)
                    .map(|label| {
                        path_score(parents, n, label, |inner| {
                            *branches[inner]
                                .get_or_insert_with(|| Self::branch(hidden, output, inner))
                        })
                    })
                    .collect()
            }
            _ => self
                .outputs(hidden, output, n)
                .into_iter()
                .map(std_log)
                .collect(),
        }
    }
}

/// The score of a label of hierarchical softmax: `log(p + 1e-5)` of each branch on its path,
/// added from the root down as the search adds them; `branch(inner)` is the probability that
/// inner node `inner` goes right.
fn path_score(
    parents: &[(usize, bool)],
    n: usize,
    label: usize,
    mut branch: impl FnMut(usize) -> f32,
) -> f32 {
    let mut path = Vec::new();
    let mut j = label;
    while let (parent, right) = parents[j]
        && parent != NO_CHILD
    {
        path.push((parent - n, right));
        j = parent;
    }
    let mut score = 0.0f32;
    for &(inner, right) in path.iter().rev() {
        let f = branch(inner);
        score += std_log(if right {
            f
        } else {
            (1.0 - f64::from(f)) as f32
        });
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_log_adds_1e5_in_double() {
        assert_eq!(std_log(0.0), (1e-5f64).ln() as f32);
        assert_eq!(std_log(1.0), (1.0f64 + 1e-5).ln() as f32);
    }

    #[test]
    fn huffman_tree_as_fasttext_builds_it() {
        // Counts 30, 20, 10: inner node 3 joins labels 2 and 1 (1 its right child), the root
        // 4 joins node 3 and label 0 (its right child).
        let Loss::Tree { nodes, parents } = Loss::new(LossKind::HierarchicalSoftmax, &[30, 20, 10])
        else {
            panic!("not a tree");
        };
        assert_eq!((nodes[3].left, nodes[3].right), (2, 1));
        assert_eq!((nodes[4].left, nodes[4].right), (3, 0));
        assert_eq!(parents[0], (4, true));
        assert_eq!(parents[4].0, NO_CHILD);
        // Counts at fastText's sentinel still make a tree without cycles.
        let Loss::Tree { nodes, .. } = Loss::new(LossKind::HierarchicalSoftmax, &[i64::MAX; 5])
        else {
            panic!("not a tree");
        };
        for (i, n) in nodes.iter().enumerate().skip(5) {
            assert!(n.left < i && n.right < i, "{i}: {n:?}");
        }
    }

    #[test]
    fn sigmoid_table_and_its_ends() {
        let Loss::Sigmoid(table) = Loss::new(LossKind::OneVsAll, &[1]) else {
            panic!("not sigmoids");
        };
        assert_eq!(Loss::sigmoid(&table, -9.0), 0.0);
        assert_eq!(Loss::sigmoid(&table, 9.0), 1.0);
        assert_eq!(Loss::sigmoid(&table, 0.0), 0.5);
        assert_eq!(Loss::sigmoid(&table, 8.0), table[512]);
        assert_eq!(Loss::sigmoid(&table, f32::NAN), table[0]);
    }
}
