//! The pair classifier's features equal the single scorers' outputs: Levenshtein and the
//! length ratio of `bitext-lexical`, IBM Model 1's two directions, an encoder's cosine
//! (`Cosines`), the rule flags of `bitext-clean`, numbers and punctuation agreement; a side
//! without text (or without a known word) is a missing value beside its flag.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bitext_classify::{
    FeatureSpec, Features, LightBackends, number_agreement, punctuation_agreement,
};
use bitext_clean::{Rule, Rules};
use bitext_encode::{EncoderSpec, NoKnownWord, SentenceEncoder, Side};
use bitext_lexical::{
    Ibm1, Ibm1Config, Ibm1Scorer, LengthRatioScorer, LengthUnit, LevenshteinScorer, Segmenter,
};
use bitext_mine::ScorerSpec;
use bitext_similarity::{Cosines, PairScorer};

mod common;
use common::{LEXICON, column, corpus, diagonal, feature_pairs, sides};

#[test]
fn scorer_features_equal_the_lexical_scorers() {
    let pairs = feature_pairs();
    let (src, tgt) = sides(&pairs);
    let specs = [
        FeatureSpec::Scorer {
            scorer: ScorerSpec::Levenshtein,
        },
        FeatureSpec::Scorer {
            scorer: ScorerSpec::LengthRatio {
                unit: LengthUnit::Chars,
            },
        },
    ];
    let f = Features::build(&specs, Path::new("."), &LightBackends).unwrap();
    assert_eq!(
        f.names(),
        [
            "levenshtein",
            "levenshtein_missing",
            "length_ratio",
            "length_ratio_missing"
        ]
    );
    let x = f.compute(&src, &tgt).unwrap();
    assert_eq!(x.rows(), pairs.len());
    let d = diagonal(pairs.len());
    let lev = LevenshteinScorer::new(&src, &tgt)
        .unwrap()
        .score(&d)
        .unwrap();
    let ratio = LengthRatioScorer::new(LengthUnit::Chars, &src, &tgt)
        .unwrap()
        .score(&d)
        .unwrap();
    assert_eq!(column(&x, "levenshtein"), lev.as_slice());
    assert_eq!(column(&x, "length_ratio"), ratio.as_slice());
    assert!(column(&x, "levenshtein_missing").iter().all(|&m| m == 0.0));
    assert!(column(&x, "length_ratio_missing").iter().all(|&m| m == 0.0));
}

