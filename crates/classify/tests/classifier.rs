//! The pair classifier end to end, on the toy language pair of `common`: training saves a
//! directory that loads and scores alike, clean pairs outscore misaligned ones, a seed gives
//! the same bytes, hard rules gate, explanations add up, bad inputs are clear errors, and
//! `ClassifierScorer` passes the `PairScorer` conformance suite.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use bitext_classify::{
    CALIBRATION, Classifier, ClassifierScorer, DESCRIPTION, Error, Explanation, FeatureSpec,
    Features, LightBackends, TRAINED_IBM1, TrainConfig, sigmoid, train,
};
use bitext_clean::Rules;
use bitext_similarity::PairScorer;
use bitext_testkit::scorer::Expect;

mod common;
use common::{corpus, feature_pairs, fit, sides};

fn config() -> TrainConfig {
    TrainConfig {
        features: FeatureSpec::defaults(None, Rules::default()),
        ..TrainConfig::default()
    }
}

/// A classifier trained once on 300 pairs with the default features, in a folder kept for
/// the whole run.
fn trained() -> &'static (PathBuf, Arc<Classifier>) {
    static TRAINED: OnceLock<(PathBuf, Arc<Classifier>)> = OnceLock::new();
    TRAINED.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let c = fit(&corpus(300, 1), &config(), &dir).unwrap();
        (dir, Arc::new(c))
    })
}

/// A copy of folder `from` (files and sub-folders) in `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

#[test]
fn training_saves_a_directory_that_loads_and_scores_alike() {
    let (dir, c) = trained();
    for f in [DESCRIPTION, CALIBRATION] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    assert!(dir.join(TRAINED_IBM1).is_dir());
    let d = c.description();
    assert_eq!(d.features, config().features);
    assert_eq!(d.training.pairs + d.training.held_out, 300);
    assert_eq!(d.training.held_out, 60);
    assert!(d.training.held_out_ap > 0.5, "{:?}", d.training);
    assert!(d.model.names.iter().any(|n| n == "ibm1_fwd"));
    let loaded = Classifier::load(dir, &LightBackends).unwrap();
    assert_eq!(loaded.description(), d);
    let mut pairs = corpus(50, 4);
    pairs.extend(feature_pairs());
    let (src, tgt) = sides(&pairs);
    let a = c.score(&src, &tgt).unwrap();
    let b = loaded.score(&src, &tgt).unwrap();
    assert_eq!(a.len(), pairs.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.to_bits(), y.to_bits());
    }
    assert!(a.iter().all(|s| (0.0..=1.0).contains(s)), "{a:?}");
    for &s in &a {
        let p = loaded.probability(s);
        assert!((0.0..=1.0).contains(&p), "{p}");
        assert_eq!(p, c.probability(s));
    }
}

#[test]
fn clean_pairs_outscore_misaligned_ones() {
    let (_, c) = trained();
    let pairs = corpus(100, 5);
    let (src, tgt) = sides(&pairs);
    let shifted: Vec<&str> = (0..tgt.len()).map(|i| tgt[(i + 37) % tgt.len()]).collect();
    let clean = c.score(&src, &tgt).unwrap();
    let wrong = c.score(&src, &shifted).unwrap();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        mean(&clean) > mean(&wrong) + 0.3,
        "{} vs {}",
        mean(&clean),
        mean(&wrong)
    );
    let better = clean.iter().zip(&wrong).filter(|(a, b)| a > b).count();
    assert!(
        better >= 90,
        "{better} of 100 clean pairs outscore their misaligned pair"
    );
    let p = |v: &[f64]| mean(&v.iter().map(|&s| c.probability(s)).collect::<Vec<_>>());
    assert!(p(&clean) > p(&wrong), "{} vs {}", p(&clean), p(&wrong));
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let pairs = corpus(120, 6);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for d in [&a, &b] {
        fit(&pairs, &config(), d.path()).unwrap();
    }
    let read = |d: &tempfile::TempDir, f: &str| std::fs::read(d.path().join(f)).unwrap();
    assert_eq!(read(&a, DESCRIPTION), read(&b, DESCRIPTION));
    assert_eq!(read(&a, CALIBRATION), read(&b, CALIBRATION));
    // Another seed splits and draws otherwise.
    let c = tempfile::tempdir().unwrap();
    let other = TrainConfig {
        seed: 74,
        ..config()
    };
    fit(&pairs, &other, c.path()).unwrap();
    assert_ne!(read(&a, DESCRIPTION), read(&c, DESCRIPTION));
}

