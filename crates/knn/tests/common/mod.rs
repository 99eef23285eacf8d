//! Helpers the exact-search integration tests share: parameters that run a precision as asked,
//! the kernels the property tests draw, and neighbours as comparable bits.

#![allow(dead_code, unreachable_pub)]

use bitext_knn::{ExactParams, Kernel, Neighbors, Precision};
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
