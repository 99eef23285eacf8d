//! [`FastText`] on the tiny model of `common`, against probabilities worked out by hand: each
//! output layer, dense against quantized files, `k`, and the labels hierarchical softmax's
//! search leaves out.

mod common;

use bitext_lid::fasttext::LossKind;
use bitext_lid::{FastText, LanguageIdentifier};
use bitext_testkit::fasttext::Loss;
use common::{load, tiny, tiny_bin, tiny_ftz};

/// fastText's printed probability of `p`: `exp(log(p + 1e-5))`.
fn ft(p: f64) -> f64 {
    p + 1e-5
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The guesses of `text` as `(lang, probability)`, all languages.
fn all(lid: &FastText, text: &str) -> Vec<(String, f64)> {
    lid.predict(text, usize::MAX)
        .into_iter()
        .map(|g| (g.lang, f64::from(g.probability)))
        .collect()
}

fn assert_probs(got: &[(String, f64)], want: &[(&str, f64)]) {
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((lang, p), (want_lang, q)) in got.iter().zip(want) {
        assert_eq!(lang, want_lang, "{got:?}");
        assert!((p - q).abs() < 1e-6, "{lang}: {p} vs {q}");
    }
}

// "der" has rows `der` (1, 0, 0) and `</s>` (0, 0.25, 0): the hidden vector is their mean
// (0.5, 0.125, 0), so the logits of de, en, fr are 10 times it: 5, 1.25, 0.
const LOGITS: [f64; 3] = [5.0, 1.25, 0.0];

#[test]
fn softmax_by_hand() {
    let lid = tiny_bin(Loss::Softmax);
    assert_eq!(lid.loss(), LossKind::Softmax);
    assert_eq!(
        (lid.dim(), lid.word_count(), lid.is_quantized()),
        (3, 10, false)
    );
    assert_eq!(lid.languages(), ["de", "en", "fr"]);
    let z: f64 = LOGITS.iter().map(|l| l.exp()).sum();
    let p = |i: usize| ft(LOGITS[i].exp() / z);
    assert_probs(
        &all(&lid, "der"),
        &[("de", p(0)), ("en", p(1)), ("fr", p(2))],
    );
    // The empty line: `</s>` alone, hidden (0, 0.25, 0), logits 0, 2.5, 0; de and fr tie,
    // and come in the order of fastText's heap.
    let z = 2.0 + 2.5f64.exp();
    assert_probs(
        &all(&lid, ""),
        &[
            ("en", ft(2.5f64.exp() / z)),
            ("fr", ft(1.0 / z)),
            ("de", ft(1.0 / z)),
        ],
    );
}

#[test]
fn hierarchical_softmax_by_hand() {
    let lid = tiny_bin(Loss::HierarchicalSoftmax);
    assert_eq!(lid.loss(), LossKind::HierarchicalSoftmax);
    // The root row (10, -10, -10) gives de; its left child (0, 10, -10) splits en / fr.
    let root = sigmoid(10.0 * 0.5 - 10.0 * 0.125);
    let inner = sigmoid(10.0 * 0.125);
    let want = [
        ("de", ft(root)),
        ("en", ft(1.0 - root) * ft(inner)),
        ("fr", ft(1.0 - root) * ft(1.0 - inner)),
    ];
    assert_probs(&all(&lid, "der"), &want);
}

#[test]
fn one_vs_all_and_negative_sampling_by_hand() {
    // The logits fall on fastText's sigmoid table (steps of 1/32), so the table is exact.
    for loss in [Loss::OneVsAll, Loss::NegativeSampling] {
        let lid = tiny_bin(loss);
        let want: Vec<(&str, f64)> = ["de", "en", "fr"]
            .iter()
            .zip(LOGITS)
            .map(|(l, x)| (*l, ft(sigmoid(x))))
            .collect();
        assert_probs(&all(&lid, "der"), &want);
    }
}

#[test]
fn quantized_files_predict_as_dense_ones() {
    let texts = ["der", "the cat", "la la la", "", "et und of", "Quokka"];
    for loss in [Loss::Softmax, Loss::HierarchicalSoftmax, Loss::OneVsAll] {
        let dense = tiny_bin(loss);
        for (dsub, qout) in [(1, false), (2, false), (3, true), (2, true)] {
            let ftz = tiny_ftz(loss, dsub, qout);
            assert!(ftz.is_quantized());
            for t in texts {
                // Rows are stored halved with norm 2, which gives them back exactly.
                assert_eq!(
                    ftz.predict(t, 3),
                    dense.predict(t, 3),
                    "{loss:?} {dsub} {qout} {t:?}"
                );
            }
        }
    }
}

#[test]
fn k_limits_the_guesses() {
    let lid = tiny_bin(Loss::Softmax);
    assert!(lid.predict("der", 0).is_empty());
    assert_eq!(lid.predict("der", 1).len(), 1);
    assert_eq!(lid.predict("der", 2).len(), 2);
    assert_eq!(lid.predict("der", 3), lid.predict("der", 100));
    assert_eq!(lid.identify("der"), lid.predict("der", 1)[0]);
    assert_eq!(lid.probability("der", "xx"), 0.0);
}

#[test]
fn labels_the_search_leaves_out_follow() {
    // Output rows 100 times the tiny model's: at the root of "der" the left branch has
    // probability 0 in f32, so fastText's search drops en and fr below log(1e-5) and returns de
    // alone; bitext still names all three, each with the probability `probability` gives.
    let mut m = tiny(Loss::HierarchicalSoftmax);
    for v in &mut m.output {
        *v *= 100.0;
    }
    let lid = load(&m.to_bin());
    let got = lid.predict("der", 3);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].lang, "de");
    assert_eq!(got[0].probability, 1.0);
    for g in &got[1..] {
        assert!(g.probability <= 1.1e-5, "{g:?}");
        assert_eq!(lid.probability("der", &g.lang), g.probability);
    }
    assert!(got[1].probability >= got[2].probability);
}

#[test]
fn probabilities_above_one_are_clamped() {
    // fastText prints `1 + 1e-5` for a certain label; bitext says 1.
    let mut m = tiny(Loss::Softmax);
    for v in &mut m.output {
        *v *= 100.0;
    }
    let lid = load(&m.to_bin());
    let top = lid.identify("der der der");
    assert_eq!((top.lang.as_str(), top.probability), ("de", 1.0));
}

#[test]
fn open_reads_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.ftz");
    let m = tiny(Loss::HierarchicalSoftmax);
    std::fs::write(&path, m.to_bin()).unwrap();
    let lid = FastText::open(&path).unwrap();
    assert_eq!(lid.identify("the of and").lang, "en");
    let missing = dir.path().join("missing.ftz");
    let e = FastText::open(&missing).unwrap_err().to_string();
    assert!(e.starts_with(&missing.display().to_string()), "{e}");
}
