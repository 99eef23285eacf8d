//! `ScorerSpec`: serde and `FromStr` round trips, every non-neural variant builds the scorer it
//! replaces (same scores on seeded data), and bad specs are clear errors.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bitext_core::io::vec::read_vec;
use bitext_core::{Embeddings, Rng};
use bitext_encode::ModelSpec;
use bitext_knn::IndexSpec;
use bitext_mine::{EmdSpec, MineSpec, Miner, ScorerSpec};
use bitext_similarity::{EmbeddingScorer, MarginFunction, MarginSpec, Measure, PairScorer};
use bitext_tokenize::WordTokenizer;
use bitext_transport::sentence::{Idf, OovPolicy, SentenceConfig, SentenceDistance};
use bitext_transport::{EmdScorer, SolverSpec};

fn random(rng: &mut Rng, n: usize, dim: usize) -> Embeddings {
    let rows: Vec<Vec<f32>> = (0..n)
        .map(|_| (0..dim).map(|_| rng.next_f32() - 0.5).collect())
        .collect();
    Embeddings::from_rows(rows.iter(), dim).unwrap()
}

fn all_pairs(n: usize, m: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|i| (0..m).map(move |j| (i, j))).collect()
}

/// The scores of `spec` over embeddings.
fn spec_scores(spec: &ScorerSpec, x: &Embeddings, y: &Embeddings) -> Vec<f64> {
    let pairs = all_pairs(x.len(), y.len());
    spec.with_embedding_scorer(x.view(), y.view(), &mut |_, _, _| {}, |s| {
        s.score(&pairs).unwrap()
    })
    .unwrap()
}

