//! `bitext clean`: each rule removes its lines with the reason beside them, near-duplicates
//! after the first copy, a recipe and the flags set the thresholds, and the report counts it
//! all.

mod common;

use std::path::Path;
use std::process::Command;

use common::{cli, fail, piped, read, rows, succeed, with_input};

/// A crawl: one clean pair, then one line for each rule and a near-duplicate, then a second
/// clean pair; the source side of line 11 repeats on 11 more lines (boilerplate).
fn crawl() -> String {
    let mut lines = vec![
        "Das Haus ist rot.\tThe house is red.".to_string(),
        " \tThe house".into(),
        format!("Haus\t{}", "word ".repeat(300)),
        "<b>Haus</b>\thouse".into(),
        "Tel. 030 1234567\tPhone 030 1234567".into(),
        "Haus!!! ??? ...\tHouse!!! ???".into(),
        "Ein sehr langer Satz mit vielen Wörtern\tA word".into(),
        "Click here to download\tClick HERE to download!".into(),
        "Es kostet 20 Euro.\tIt costs 25 euros.".into(),
        "Siehe www.a.de\tSee www.b.com".into(),
    ];
    for i in 0..12 {
        lines.push(format!(
            "Startseite\tHome page {}",
            ["one", "two", "three"][i % 3]
        ));
    }
    lines.push("das Haus ist ROT\tthe house is red!".into());
    lines.push("Это хорошо\tThis is good".into());
    lines.push("Guten Morgen.\tGood morning.".into());
    lines.join("\n") + "\n"
}

/// The rule (or `duplicate`) of each removed line of `bitext clean` on [`crawl`], in order.
const REMOVED: [(usize, &str); 12] = [
    (2, "empty"),
    (3, "too_long"),
    (4, "markup"),
    (5, "letters"),
    (6, "punctuation"),
    (7, "length_ratio"),
    (8, "untranslated"),
    (9, "numbers"),
    (10, "links"),
    (11, "boilerplate"),
    (23, "duplicate"),
    (24, "script"),
];

fn clean(input: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = cli!["clean", "--input", input, "-o", out];
    // No model from the machine: a test names its own.
    cmd.env("BITEXT_LID_MODEL", "/nonexistent/lid.176.ftz")
        .args(extra);
    cmd
}

#[test]
fn language_identification_removes_swapped_and_wrong_language_lines() {
    let text = "Das Haus ist rot.\tThe house is red.\n\
                The house is green.\tDas Haus ist grün.\n\
                Guten Morgen.\tBonjour.\n\
                Guten Morgen.\tGood morning.\n";
    let (dir, input) = with_input(text);
    let model = common::toy_lid(dir.path());
    let (out, removed) = (dir.path().join("kept.tsv"), dir.path().join("removed.tsv"));
    let removed_arg = removed.to_str().unwrap();
    let langs = [
        "--src-lang",
        "de",
        "--tgt-lang",
        "en",
        "--removed",
        removed_arg,
        "-q",
    ];
    let mut cmd = clean(&input, &out, &langs);
    let (_, err) = succeed(cmd.arg("--lid-model").arg(&model));
    assert_eq!(err, "");
    assert_eq!(
        read(&out),
        "Das Haus ist rot.\tThe house is red.\nGuten Morgen.\tGood morning.\n"
    );
    let rows = rows(&removed);
    assert_eq!(
        (rows[0][2].as_str(), rows[0][3].as_str()),
        ("lid", "swapped")
    );
    assert_eq!(
        (rows[1][2].as_str(), rows[1][3].as_str()),
        ("lid", "wrong_language")
    );
    assert!(
        rows[1][4].starts_with("target reads as fr (0.99), not en"),
        "{}",
        rows[1][4]
    );
    // The same model through the environment; without one, the error says where to get it.
    let mut cmd = clean(&input, &out, &langs);
    succeed(cmd.env("BITEXT_LID_MODEL", &model));
    fail(
        &mut clean(&input, &out, &langs),
        "language identification needs a model",
    );
    assert_eq!(
        succeed(&mut clean(
            &input,
            &out,
            &[&langs[..], &["--no-lid"]].concat()
        ))
        .1,
        ""
    );
    assert_eq!(read(&out).lines().count(), 4);
    fail(
        &mut clean(
            &input,
            &out,
            &[
                "--src-lang",
                "de",
                "--tgt-lang",
                "ja",
                "--lid-model",
                model.to_str().unwrap(),
            ],
        ),
        "does not know the language \"ja\"",
    );
}

