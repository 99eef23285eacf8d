//! The TF-IDF sentence distance, its scorer and the noise protocol on small synthetic
//! bilingual vocabularies (the testkit's lexicon).

use std::sync::Arc;

use bitext_core::Rng;
use bitext_core::io::vec::WordVectors;
use bitext_similarity::PairScorer;
use bitext_transport::noise::{Noise, keep_best_half_accuracy};
use bitext_transport::sentence::{Idf, Lang, OovPolicy, SentenceConfig, SentenceDistance};
use bitext_transport::{EmdScorer, SinkhornParams, SolverSpec};

/// `n` word pairs `de{i}` / `en{i}`: the testkit's lexicon (noisy unit copies of one random
/// vector per pair) under German and English names.
fn lexicon(n: usize, dim: usize, seed: u64) -> (WordVectors, WordVectors) {
    let (a, b) = bitext_testkit::data::lexicon(n, dim, seed);
    let named = |prefix: &str, v: WordVectors| {
        let words = (0..n).map(|i| format!("{prefix}{i}")).collect();
        WordVectors::new(words, v.vectors().clone()).unwrap()
    };
    (named("de", a), named("en", b))
}

fn distance(config: SentenceConfig, idf: Option<(Idf, Idf)>) -> SentenceDistance {
    let (de, en) = lexicon(20, 8, 1);
    SentenceDistance::new(Arc::new(de), Arc::new(en), idf, config).unwrap()
}

fn toks(s: &str) -> Vec<&str> {
    s.split(' ').collect()
}

#[test]
fn bags_weigh_by_tf_idf_and_skip_punctuation() {
    // "de0" is in every reference sentence, "de1" in one of four.
    let ref_de = [vec!["de0", "de1"], vec!["de0"], vec!["de0"], vec!["de0"]];
    let idf_de = Idf::from_documents(ref_de.iter().map(|s| s.iter()));
    let idf_en = Idf::from_documents([["en0"].iter()]);
    let w0 = (5.0f64 / 5.0).ln() + 1.0;
    let w1 = (5.0f64 / 2.0).ln() + 1.0;
    assert!((idf_de.weight("de0") - w0).abs() < 1e-12);
    assert!((idf_de.weight("de1") - w1).abs() < 1e-12);
    assert!((idf_de.weight("never") - 5f64.ln() - 1.0).abs() < 1e-12);
    let d = distance(SentenceConfig::default(), Some((idf_de, idf_en)));
    let bag = d.bag(Lang::Source, &toks("DE0 , de0 de1 .")).unwrap();
    // Sorted words: de0 (tf 2), de1 (tf 1).
    let (a, b) = (2.0 * w0, w1);
    assert_eq!(bag.len(), 2);
    assert!((bag.weights()[0] - a / (a + b)).abs() < 1e-12);
    let plain = distance(
        SentenceConfig {
            use_idf: false,
            ..SentenceConfig::default()
        },
        None,
    );
    let bag = plain.bag(Lang::Source, &toks("de0 de0 de1 !")).unwrap();
    assert_eq!(bag.weights(), &[2.0 / 3.0, 1.0 / 3.0]);
    assert_eq!(plain.words(&toks("Hallo , Welt")), ["hallo", "welt"]);
}

#[test]
fn translations_are_closer_than_other_sentences() {
    let d = distance(SentenceConfig::default(), None);
    let mut solver = d.solver();
    let near = d
        .distance_tokens(&toks("de1 de2 de3"), &toks("en3 en1 en2"), solver.as_mut())
        .unwrap();
    let far = d
        .distance_tokens(&toks("de1 de2 de3"), &toks("en7 en8 en9"), solver.as_mut())
        .unwrap();
    assert!(near < 0.5 * far, "{near} vs {far}");
    // Same vectors on both sides: distance zero.
    let (de, _) = lexicon(20, 8, 1);
    let de = Arc::new(de);
    let same = SentenceDistance::new(de.clone(), de, None, SentenceConfig::default()).unwrap();
    let z = same
        .distance_tokens(&toks("de1 de2"), &toks("de2 de1"), solver.as_mut())
        .unwrap();
    assert!(z.abs() < 1e-12, "{z}");
}

#[test]
fn unknown_words_follow_the_policy() {
    let m = distance(
        SentenceConfig {
            oov: OovPolicy::MatchIdentical,
            ..SentenceConfig::default()
        },
        None,
    );
    let mut solver = m.solver();
    // "tymoshenko" and "2012" are unknown on both sides: free to match each other.
    let with = m
        .distance_tokens(
            &toks("de1 Tymoshenko 2012"),
            &toks("en1 tymoshenko 2012"),
            solver.as_mut(),
        )
        .unwrap();
    let without = m
        .distance_tokens(
            &toks("de1 Tymoshenko 2012"),
            &toks("en1 Janukowitsch 2011"),
            solver.as_mut(),
        )
        .unwrap();
    assert!(with < 0.1 && without > 0.5, "{with} {without}");
    // Unmatched unknown mass pays oov_cost: 2/3 of the mass at cost 1.
    assert!((without - 2.0 / 3.0 - with).abs() < 0.05, "{without}");
    let drop = distance(SentenceConfig::default(), None);
    let a = drop
        .distance_tokens(
            &toks("de1 Tymoshenko"),
            &toks("en1 Janukowitsch"),
            solver.as_mut(),
        )
        .unwrap();
    let b = drop
        .distance_tokens(&toks("de1"), &toks("en1"), solver.as_mut())
        .unwrap();
    assert!((a - b).abs() < 1e-12);
    // Nothing left to move: oov_cost. No token at all: an error.
    let c = drop
        .distance_tokens(&toks("Tymoshenko"), &toks("en1"), solver.as_mut())
        .unwrap();
    assert_eq!(c, 1.0);
    let p = m
        .distance_tokens(&toks(". ,"), &toks("en1"), solver.as_mut())
        .unwrap();
    assert_eq!(p, 1.0);
    assert!(
        m.distance_tokens(&[] as &[&str], &toks("en1"), solver.as_mut())
            .is_err()
    );
    let bad = SentenceConfig {
        oov_cost: -1.0,
        ..SentenceConfig::default()
    };
    assert!(bad.check().is_err());
}

