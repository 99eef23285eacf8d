//! Word alignments: the links `(i, j)` between source word `i` and target word `j` of a
//! sentence pair, and the symmetrisation of the two directional Viterbi alignments (Och & Ney
//! 2003; Koehn et al. 2003), as Moses' `symal` does it.

use serde::{Deserialize, Serialize};

/// How two directional alignments are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Symmetrization {
    /// Links both directions agree on (high precision).
    Intersection,
    /// Links of either direction (high recall).
    Union,
    /// The intersection grown by neighbouring (also diagonal) union links that align a word
    /// not yet aligned, repeated until nothing changes.
    GrowDiag,
    /// `grow-diag`, then the remaining union links of each direction that align a word not
    /// yet aligned (Koehn's default).
    #[default]
    GrowDiagFinal,
    /// `grow-diag`, then the remaining union links whose two words are both unaligned.
    GrowDiagFinalAnd,
}

impl Symmetrization {
    /// Every method, for listings.
    pub const ALL: [Symmetrization; 5] = [
        Symmetrization::Intersection,
        Symmetrization::Union,
        Symmetrization::GrowDiag,
        Symmetrization::GrowDiagFinal,
        Symmetrization::GrowDiagFinalAnd,
    ];

    /// Whether swapping the two languages (and so the two directional alignments) gives the
    /// transposed result for every input. The grow heuristics visit links in a fixed order
    /// (target-major, as `symal`), so their result can depend on which side is the source.
    #[must_use]
    pub fn is_symmetric(self) -> bool {
        matches!(self, Symmetrization::Intersection | Symmetrization::Union)
    }
}

/// Combine a source→target alignment (`fwd[j]`: the source word target word `j` is aligned to,
/// `None` for the NULL word) and a target→source one (`bwd[i]`: the target word of source word
/// `i`) into links `(i, j)`, sorted.
///
/// Out-of-range positions are ignored.
///
/// ```
/// use bitext_lexical::{Symmetrization, symmetrize};
/// let fwd = [Some(0), Some(1), None];    // target word → source word
/// let bwd = [Some(0), Some(2)];          // source word → target word
/// assert_eq!(symmetrize(&fwd, &bwd, Symmetrization::Intersection), vec![(0, 0)]);
/// assert_eq!(symmetrize(&fwd, &bwd, Symmetrization::Union), vec![(0, 0), (1, 1), (1, 2)]);
/// ```
#[must_use]
pub fn symmetrize(
    fwd: &[Option<usize>],
    bwd: &[Option<usize>],
    how: Symmetrization,
) -> Vec<(usize, usize)> {
    let (l, m) = (bwd.len(), fwd.len());
    let mut a2b = vec![false; l * m];
    let mut b2a = vec![false; l * m];
    for (j, i) in fwd.iter().enumerate() {
        if let Some(i) = i.filter(|&i| i < l) {
            a2b[i * m + j] = true;
        }
    }
    for (i, j) in bwd.iter().enumerate() {
        if let Some(j) = j.filter(|&j| j < m) {
            b2a[i * m + j] = true;
        }
    }
    let union: Vec<bool> = a2b.iter().zip(&b2a).map(|(a, b)| *a || *b).collect();
    let mut out: Vec<bool> = a2b.iter().zip(&b2a).map(|(a, b)| *a && *b).collect();
    match how {
        Symmetrization::Intersection => {}
        Symmetrization::Union => out.clone_from(&union),
        Symmetrization::GrowDiag
        | Symmetrization::GrowDiagFinal
        | Symmetrization::GrowDiagFinalAnd => {
            let mut grid = Grid::new(out, l, m);
            grid.grow_diag(&union);
            match how {
                Symmetrization::GrowDiagFinal => {
                    grid.finalize(&a2b, false);
                    grid.finalize(&b2a, false);
                }
                Symmetrization::GrowDiagFinalAnd => {
                    grid.finalize(&a2b, true);
                    grid.finalize(&b2a, true);
                }
                _ => {}
            }
            out = grid.links;
        }
    }
    (0..l)
        .flat_map(|i| (0..m).map(move |j| (i, j)))
        .filter(|&(i, j)| out[i * m + j])
        .collect()
}

/// An alignment under construction, with which words are aligned.
struct Grid {
    links: Vec<bool>,
    l: usize,
    m: usize,
    src_aligned: Vec<bool>,
    tgt_aligned: Vec<bool>,
}

