//! End-to-end tests of `bitext embed`, and of embedding then mining with the binary.

use std::path::{Path, PathBuf};

use bitext_core::io::{npy, raw};
use bitext_testkit::data::word_lines;

mod common;
use common::{
    bow_spec, cli, embed, embed_encoder, fail, one_hot_vectors, read, succeed, tokenize_train,
    with_file, word_vectors, write,
};

/// Bilingual word vectors: each concept one axis of a 4-d space.
fn vectors(dir: &Path) -> (PathBuf, PathBuf) {
    word_vectors(
        dir,
        "4 4\nhund 1 0 0 0\nkatze 0 1 0 0\nhaus 0 0 1 0\nbaum 0 0 0 1\n",
        "4 4\ndog 1 0 0 0 \ncat 0 1 0 0 \nhouse 0 0 1 0 \ntree 0 0 0 1 \n",
    )
}

/// BUCC files (`id<TAB>sentence`) of three German and four English sentences, `s.de` and
/// `s.en`: de-1 ↔ en-3, de-2 ↔ en-2, de-3 ↔ en-1.
fn bucc(dir: &Path) -> (PathBuf, PathBuf) {
    (
        write(
            dir,
            "s.de",
            "de-1\tDer Baum\nde-2\tDie Katze\nde-3\tEin Hund , ein Haus\n",
        ),
        write(
            dir,
            "s.en",
            "en-1\tA dog and a house\nen-2\tThe cat\nen-3\tA tree\nen-4\tThe house\n",
        ),
    )
}

#[test]
fn embeds_means_of_word_vectors_to_raw_and_npy() {
    let d = tempfile::tempdir().unwrap();
    let (de, _) = vectors(d.path());
    let input = write(
        d.path(),
        "de.txt",
        "Der Hund und die Katze .\nEin Haus &amp; ein Baum\nHund\n",
    );
    let out = d.path().join("de.f32");
    let embed_to = |out: &Path| embed(&input, &de, out);
    let (_, err) = succeed(&mut embed_to(&out));
    assert!(err.contains("embedded 3 sentences (4 dimensions)"), "{err}");
    let e = raw::read_raw(&out, 4, raw::RawDtype::F32).unwrap();
    let h = 0.5f32.sqrt();
    let want = [[h, h, 0.0, 0.0], [0.0, 0.0, h, h], [1.0, 0.0, 0.0, 0.0]];
    for (r, w) in e.rows().zip(want) {
        assert!(r.iter().zip(w).all(|(a, b)| (a - b).abs() < 1e-6), "{r:?}");
    }
    let npy_out = d.path().join("de.npy");
    succeed(embed_to(&npy_out).arg("--tfidf"));
    assert_eq!(npy::read_npy(&npy_out).unwrap().len(), 3);
}