/// A small parallel corpus over the synthetic lexicon: sentence `i` of `n` words each side.
fn corpus(count: usize, vocab: usize, seed: u64) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let mut rng = Rng::seed(seed);
    let (mut de, mut en) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let len = 4 + rng.below(8);
        let ids: Vec<usize> = (0..len).map(|_| rng.below(vocab)).collect();
        de.push(ids.iter().map(|i| format!("de{i}")).collect());
        let mut e: Vec<String> = ids.iter().map(|i| format!("en{i}")).collect();
        rng.shuffle(&mut e);
        en.push(e);
    }
    (de, en)
}

#[test]
fn scorer_negates_distances_in_parallel_and_checks_pairs() {
    let d = distance(SentenceConfig::default(), None);
    let (de, en) = corpus(150, 20, 3);
    let s = EmdScorer::new(d.clone(), &de, &en).unwrap();
    assert_eq!(s.sizes(), (150, 150));
    let pairs: Vec<(usize, usize)> = (0..150).map(|i| (i, (i * 7) % 150)).collect();
    let scores = s.score(&pairs).unwrap();
    let mut solver = d.solver();
    for (&(i, j), sc) in pairs.iter().zip(&scores) {
        let want = d.distance_tokens(&de[i], &en[j], solver.as_mut()).unwrap();
        assert!((sc + want).abs() < 1e-12);
    }
    assert!(s.score(&[(0, 150)]).is_err());
    let mut bad = en.clone();
    bad[5].clear();
    let e = EmdScorer::new(d, &de, &bad).unwrap_err().to_string();
    assert!(
        e.contains("target sentence 5") && e.contains("empty"),
        "{e}"
    );
}

#[test]
fn the_noise_protocol_separates_clean_from_noisy_pairs() {
    let (de_vec, en_vec) = lexicon(40, 16, 2);
    let vocabulary = en_vec.words().to_vec();
    let (de, en) = corpus(200, 40, 4);
    let noise = Noise::new(0.5, vocabulary).unwrap();
    let (noisy, clean) = noise.corrupt_half(&en, 9);
    let pairs: Vec<(usize, usize)> = (0..200).map(|i| (i, i)).collect();
    for solver in [
        SolverSpec::default(),
        SolverSpec::Sinkhorn(SinkhornParams::default().reg(0.01).tolerance(1e-4)),
    ] {
        let config = SentenceConfig {
            solver,
            ..SentenceConfig::default()
        };
        let d = SentenceDistance::new(
            Arc::new(de_vec.clone()),
            Arc::new(en_vec.clone()),
            None,
            config,
        )
        .unwrap();
        let scores = EmdScorer::new(d, &de, &noisy)
            .unwrap()
            .score(&pairs)
            .unwrap();
        let acc = keep_best_half_accuracy(&scores, &clean).unwrap();
        assert!(acc > 0.95, "{acc}");
    }
}

#[test]
fn pruned_nearest_search_equals_brute_force() {
    let (de, en) = corpus(120, 20, 6);
    for oov in [OovPolicy::Drop, OovPolicy::MatchIdentical] {
        let d = distance(
            SentenceConfig {
                oov,
                ..SentenceConfig::default()
            },
            None,
        );
        // Some unknown words on the target side (they disable the centroid bound there).
        let mut en = en.clone();
        for s in en.iter_mut().step_by(7) {
            s.push("unbekannt".into());
        }
        let s = EmdScorer::new(d, &de, &en).unwrap();
        let mut saved = 0;
        for i in (0..120).step_by(13) {
            let pairs: Vec<(usize, usize)> = (0..120).map(|j| (i, j)).collect();
            let mut all: Vec<(usize, f64)> = s
                .distances(&pairs)
                .unwrap()
                .into_iter()
                .enumerate()
                .collect();
            all.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            let got = s.nearest(i, 3).unwrap();
            assert_eq!(got.neighbours, all[..3].to_vec(), "source {i}");
            saved += 120 - got.exact;
        }
        assert!(saved > 0, "{oov:?}: pruning never saved a solve");
    }
    let s = EmdScorer::new(distance(SentenceConfig::default(), None), &de, &en).unwrap();
    assert!(s.nearest(500, 1).is_err());
    assert!(s.nearest(0, 0).is_err());
}
