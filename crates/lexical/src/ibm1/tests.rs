//! Unit tests of IBM Model 1: the textbook EM table, the reference script with NULL, row sums,
//! swapped languages, scores, Viterbi alignments, bad corpora and the model directory.

use super::*;
use crate::align::Symmetrization;

const DE: [&str; 3] = ["das Haus", "das Buch", "ein Buch"];
const EN: [&str; 3] = ["the house", "the book", "a book"];

fn train(iterations: usize, null_word: bool) -> Ibm1 {
    let config = Ibm1Config {
        iterations,
        null_word,
    };
    Ibm1::train(&config, Segmenter::default(), &DE, &EN, &mut |_| {}).unwrap()
}

/// The pairs `(f, e)` of the toy corpus that co-occur: every `t(e | f)` that is not zero.
const PAIRS: [(&str, &str); 10] = [
    ("buch", "a"),
    ("buch", "book"),
    ("buch", "the"),
    ("haus", "house"),
    ("haus", "the"),
    ("das", "book"),
    ("das", "house"),
    ("das", "the"),
    ("ein", "a"),
    ("ein", "book"),
];

/// The pairs of NULL and each English word: not zero when the model has a NULL word.
const NULL_PAIRS: [(&str, &str); 4] = [
    ("NULL", "a"),
    ("NULL", "book"),
    ("NULL", "house"),
    ("NULL", "the"),
];

/// `t(e | f)` of each pair of [`PAIRS`] (then [`NULL_PAIRS`] when `expected` has 14 values),
/// from `reference/ibm1_em.py` (exact fractions), and no other pair with a probability.
fn check(model: &Ibm1, expected: &[f64]) {
    let pairs = match expected.len() {
        10 => PAIRS.to_vec(),
        14 => [PAIRS.as_slice(), &NULL_PAIRS].concat(),
        n => panic!("{n} expected values"),
    };
    for (&(f, e), &p) in pairs.iter().zip(expected) {
        let src = (f != "NULL").then_some(f);
        let got = model.t_fwd(src, e);
        assert!((got - p).abs() < 1e-6, "t({e} | {f}) = {got}, expected {p}");
    }
    let known = expected.len();
    let nonzero = ["das", "haus", "buch", "ein"]
        .iter()
        .map(Some)
        .chain([None])
        .flat_map(|f| ["the", "house", "book", "a"].map(|e| model.t_fwd(f.copied(), e)))
        .filter(|&p| p > 0.0)
        .count();
    assert_eq!(
        nonzero, known,
        "pairs that never co-occur have no probability"
    );
}

#[test]
fn em_gives_the_textbook_table_without_null() {
    // Koehn, Statistical Machine Translation, §4.2.3: iterations 1 and 2.
    check(
        &train(1, false),
        &[0.25, 0.5, 0.25, 0.5, 0.5, 0.25, 0.25, 0.5, 0.5, 0.5],
    );
    check(
        &train(2, false),
        &[
            0.181818181818,
            0.636363636364,
            0.181818181818,
            0.571428571429,
            0.428571428571,
            0.181818181818,
            0.181818181818,
            0.636363636364,
            0.571428571429,
            0.428571428571,
        ],
    );
}

#[test]
fn em_with_null_matches_the_reference_script() {
    check(
        &train(5, true),
        &[
            0.098270974861,
            0.864715774048,
            0.037013251091,
            0.836689362883,
            0.163310637117,
            0.037013251091,
            0.098270974861,
            0.864715774048,
            0.836689362883,
            0.163310637117,
            0.051024053536,
            0.448975946464,
            0.051024053536,
            0.448975946464,
        ],
    );
}

#[test]
fn probabilities_sum_to_one_per_source_word() {
    let m = train(5, true);
    let (sv, tv) = m.vocabs();
    for table in [&m.fwd, &m.bwd] {
        for r in 0..table.rows() {
            let (a, b) = (table.offsets[r] as usize, table.offsets[r + 1] as usize);
            if a < b {
                let s: f64 = table.prob[a..b].iter().map(|&p| f64::from(p)).sum();
                assert!((s - 1.0).abs() < 1e-6, "row {r} sums to {s}");
            }
        }
    }
    // Rows: every source word and NULL; the specials have none.
    assert_eq!(m.fwd.rows(), sv.len() + 1);
    assert_eq!(m.bwd.rows(), tv.len() + 1);
}

#[test]
fn log_likelihood_never_decreases() {
    let mut seen = Vec::new();
    let _ = Ibm1::train(
        &Ibm1Config {
            iterations: 8,
            null_word: true,
        },
        Segmenter::default(),
        &DE,
        &EN,
        &mut |r| seen.push(r),
    )
    .unwrap();
    assert_eq!(seen.len(), 16);
    for dir in [Direction::SrcToTgt, Direction::TgtToSrc] {
        let ll: Vec<f64> = seen
            .iter()
            .filter(|r| r.direction == dir)
            .map(|r| r.report.log_prob_per_token)
            .collect();
        assert!(ll.windows(2).all(|w| w[1] >= w[0] - 1e-12), "{ll:?}");
    }
}