#[test]
fn ibm1_features_are_the_two_directions_of_ibm1_scorer() {
    let train_pairs = corpus(200, 2);
    let (s, t) = sides(&train_pairs);
    let model = Ibm1::train(
        &Ibm1Config::default(),
        Segmenter::default(),
        &s,
        &t,
        &mut |_| {},
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table");
    model.save(&path).unwrap();
    let pairs = feature_pairs();
    let (src, tgt) = sides(&pairs);
    // A relative model path is read from the base folder.
    let spec = FeatureSpec::Ibm1 {
        model: "table".into(),
    };
    let f = Features::build(&[spec], dir.path(), &LightBackends).unwrap();
    assert_eq!(f.names(), ["ibm1_fwd", "ibm1_bwd", "ibm1_missing"]);
    let x = f.compute(&src, &tgt).unwrap();
    let loaded = Arc::new(Ibm1::load(&path).unwrap());
    let scorer = Ibm1Scorer::new(loaded, &src, &tgt).unwrap();
    let d = diagonal(pairs.len());
    let (fwd, bwd) = scorer.directions(&d);
    let sum = scorer.score(&d).unwrap();
    assert_eq!(column(&x, "ibm1_fwd"), fwd.as_slice());
    assert_eq!(column(&x, "ibm1_bwd"), bwd.as_slice());
    for (i, &want) in sum.iter().enumerate() {
        assert_eq!(x.columns[0][i] + x.columns[1][i], want, "pair {i}");
        assert_eq!(x.columns[2][i], 0.0);
    }
    // A side without a token is missing.
    let x = f
        .compute(&["Haus.", "  ", "Haus."], &["House.", "House.", ""])
        .unwrap();
    assert_eq!(x.columns[2], [0.0, 1.0, 1.0]);
    assert!(x.columns[0][1].is_nan() && x.columns[1][2].is_nan());
    assert!(x.columns[0][0].is_finite() && x.columns[1][0].is_finite());
}

/// A `.vec` file of `words` in 3 dimensions, deterministic values.
fn vec_file(dir: &Path, words: &[&str]) -> PathBuf {
    let mut text = format!("{} 3\n", words.len());
    for (i, w) in words.iter().enumerate() {
        let v: Vec<String> = (0..3)
            .map(|c| format!("{:.3}", ((7 * i + 3 * c) % 11) as f64 / 11.0 - 0.4))
            .collect();
        text.push_str(&format!("{w} {}\n", v.join(" ")));
    }
    let p = dir.join("w.vec");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn encoder_feature_is_the_cosine_of_the_encoders_rows() {
    let dir = tempfile::tempdir().unwrap();
    let words: Vec<&str> = LEXICON.iter().flat_map(|(a, b)| [*a, *b]).collect();
    let vec = vec_file(dir.path(), &words);
    let encoder: EncoderSpec = format!("bow:{}", vec.display()).parse().unwrap();
    let spec = FeatureSpec::Encoder {
        encoder: encoder.clone(),
    };
    let f = Features::build(std::slice::from_ref(&spec), dir.path(), &LightBackends).unwrap();
    assert_eq!(f.names(), ["cosine", "cosine_missing"]);
    let pairs = corpus(20, 3);
    let (src, tgt) = sides(&pairs);
    let x = f.compute(&src, &tgt).unwrap();
    let bow = encoder
        .with_no_known_word(NoKnownWord::Zero)
        .build_bow(None::<&[&str]>)
        .unwrap();
    let (es, et) = (
        bow.encode(Side::Source, &src).unwrap(),
        bow.encode(Side::Target, &tgt).unwrap(),
    );
    let want = Cosines::new(es, et)
        .unwrap()
        .score(&diagonal(src.len()))
        .unwrap();
    assert_eq!(x.columns[0], want);
    assert!(x.columns[1].iter().all(|&m| m == 0.0));
    // Two encoders are told apart.
    let two = Features::build(&[spec.clone(), spec], dir.path(), &LightBackends).unwrap();
    assert_eq!(
        two.names(),
        ["cosine", "cosine_missing", "cosine_2", "cosine_missing_2"]
    );
    // No known word on a side: the cosine is missing.
    let x = f
        .compute(
            &["Haus und baum.", "qqq zzz", "Haus."],
            &["House and tree.", "House.", "xyzzy"],
        )
        .unwrap();
    assert_eq!(x.columns[1], [0.0, 1.0, 1.0]);
    assert!(x.columns[0][0].is_finite());
    assert!(x.columns[0][1].is_nan() && x.columns[0][2].is_nan());
}

#[test]
fn empty_sides_are_missing_scorer_values() {
    let specs = [
        FeatureSpec::Scorer {
            scorer: ScorerSpec::Levenshtein,
        },
        FeatureSpec::Scorer {
            scorer: ScorerSpec::LengthRatio {
                unit: LengthUnit::Tokens,
            },
        },
    ];
    let f = Features::build(&specs, Path::new("."), &LightBackends).unwrap();
    let src = ["Das haus.", "", "   ", "Der baum.", "Ein hund."];
    let tgt = ["The house.", "The house.", "The cat.", "\t", "One dog."];
    let x = f.compute(&src, &tgt).unwrap();
    let want_missing = [0.0, 1.0, 1.0, 1.0, 0.0];
    assert_eq!(column(&x, "levenshtein_missing"), want_missing);
    assert_eq!(column(&x, "length_ratio_missing"), want_missing);
    for (i, &missing) in want_missing.iter().enumerate() {
        for c in ["levenshtein", "length_ratio"] {
            assert_eq!(column(&x, c)[i].is_nan(), missing > 0.0, "{c} of pair {i}");
        }
    }
    // The present values are those of the pairs scored alone.
    let lev = LevenshteinScorer::new(&["Ein hund."], &["One dog."])
        .unwrap()
        .score(&[(0, 0)])
        .unwrap();
    assert_eq!(column(&x, "levenshtein")[4], lev[0]);
    // Every side empty: all missing, no error.
    let x = f.compute(&["", " "], &["a", ""]).unwrap();
    assert!(x.columns[0].iter().all(|v| v.is_nan()));
    assert_eq!(x.columns[1], [1.0, 1.0]);
    // Sides of different lengths are an error.
    assert!(f.compute(&["a", "b"], &["a"]).is_err());
}

#[test]
fn rule_flags_and_agreements_equal_their_functions() {
    let rules = Rules::default();
    let specs = [
        FeatureSpec::Rules {
            rules: rules.clone(),
        },
        FeatureSpec::Numbers,
        FeatureSpec::Punctuation,
    ];
    let f = Features::build(&specs, Path::new("."), &LightBackends).unwrap();
    let on: Vec<Rule> = Rule::ALL
        .into_iter()
        .filter(|&r| r != Rule::Boilerplate)
        .collect();
    let mut want: Vec<String> = on.iter().map(|r| format!("rule_{}", r.name())).collect();
    want.extend(["numbers".into(), "punctuation".into()]);
    assert_eq!(f.names(), want.as_slice());
    let pairs = feature_pairs();
    let (src, tgt) = sides(&pairs);
    let x = f.compute(&src, &tgt).unwrap();
    for (c, &rule) in on.iter().enumerate() {
        for i in 0..pairs.len() {
            let fails = rules.check_rule(rule, src[i], tgt[i], None).is_some();
            assert_eq!(
                x.columns[c][i],
                f64::from(u8::from(fails)),
                "{rule:?} of {:?}",
                pairs[i]
            );
        }
    }
    let flagged = |name: &str| column(&x, name).iter().filter(|&&v| v > 0.0).count();
    assert!(flagged("rule_untranslated") >= 1 && flagged("rule_markup") >= 1);
    assert!(flagged("rule_numbers") >= 2 && flagged("rule_length_ratio") >= 1);
    for i in 0..pairs.len() {
        assert_eq!(column(&x, "numbers")[i], number_agreement(src[i], tgt[i]));
        assert_eq!(
            column(&x, "punctuation")[i],
            punctuation_agreement(src[i], tgt[i])
        );
    }
    // A rule turned off has no column.
    let fewer = Rules {
        disabled: vec![Rule::Markup],
        ..Rules::default()
    };
    let cols = FeatureSpec::Rules { rules: fewer }.columns(1);
    assert_eq!(cols.len(), on.len() - 1);
    assert!(!cols.contains(&"rule_markup".to_string()));
}

#[test]
fn agreements_have_the_documented_values() {
    assert_eq!(number_agreement("Haus 12 und 13.", "House 12 and 13."), 1.0);
    assert_eq!(
        number_agreement("Haus 12 und 13.", "House 12 and 14."),
        1.0 / 3.0
    );
    assert_eq!(number_agreement("Haus.", "House."), 1.0);
    assert_eq!(number_agreement("Haus 7.", "House."), 0.0);
    assert_eq!(punctuation_agreement("Haus, baum.", "House, tree."), 1.0);
    assert_eq!(punctuation_agreement("Haus, baum!", "House tree."), 0.0);
    assert_eq!(punctuation_agreement("Haus", "House"), 1.0);
    assert_eq!(punctuation_agreement("«Haus»", "\"House\""), 1.0);
    assert_eq!(
        punctuation_agreement("Haus, baum, und.", "House, tree."),
        2.0 / 3.0
    );
}
