//! Evaluation metrics for parallel-sentence mining and filtering.
//!
//! - [`bucc`]: the BUCC protocol — precision, recall and F1 of mined pairs against gold, the
//!   F1-optimal threshold over scored candidates, and a threshold chosen on one split applied to
//!   another.
//! - [`prf`]: P/R/F1 from counts, precision/recall curves and P/R/F1 at a threshold for scored
//!   pair lists (Grégoire & Langlais 2018, §4.1); the one P/R/F1 engine of the crate.
//! - [`calibration`]: from labelled scores, the isotonic map raw score → probability of being
//!   parallel (pool-adjacent-violators), the thresholds reaching a requested precision or
//!   recall and the F1-optimal one, with Wilson intervals; saved as a checked, versioned JSON
//!   file. Labels come from a 0/1 TSV, from mined pairs and BUCC gold, or from the
//!   noisy-parallel protocol over any `PairScorer`.
//! - [`plot`]: SVG figures written by hand: precision–recall and calibration curves, score
//!   histograms (no plotting dependency).
//! - [`noisy`]: the noisy-parallel protocol (Grégoire & Langlais 2018, §5.1): P/R/F1 of a pair
//!   scorer over the Cartesian product of held-out pairs with a ratio of targets replaced.
//! - [`crawl`]: a labelled noisy crawl (real pairs with a web crawl's kinds of noise mixed in),
//!   for measuring a cleaning pipeline per noise kind.
//! - [`alignment`]: sentence-alignment recovery error in both directions (Kim et al. 2019, §4.1).
//! - [`beads`]: strict and lax bead P/R/F1 of document alignments (vecalign's `score.py`).
//! - [`word`]: word-translation P/R/F1/accuracy against a many-to-many lexicon (Zhang et al.
//!   2016), and the lexicon reader.
//!
//! ```
//! use bitext_eval::bucc::GoldSet;
//! # fn main() -> bitext_eval::Result<()> {
//! let gold = GoldSet::new([(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)])?;
//! let p = gold.evaluate(&[(0, 0), (1, 1), (2, 0), (3, 3)])?;
//! assert_eq!((p.precision, p.recall), (0.75, 0.6));
//! # Ok(())
//! # }
//! ```

pub mod alignment;
pub mod beads;
pub mod bucc;
pub mod calibration;
pub mod crawl;
mod error;
pub mod noisy;
pub mod plot;
pub mod prf;
pub mod word;

pub use error::{Error, Result};
pub use prf::{PrPoint, Prf, Threshold};