#[test]
fn swapping_the_languages_swaps_the_directions() {
    let m = train(5, true);
    let config = Ibm1Config::default();
    let swapped = Ibm1::train(&config, Segmenter::default(), &EN, &DE, &mut |_| {}).unwrap();
    assert_eq!(m.fwd, swapped.bwd);
    assert_eq!(m.bwd, swapped.fwd);
    for (s, t) in [("das Haus", "the house"), ("ein Buch", "a house")] {
        assert_eq!(m.score(s, t).unwrap(), swapped.score(t, s).unwrap());
        for how in Symmetrization::ALL.into_iter().filter(|h| h.is_symmetric()) {
            let a = m.align(s, t, how).unwrap();
            let mut b: Vec<(usize, usize)> = swapped
                .align(t, s, how)
                .unwrap()
                .into_iter()
                .map(|(i, j)| (j, i))
                .collect();
            b.sort_unstable();
            assert_eq!(a, b, "{how:?}");
        }
    }
}

#[test]
fn scores_prefer_translations_and_floor_unknown_words() {
    let m = train(5, true);
    let good = m.score("das Buch", "the book").unwrap();
    assert!(good <= 0.0);
    assert!(good > m.score("das Buch", "a house").unwrap());
    let unknown = m.score("Katze", "cat").unwrap();
    assert!((unknown - 2.0 * (FLOOR).ln()).abs() < 1e-9, "{unknown}");
    assert!(m.score("", "the").is_err());
}

#[test]
fn viterbi_aligns_words_to_their_translations() {
    let m = train(5, true);
    let (s, t) = m.ids(&["ein", "haus", "katze"], &["a", "house", "cat"]);
    assert_eq!(
        m.viterbi(Direction::SrcToTgt, &s, &t),
        vec![Some(0), Some(1), None]
    );
    assert_eq!(
        m.viterbi(Direction::TgtToSrc, &s, &t),
        vec![Some(0), Some(1), None]
    );
    assert_eq!(
        m.align_ids(&s, &t, Symmetrization::GrowDiagFinal),
        vec![(0, 0), (1, 1)]
    );
}

#[test]
fn training_rejects_bad_corpora() {
    let c = Ibm1Config::default();
    let s = Segmenter::default();
    let mut r = |_| {};
    let e = Ibm1::train(&c, s.clone(), &["a"], &["b", "c"], &mut r).unwrap_err();
    assert!(e.to_string().contains("1 source and 2 target"), "{e}");
    let e = Ibm1::train(&c, s.clone(), &["a", "b"], &["b", " "], &mut r).unwrap_err();
    assert!(e.to_string().contains("pair 2 has an empty target"), "{e}");
    let none: [&str; 0] = [];
    assert!(Ibm1::train(&c, s.clone(), &none, &none, &mut r).is_err());
    let zero = Ibm1Config { iterations: 0, ..c };
    assert!(Ibm1::train(&zero, s, &["a"], &["b"], &mut r).is_err());
}

#[test]
fn save_and_load_round_trip_and_check_what_they_read() {
    let m = train(5, true);
    let dir = tempfile::tempdir().unwrap();
    m.save(dir.path()).unwrap();
    let back = Ibm1::load(dir.path()).unwrap();
    assert_eq!(back.fwd, m.fwd);
    assert_eq!(back.bwd, m.bwd);
    assert_eq!(back.config(), m.config());
    assert_eq!(back.segmenter(), m.segmenter());
    assert_eq!(
        back.score("das Haus", "the house").unwrap(),
        m.score("das Haus", "the house").unwrap()
    );
    let table = dir.path().join("src-tgt.ttable");
    let bytes = std::fs::read(&table).unwrap();
    // Truncated.
    std::fs::write(&table, &bytes[..bytes.len() - 1]).unwrap();
    let e = Ibm1::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("src-tgt.ttable") && e.contains("bytes"), "{e}");
    // A probability out of range (the last entry).
    let mut bad = bytes.clone();
    let n = bad.len();
    bad[n - 4..].copy_from_slice(&2.0f32.to_le_bytes());
    std::fs::write(&table, &bad).unwrap();
    let e = Ibm1::load(dir.path()).unwrap_err().to_string();
    assert!(
        e.contains("not in [0, 1]") && e.contains("byte offset"),
        "{e}"
    );
    // Not a table.
    std::fs::write(&table, b"hello").unwrap();
    assert!(
        Ibm1::load(dir.path())
            .unwrap_err()
            .to_string()
            .contains("BTXTTAB1")
    );
    // A table of another shape (e.g. from another model): the sizes do not fit.
    let mut other = bytes.clone();
    other[8] += 1;
    std::fs::write(&table, &other).unwrap();
    let e = Ibm1::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("vocabularies"), "{e}");
    std::fs::write(&table, &bytes).unwrap();
    // A header saved by an editor that adds a byte-order mark still loads.
    let header = dir.path().join("ibm1.json");
    let json = std::fs::read(&header).unwrap();
    std::fs::write(&header, [&b"\xEF\xBB\xBF"[..], &json].concat()).unwrap();
    assert_eq!(Ibm1::load(dir.path()).unwrap().fwd, m.fwd);
    // A header from elsewhere.
    std::fs::write(dir.path().join("ibm1.json"), "{\"format\": 1}").unwrap();
    assert!(Ibm1::load(dir.path()).is_err());
    std::fs::remove_file(dir.path().join("ibm1.json")).unwrap();
    let e = Ibm1::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("ibm1.json"), "{e}");
}
