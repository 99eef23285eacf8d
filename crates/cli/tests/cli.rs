//! End-to-end tests of the `bitext` binary on small files built here.

mod common;
use common::{assert_help, bitext, eval_bucc, fail, gold_and_mined, succeed, write};

#[test]
fn eval_bucc_reports_prf_and_best_threshold() {
    // 3 of 4 correct; 5 gold. Sorted: 0.9 T, 0.8 T, 0.7 F, 0.6 T.
    let (_d, gold, mined) =
        gold_and_mined(5, "0.9\td1\te1\n0.7\td3\te9\n0.8\td2\te2\n0.6\td4\te4\n");
    let (out, _) = succeed(&mut eval_bucc(&gold, &mined));
    assert!(
        out.contains("all pairs: P 0.7500 R 0.6000 F1 0.6667"),
        "{out}"
    );
    // Best cut keeps all four (F1 .667) vs. two (P 1, R .4, F1 .571): threshold = lowest score.
    assert!(
        out.contains("best threshold 0.6: P 0.7500 R 0.6000"),
        "{out}"
    );

    let (out, _) = succeed(eval_bucc(&gold, &mined).args(["--threshold", "0.75"]));
    assert!(out.contains("threshold 0.75: P 1.0000 R 0.4000"), "{out}");
}

#[test]
fn eval_bucc_errors_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let gold = write(d.path(), "gold", "d1\te1\n");
    let eval = |mined: &std::path::Path| eval_bucc(&gold, mined);
    let dup = write(d.path(), "dup.tsv", "0.9\td1\te1\n0.5\td1\te1\n");
    fail(
        &mut eval(&dup),
        "dup.tsv:2: pair d1 e1 already occurs on line 1",
    );
    let bad = write(d.path(), "bad.tsv", "0.9\td1\te1\nx\td2\te2\n");
    fail(&mut eval(&bad), "bad.tsv:2: score \"x\" is not a number");

    let src = write(d.path(), "de", "d1\tHallo\n");
    let tgt = write(d.path(), "en", "e1\tHello\n");
    let m = write(d.path(), "m.tsv", "0.9\td1\te7\n");
    fail(
        eval(&m)
            .arg("--src-sentences")
            .arg(&src)
            .arg("--tgt-sentences")
            .arg(&tgt),
        "m.tsv:1: id e7 does not occur in",
    );
    fail(
        &mut eval_bucc("/nonexistent/g".as_ref(), &m),
        "/nonexistent/g",
    );
}

/// The subcommands a `--help` text lists under "Commands:" (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_subcommand_has_help() {
    // Walk the tree that `--help` shows, so that a new command is covered by being listed.
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    let mut seen = Vec::new();
    while let Some(path) = todo.pop() {
        let (out, _) = succeed(bitext().args(&path).arg("--help"));
        let usage = format!("Usage: bitext {}", path.join(" "));
        assert!(out.contains(usage.trim_end()), "{path:?}: {out}");
        // Every command that runs (no subcommands of its own) takes -q with one meaning.
        if !path.is_empty() && subcommands(&out).is_empty() {
            assert!(
                out.contains("-q, --quiet") && out.contains("No progress bars or summaries"),
                "{path:?} lacks the common -q: {out}"
            );
        }
        for sub in subcommands(&out) {
            let mut next = path.clone();
            next.push(sub);
            todo.push(next);
        }
        seen.push(path.join(" "));
    }
    seen.sort();
    for want in [
        "",
        "align-docs",
        "calibrate",
        "emd",
        "embed",
        "eval",
        "eval beads",
        "eval bucc",
        "extract",
        "filter",
        "fix",
        "mine",
        "mine-step",
        "score",
        "tokenize",
        "tokenize decode",
        "tokenize encode",
        "tokenize train",
        "train",
        "train aligner",
        "train autoencoder",
        "train ibm1",
        "train mlp",
        "train siamese",
    ] {
        assert!(
            seen.iter().any(|s| s == want),
            "{want:?} not reached: {seen:?}"
        );
    }
    // `help CMD` prints the same usage.
    assert_help(&[&["help", "mine"], &["train", "help", "mlp"]]);
}
