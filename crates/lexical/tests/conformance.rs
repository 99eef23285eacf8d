//! The shared [`PairScorer`](bitext_similarity::PairScorer) conformance suite
//! (`bitext_testkit::pair_scorer_suite!`) for this crate's three scorers: IBM Model 1 trained
//! on the testkit's parallel text and scoring held-out pairs (source `i < 8` translated by
//! target `i`, then unrelated sentences), Levenshtein over near-copies, and the length ratio
//! (scores in `[0, 1]`).

use std::sync::{Arc, OnceLock};

use bitext_lexical::{Ibm1, Ibm1Scorer, LengthRatioScorer, LengthUnit, LevenshteinScorer};
use bitext_testkit::data::parallel_text;
use bitext_testkit::{pair_scorer_suite, scorer};

mod common;
use common::trained_ibm1;

/// The model, trained once for every test of the suite.
fn model() -> Arc<Ibm1> {
    static MODEL: OnceLock<Arc<Ibm1>> = OnceLock::new();
    MODEL.get_or_init(|| Arc::new(trained_ibm1(400, 5))).clone()
}

/// 12 sources and 10 targets: the translations of the first 8 sources, then 2 unrelated ones.
fn held_out() -> (Vec<String>, Vec<String>) {
    let (src, tgt) = parallel_text(12, 21);
    let (_, other) = parallel_text(2, 22);
    (src, tgt[..8].iter().chain(&other).cloned().collect())
}

fn ibm1() -> Ibm1Scorer {
    let (src, tgt) = held_out();
    Ibm1Scorer::new(model(), &src, &tgt).unwrap()
}

/// Sources, and targets that copy the first 8 with one character changed; the unrelated
/// sentences share no character with the others.
fn levenshtein() -> LevenshteinScorer {
    let (src, _) = parallel_text(8, 21);
    let tgt: Vec<String> = src
        .iter()
        .map(|s| s.replacen('a', "b", 1))
        .chain(["QQQQQQQQQQQQQQQQQQQQQQQQQQQQ".into(), "ZZZZZ".into()])
        .collect();
    let src: Vec<String> = src
        .into_iter()
        .chain(
            [
                "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
                "YY",
                "WWWWWWWWW",
                "VVVVVVVVVVVVV",
            ]
            .map(String::from),
        )
        .collect();
    LevenshteinScorer::new(&src, &tgt).unwrap()
}

fn length_ratio(unit: LengthUnit) -> LengthRatioScorer {
    let (src, tgt) = held_out();
    LengthRatioScorer::new(unit, &src, &tgt).unwrap()
}

pair_scorer_suite!(ibm1_scorer, ibm1(), scorer::Expect::exact().planted(8));
pair_scorer_suite!(
    levenshtein_scorer,
    levenshtein(),
    scorer::Expect::exact().probabilities().planted(8)
);
pair_scorer_suite!(
    length_ratio_chars,
    length_ratio(LengthUnit::Chars),
    scorer::Expect::exact().probabilities()
);
pair_scorer_suite!(
    length_ratio_tokens,
    length_ratio(LengthUnit::Tokens),
    scorer::Expect::exact().probabilities()
);
