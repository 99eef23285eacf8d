//! Test support for bitext: one conformance suite per trait, the brute-force reference kNN, and
//! the seeded data they need. Not published; packages take it as a dev-dependency of their
//! integration tests (`tests/`), never as a normal dependency, and never from `#[cfg(test)]`
//! unit tests (which would see a second copy of the crate under test).
//!
//! | trait | suite (macro) | checks |
//! |---|---|---|
//! | `Tokenizer` | [`tokenizer_suite!`] | [`tokenizer`] |
//! | `SentenceEncoder` | [`sentence_encoder_suite!`] | [`encoder`] |
//! | `KnnIndex` | [`knn_index_suite!`] | [`knn`] (oracle: [`BruteForce`]) |
//! | `PairScorer` | [`pair_scorer_suite!`] | [`scorer`] |
//! | `BidirectionalSearch` | [`bidirectional_search_suite!`] | [`both`] (oracle: [`BruteForce`] from each side) |
//! | `TransportSolver` | [`transport_solver_suite!`] | [`transport`] (oracle: [`transport::ssp_cost`]) |
//! | `LanguageIdentifier` | [`lid_suite!`] | [`lid`] |
//!
//! The references: [`BruteForce`], the reference kNN (`f64` scores, a full sort, ties to the
//! lower id), and [`transport::ssp_cost`], min-cost flow by successive shortest paths. The
//! seeded data ([`data`]): planted neighbours and translations, a learnable parallel text and its
//! lexicon, random lines of given words, sample texts. [`needs`]: the one way for a test to say
//! that it ran or skipped for want of something outside the workspace or the CPU (counted and
//! shown by `cargo xtask ci`). [`files`]: FIFOs and their readers, for the tests of outputs that
//! are not regular files, and what a link points to. [`fasttext`]: fastText model files written
//! in code (dense and product-quantized), for the language identifier's tests.
//!
//! Each macro expands to a module with one `#[test]` per check, so test output names the
//! implementation and the check (`exact_owned::matches_the_reference`). The checks are public
//! functions, usable on their own. Instantiate a suite once per implementation, in the tests of
//! the crate that owns it:
//!
//! ```ignore
//! use bitext_knn::{ExactIndex, KnnIndex};
//! use bitext_testkit::knn::Expect;
//!
//! bitext_testkit::knn_index_suite!(
//!     exact_borrowed,
//!     |data, metric| Box::new(ExactIndex::over(data.view(), metric).unwrap()),
//!     Expect::exact()
//! );
//! ```

pub mod both;
pub mod data;
pub mod encoder;
pub mod fasttext;
pub mod files;
pub mod knn;
pub mod lid;
pub mod needs;
mod reference;
pub mod scorer;
pub mod tokenizer;
pub mod transport;

pub use reference::{BruteForce, rank, score};

/// Expands to a module `$name` holding one `#[test]` per check, each calling
/// `$crate::$module::$check` with the arguments `$args` (one parenthesised group): the body of
/// every suite macro. With `needs = EXPR` (a `(group, missing)` pair, as
/// [`needs::available`] takes), each test first records itself in that group and returns,
/// skipped, when something is missing.
#[doc(hidden)]
#[macro_export]
macro_rules! __suite {
    ($name:ident, $module:ident, $args:tt, [$($check:ident),* $(,)?]) => {
        $crate::__suite! { $name, $module, $args, [$($check),*], needs = None }
    };
    ($name:ident, $module:ident, $args:tt, [$($check:ident),* $(,)?], needs = $needs:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            $(
                #[test]
                fn $check() {
                    let needs: Option<(String, Option<String>)> = $needs;
                    if let Some((group, missing)) = needs {
                        if !$crate::needs::available(&group, missing) {
                            return;
                        }
                    }
                    $crate::$module::$check $args;
                }
            )*
        }
    };
}