impl Grid {
    fn new(links: Vec<bool>, l: usize, m: usize) -> Self {
        let mut g = Grid {
            links: vec![false; l * m],
            l,
            m,
            src_aligned: vec![false; l],
            tgt_aligned: vec![false; m],
        };
        for i in 0..l {
            for j in 0..m {
                if links[i * m + j] {
                    g.add(i, j);
                }
            }
        }
        g
    }

    fn add(&mut self, i: usize, j: usize) {
        self.links[i * self.m + j] = true;
        self.src_aligned[i] = true;
        self.tgt_aligned[j] = true;
    }

    /// Koehn's GROW-DIAG: target-major over the current links, adding neighbours.
    fn grow_diag(&mut self, union: &[bool]) {
        const NEIGHBOURS: [(isize, isize); 8] = [
            (-1, 0),
            (0, -1),
            (1, 0),
            (0, 1),
            (-1, -1),
            (-1, 1),
            (1, -1),
            (1, 1),
        ];
        let (l, m) = (self.l, self.m);
        loop {
            let mut added = false;
            for j in 0..m {
                for i in 0..l {
                    if !self.links[i * m + j] {
                        continue;
                    }
                    for (di, dj) in NEIGHBOURS {
                        let (Some(ni), Some(nj)) =
                            (i.checked_add_signed(di), j.checked_add_signed(dj))
                        else {
                            continue;
                        };
                        if ni >= l || nj >= m || self.links[ni * m + nj] {
                            continue;
                        }
                        if (!self.src_aligned[ni] || !self.tgt_aligned[nj]) && union[ni * m + nj] {
                            self.add(ni, nj);
                            added = true;
                        }
                    }
                }
            }
            if !added {
                break;
            }
        }
    }

    /// Koehn's FINAL(-AND): links of one direction aligning an unaligned word (both, with
    /// `and`).
    fn finalize(&mut self, direction: &[bool], and: bool) {
        let (l, m) = (self.l, self.m);
        for j in 0..m {
            for i in 0..l {
                if !direction[i * m + j] || self.links[i * m + j] {
                    continue;
                }
                let (si, tj) = (!self.src_aligned[i], !self.tgt_aligned[j]);
                if (and && si && tj) || (!and && (si || tj)) {
                    self.add(i, j);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grow_diag_final_adds_neighbours_and_unaligned_words() {
        // Source 3 words, target 3 words.
        let fwd = [Some(0), Some(1), Some(1)]; // t0→s0, t1→s1, t2→s1
        let bwd = [Some(0), Some(1), Some(2)]; // s0→t0, s1→t1, s2→t2
        let inter = symmetrize(&fwd, &bwd, Symmetrization::Intersection);
        assert_eq!(inter, vec![(0, 0), (1, 1)]);
        let union = symmetrize(&fwd, &bwd, Symmetrization::Union);
        assert_eq!(union, vec![(0, 0), (1, 1), (1, 2), (2, 2)]);
        // (1,2) neighbours (1,1) and t2 is unaligned: grown; then (2,2) is diagonal to (1,1)
        // and s2 is unaligned: grown too.
        let gd = symmetrize(&fwd, &bwd, Symmetrization::GrowDiag);
        assert_eq!(gd, union);
        for how in Symmetrization::ALL {
            let a = symmetrize(&fwd, &bwd, how);
            assert!(inter.iter().all(|p| a.contains(p)), "{how:?}");
            assert!(a.iter().all(|p| union.contains(p)), "{how:?}");
        }
    }

    #[test]
    fn final_and_needs_both_words_unaligned() {
        // Far from each other: no growing; the final steps decide.
        let fwd = [Some(0), None, None, None];
        let bwd = [Some(0), None, None, Some(0)];
        assert_eq!(
            symmetrize(&fwd, &bwd, Symmetrization::GrowDiagFinal),
            vec![(0, 0), (3, 0)]
        );
        assert_eq!(
            symmetrize(&fwd, &bwd, Symmetrization::GrowDiagFinalAnd),
            vec![(0, 0)]
        );
    }

    #[test]
    fn out_of_range_and_empty_inputs() {
        assert!(symmetrize(&[], &[], Symmetrization::GrowDiagFinal).is_empty());
        assert_eq!(
            symmetrize(&[Some(7)], &[Some(0)], Symmetrization::Union),
            vec![(0, 0)]
        );
    }
}