/// The logit of an explanation: the bias plus every contribution.
fn logit(e: &Explanation) -> f64 {
    e.bias + e.contributions.iter().map(|(_, v)| v).sum::<f64>()
}

#[test]
fn hard_rules_gate_and_explanations_add_up() {
    let (_, c) = trained();
    assert!(c.description().hard_rules);
    let src = [
        "Der hund sieht die katze.",
        "<b>Haus</b> und baum.",
        "Der hund sieht 3 katzen.",
    ];
    let tgt = [
        "Der hund sieht die katze.",
        "<b>House</b> and tree.",
        "The dog sees 3 cats.",
    ];
    let x = c.features(&src, &tgt).unwrap();
    let scores = c.scores_of(&x).unwrap();
    assert_eq!(scores, c.score(&src, &tgt).unwrap());
    for (i, want) in [(0, "rule_untranslated"), (1, "rule_markup")] {
        assert!(scores[i] < 0.5, "pair {i} scores {}", scores[i]);
        let e = c.explain(&x, i);
        assert_eq!(e.gate.as_deref(), Some(want), "pair {i}");
        let field = e.to_field();
        assert!(field.starts_with(&format!("gate={want} bias=")), "{field}");
    }
    let e = c.explain(&x, 2);
    assert_eq!(e.gate, None);
    assert!(scores[2] >= 0.5, "{}", scores[2]);
    let field = e.to_field();
    assert!(field.starts_with("bias="), "{field}");
    let names = &c.description().model.names;
    assert_eq!(field.split(' ').count(), 1 + names.len());
    let listed: Vec<&String> = e.contributions.iter().map(|(n, _)| n).collect();
    assert_eq!(listed, names.iter().collect::<Vec<_>>());
    // The score is the model's probability, the sigmoid of the bias plus the contributions,
    // mapped into [0.5, 1] for a pair that fails no hard rule and below 0.5 for one that
    // fails one.
    for (i, &score) in scores.iter().enumerate() {
        let e = c.explain(&x, i);
        let p = sigmoid(logit(&e));
        let want = match e.gate {
            Some(_) => (0.5 * p).min(0.5 - 1e-12),
            None => 0.5 + 0.5 * p,
        };
        assert!((score - want).abs() <= 1e-12, "pair {i}: {score} vs {want}");
    }
    // Over many pairs, every pair that fails a hard rule scores under every one that fails
    // none.
    let mut pairs = corpus(60, 17);
    let n = pairs.len();
    for i in 0..n {
        let t = pairs[(i + 13) % n].1.clone();
        pairs.push((pairs[i].0.clone(), t));
    }
    pairs.extend(feature_pairs());
    let (src_all, tgt_all) = sides(&pairs);
    let x = c.features(&src_all, &tgt_all).unwrap();
    let all = c.scores_of(&x).unwrap();
    let (mut gated, mut free) = (Vec::new(), Vec::new());
    for (i, &s) in all.iter().enumerate() {
        if c.explain(&x, i).gate.is_some() {
            gated.push(s);
        } else {
            free.push(s);
        }
    }
    assert!(
        gated.len() >= 5 && free.len() >= 60,
        "{} {}",
        gated.len(),
        free.len()
    );
    let top = gated.iter().copied().fold(f64::MIN, f64::max);
    let bottom = free.iter().copied().fold(f64::MAX, f64::min);
    assert!(top < 0.5 && bottom >= 0.5 && top < bottom, "{top} {bottom}");
    // Without hard rules, the same pairs are scored as they come.
    let dir = tempfile::tempdir().unwrap();
    let soft = TrainConfig {
        hard_rules: false,
        ..config()
    };
    let s = fit(&corpus(120, 7), &soft, dir.path()).unwrap();
    let x = s.features(&src, &tgt).unwrap();
    let scores = s.scores_of(&x).unwrap();
    for (i, &score) in scores.iter().enumerate() {
        let e = s.explain(&x, i);
        assert_eq!(e.gate, None);
        assert!((sigmoid(logit(&e)) - score).abs() <= 1e-12);
        assert!(score > 0.0);
    }
}

#[test]
fn too_few_pairs_and_bad_settings_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = fit(&corpus(9, 8), &config(), dir.path()).unwrap_err();
    assert!(matches!(e, Error::Invalid(_)), "{e:?}");
    assert!(e.to_string().contains("at least 10"), "{e}");
    let none = TrainConfig::default();
    assert!(fit(&corpus(30, 8), &none, dir.path()).is_err());
    let held = TrainConfig {
        held_out: 1.0,
        ..config()
    };
    let e = fit(&corpus(30, 8), &held, dir.path()).unwrap_err();
    assert!(e.to_string().contains("held-out"), "{e}");
}

