//! End-to-end: `bitext align-docs` on two small documents with a bag-of-words encoder over
//! bilingual vectors built here, `bitext eval beads` on its output, the batch form (`--docs`)
//! and its errors.

mod common;
use std::path::Path;

use common::{calibrate_scores, cli, fail, one_hot_vectors, read, succeed, write};

/// `bitext eval beads --gold GOLD --test TEST`, for the caller's further options.
fn eval_beads(gold: &Path, test: &Path) -> std::process::Command {
    cli!["eval", "beads", "--gold", gold, "--test", test]
}

/// German and English words in one space, one direction per meaning.
fn spec(dir: &Path) -> String {
    let words = [
        ("hund", "dog"),
        ("katze", "cat"),
        ("haus", "house"),
        ("baum", "tree"),
        ("see", "lake"),
        ("berg", "mountain"),
        ("stadt", "town"),
        ("fluss", "river"),
    ];
    let de = write(dir, "de.vec", one_hot_vectors(&words.map(|(d, _)| d)));
    let en = write(dir, "en.vec", one_hot_vectors(&words.map(|(_, e)| e)));
    format!(
        r#"{{"type":"bow","vectors":"{}","target_vectors":"{}"}}"#,
        de.display(),
        en.display()
    )
}

#[test]
fn two_documents_are_aligned_in_order_with_merges_and_written_in_both_formats() {
    let d = tempfile::tempdir().unwrap();
    let spec = spec(d.path());
    // German sentence 2 is split in two English ones; English 5 has no German counterpart.
    let de = write(
        d.path(),
        "doc.de",
        "der hund\ndie katze\ndas haus und der baum\nder see\nder berg\ndie stadt\n",
    );
    let en = write(
        d.path(),
        "doc.en",
        "the dog\nthe cat\nthe house\nand the tree\nthe lake\nthe river\nthe mountain\nthe town\n",
    );
    let out = d.path().join("out.beads");
    let (_, err) = succeed(&mut cli![
        "align-docs",
        "--src-text",
        &de,
        "--tgt-text",
        &en,
        "--encoder",
        &spec,
        "--deletion-penalty",
        "0.5",
        "-o",
        &out,
        "--pairs-output"
    ]);
    assert!(err.contains("6 aligned, 1 deletions"), "{err}");
    let beads = read(&out);
    let shapes: Vec<&str> = beads
        .lines()
        .map(|l| l.rsplit_once(':').unwrap().0)
        .collect();
    assert_eq!(
        shapes,
        [
            "[0]:[0]",
            "[1]:[1]",
            "[2]:[2, 3]",
            "[3]:[4]",
            "[]:[5]",
            "[4]:[6]",
            "[5]:[7]"
        ]
    );
    let pairs = read(d.path().join("out.beads.tsv"));
    assert!(
        pairs.contains("\tdas haus und der baum\tthe house and the tree\n"),
        "{pairs}"
    );
    assert_eq!(pairs.lines().count(), 6);
    // eval beads against a gold file with the same beads, and against one that differs.
    let gold = write(
        d.path(),
        "gold",
        "[0]:[0]\n[1]:[1]\n[2]:[2, 3]\n[3]:[4]\n[]:[5]\n[4]:[6]\n[5]:[7]\n",
    );
    let (stdout, _) = succeed(&mut eval_beads(&gold, &out));
    assert!(
        stdout.contains("strict: P 1.0000 R 1.0000 F1 1.0000"),
        "{stdout}"
    );
    // Bead scores labelled against a gold that differs, then calibrated.
    let other_gold = write(
        d.path(),
        "other_gold",
        "[0]:[0]\n[1]:[1]\n[2]:[2]\n[]:[3]\n[3]:[4]\n[]:[5]\n[4]:[6]\n[5]:[7]\n",
    );
    let labels = d.path().join("labels.tsv");
    succeed(
        eval_beads(&other_gold, &out)
            .arg("--labels-output")
            .arg(&labels),
    );
    let text = read(&labels);
    assert_eq!(text.lines().count(), 7, "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.split('\t').nth(1) == Some("1"))
            .count(),
        6
    );
    assert!(text.lines().any(|l| l.ends_with("\t0\t2\t2,3")), "{text}");
    let cal = d.path().join("beads.cal.json");
    succeed(&mut calibrate_scores(&labels, &cal));
    assert!(read(&cal).contains("\"positives\": 6"));
    let (stdout, _) = succeed(&mut eval_beads(&other_gold, &out));
    assert!(stdout.contains("strict: P 0.8571"), "{stdout}");
    // The batch form: the same pair listed twice, each with its own output.
    let list = write(
        d.path(),
        "docs.tsv",
        format!(
            "{}\t{}\t{}\n{}\t{}\t{}\n",
            de.display(),
            en.display(),
            d.path().join("a.beads").display(),
            de.display(),
            en.display(),
            d.path().join("b.beads.gz").display()
        ),
    );
    succeed(&mut cli![
        "align-docs",
        "-q",
        "--jobs",
        "2",
        "--docs",
        &list,
        "--encoder",
        &spec,
        "--deletion-penalty",
        "0.5"
    ]);
    assert_eq!(read(d.path().join("a.beads")), beads);
    let (stdout, _) = succeed(&mut cli![
        "eval",
        "beads",
        "--gold",
        &gold,
        &gold,
        "--test",
        d.path().join("a.beads"),
        d.path().join("b.beads.gz")
    ]);
    assert!(stdout.contains("F1 1.0000 (14 test beads"), "{stdout}");
    // Errors name the file and line.
    let bad = write(
        d.path(),
        "bad.tsv",
        format!("{}\t{}\n", de.display(), en.display()),
    );
    fail(
        &mut cli!["align-docs", "--docs", &bad, "--encoder", &spec],
        "bad.tsv:1: expected 3 tab-separated fields",
    );
    fail(
        &mut eval_beads(&gold, &bad),
        "bad.tsv:1: expected [source]:[target]",
    );
    fail(
        &mut cli!["eval", "beads", "--gold", &gold, &gold, "--test", &out],
        "2 gold files but 1 test files",
    );
}
