//! Cleaning a crawled bitext: the rule filters of bicleaner-hardrules as named [`Rule`]s with
//! documented thresholds ([`Rules`]), and the folded keys of near-duplicates ([`fold`],
//! [`key`]) as bifixer's aggressive mode computes them, run by a [`Cleaner`] over a stream of
//! pairs with language identification (any `bitext_lid::LanguageIdentifier`) between them:
//! what `bitext clean` does to a TSV.
//!
//! Everything here reads one pair of sentences (and, for boilerplate, the corpus' counts of
//! each side, [`Repeats`]): no files; the identifier's model is the caller's.

mod error;
mod pipeline;
mod rules;
mod text;

pub use error::{Error, Result};
pub use pipeline::{
    BestCopies, Cleaner, Dedup, EXAMPLES, Histogram, Lid, Recipe, Removal, Removed, Report,
    SCORE_BINS, Step, duplicate_of,
};

pub use rules::{Repeats, Rule, Rules, Side, Verdict};
pub use text::{
    Kinds, Script, fold, has_markup, judged_sides, key, links, numbers, script, scripts_of,
};
