//! `bitext train classifier` and `bitext score --classifier DIR [--explain]` on a toy language
//! pair built in code (German-like sources translated word by word into English-like targets,
//! numbers and punctuation copied): the model directory, the two score columns and the
//! explanation column, `--min-precision`, other feature lists, and the errors of bad inputs
//! and flags.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bitext_classify::{Classifier, LightBackends};

mod common;
use common::{COLS, cli, fail, read, rows, run, succeed, write};

use bitext_testkit::data::translated_pairs as corpus;

/// The pairs as a TSV of two columns.
fn tsv(pairs: &[(String, String)]) -> String {
    pairs.iter().map(|(s, t)| format!("{s}\t{t}\n")).collect()
}

/// The pairs that `bitext score` gets, as `id<TAB>source<TAB>target` ([`COLS`]): 30 clean
/// pairs (ids `c…`), the same sources with targets shifted (`m…`), then an untranslated copy
/// and a pair with markup, which fail hard rules (`g…`).
fn noisy() -> String {
    let pairs = corpus(30, 2);
    let mut out = String::new();
    for (i, (s, t)) in pairs.iter().enumerate() {
        out.push_str(&format!("c{i}\t{s}\t{t}\n"));
    }
    for (i, (s, _)) in pairs.iter().enumerate() {
        let t = &pairs[(i + 11) % pairs.len()].1;
        out.push_str(&format!("m{i}\t{s}\t{t}\n"));
    }
    out.push_str("g0\tder hund sieht die katze.\tder hund sieht die katze.\n");
    out.push_str("g1\t<b>haus</b> und baum.\t<b>house</b> and tree.\n");
    out
}

/// `bitext train classifier -q --no-lid` of `input` into `out`, for further flags.
fn train(input: &Path, out: &Path) -> std::process::Command {
    cli![
        "train",
        "classifier",
        "-q",
        "--no-lid",
        "--input",
        input,
        "-o",
        out
    ]
}

/// `bitext score -q --classifier DIR` of `input` (columns 2 and 3) into `out`.
fn score(dir: &Path, input: &Path, out: &Path) -> std::process::Command {
    let mut c = cli![
        "score",
        "-q",
        "--classifier",
        dir,
        "--input",
        input,
        "-o",
        out
    ];
    c.args(COLS);
    c
}

/// A folder (kept for the whole run) with `clean.tsv` (300 pairs), `noisy.tsv` ([`noisy`]) and
/// the classifier trained on the clean pairs with the default features, `model/`.
fn trained() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap().keep();
        let clean = write(&d, "clean.tsv", tsv(&corpus(300, 1)));
        write(&d, "noisy.tsv", noisy());
        succeed(&mut train(&clean, &d.join("model")));
        d
    })
}

/// The two last fields of each row as numbers: the score and the probability.
fn scores(rows: &[Vec<String>]) -> Vec<(f64, f64)> {
    rows.iter()
        .map(|r| {
            let n = r.len();
            (r[n - 2].parse().unwrap(), r[n - 1].parse().unwrap())
        })
        .collect()
}