#[test]
fn lid_labels_every_line_with_the_k_most_likely_languages() {
    let (dir, input) = with_input("Das Haus ist rot.\n\nLa maison est rouge.\nxyz\n");
    let model = common::toy_lid(dir.path());
    let out = dir.path().join("labels.tsv");
    succeed(&mut lid(&input, &out, &model, &["-q"]));
    let labels: Vec<String> = read(&out)
        .lines()
        .map(|l| l.split('\t').next().unwrap().into())
        .collect();
    assert_eq!(labels[0], "de");
    assert_eq!(labels[2], "fr");
    assert_eq!(
        labels.len(),
        4,
        "an empty line and unknown words get an answer too"
    );
    succeed(&mut lid(&input, &out, &model, &["-k", "2", "-q"]));
    for row in rows(&out) {
        assert_eq!(row.len(), 4);
        let (p1, p2): (f64, f64) = (row[1].parse().unwrap(), row[3].parse().unwrap());
        assert!(p1 >= p2 && (0.0..=1.0).contains(&p1));
    }
    fail(&mut lid(&input, &out, &input, &[]), "in.tsv");
    fail(
        &mut lid(&input, &out, &model, &["-k", "0"]),
        "-k must be at least 1",
    );
}

/// `bitext lid --input INPUT -o OUT --lid-model MODEL` with `extra` arguments.
fn lid(input: &Path, out: &Path, model: &Path, extra: &[&str]) -> Command {
    let mut cmd = cli!["lid", "--input", input, "-o", out, "--lid-model", model];
    cmd.args(extra);
    cmd
}