/// The subword bag of words: a BPE model trained here cuts the input into pieces; each piece
/// of the `.vec` file is one axis, so a sentence's vector is its normalised piece counts
/// (HTML entities unescaped before tokenizing, as the word tokenizer does).
#[test]
fn embeds_pieces_of_a_sentencepiece_model() {
    let d = tempfile::tempdir().unwrap();
    let words = [
        "Hund", "Katze", "Haus", "Baum", "schläft", "läuft", "und", "der", "die",
    ];
    let train: String = word_lines(&words, 300, 2, 7, 5)
        .iter()
        .map(|l| format!("{l} &\n"))
        .collect();
    let train = write(d.path(), "train.de", train);
    let model = d.path().join("de.model");
    succeed(tokenize_train(&train, 40, &model).args(["--model-type", "bpe"]));
    // The input with an HTML entity, and the text the tokenizer is given.
    let text = "Hund und Katze\nder Baum & das Haus\nHund\n";
    let input = write(d.path(), "in.de", text.replace('&', "&amp;"));
    let plain = write(d.path(), "plain.de", text);
    let (pieces, _) = succeed(&mut cli![
        "tokenize",
        "encode",
        "--model",
        &model,
        "--input",
        &plain,
        "--output-format",
        "piece"
    ]);
    let lines: Vec<Vec<&str>> = pieces.lines().map(|l| l.split(' ').collect()).collect();
    let mut vocab: Vec<&str> = lines.iter().flatten().copied().collect();
    vocab.sort_unstable();
    vocab.dedup();
    // Every piece but the last gets an axis: the last is unknown and must not count.
    let unknown = vocab.pop().unwrap();
    let dim = vocab.len();
    let vectors = write(d.path(), "pieces.vec", one_hot_vectors(&vocab));
    let out = d.path().join("out.f32");
    let embed_pieces = || {
        let mut c = embed(&input, &vectors, &out);
        c.arg("--spm").arg(&model);
        c
    };
    let (_, err) = succeed(&mut embed_pieces());
    let all: usize = lines.iter().map(Vec::len).sum();
    let missed = lines.iter().flatten().filter(|p| **p == unknown).count();
    assert!(
        err.contains(&format!("coverage: {} of {all} tokens", all - missed)),
        "{err}"
    );
    let e = raw::read_raw(&out, dim, raw::RawDtype::F32).unwrap();
    for (row, line) in e.rows().zip(&lines) {
        let mut want = vec![0f32; dim];
        for p in line {
            if let Some(i) = vocab.iter().position(|v| v == p) {
                want[i] += 1.0;
            }
        }
        let norm = want.iter().map(|x| x * x).sum::<f32>().sqrt();
        want.iter_mut().for_each(|x| *x /= norm);
        assert!(
            row.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-6),
            "{line:?}: {row:?}"
        );
    }
    // Words cannot be looked up in a piece table, and --keep-case means nothing for pieces.
    fail(embed_pieces().arg("--keep-case"), "cannot be used with");
}

#[test]
fn sentences_without_known_words_fail_or_are_listed() {
    let (d, input) = with_file("de.txt", "Hund\n123 !\nKatze\n");
    let (de, _) = vectors(d.path());
    let out = d.path().join("o.f32");
    let embed_de = || embed(&input, &de, &out);
    fail(
        &mut embed_de(),
        "de.txt:2: no word of the sentence is in the vocabulary",
    );
    assert!(!out.exists(), "no partial output");
    let list = d.path().join("missing.txt");
    let (_, err) = succeed(
        embed_de()
            .arg("--zero-unknown")
            .arg("--unknown-list")
            .arg(&list),
    );
    assert!(
        err.contains("1 sentences had no known word and got zero rows (lines 2)"),
        "{err}"
    );
    assert_eq!(read(&list), "2\n");
    let e = raw::read_raw(&out, 4, raw::RawDtype::F32).unwrap();
    assert_eq!(e.row(1), &[0.0; 4]);
}

#[test]
fn embed_then_mine_bucc_files_by_id() {
    let d = tempfile::tempdir().unwrap();
    let (de, en) = vectors(d.path());
    let (src, trg) = bucc(d.path());
    let (xs, ys) = (d.path().join("x.npy"), d.path().join("y.npy"));
    for (input, vec, out) in [(&src, &de, &xs), (&trg, &en, &ys)] {
        succeed(&mut embed(input, vec, out));
    }
    let (out, _) = succeed(&mut cli![
        "mine",
        "-q",
        "-k",
        "1",
        "--margin",
        "absolute",
        "--retrieval",
        "intersect",
        "--src-embeddings",
        &xs,
        "--trg-embeddings",
        &ys,
        "--src-text",
        &src,
        "--trg-text",
        &trg
    ]);
    let mut pairs: Vec<(String, String)> = out
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[1].to_owned(), f[2].to_owned())
        })
        .collect();
    pairs.sort();
    let want = [("de-1", "en-3"), ("de-2", "en-2"), ("de-3", "en-1")];
    assert_eq!(pairs, want.map(|(a, b)| (a.to_owned(), b.to_owned())));
}

