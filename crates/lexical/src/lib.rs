//! Lexical baselines for bitext: the scorers the seed papers measure sentence embeddings
//! against, and the word aligner the word-alignment BiLSTM needs for its synthetic negatives.
//!
//! - [`Ibm1`]: IBM Model 1 in both directions (EM with a NULL word over sparse `t` tables,
//!   rayon over sentences, bit-identical for any thread count), Khadivi & Ney's
//!   length-normalised sentence score, Viterbi alignments and their [`symmetrize`]d
//!   combination (intersection, union, grow-diag, grow-diag-final, grow-diag-final-and); saved
//!   and loaded as a checked model directory ([`ibm1`] documents the format).
//! - [`levenshtein`]: character-level edit distance (bit-parallel, Myers / Hyyrö), with a
//!   bounded variant for search.
//! - [`Ibm1Scorer`], [`LevenshteinScorer`] (with a pruned nearest search), [`LengthRatioScorer`]:
//!   the three as `bitext_similarity::PairScorer`s over two lists of sentences, each sentence
//!   cut by a [`Segmenter`] (words or a tokenizer's pieces; bitext-tokenize's, re-exported).
//!
//! ```
//! use bitext_lexical::{LengthRatioScorer, LengthUnit, LevenshteinScorer};
//! use bitext_similarity::PairScorer;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let src = ["Die Katze schläft.", "Guten Morgen!"];
//! let tgt = ["Die Katze schlaeft.", "Good morning to you all!"];
//! let lev = LevenshteinScorer::new(&src, &tgt)?;
//! let s = lev.score(&[(0, 0), (0, 1)])?;
//! assert!(s[0] > s[1]);
//! let ratio = LengthRatioScorer::new(LengthUnit::Chars, &src, &tgt)?;
//! assert_eq!(ratio.score(&[(1, 1)])?, vec![13.0 / 24.0]);
//! # Ok(())
//! # }
//! ```

mod align;
mod error;
pub mod ibm1;
pub mod levenshtein;
mod scorer;

pub use align::{Symmetrization, symmetrize};
pub use bitext_tokenize::{Segment, Segmenter};
pub use error::{Error, Result};
pub use ibm1::{Direction, Ibm1, Ibm1Config, IterationReport, TrainReport};
pub use scorer::{Ibm1Scorer, LengthRatioScorer, LengthUnit, LevenshteinScorer};