#[test]
fn each_rule_removes_its_line_with_the_reason_beside_it() {
    let (dir, input) = with_input(crawl());
    let (out, removed, report) = (
        dir.path().join("kept.tsv"),
        dir.path().join("removed.tsv"),
        dir.path().join("report.json"),
    );
    let paths = [removed.to_str().unwrap(), report.to_str().unwrap()];
    let extra = [
        "--no-lid",
        "--removed",
        paths[0],
        "--report",
        paths[1],
        "--src-lang",
        "de",
        "--tgt-lang",
        "en",
    ];
    let (_, err) = succeed(&mut clean(&input, &out, &extra));
    assert!(err.contains("kept 2 of 25 pairs"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.contains("rules boilerplate") && l.ends_with(" 12 (48.0%)")),
        "{err}"
    );
    assert_eq!(
        read(&out),
        "Das Haus ist rot.\tThe house is red.\nGuten Morgen.\tGood morning.\n"
    );
    let removed = rows(&removed);
    let input_lines: Vec<String> = crawl().lines().map(String::from).collect();
    let mut at = 0;
    for (line, what) in REMOVED {
        let n = if what == "boilerplate" { 12 } else { 1 };
        for k in 0..n {
            let row = &removed[at];
            let raw = &input_lines[line - 1 + k];
            assert_eq!(row[..row.len() - 3].join("\t"), *raw);
            let step = if what == "duplicate" {
                "dedup"
            } else {
                "rules"
            };
            assert_eq!(
                (row[row.len() - 3].as_str(), row[row.len() - 2].as_str()),
                (step, what)
            );
            at += 1;
        }
    }
    assert_eq!(at, removed.len());
    assert_eq!(
        removed[at - 2].last().unwrap(),
        "a near-duplicate of line 1"
    );
    let json: serde_json::Value = serde_json::from_str(&read(&report)).unwrap();
    assert_eq!(
        (json["read"].as_u64(), json["kept"].as_u64()),
        (Some(25), Some(2))
    );
    let counts: Vec<(String, u64)> = json["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["what"].as_str().unwrap().to_string(),
                r["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counts.len(), 12);
    assert_eq!(counts[10], ("boilerplate".to_string(), 12));
    assert_eq!(json["removed"][10]["examples"].as_array().unwrap().len(), 3);
}

#[test]
fn thresholds_disabled_rules_and_dedup_keys_come_from_flags_or_a_recipe() {
    let (dir, input) = with_input(crawl());
    let out = dir.path().join("kept.tsv");
    let kept = |extra: &[&str]| {
        succeed(clean(&input, &out, &["-q"]).args(extra));
        read(&out).lines().count()
    };
    assert_eq!(kept(&[]), 3, "without languages the script rule passes");
    let all_off = [
        "--disable-rule",
        "empty",
        "--disable-rule",
        "too_long",
        "--disable-rule",
        "markup",
        "--disable-rule",
        "letters",
        "--disable-rule",
        "punctuation",
        "--disable-rule",
        "length_ratio",
        "--disable-rule",
        "untranslated",
        "--disable-rule",
        "numbers",
        "--disable-rule",
        "links",
        "--disable-rule",
        "boilerplate",
        "--disable-rule",
        "too_short",
    ];
    assert_eq!(
        kept(&all_off),
        25 - 1 - 9,
        "only near-duplicates go: line 23, and 9 of 12 boilerplate lines"
    );
    let mut no_dedup = all_off.to_vec();
    no_dedup.extend(["--dedup", "none"]);
    assert_eq!(kept(&no_dedup), 25);
    assert_eq!(
        kept(&["--max-repeats", "12"]),
        3 + 3,
        "the boilerplate lines stay, bar duplicates"
    );
    assert_eq!(
        kept(&["--max-length-ratio", "400", "--max-chars", "5000"]),
        5
    );
    let recipe = common::write(
        dir.path(),
        "recipe.json",
        r#"{"command": "clean", "rules": {"max-repeats": 12, "disable-rule": ["numbers"]},
            "dedup": "target"}"#,
    );
    let recipe = recipe.to_str().unwrap();
    assert_eq!(kept(&["--recipe", recipe]), 3 + 3 + 1);
    assert_eq!(kept(&["--recipe", recipe, "--max-repeats", "5"]), 4);
}

#[test]
fn entities_are_decoded_for_the_rules_with_unescape_html_and_lines_kept_as_they_are() {
    let text = "&quot; Das Haus ist rot . &quot;\t&quot; The house is red . &quot;\n";
    let (dir, input) = with_input(text);
    let out = dir.path().join("kept.tsv");
    succeed(&mut clean(&input, &out, &["-q"]));
    assert_eq!(read(&out), "", "the markup rule removes entities");
    succeed(&mut clean(&input, &out, &["-q", "--unescape-html"]));
    assert_eq!(read(&out), text);
}

#[test]
fn an_encoder_scores_the_kept_pairs_and_min_score_removes_the_low_ones() {
    let text = "Das Haus ist rot\tThe house is red\n\
                Haus ist rot\tThe red one\n\
                <b>Das</b>\tThe\n\
                Das ist rot\tThe house\n";
    let (dir, input) = with_input(text);
    let (de, en) = common::word_vectors(
        dir.path(),
        &common::one_hot_vectors(&["das", "haus", "ist", "rot"]),
        &common::one_hot_vectors(&["the", "house", "is", "red"]),
    );
    let spec = common::bow_spec(&de, &en).replace('}', r#","no_known_word":"zero"}"#);
    let (out, removed) = (dir.path().join("kept.tsv"), dir.path().join("removed.tsv"));
    let removed_arg = removed.to_str().unwrap();
    let extra = [
        "--encoder",
        &spec,
        "--batch",
        "2",
        "-q",
        "--removed",
        removed_arg,
    ];
    succeed(&mut clean(&input, &out, &extra));
    let kept = rows(&out);
    assert_eq!(kept.len(), 3, "the markup line goes before scoring");
    let scores: Vec<f64> = kept.iter().map(|r| r[2].parse().unwrap()).collect();
    assert!((scores[0] - 1.0).abs() < 1e-6, "{scores:?}");
    assert!(
        scores[1] > 0.0 && scores[1] < 1.0 && scores[2] < 1.0,
        "{scores:?}"
    );
    let mut strict = extra.to_vec();
    strict.extend(["--min-score", "0.9"]);
    let (_, err) = succeed(
        clean(&input, &out, &strict)
            .arg("--report")
            .arg(dir.path().join("r.json")),
    );
    assert_eq!(err, "");
    assert_eq!(rows(&out).len(), 1);
    let removed = rows(&removed);
    let steps: Vec<(&str, &str)> = removed
        .iter()
        .map(|r| (r[2].as_str(), r[3].as_str()))
        .collect();
    assert_eq!(
        steps,
        [
            ("score", "min_score"),
            ("rules", "markup"),
            ("score", "min_score")
        ]
    );
    assert!(removed[0][4].starts_with("score 0."), "{}", removed[0][4]);
    let report = read(dir.path().join("r.json"));
    assert!(report.contains("\"min_score\""), "{report}");
    fail(
        &mut clean(&input, &out, &["--min-score", "0.5"]),
        "--encoder",
    );
}

#[test]
fn bad_settings_are_errors_naming_them() {
    let (dir, input) = with_input(crawl());
    let out = dir.path().join("kept.tsv");
    let bad = common::write(dir.path(), "bad.json", r#"{"rules": {"max-reps": 1}}"#);
    let cases: [(&[&str], &str); 4] = [
        (
            &["--disable-rule", "nope"],
            "no rule \"nope\": the rules are empty, too_long",
        ),
        (
            &["--min-letters", "1.5"],
            "min_letters and max_punctuation are shares between 0 and 1",
        ),
        (
            &["--max-length-ratio", "0.5"],
            "max_length_ratio must be at least 1, got 0.5",
        ),
        (
            &["--recipe", bad.to_str().unwrap()],
            "`max-reps` (in \"rules\") is not a flag of `bitext clean`",
        ),
    ];
    for (extra, want) in cases {
        fail(&mut clean(&input, &out, extra), want);
    }
    assert!(!out.exists());
    let empty = common::write(dir.path(), "empty.tsv", "");
    fail(&mut clean(&empty, &out, &[]), "no sentence pairs");
}

#[test]
fn standard_input_bad_lines_and_columns() {
    let text = "id1\tDas Haus ist rot.\tThe house is red.\nid2\tbad \u{fffd}\nid3\tJa\tYes\n";
    let mut cmd = cli!["clean", "--input", "-", "-q"];
    cmd.args(["--src-col", "2", "--tgt-col", "3"]);
    let (ok, _, err) = piped(&mut cmd, text.as_bytes());
    assert!(
        !ok && err.contains("<stdin>:2: 2 tab-separated fields"),
        "{err}"
    );
    let (dir, _) = with_input("");
    let rejects = dir.path().join("rej.tsv");
    let mut cmd = cli![
        "clean",
        "--input",
        "-",
        "--src-col",
        "2",
        "--tgt-col",
        "3",
        "-q"
    ];
    cmd.args(["--bad-lines", "skip", "--rejects"]).arg(&rejects);
    let (ok, out2, err) = piped(&mut cmd, text.as_bytes());
    assert!(ok, "{err}");
    assert_eq!(
        String::from_utf8(out2).unwrap(),
        "id1\tDas Haus ist rot.\tThe house is red.\nid3\tJa\tYes\n"
    );
    assert!(read(&rejects).starts_with("2\t2 tab-separated fields"));
    assert!(err.contains("skipped 1 line of <stdin>"), "{err}");
}

#[test]
fn with_an_encoder_near_duplicates_keep_their_best_scored_copy() {
    let text = "Das Haus ist rot\tThe house\n\
                das Haus ist rot!\tThe house is red\n\
                Das ist rot\tThe red one\n";
    let (dir, input) = with_input(text);
    let (de, en) = common::word_vectors(
        dir.path(),
        &common::one_hot_vectors(&["das", "haus", "ist", "rot"]),
        &common::one_hot_vectors(&["the", "house", "is", "red"]),
    );
    let spec = common::bow_spec(&de, &en);
    let (out, removed) = (dir.path().join("kept.tsv"), dir.path().join("removed.tsv"));
    let removed_arg = removed.to_str().unwrap();
    let args = ["--dedup", "source", "-q", "--removed", removed_arg];
    succeed(&mut clean(&input, &out, &args));
    assert_eq!(rows(&out).len(), 2);
    assert!(read(&removed).starts_with(
        "das Haus ist rot!\tThe house is red\tdedup\tduplicate\ta near-duplicate of line 1\n"
    ));
    let mut scored = args.to_vec();
    scored.extend(["--encoder", &spec, "--batch", "1"]);
    succeed(&mut clean(&input, &out, &scored));
    let kept = rows(&out);
    assert_eq!(kept[0][..2], ["das Haus ist rot!", "The house is red"]);
    assert!(
        (kept[0][2].parse::<f64>().unwrap() - 1.0).abs() < 1e-6,
        "{kept:?}"
    );
    assert_eq!(
        read(&removed),
        "Das Haus ist rot\tThe house\tdedup\tduplicate\ta near-duplicate of line 2\n"
    );
}
