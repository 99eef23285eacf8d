//! End-to-end tests of the lexical baselines: `bitext train ibm1`, then `bitext score` and
//! `bitext filter` with `--scorer ibm1 | levenshtein | length-ratio` (no embeddings needed).

use std::path::Path;

mod common;
use common::{cli, fail, last_column, read, scored, succeed, with_file, with_input, write};

/// A toy parallel corpus (id, German, English): enough repetitions for IBM-1 to learn it.
fn corpus(dir: &Path) -> std::path::PathBuf {
    let pairs = [
        ("das Haus", "the house"),
        ("das Buch", "the book"),
        ("ein Buch", "a book"),
        ("ein Haus", "a house"),
        ("der Hund", "the dog"),
        ("ein Hund", "a dog"),
    ];
    let mut text = String::new();
    for (i, (de, en)) in pairs.iter().cycle().take(24).enumerate() {
        text.push_str(&format!("{de}\t{en}\tu{i}\n"));
    }
    write(dir, "train.tsv", text)
}

/// `bitext COMMAND --scorer ibm1 --model MODEL` (`score` or `filter`) of `input` into `out`.
fn ibm1(
    command: &str,
    input: &Path,
    out: impl AsRef<std::ffi::OsStr>,
    model: impl AsRef<std::ffi::OsStr>,
) -> std::process::Command {
    let mut c = scored(command, "ibm1", input, out);
    c.arg("--model").arg(model);
    c
}

/// `bitext train ibm1 -q` on `input` into `model`.
fn train(input: &Path, model: &Path) -> std::process::Command {
    cli!["train", "ibm1", "--input", input, "-o", model, "-q"]
}

#[test]
fn train_ibm1_then_score_and_filter_with_it() {
    let d = tempfile::tempdir().unwrap();
    let model = d.path().join("ibm1");
    let (_, err) = succeed(train(&corpus(d.path()), &model).args(["--iterations", "4"]));
    assert!(err.contains("trained IBM Model 1 on 24 pairs"), "{err}");
    for f in [
        "ibm1.json",
        "src.vocab",
        "tgt.vocab",
        "src-tgt.ttable",
        "tgt-src.ttable",
    ] {
        assert!(model.join(f).is_file(), "{f}");
    }
    let input = write(
        d.path(),
        "noisy.tsv",
        "das Haus\tthe house\nder Hund\ta book\nein Buch\ta book\nein Hund\tthe house\n",
    );
    let out = d.path().join("scored.tsv");
    succeed(&mut ibm1("score", &input, &out, &model));
    let s = last_column(&out);
    assert_eq!(s.len(), 4);
    assert!(
        s[0] > s[1] && s[0] > s[3] && s[2] > s[1] && s[2] > s[3],
        "{s:?}"
    );
    assert!(s.iter().all(|&x| x <= 0.0));

    // The same scorer in filter: the two translations are kept, with their scores.
    let kept = d.path().join("kept.tsv");
    succeed(ibm1("filter", &input, &kept, &model).args(["--budget-lines", "2"]));
    let text = read(&kept);
    assert!(text.starts_with("das Haus\tthe house\t") && text.contains("\nein Buch\ta book\t"));
    assert_eq!(last_column(&kept), vec![s[0], s[2]]);

    // A spec string does the same.
    let again = d.path().join("again.tsv");
    succeed(&mut cli![
        "score",
        "--scorer-spec",
        format!("ibm1:{}", model.display()),
        "--input",
        &input,
        "--output",
        &again
    ]);
    assert_eq!(last_column(&again), s);
}

#[test]
fn levenshtein_and_length_ratio_score_without_a_model() {
    let (d, input) = with_input("abc\tabd\nGuten Morgen !\tGood morning to you !\n");
    let out = d.path().join("lev.tsv");
    succeed(&mut scored("score", "levenshtein", &input, &out));
    let s = last_column(&out);
    assert!((s[0] - (1.0 - 1.0 / 3.0)).abs() < 1e-12, "{s:?}");
    let out = d.path().join("len.tsv");
    succeed(scored("score", "length-ratio", &input, &out).args(["--length-unit", "tokens"]));
    assert_eq!(last_column(&out), vec![1.0, 3.0 / 5.0]);
    let kept = d.path().join("kept.tsv");
    succeed(scored("filter", "length-ratio", &input, &kept).args(["--min-score", "0.9"]));
    assert_eq!(read(&kept).lines().count(), 1);
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_line() {
    let (d, input) = with_file("bom.tsv", "\u{feff}abc\tabc\r\nx\ty\r\n");
    let out = d.path().join("out.tsv");
    succeed(&mut scored("score", "levenshtein", &input, &out));
    assert_eq!(read(&out), "abc\tabc\t1\nx\ty\t0\n");
}

#[test]
fn lexical_commands_name_bad_input() {
    let d = tempfile::tempdir().unwrap();
    let bad = write(d.path(), "bad.tsv", "das Haus\tthe house\nein Buch\t \n");
    let m = d.path().join("m");
    fail(&mut train(&bad, &m), "bad.tsv:2: empty target field");
    // A sentence that has characters but no token.
    let no_token = write(d.path(), "nt.tsv", "das Haus\tthe house\n\u{200b}\tx\n");
    fail(
        &mut train(&no_token, &m),
        "nt.tsv:2: the source sentence has no token",
    );
    let input = write(d.path(), "in.tsv", "a\tb\n");
    fail(
        &mut ibm1(
            "score",
            &input,
            d.path().join("o.tsv"),
            d.path().join("none"),
        ),
        "ibm1.json",
    );
    let o = d.path().join("o");
    fail(&mut scored("score", "ibm1", &input, &o), "--model");
    // Filtering with a scorer of sentences takes no embeddings, and one of embeddings needs them.
    let e = write(d.path(), "e.f32", [0u8; 8]);
    fail(
        scored("filter", "levenshtein", &input, &o)
            .arg("--src-embeddings")
            .arg(&e)
            .arg("--trg-embeddings")
            .arg(&e)
            .args(["--dim", "2"]),
        "leave out --src-embeddings",
    );
    fail(
        &mut scored("filter", "cosine", &input, &o),
        "needs --src-embeddings",
    );
    assert!(!o.exists());
}

/// One convention: TSV columns are 1-based in every command, the target side is `tgt`, and
/// LASER's `trg` spellings are aliases.
#[test]
fn columns_are_one_based_and_trg_is_an_alias_of_tgt() {
    let (d, input) = with_input("id1\tabc\tabd\n");
    let out = d.path().join("o.tsv");
    for cmd in [
        &["score", "--scorer", "levenshtein"][..],
        &["train", "ibm1", "-q"][..],
    ] {
        let mut c = cli!["--input", &input, "--output", &out, "--src-col", "0"];
        c = {
            let mut full = common::bitext();
            full.args(cmd).args(c.get_args());
            full
        };
        fail(&mut c, "1-based");
    }
    succeed(scored("score", "levenshtein", &input, &out).args([
        "--src-col",
        "2",
        "--trg-col",
        "3",
    ]));
    assert_eq!(read(&out), "id1\tabc\tabd\t0.6666666666666667\n");
    for cmd in [
        &["mine", "--help"][..],
        &["filter", "--help"],
        &["score", "--help"],
    ] {
        let (help, _) = succeed(common::bitext().args(cmd));
        assert!(
            help.contains("--tgt-") && help.contains("alias: --trg-"),
            "{cmd:?}: {help}"
        );
        assert!(!help.contains("0-based"), "{cmd:?}");
    }
}