#[test]
fn serde_and_from_str_round_trip() {
    let mut emd = EmdSpec::new("de.vec", "en.vec");
    emd.src_idf = Some("de.txt".into());
    emd.tgt_idf = Some("en.txt".into());
    emd.distance.oov = OovPolicy::MatchIdentical;
    let specs = [
        ScorerSpec::Cosine,
        ScorerSpec::Dot,
        ScorerSpec::NegEuclidean,
        ScorerSpec::margin(MarginFunction::Ratio, 4),
        ScorerSpec::Margin {
            margin: MarginSpec::with_k(MarginFunction::Csls, 3, 5),
            index: IndexSpec::default().with_threads(2),
        },
        ScorerSpec::Emd(EmdSpec::new("de.vec", "en.vec")),
        ScorerSpec::Emd(emd),
        ScorerSpec::Model(ModelSpec::new("runs/mlp")),
    ];
    for s in specs {
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(
            serde_json::from_str::<ScorerSpec>(&json).unwrap(),
            s,
            "{json}"
        );
        assert_eq!(s.to_string().parse::<ScorerSpec>().unwrap(), s);
    }
    assert_eq!(
        serde_json::to_string(&ScorerSpec::Dot).unwrap(),
        r#"{"type":"dot"}"#
    );
    for (short, long) in [
        ("cosine", r#"{"type":"cosine"}"#),
        ("neg_euclidean", r#"{"type":"neg_euclidean"}"#),
        (
            "distance",
            r#"{"type":"margin","margin":{"type":"distance","k_src":4,"k_trg":4}}"#,
        ),
        ("model:m", r#"{"type":"model","dir":"m"}"#),
        (
            "ratio",
            r#"{"type":"margin","margin":{"type":"ratio"},"index":{"type":"exact"}}"#,
        ),
    ] {
        assert_eq!(
            short.parse::<ScorerSpec>().unwrap(),
            long.parse::<ScorerSpec>().unwrap(),
            "{short}"
        );
    }
}

#[test]
fn bad_specs_are_clear_errors() {
    let err = |s: &str| s.parse::<ScorerSpec>().unwrap_err().to_string();
    assert!(err(r#"{"type":"bleu"}"#).contains("bleu"));
    assert!(err("cosinus").contains("neg_euclidean"));
    assert!(err(r#"{"type":"emd","src_vectors":"a","tgt_vectors":"b","k":1}"#).contains('k'));
    assert!(err(r#"{"type":"emd","src_vectors":"a"}"#).contains("tgt_vectors"));
    assert!(
        err(r#"{"type":"emd","src_vectors":"a","tgt_vectors":"b","src_idf":"c"}"#)
            .contains("tgt_idf")
    );
    let e = err(r#"{"type":"emd","src_vectors":"a","tgt_vectors":"b","distance":{"oov_cost":-1}}"#);
    assert!(e.contains("oov_cost"), "{e}");
    assert!(err(r#"{"type":"margin","margin":{"type":"ratio","k_src":0}}"#).contains('k'));

    // A missing vector file is named.
    let spec = ScorerSpec::Emd(EmdSpec::new("/nonexistent/de.vec", "/nonexistent/en.vec"));
    let e = spec
        .sentence_scorers(Some((&["a"][..], &["b"][..])))
        .unwrap_err();
    assert!(e.to_string().contains("/nonexistent/de.vec"), "{e}");

    // Each kind of scorer says when it is given the other kind of input.
    let x = Embeddings::from_rows([[1.0, 0.0]], 2).unwrap();
    let e = spec
        .with_embedding_scorer(x.view(), x.view(), &mut |_, _, _| {}, |_| ())
        .unwrap_err();
    assert!(e.to_string().contains("sentence_scorers"), "{e}");
    let e = ScorerSpec::Cosine
        .sentence_scorers(None::<(&[&str], &[&str])>)
        .unwrap_err();
    assert!(e.to_string().contains("with_embedding_scorer"), "{e}");
    let model = ScorerSpec::Model(ModelSpec::new("runs/siamese"));
    let e = model
        .sentence_scorers(None::<(&[&str], &[&str])>)
        .unwrap_err();
    assert!(e.to_string().contains("bitext-neural"), "{e}");
    let e = model
        .with_embedding_scorer(x.view(), x.view(), &mut |_, _, _| {}, |_| ())
        .unwrap_err();
    assert!(e.to_string().contains("bitext-neural"), "{e}");
}

#[test]
fn measures_build_the_embedding_scorer() {
    let mut rng = Rng::seed(11);
    let (x, y) = (random(&mut rng, 7, 5), random(&mut rng, 9, 5));
    let pairs = all_pairs(7, 9);
    for (spec, m) in [
        (ScorerSpec::Cosine, Measure::Cosine),
        (ScorerSpec::Dot, Measure::Dot),
        (ScorerSpec::NegEuclidean, Measure::NegEuclidean),
    ] {
        let hand = EmbeddingScorer::new(x.view(), y.view(), m).unwrap();
        assert_eq!(spec.measure(), Some(m));
        assert_eq!(
            spec_scores(&spec, &x, &y),
            hand.score(&pairs).unwrap(),
            "{spec}"
        );
    }
}

#[test]
fn margins_build_the_neighbourhood_scorer() {
    let mut rng = Rng::seed(12);
    let (x, y) = (random(&mut rng, 12, 6), random(&mut rng, 10, 6));
    let pairs = all_pairs(12, 10);
    for f in [
        MarginFunction::Absolute,
        MarginFunction::Distance,
        MarginFunction::Ratio,
        MarginFunction::Csls,
    ] {
        let margin = MarginSpec::with_k(f, 3, 2);
        let hoods = MineSpec::new(Miner::new(margin))
            .neighbourhoods(x.view(), y.view(), &mut |_, _, _| {})
            .unwrap();
        let hand = hoods.scorer().unwrap().score(&pairs).unwrap();
        let spec = ScorerSpec::Margin {
            margin,
            index: IndexSpec::default(),
        };
        assert_eq!(spec_scores(&spec, &x, &y), hand, "{spec}");
    }
}

const WORDS: [&[&str]; 2] = [
    &["das", "haus", "ist", "klein", "katze", "hund", "schläft"],
    &["the", "house", "is", "small", "cat", "dog", "sleeps"],
];
const SRC: [&str; 4] = [
    "Das Haus ist klein .",
    "Die Katze schläft",
    "Der Hund",
    "Berlin !",
];
const TGT: [&str; 4] = [
    "The house is small .",
    "The cat sleeps",
    "A dog",
    "Berlin !",
];

/// A `.vec` file of `words` with seeded random vectors.
fn write_vec(dir: &Path, name: &str, words: &[&str], rng: &mut Rng) -> PathBuf {
    let mut text = format!("{} 3\n", words.len());
    for w in words {
        let v: Vec<String> = (0..3).map(|_| format!("{}", rng.next_f32())).collect();
        text.push_str(&format!("{w} {}\n", v.join(" ")));
    }
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The EMD scorer built by hand, as `bitext score --scorer emd` did.
fn hand_emd(de: &Path, en: &Path, config: &SentenceConfig, idf: bool) -> EmdScorer {
    let tok = WordTokenizer::builder().lowercase(true).build();
    let src = Arc::new(read_vec(de, None).unwrap());
    let tgt = Arc::new(read_vec(en, None).unwrap());
    let plain = SentenceDistance::new(src.clone(), tgt.clone(), None, config.clone()).unwrap();
    let count =
        |lines: &[&str]| Idf::from_documents(lines.iter().map(|l| plain.words(&tok.tokenize(l))));
    let idf = idf.then(|| (count(&SRC), count(&TGT)));
    let distance = SentenceDistance::new(src, tgt, idf, config.clone()).unwrap();
    let t = |s: &[&str]| -> Vec<Vec<String>> { s.iter().map(|x| tok.tokenize(x)).collect() };
    EmdScorer::new(distance, &t(&SRC), &t(&TGT)).unwrap()
}

#[test]
fn emd_builds_the_hand_built_scorer() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::seed(13);
    let de = write_vec(dir.path(), "de.vec", WORDS[0], &mut rng);
    let en = write_vec(dir.path(), "en.vec", WORDS[1], &mut rng);
    let (sf, tf) = (dir.path().join("de.txt"), dir.path().join("en.txt"));
    std::fs::write(&sf, SRC.join("\n") + "\n").unwrap();
    std::fs::write(&tf, TGT.join("\n") + "\n").unwrap();
    let pairs = all_pairs(4, 4);

    let sinkhorn: SolverSpec = serde_json::from_str(r#"{"type":"sinkhorn"}"#).unwrap();
    let configs = [
        SentenceConfig::default(),
        SentenceConfig {
            oov: OovPolicy::MatchIdentical,
            oov_cost: 0.5,
            ..SentenceConfig::default()
        },
        SentenceConfig {
            use_idf: false,
            solver: sinkhorn,
            ..SentenceConfig::default()
        },
    ];
    for config in configs {
        let hand = hand_emd(&de, &en, &config, config.use_idf)
            .score(&pairs)
            .unwrap();
        let mut emd = EmdSpec::new(&de, &en);
        emd.distance = config.clone();
        // IDF from reference sentences given by the caller…
        let spec = ScorerSpec::Emd(emd.clone());
        assert_eq!(spec.needs_reference(), config.use_idf);
        let built = spec.sentence_scorers(Some((&SRC[..], &TGT[..]))).unwrap();
        assert_eq!(
            built.build(&SRC, &TGT).unwrap().score(&pairs).unwrap(),
            hand
        );
        // …or from the spec's files.
        emd.src_idf = Some(sf.clone());
        emd.tgt_idf = Some(tf.clone());
        let spec = ScorerSpec::Emd(emd);
        assert!(!spec.needs_reference());
        let built = spec.sentence_scorers(None::<(&[&str], &[&str])>).unwrap();
        assert_eq!(
            built.build(&SRC, &TGT).unwrap().score(&pairs).unwrap(),
            hand
        );
    }

    // IDF weighting without any reference is an error that says what to give.
    let spec = ScorerSpec::Emd(EmdSpec::new(&de, &en));
    let e = spec
        .sentence_scorers(None::<(&[&str], &[&str])>)
        .unwrap_err()
        .to_string();
    assert!(e.contains("src_idf"), "{e}");
}

#[test]
fn lexical_scorers_parse_and_build_over_sentences() {
    use bitext_lexical::{Ibm1, Ibm1Config, LengthUnit, Segmenter};
    let parse = |s: &str| s.parse::<ScorerSpec>().unwrap();
    assert_eq!(parse("levenshtein"), ScorerSpec::Levenshtein);
    assert_eq!(
        parse("length-ratio"),
        ScorerSpec::LengthRatio {
            unit: LengthUnit::Chars
        }
    );
    assert_eq!(
        parse(r#"{"type":"length_ratio","unit":"tokens"}"#),
        ScorerSpec::LengthRatio {
            unit: LengthUnit::Tokens
        }
    );
    let dir = tempfile::tempdir().unwrap();
    let ibm1 = parse(&format!("ibm1:{}", dir.path().display()));
    assert_eq!(ibm1.to_string().parse::<ScorerSpec>().unwrap(), ibm1);
    assert!(!ibm1.scores_embeddings());
    assert!(r#"{"type":"ibm1","model":""}"#.parse::<ScorerSpec>().is_err());

    // No model yet: the missing file is named.
    let e = ibm1
        .sentence_scorers(None::<(&[&str], &[&str])>)
        .unwrap_err();
    assert!(e.to_string().contains("ibm1.json"), "{e}");
    let de = ["das Haus", "das Buch", "ein Buch"];
    let en = ["the house", "the book", "a book"];
    Ibm1::train(
        &Ibm1Config::default(),
        Segmenter::default(),
        &de,
        &en,
        &mut |_| {},
    )
    .unwrap()
    .save(dir.path())
    .unwrap();
    let pairs = [(0, 0), (0, 1)];
    let built = ibm1.sentence_scorers(None::<(&[&str], &[&str])>).unwrap();
    let s = built.build(&de, &en).unwrap().score(&pairs).unwrap();
    assert!(s[0] > s[1], "{s:?}");
    let lev = ScorerSpec::Levenshtein
        .sentence_scorers(None::<(&[&str], &[&str])>)
        .unwrap();
    let s = lev
        .build(&["abc", "x"], &["abd", "y"])
        .unwrap()
        .score(&pairs)
        .unwrap();
    assert_eq!(s, vec![1.0 - 1.0 / 3.0, 0.0]);
    // An empty sentence is an error naming it, not a score.
    let Err(e) = lev.build(&["abc", ""], &["abd", "y"]) else {
        panic!("an empty sentence was scored");
    };
    assert!(e.to_string().contains("source sentence 2 is empty"), "{e}");
    let x = Embeddings::from_rows([[1.0, 0.0]], 2).unwrap();
    let e = ScorerSpec::Levenshtein
        .with_embedding_scorer(x.view(), x.view(), &mut |_, _, _| {}, |_| ())
        .unwrap_err();
    assert!(e.to_string().contains("sentence_scorers"), "{e}");
}