#[test]
fn a_feature_that_does_not_load_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = FeatureSpec::Ibm1 {
        model: "/nonexistent".into(),
    };
    let e = Features::build(std::slice::from_ref(&bad), dir.path(), &LightBackends).unwrap_err();
    let Error::Feature { feature, .. } = &e else {
        panic!("{e:?}");
    };
    assert!(
        feature.contains("ibm1") && feature.contains("/nonexistent"),
        "{feature}"
    );
    assert!(e.to_string().contains("/nonexistent"), "{e}");
    let config = TrainConfig {
        features: vec![FeatureSpec::Numbers, bad],
        ..TrainConfig::default()
    };
    let e = fit(&corpus(30, 8), &config, dir.path()).unwrap_err();
    assert!(matches!(&e, Error::Feature { .. }), "{e:?}");
    assert!(e.to_string().contains("/nonexistent"), "{e}");
    let e = "cosine".parse::<FeatureSpec>().unwrap_err().to_string();
    assert!(e.contains("encoder"), "{e}");
    let missing = dir.path().join("none.vec");
    let spec: FeatureSpec = format!("encoder:bow:{}", missing.display())
        .parse()
        .unwrap();
    let e = Features::build(&[spec], dir.path(), &LightBackends).unwrap_err();
    assert!(matches!(&e, Error::Feature { .. }), "{e:?}");
    assert!(e.to_string().contains("none.vec"), "{e}");
}

#[test]
fn corrupted_descriptions_are_model_errors_naming_the_file() {
    let (dir, _) = trained();
    let copy = tempfile::tempdir().unwrap();
    copy_dir(dir, copy.path());
    let path = copy.path().join(DESCRIPTION);
    let original = std::fs::read_to_string(&path).unwrap();
    let expect_model_error = |what: &str| {
        let e = Classifier::load(copy.path(), &LightBackends).unwrap_err();
        let Error::Model { path: p, .. } = &e else {
            panic!("{what}: {e:?}");
        };
        assert_eq!(p, &path, "{what}");
        assert!(e.to_string().contains(DESCRIPTION), "{what}: {e}");
    };
    std::fs::write(&path, b"\x00\xffnot json at all").unwrap();
    expect_model_error("garbage");
    let mut json: serde_json::Value = serde_json::from_str(&original).unwrap();
    json["format"] = "something-else".into();
    std::fs::write(&path, json.to_string()).unwrap();
    expect_model_error("another format");
    let mut json: serde_json::Value = serde_json::from_str(&original).unwrap();
    json["version"] = 99.into();
    std::fs::write(&path, json.to_string()).unwrap();
    expect_model_error("another version");
    // A feature left out: the model's columns no longer match.
    let mut json: serde_json::Value = serde_json::from_str(&original).unwrap();
    let features = json["features"].as_array_mut().unwrap();
    let at = features
        .iter()
        .position(|f| f["type"] == "numbers")
        .unwrap();
    features.remove(at);
    std::fs::write(&path, json.to_string()).unwrap();
    expect_model_error("a feature left out");
    // A scale that is not positive.
    let mut json: serde_json::Value = serde_json::from_str(&original).unwrap();
    json["model"]["scale"][0] = 0.0.into();
    std::fs::write(&path, json.to_string()).unwrap();
    expect_model_error("a zero scale");
    // No file at all.
    std::fs::remove_file(&path).unwrap();
    expect_model_error("no file");
    // The original loads again.
    std::fs::write(&path, &original).unwrap();
    Classifier::load(copy.path(), &LightBackends).unwrap();
}

/// 12 sources and 10 targets: the translations of the first 8 sources, then 2 unrelated
/// targets; sources from 8 on are unrelated too.
fn classifier_scorer() -> ClassifierScorer {
    let (_, c) = trained();
    let pairs = corpus(12, 10);
    let other = corpus(2, 11);
    let src: Vec<String> = pairs.iter().map(|p| p.0.clone()).collect();
    let tgt: Vec<String> = pairs[..8]
        .iter()
        .chain(&other)
        .map(|p| p.1.clone())
        .collect();
    ClassifierScorer::new(Arc::clone(c), src, tgt)
}

bitext_testkit::pair_scorer_suite!(
    classifier_scorer,
    classifier_scorer(),
    Expect::exact().probabilities().planted(8)
);