/// `mine --encoder SPEC --src-text A --tgt-text B`: raw text to pairs in one command, byte for
/// byte what `embed` then `mine` write; a second run reuses the embeddings, and a changed text
/// is embedded again.
#[test]
fn mine_with_an_encoder_equals_embed_then_mine_and_reuses_its_embeddings() {
    let d = tempfile::tempdir().unwrap();
    let (de, en) = vectors(d.path());
    let spec = bow_spec(&de, &en);
    let (src, trg) = bucc(d.path());
    let (xs, ys) = (d.path().join("x.npy"), d.path().join("y.npy"));
    for (input, side, out) in [(&src, "source", &xs), (&trg, "target", &ys)] {
        succeed(&mut embed_encoder(input, &spec, side, out));
    }
    let mine_texts = || {
        cli![
            "mine",
            "-q",
            "-k",
            "2",
            "--retrieval",
            "max",
            "--src-text",
            &src,
            "--trg-text",
            &trg
        ]
    };
    let mine = |x: &Path, y: &Path, extra: &[&str]| {
        let mut c = mine_texts();
        c.arg("--src-embeddings")
            .arg(x)
            .arg("--trg-embeddings")
            .arg(y);
        succeed(c.args(extra))
    };
    let (want, _) = mine(&xs, &ys, &[]);
    assert!(want.lines().count() >= 3, "{want}");
    let w = d.path().join("work");
    std::fs::create_dir(&w).unwrap();
    let (xo, yo) = (w.join("x.npy"), w.join("y.npy"));
    let (got, err) = mine(&xo, &yo, &["--encoder", &spec]);
    assert_eq!(got, want);
    assert!(err.contains("embedded 3 sentences"), "{err}");
    assert_eq!(std::fs::read(&xo).unwrap(), std::fs::read(&xs).unwrap());
    assert_eq!(std::fs::read(&yo).unwrap(), std::fs::read(&ys).unwrap());
    let (again, err) = mine(&xo, &yo, &["--encoder", &spec]);
    assert_eq!(again, want);
    assert!(
        err.contains("reusing") && !err.contains("embedded"),
        "{err}"
    );
    // Pairs only: the embeddings not named are made in a temporary directory, the same pairs.
    let (pairs_only, _) = succeed(mine_texts().arg("--encoder").arg(&spec));
    assert_eq!(pairs_only, want);
    // A changed text is embedded again; the other side is reused.
    std::fs::write(&trg, "en-1\tThe cat\nen-2\tA tree\n").unwrap();
    let (_, err) = mine(&xo, &yo, &["--encoder", &spec]);
    assert!(
        err.contains("embedded 2 sentences") && err.contains("reusing"),
        "{err}"
    );
    // The text is required with --encoder.
    fail(
        &mut cli![
            "mine",
            "--encoder",
            &spec,
            "--src-embeddings",
            &xo,
            "--trg-embeddings",
            &yo
        ],
        "--src-text",
    );
    // Embeddings that are read back cannot go to a FIFO (or a device): refused before work.
    #[cfg(unix)]
    {
        let pipe = d.path().join("x.fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&pipe)
            .status()
            .unwrap();
        assert!(made.success());
        let mut c = cli![
            "mine",
            "-q",
            "--encoder",
            &spec,
            "--src-embeddings",
            &pipe,
            "--trg-embeddings",
            &yo,
            "--src-text",
            &src,
            "--trg-text",
            &trg
        ];
        let err = fail(&mut c, "x.fifo");
        assert!(err.contains("must be a file"), "{err}");
    }
}

/// An error about a file names it once (`X: file is empty`, never `reading X: X: ...`).
#[test]
fn errors_name_the_file_once() {
    let (d, empty) = with_file("nothing.txt", "");
    let (de, en) = vectors(d.path());
    let spec = bow_spec(&de, &en);
    let text = write(d.path(), "s.de", "Der Hund\nDie Katze\n");
    let emb = d.path().join("s.npy");
    succeed(&mut embed(&text, &de, &emb));
    for mut c in [
        embed(&empty, &de, &d.path().join("o.npy")),
        cli![
            "mine",
            "-q",
            "--encoder",
            &spec,
            "--src-text",
            &empty,
            "--trg-text",
            &text
        ],
        cli![
            "mine",
            "-q",
            "--src-embeddings",
            &emb,
            "--trg-embeddings",
            &emb,
            "--src-text",
            &empty
        ],
        cli!["score", "--scorer", "length-ratio", "--input", &empty],
    ] {
        let err = fail(&mut c, "nothing.txt");
        assert_eq!(err.matches("nothing.txt").count(), 1, "{c:?}: {err}");
    }
}
