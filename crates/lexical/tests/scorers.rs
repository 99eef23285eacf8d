//! Checks of the scorers beyond the shared suite: the pruned Levenshtein search equals the
//! exhaustive one, lengths and empty inputs.

use bitext_core::Rng;
use bitext_lexical::levenshtein::{distance_dp, normalized};
use bitext_lexical::{LengthRatioScorer, LengthUnit, LevenshteinScorer};
use bitext_similarity::PairScorer;

mod common;
use common::trained_ibm1;

fn random_sentences(n: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::seed(seed);
    (0..n)
        .map(|_| {
            let len = 1 + rng.below(90);
            (0..len)
                .map(|_| ['a', 'b', 'c', ' ', 'ä'][rng.below(5)])
                .collect()
        })
        .collect()
}

#[test]
fn nearest_equals_the_exhaustive_search() {
    let src = random_sentences(40, 1);
    let mut tgt = random_sentences(60, 2);
    tgt.extend(src[..5].iter().cloned()); // exact copies, and ties among equal sentences
    tgt.push(src[0].clone());
    let s = LevenshteinScorer::new(&src, &tgt).unwrap();
    for (i, a) in src.iter().enumerate() {
        let a: Vec<char> = a.chars().collect();
        let mut best = (f64::INFINITY, usize::MAX);
        for (j, b) in tgt.iter().enumerate() {
            let b: Vec<char> = b.chars().collect();
            let d = distance_dp(&a, &b) as f64 / a.len().max(b.len()) as f64;
            if d < best.0 {
                best = (d, j);
            }
            assert_eq!(
                s.score(&[(i, j)]).unwrap()[0],
                1.0 - normalized(&a, &b),
                "pair ({i}, {j})"
            );
        }
        let (j, d) = s.nearest(i).unwrap();
        assert_eq!((j, d), (best.1, best.0), "source {i}");
    }
    assert_eq!(s.nearest(40), None);
    let all: Vec<(usize, f64)> = (0..src.len()).map(|i| s.nearest(i).unwrap()).collect();
    assert_eq!(s.nearest_all(), all);
}

#[test]
fn length_ratios_in_characters_and_tokens() {
    let src = ["Guten Morgen!", "Ja"];
    let tgt = ["Good morning to you!", "Yes"];
    let chars = LengthRatioScorer::new(LengthUnit::Chars, &src, &tgt).unwrap();
    assert_eq!(
        chars.score(&[(0, 0), (1, 1)]).unwrap(),
        vec![13.0 / 20.0, 2.0 / 3.0]
    );
    let tokens = LengthRatioScorer::new(LengthUnit::Tokens, &src, &tgt).unwrap();
    assert_eq!(
        tokens.score(&[(0, 0), (1, 1)]).unwrap(),
        vec![3.0 / 5.0, 1.0]
    );
}

#[test]
fn empty_sentences_are_named() {
    let e = LevenshteinScorer::new(&["a", ""], &["b", "c"]).unwrap_err();
    assert!(e.to_string().contains("source sentence 2 is empty"), "{e}");
    let e = LengthRatioScorer::new(LengthUnit::Tokens, &["a"], &["  "]).unwrap_err();
    assert!(e.to_string().contains("target sentence 1 is empty"), "{e}");
}

#[test]
fn ibm1_all_pairs_equal_one_pair_at_a_time() {
    use std::sync::Arc;

    use bitext_lexical::Ibm1Scorer;
    use bitext_testkit::data::parallel_text;
    let model = trained_ibm1(300, 5);
    let (s, mut t) = parallel_text(30, 6);
    t.push("b1 unknown b2 b2".into()); // unknown and repeated words
    let scorer = Ibm1Scorer::new(Arc::new(model), &s, &t).unwrap();
    let all: Vec<(usize, usize)> = (0..s.len())
        .flat_map(|i| (0..t.len()).map(move |j| (i, j)))
        .collect();
    // Every source and target is given in more than 16 pairs: the dense path.
    let dense = scorer.score(&all).unwrap();
    for (k, &p) in all.iter().enumerate() {
        assert_eq!(scorer.score(&[p]).unwrap()[0], dense[k], "pair {p:?}");
    }
}