#[test]
fn classifier_scorer_scores_as_the_classifier() {
    let (_, c) = trained();
    let s = classifier_scorer();
    let pairs = [(0, 0), (3, 9), (11, 2)];
    let got = s.score(&pairs).unwrap();
    let (src, tgt) = (corpus(12, 10), corpus(12, 10));
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let t = if j < 8 {
            tgt[j].1.clone()
        } else {
            corpus(2, 11)[j - 8].1.clone()
        };
        let want = c.score(&[src[i].0.as_str()], &[t.as_str()]).unwrap()[0];
        assert_eq!(got[k], want, "{:?}", pairs[k]);
    }
}

#[test]
fn small_and_ragged_inputs_train() {
    let dir = tempfile::tempdir().unwrap();
    let mut heard = Vec::new();
    let c = train(
        &corpus(10, 12),
        &[],
        None,
        &config(),
        dir.path(),
        &LightBackends,
        &mut |m| {
            heard.push(m.to_string());
        },
    )
    .unwrap();
    assert!(heard.iter().any(|m| m.contains("IBM Model 1")), "{heard:?}");
    assert_eq!(
        c.description().training.pairs + c.description().training.held_out,
        10
    );
    assert!(c.score(&[], &[]).unwrap().is_empty());
    // Pairs with a side without text are kept and score like any pair.
    let mut pairs = corpus(60, 13);
    pairs.push((String::new(), "House.".into()));
    pairs.push(("Haus.".into(), "  ".into()));
    let dir = tempfile::tempdir().unwrap();
    let c = fit(&pairs, &config(), dir.path()).unwrap();
    let s = c.score(&["", "Haus."], &["House.", " "]).unwrap();
    assert!(
        s.iter().all(|&v| v < 0.5),
        "an empty side fails the empty rule: {s:?}"
    );
}

#[test]
fn a_labelled_sample_calibrates_and_an_encoder_feature_reloads() {
    let dir = tempfile::tempdir().unwrap();
    let words: Vec<&str> = common::LEXICON.iter().flat_map(|(a, b)| [*a, *b]).collect();
    let mut text = format!("{} 2\n", words.len());
    for (i, w) in words.iter().enumerate() {
        text.push_str(&format!(
            "{w} {} {}\n",
            (i % 5) as f64 - 2.0,
            (i % 3) as f64 + 0.5
        ));
    }
    let vec = dir.path().join("w.vec");
    std::fs::write(&vec, text).unwrap();
    let mut features = config().features;
    features.push(format!("encoder:bow:{}", vec.display()).parse().unwrap());
    let config = TrainConfig {
        features,
        ..config()
    };
    let sample = corpus(40, 14);
    let labelled: Vec<(String, String, bool)> = sample
        .iter()
        .enumerate()
        .map(|(i, (s, t))| {
            if i % 2 == 0 {
                (s.clone(), t.clone(), true)
            } else {
                (s.clone(), sample[(i + 7) % sample.len()].1.clone(), false)
            }
        })
        .collect();
    let out = dir.path().join("model");
    let c = train(
        &corpus(150, 15),
        &[],
        Some(&labelled),
        &config,
        &out,
        &LightBackends,
        &mut |_| {},
    )
    .unwrap();
    let t = &c.description().training;
    assert!(
        t.calibration.contains("labelled sample of 40"),
        "{}",
        t.calibration
    );
    assert!(c.description().model.names.iter().any(|n| n == "cosine"));
    let loaded = Classifier::load(&out, &LightBackends).unwrap();
    let pairs = corpus(20, 16);
    let (src, tgt) = sides(&pairs);
    assert_eq!(
        c.score(&src, &tgt).unwrap(),
        loaded.score(&src, &tgt).unwrap()
    );
    assert!(loaded.score(&[], &[]).unwrap().is_empty());
}

#[test]
fn a_broken_calibration_or_table_is_named() {
    let (dir, _) = trained();
    let copy = tempfile::tempdir().unwrap();
    copy_dir(dir, copy.path());
    let cal = copy.path().join(CALIBRATION);
    std::fs::write(&cal, "{ not json").unwrap();
    let e = Classifier::load(copy.path(), &LightBackends).unwrap_err();
    assert!(e.to_string().contains(CALIBRATION), "{e}");
    std::fs::copy(dir.join(CALIBRATION), &cal).unwrap();
    std::fs::remove_dir_all(copy.path().join(TRAINED_IBM1)).unwrap();
    let e = Classifier::load(copy.path(), &LightBackends).unwrap_err();
    assert!(matches!(&e, Error::Feature { .. }), "{e:?}");
    assert!(e.to_string().contains("ibm1"), "{e}");
}
