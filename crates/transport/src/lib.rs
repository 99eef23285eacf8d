//! Optimal transport for bitext, after Zhang et al. (2016), "Building Earth Mover's Distance
//! on Bilingual Word Embeddings for Machine Translation".
//!
//! - [`Problem`] (a dense [`CostMatrix`], the two weight vectors, [`Balance`]: equal masses or
//!   the paper's partial form) → [`Transport`] (the cost and the sparse plan).
//! - [`NetworkSimplex`]: an exact Earth Mover's Distance solver for dense cost matrices
//!   (balanced problems and the partial form; greedy or Vogel initial basis, block pricing, a
//!   threaded spanning tree), returning the optimal cost and the sparse plan; [`Sinkhorn`]:
//!   entropic transport (kernel or log domain, ε-scaling), an approximate alternative behind
//!   the same [`TransportSolver`] trait; [`SolverSpec`] picks one from a config.
//! - [`bounds`]: cheap lower bounds (word centroid distance, relaxed EMD) for pruning.
//! - [`word`]: word translation by transporting one vocabulary (core's `WordVectors` with
//!   frequencies) onto the other (the paper's first task), and [`retrieval`]: the baselines it
//!   is compared with (nearest neighbour, CSLS, globally corrected retrieval).
//! - [`sentence`]: the TF-IDF-weighted sentence distance (the paper's second task; bags
//!   weighted by `bitext_encode::Idf`, with an out-of-vocabulary policy) and [`EmdScorer`],
//!   which scores sentence pairs with it as a `bitext_similarity::PairScorer` (rayon over
//!   pairs, and a k-nearest search pruned by the bounds); [`noise`]: the paper's noise protocol
//!   for evaluating filters (the keep-best-half accuracy).
//!
//! ```
//! use bitext_transport::{CostMatrix, NetworkSimplex, Problem, TransportSolver};
//! # fn main() -> bitext_transport::Result<()> {
//! // Sources at 0 and 2 on a line, targets at 1 and 2.
//! let (xs, ys) = ([0.0f64, 2.0], [1.0f64, 2.0]);
//! let cost: Vec<f64> = xs.iter().flat_map(|x| ys.iter().map(move |y| (x - y).abs())).collect();
//! let problem = Problem::new(&[0.5, 0.5], &[0.5, 0.5], CostMatrix::new(&cost, 2, 2)?)?;
//! let t = NetworkSimplex::default().solve(&problem)?;
//! assert!((t.cost - 0.5).abs() < 1e-12); // 0 → 1 and 2 → 2
//! assert_eq!(t.plan.len(), 2);
//! # Ok(())
//! # }
//! ```

pub mod bounds;
pub mod cases;
mod error;
pub mod noise;
mod problem;
pub mod retrieval;
mod scorer;
pub mod sentence;
mod simplex;
mod sinkhorn;
mod solver;
pub mod word;

pub use error::{Error, Result};
pub use problem::{Balance, CostMatrix, Flow, Problem, Transport};
pub use scorer::{EmdScorer, Nearest};
pub use simplex::{InitialBasis, NetworkSimplex, SimplexParams};
pub use sinkhorn::{Sinkhorn, SinkhornParams};
pub use solver::{SolverSpec, TransportSolver};