#[test]
fn train_writes_a_directory_and_score_writes_two_columns() {
    let d = trained();
    let model = d.join("model");
    for f in ["classifier.json", "calibration.json"] {
        assert!(model.join(f).is_file(), "{f}");
    }
    assert!(model.join("ibm1").is_dir());
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("out.tsv");
    let input = d.join("noisy.tsv");
    succeed(&mut score(&model, &input, &path));
    let text = read(&path);
    let want = read(&input);
    assert_eq!(text.lines().count(), want.lines().count());
    let rows = rows(&path);
    for (line, r) in want.lines().zip(&rows) {
        assert_eq!(r.len(), 5, "{r:?}");
        assert_eq!(r[..3].join("\t"), line);
    }
    let got = scores(&rows);
    for (s, p) in &got {
        assert!(
            (0.0..=1.0).contains(s) && (0.0..=1.0).contains(p),
            "{s} {p}"
        );
    }
    // The library scores the directory the same.
    let c = Classifier::load(&model, &LightBackends).unwrap();
    let src: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    let tgt: Vec<&str> = rows.iter().map(|r| r[2].as_str()).collect();
    let lib = c.score(&src, &tgt).unwrap();
    for (k, ((s, p), l)) in got.iter().zip(&lib).enumerate() {
        assert_eq!(s, l, "line {}", k + 1);
        assert_eq!(*p, c.probability(*s), "line {}", k + 1);
    }
    let mean = |prefix: &str| {
        let v: Vec<f64> = rows
            .iter()
            .zip(&got)
            .filter(|(r, _)| r[0].starts_with(prefix))
            .map(|(_, s)| s.0)
            .collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    assert!(
        mean("c") > mean("m") + 0.3,
        "{} vs {}",
        mean("c"),
        mean("m")
    );
    // The untranslated copy and the markup fail hard rules: under 0.5, and under every pair
    // that fails none.
    let n = got.len();
    let (g0, g1) = (got[n - 2].0, got[n - 1].0);
    assert!(g0 < 0.5 && g1 < 0.5, "{g0} {g1}");
    let free: Vec<f64> = got.iter().map(|s| s.0).filter(|&s| s >= 0.5).collect();
    assert!(free.len() >= 30, "{} pairs over 0.5", free.len());
    // Batches of one pair give the same bytes.
    let one = out.path().join("one.tsv");
    succeed(score(&model, &input, &one).args(["--batch", "1"]));
    assert_eq!(read(&one), text);
}

#[test]
fn explain_adds_a_column_before_the_scores() {
    let d = trained();
    let model = d.join("model");
    let input = d.join("noisy.tsv");
    let out = tempfile::tempdir().unwrap();
    let (plain, explained) = (out.path().join("plain.tsv"), out.path().join("why.tsv"));
    succeed(&mut score(&model, &input, &plain));
    succeed(score(&model, &input, &explained).arg("--explain"));
    let (plain, explained) = (rows(&plain), rows(&explained));
    assert_eq!(plain.len(), explained.len());
    let names = Classifier::load(&model, &LightBackends)
        .unwrap()
        .description()
        .model
        .names
        .clone();
    for (p, e) in plain.iter().zip(&explained) {
        assert_eq!(e.len(), 6, "{e:?}");
        assert_eq!(p[..3], e[..3]);
        assert_eq!(p[3..], e[4..], "the scores do not change");
        let why = &e[3];
        // A pair that fails a hard rule (the untranslated copy, the markup, a misaligned pair
        // whose numbers differ) names the rule and scores under 0.5; any other starts with
        // the bias.
        let gated = why.starts_with("gate=rule_");
        assert!(gated || why.starts_with("bias="), "{why}");
        assert_eq!(gated, e[4].parse::<f64>().unwrap() < 0.5, "{e:?}");
        if e[0].starts_with('g') {
            assert!(gated, "{e:?}");
        }
        let fields: Vec<&str> = why.split(' ').collect();
        assert_eq!(fields.len(), names.len() + 1 + usize::from(gated), "{why}");
        for (f, n) in fields[fields.len() - names.len()..].iter().zip(&names) {
            assert!(f.starts_with(&format!("{n}=")), "{f} for {n}");
        }
    }
}

#[test]
fn min_precision_keeps_the_pairs_over_the_threshold() {
    let d = trained();
    let model = d.join("model");
    let input = d.join("noisy.tsv");
    let out = tempfile::tempdir().unwrap();
    let (all, kept) = (out.path().join("all.tsv"), out.path().join("kept.tsv"));
    succeed(&mut score(&model, &input, &all));
    succeed(score(&model, &input, &kept).args(["--min-precision", "0.9"]));
    let min = Classifier::load(&model, &LightBackends)
        .unwrap()
        .min_score(0.9)
        .unwrap();
    let want: Vec<Vec<String>> = rows(&all)
        .into_iter()
        .filter(|r| r[3].parse::<f64>().unwrap() >= min)
        .collect();
    let kept = rows(&kept);
    assert_eq!(kept, want);
    assert!(!kept.is_empty() && kept.len() < 62, "{} kept", kept.len());
    assert!(kept.iter().all(|r| !r[0].starts_with('g')));
}

#[test]
fn bad_input_lines_name_the_file_and_line() {
    let d = trained();
    let model = d.join("model");
    let out = tempfile::tempdir().unwrap();
    let input = d.join("noisy.tsv");
    let mut cmd = cli!["score", "-q", "--classifier", &model, "--input", &input];
    cmd.args(["--src-col", "1", "--tgt-col", "5", "-o"])
        .arg(out.path().join("o.tsv"));
    let e = fail(&mut cmd, "noisy.tsv:1");
    assert!(e.contains("column"), "{e}");
    let mut cmd = train(&d.join("clean.tsv"), &out.path().join("m"));
    let e = fail(
        cmd.args(["--src-col", "1", "--tgt-col", "5"]),
        "clean.tsv:1",
    );
    assert!(e.contains("column"), "{e}");
}

#[test]
fn bad_feature_lists_and_directories_are_errors() {
    let d = trained();
    let clean = d.join("clean.tsv");
    let out = tempfile::tempdir().unwrap();
    let m = out.path().join("m");
    let e = fail(
        train(&clean, &m).args(["--scorers", "nonsense"]),
        "nonsense",
    );
    assert!(e.contains("--scorers"), "{e}");
    fail(train(&clean, &m).args(["--scorers", "cosine"]), "encoder");
    let few = write(out.path(), "few.tsv", tsv(&corpus(5, 3)));
    fail(&mut train(&few, &m), "at least 10");
    let input = d.join("noisy.tsv");
    let o = out.path().join("o.tsv");
    fail(
        &mut score(Path::new("/nonexistent"), &input, &o),
        "classifier.json",
    );
    let garbage = out.path().join("garbage");
    std::fs::create_dir(&garbage).unwrap();
    write(&garbage, "classifier.json", "not json");
    fail(&mut score(&garbage, &input, &o), "classifier.json");
    assert!(!o.exists());
}

#[test]
fn explain_needs_the_classifier_and_the_classifier_its_own_calibration() {
    let d = trained();
    let input = d.join("noisy.tsv");
    let out = tempfile::tempdir().unwrap();
    let o = out.path().join("o.tsv");
    let (ok, _, e) = run(cli!["score", "--input", &input, "--explain", "-o", &o].args(COLS));
    assert!(!ok && e.contains("--classifier"), "{e}");
    let mut cmd = cli![
        "score",
        "--scorer",
        "levenshtein",
        "--explain",
        "--input",
        &input
    ];
    let (ok, _, e) = run(cmd.args(COLS).arg("-o").arg(&o));
    assert!(
        !ok,
        "--explain with --scorer levenshtein (no --classifier) was accepted: {e}"
    );
    assert!(e.contains("--classifier"), "{e}");
    let cal = write(out.path(), "cal.json", "{}");
    let mut cmd = score(&d.join("model"), &input, &o);
    let e = fail(cmd.arg("--calibration").arg(&cal), "--calibration");
    assert!(e.contains("--classifier"), "{e}");
    assert!(!o.exists());
}

#[test]
fn a_feature_list_of_lexical_scorers_and_rules_works() {
    let d = trained();
    let out = tempfile::tempdir().unwrap();
    let model = out.path().join("m");
    let mut cmd = train(&d.join("clean.tsv"), &model);
    succeed(cmd.args([
        "--scorers",
        "levenshtein,length_ratio,numbers,rules",
        "--no-hard-rules",
    ]));
    assert!(!model.join("ibm1").exists());
    let c = Classifier::load(&model, &LightBackends).unwrap();
    let names = &c.description().model.names;
    assert_eq!(
        names[..5],
        [
            "levenshtein",
            "levenshtein_missing",
            "length_ratio",
            "length_ratio_missing",
            "numbers"
        ]
    );
    assert!(
        names[5..].iter().all(|n| n.starts_with("rule_")),
        "{names:?}"
    );
    assert!(!c.description().hard_rules);
    let o = out.path().join("o.tsv");
    succeed(&mut score(&model, &d.join("noisy.tsv"), &o));
    let got = scores(&rows(&o));
    assert_eq!(got.len(), 62);
    assert!(
        got.iter()
            .all(|(s, p)| (0.0..=1.0).contains(s) && (0.0..=1.0).contains(p))
    );
    // Without hard rules no explanation names a gate.
    let why = out.path().join("why.tsv");
    succeed(score(&model, &d.join("noisy.tsv"), &why).arg("--explain"));
    assert!(rows(&why).iter().all(|r| r[3].starts_with("bias=")));
}

#[test]
fn the_same_seed_trains_the_same_classifier() {
    let d = trained();
    let out = tempfile::tempdir().unwrap();
    let again = out.path().join("again");
    succeed(&mut train(&d.join("clean.tsv"), &again));
    for f in ["classifier.json", "calibration.json"] {
        assert_eq!(read(again.join(f)), read(d.join("model").join(f)), "{f}");
    }
    let other = out.path().join("other");
    succeed(train(&d.join("clean.tsv"), &other).args(["--seed", "5"]));
    assert_ne!(
        read(other.join("classifier.json")),
        read(again.join("classifier.json"))
    );
}

/// `bitext COMMAND -q --classifier DIR --input INPUT --min-precision P -o OUT` over the
/// [`COLS`] columns, for further flags.
fn classified(
    command: &str,
    dir: &Path,
    input: &Path,
    p: &str,
    out: &Path,
) -> std::process::Command {
    let mut c = cli![
        command,
        "-q",
        "--classifier",
        dir,
        "--input",
        input,
        "--min-precision",
        p,
        "-o",
        out
    ];
    c.args(COLS);
    c
}

#[test]
fn filter_and_clean_take_the_classifier_and_its_calibration() {
    let d = trained();
    let model = d.join("model");
    let input = d.join("noisy.tsv");
    let out = tempfile::tempdir().unwrap();
    let c = Classifier::load(&model, &LightBackends).unwrap();
    let cut = c.min_score(0.9).unwrap();
    // filter: the kept lines, in input order, with the score and the probability.
    let kept = out.path().join("filter.tsv");
    succeed(&mut classified("filter", &model, &input, "0.9", &kept));
    let filtered = rows(&kept);
    assert!(!filtered.is_empty());
    for (s, p) in scores(&filtered) {
        assert!(s >= cut, "{s} below {cut}");
        assert_eq!(p, c.probability(s));
    }
    // clean: the same threshold as the step `score`, the rules first.
    let cleaned = out.path().join("clean.tsv");
    let removed = out.path().join("removed.tsv");
    let mut k = classified("clean", &model, &input, "0.9", &cleaned);
    k.arg("--removed").arg(&removed);
    succeed(&mut k);
    let kept = scores(&rows(&cleaned));
    assert!(!kept.is_empty() && kept.iter().all(|(s, _)| *s >= cut));
    assert!(read(&removed).contains("min_score"));
    // A threshold needs something that scores.
    let mut bad = cli![
        "clean",
        "--input",
        &input,
        "--min-score",
        "0.5",
        "-o",
        &cleaned
    ];
    bad.args(COLS);
    fail(&mut bad, "--classifier");
}

#[test]
fn sharded_cleaning_with_the_classifier_is_the_single_process_one() {
    let d = trained();
    let model = d.join("model");
    let input = d.join("noisy.tsv");
    let out = tempfile::tempdir().unwrap();
    let clean = |name: &str, shards: Option<usize>| -> (String, String) {
        let (kept, removed) = (out.path().join(name), out.path().join(format!("{name}.rm")));
        let mut c = classified("clean", &model, &input, "0.8", &kept);
        c.args(["--dedup", "source", "--removed"]).arg(&removed);
        if let Some(n) = shards {
            c.args(["--shards", &n.to_string(), "--work-dir"]);
            c.arg(out.path().join(format!("work-{n}")));
        }
        succeed(&mut c);
        (read(&kept), read(&removed))
    };
    let one = clean("one.tsv", None);
    assert!(!one.0.is_empty() && !one.1.is_empty());
    for n in [1, 3] {
        assert_eq!(clean(&format!("s{n}.tsv"), Some(n)), one, "{n} shards");
    }
}
