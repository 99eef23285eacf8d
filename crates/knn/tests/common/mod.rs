//! Helpers the exact-search integration tests share: parameters that run a precision as asked,
//! the kernels the property tests draw, neighbours as comparable bits, data shapes that make
//! certificates hard, and the `f32` reference search.

#![allow(dead_code, unreachable_pub)]

use bitext_core::{Embeddings, Rng};
use bitext_knn::{ExactIndex, ExactParams, Kernel, Metric, Neighbors, Precision};
use proptest::prelude::*;

/// Ids and score bits (so that -0 and +0 differ).
pub fn bits(n: &Neighbors) -> (Vec<usize>, Vec<u32>) {
    let s = n.all_scores().iter().map(|x| x.to_bits()).collect();
    (n.all_ids().to_vec(), s)
}

/// `precision` with a concrete kernel, so that it runs as asked on every CPU (with the kernel
/// left to `Auto`, a CPU without a fast kernel for it searches in `f32`).
pub fn at(precision: Precision) -> ExactParams {
    ExactParams {
        precision,
        kernel: Kernel::detect(),
        ..ExactParams::default()
    }
}

/// Parameters that force `kernel` (for `Auto`, the fastest kernel this CPU runs), so that
/// `precision` runs as asked: with the kernel left to `Auto`, a CPU without a fast kernel for
/// it would search in `f32` instead. `candidates` and queries in blocks of `block`.
pub fn params(
    precision: Precision,
    kernel: Kernel,
    candidates: usize,
    block: usize,
) -> ExactParams {
    ExactParams {
        query_block: block,
        kernel: if kernel == Kernel::Auto {
            Kernel::detect()
        } else {
            kernel
        },
        precision,
        candidates,
        ..ExactParams::default()
    }
}

/// The kernels the property tests draw: the fastest this CPU runs, and the portable one.
pub fn kernels() -> impl Strategy<Value = Kernel> {
    prop_oneof![Just(Kernel::Auto), Just(Kernel::Portable)]
}

/// Data shapes that make certificates hard.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// Standard normal values.
    Normal,
    /// A few base vectors, each copied many times with relative noise 1e-6.
    NearDuplicates,
    /// Values in {-1, 0, 1}: many exact ties.
    Ties,
    /// Exact copies of a few rows (and a few distinct ones): duplicates in the database.
    Copies,
    /// Normal rows scaled by 1e-30: products near the f32 underflow range.
    Tiny,
    /// Rows scaled by 10^u, u uniform in [-4, 4].
    MixedNorms,
    /// Unit rows (what mining searches).
    Unit,
}

/// `n` rows of dimension `d` of `shape`, drawn from `rng`.
pub fn data(shape: Shape, n: usize, d: usize, rng: &mut Rng) -> Embeddings {
    let mut rows = Vec::with_capacity(n * d);
    let bases: Vec<Vec<f32>> = (0..3)
        .map(|_| (0..d).map(|_| rng.normal() as f32).collect())
        .collect();
    for i in 0..n {
        let row: Vec<f32> = match shape {
            Shape::Normal | Shape::Unit => (0..d).map(|_| rng.normal() as f32).collect(),
            Shape::NearDuplicates => bases[i % 3]
                .iter()
                .map(|&b| b * (1.0 + 1e-6 * rng.normal() as f32))
                .collect(),
            Shape::Ties => (0..d).map(|_| rng.below(3) as f32 - 1.0).collect(),
            Shape::Copies if rng.below(4) == 0 => (0..d).map(|_| rng.normal() as f32).collect(),
            Shape::Copies => bases[rng.below(3)].clone(),
            Shape::Tiny => (0..d).map(|_| rng.normal() as f32 * 1e-30).collect(),
            Shape::MixedNorms => {
                let s = 10f32.powf(rng.uniform(-4.0, 4.0) as f32);
                (0..d).map(|_| rng.normal() as f32 * s).collect()
            }
        };
        rows.extend(row);
    }
    let mut e = Embeddings::new(rows, d).unwrap();
    if matches!(shape, Shape::Unit) {
        e.normalize_l2();
    }
    e
}

/// The reference: the `f32` search (not `Auto`, which may scan a quantised copy).
pub fn f32_index(db: &Embeddings) -> ExactIndex<'_> {
    let f32 = ExactParams {
        precision: Precision::F32,
        ..ExactParams::default()
    };
    ExactIndex::over(db.view(), Metric::InnerProduct)
        .unwrap()
        .with_params(f32)
        .unwrap()
}
