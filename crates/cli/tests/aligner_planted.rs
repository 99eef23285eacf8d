//! The word-alignment BiLSTM's outputs by value: trained (10 s) on a toy language whose words
//! translate one to one, it labels the words of an unrelated sentence inserted into one side of
//! held-out pairs as divergent and every other word as parallel (`bitext score --words`), and
//! `bitext fix` cuts those pairs back to the original sentences.

#![cfg(feature = "neural")]

use std::path::Path;

use bitext_core::Rng;

mod common;
use common::{cli, rows, score_model, succeed, write};

/// Size of the toy vocabulary of each side: `a0 … a59` translate to `b0 … b59`.
const WORDS: usize = 60;

/// A sentence of `n` distinct words among `pool`, and its translation (reversed order).
fn pair(rng: &mut Rng, pool: &[usize], n: usize) -> (Vec<usize>, String, String) {
    let mut pool = pool.to_vec();
    rng.shuffle(&mut pool);
    pool.truncate(n);
    let a: Vec<String> = pool.iter().map(|i| format!("a{i}")).collect();
    let b: Vec<String> = pool.iter().rev().map(|i| format!("b{i}")).collect();
    (pool, a.join(" "), b.join(" "))
}

/// 400 training pairs, and 40 held-out pairs with 3 to 5 words of another sentence inserted
/// at the start or the end of one side: `(noisy source, noisy target, source, target)`.
fn data(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf, Vec<[String; 4]>) {
    let mut rng = Rng::seed(5);
    let all: Vec<usize> = (0..WORDS).collect();
    let (mut s, mut t) = (String::new(), String::new());
    for _ in 0..400 {
        let n = 4 + rng.below(5);
        let (_, a, b) = pair(&mut rng, &all, n);
        s.push_str(&format!("{a}\n"));
        t.push_str(&format!("{b}\n"));
    }
    let mut planted = Vec::new();
    for k in 0..40 {
        let n = 4 + rng.below(5);
        let (used, a, b) = pair(&mut rng, &all, n);
        let rest: Vec<usize> = all.iter().copied().filter(|i| !used.contains(i)).collect();
        let m = 3 + rng.below(3);
        let (_, x, y) = pair(&mut rng, &rest, m);
        let join = |kept: &str, added: &str| {
            if k % 4 < 2 {
                format!("{kept} {added}")
            } else {
                format!("{added} {kept}")
            }
        };
        let (ns, nt) = if k % 2 == 0 {
            (join(&a, &x), b.clone())
        } else {
            (a.clone(), join(&b, &y))
        };
        planted.push([ns, nt, a, b]);
    }
    (write(dir, "src.txt", s), write(dir, "tgt.txt", t), planted)
}

#[test]
fn inserted_words_are_labelled_divergent_and_fix_cuts_them_off() {
    let d = tempfile::tempdir().unwrap();
    let (src, tgt, planted) = data(d.path());
    let model = d.path().join("aligner");
    succeed(&mut cli![
        "train",
        "aligner",
        "--src",
        &src,
        "--tgt",
        &tgt,
        "-o",
        &model,
        "--preset",
        "small",
        "--objective",
        "words",
        "--per-kind",
        "200",
        "--batch",
        "16",
        "--lr",
        "0.01",
        "--epochs",
        "10",
        "--min-count",
        "1",
        "--valid-fraction",
        "0.05",
        "--seed",
        "3",
        "-q"
    ]);
    let noisy: String = planted
        .iter()
        .map(|[s, t, _, _]| format!("{s}\t{t}\n"))
        .collect();
    let noisy = write(d.path(), "noisy.tsv", noisy);

    // score --words: each token labelled 1 (divergent) exactly when it was inserted.
    let labelled = d.path().join("words.tsv");
    succeed(score_model(&model, &noisy, &labelled).args(["--words", "--aligner-score", "wemb"]));
    let (mut right, mut tokens, mut inserted_found, mut inserted) = (0, 0, 0, 0);
    for (row, [_, _, a, b]) in rows(&labelled).iter().zip(&planted) {
        for (words, labels, clean) in [(&row[2], &row[3], a), (&row[4], &row[5], b)] {
            let clean: Vec<&str> = clean.split(' ').collect();
            for (w, l) in words.split(' ').zip(labels.split(' ')) {
                let divergent = !clean.contains(&w);
                tokens += 1;
                right += usize::from((l == "1") == divergent);
                inserted += usize::from(divergent);
                inserted_found += usize::from(divergent && l == "1");
            }
        }
    }
    assert!(
        inserted >= 120 && tokens > inserted * 3,
        "{inserted} of {tokens}"
    );
    assert!(
        right * 100 >= tokens * 95 && inserted_found * 100 >= inserted * 90,
        "labels right: {right} of {tokens}; inserted words found: {inserted_found} of {inserted}"
    );

    // fix, the objective's best span of each side: the original pair comes back.
    let fixed = d.path().join("fixed.tsv");
    let (_, err) = succeed(&mut cli![
        "fix", "--model", &model, "--input", &noisy, "--output", &fixed, "--spans", "1", "--tau",
        "0"
    ]);
    assert!(err.contains("fixed 40 pairs"), "{err}");
    let exact = rows(&fixed)
        .iter()
        .zip(&planted)
        .filter(|(row, [_, _, a, b])| row[2] == *a && row[3] == *b)
        .count();
    assert!(exact >= 34, "{exact} of 40 pairs cut back to the original");
}
