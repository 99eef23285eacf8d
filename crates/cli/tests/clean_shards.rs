//! `bitext clean --shards N --work-dir DIR`: the same bytes as one process (kept and removed
//! lines, the report and its figure) whatever the shard count, with language identification,
//! boilerplate and near-duplicates across shards, an encoder's score, a threshold and a
//! calibration; resumable, and runnable step by step (`mine-step`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{cli, fail, fail_at_step, logged, mine_step, read, step_names, succeed, write};

/// A crawl of `n` lines over a four-word vocabulary per side: translations, partial ones,
/// near-duplicates far apart, boilerplate spread over the file, and a line for several rules.
fn crawl(n: usize) -> String {
    let de = ["das", "haus", "ist", "rot"];
    let en = ["the", "house", "is", "red"];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut lines = Vec::with_capacity(n);
    for i in 0..n {
        let r = next();
        let line = match r % 10 {
            0 => "Startseite\tHome page".to_string(),
            1 => "<b>das haus</b>\tthe house".into(),
            2 => "das haus 3\tthe house 4".into(),
            // Nothing the encoder knows: a zero vector, scored −1.
            3 => {
                let tag: String = (0..4)
                    .map(|k| char::from(b'a' + ((i >> (4 * k)) % 16) as u8))
                    .collect();
                format!("hallo {tag}\tgood {tag}")
            }
            _ => {
                let len = 1 + (r >> 8) as usize % 4;
                let words: Vec<usize> =
                    (0..len).map(|k| (r >> (16 + 2 * k)) as usize % 4).collect();
                let src: Vec<&str> = words.iter().map(|&w| de[w]).collect();
                // One target word in three differs: partial translations score lower.
                let tgt: Vec<&str> = words
                    .iter()
                    .enumerate()
                    .map(|(k, &w)| {
                        en[if (r >> (40 + k)) % 3 == 0 {
                            (w + 1) % 4
                        } else {
                            w
                        }]
                    })
                    .collect();
                let case = if i % 7 == 0 { "!" } else { "." };
                format!("{}{case}\t{}{case}", src.join(" "), tgt.join(" "))
            }
        };
        lines.push(format!("id{i}\t{line}"));
    }
    lines.join("\n") + "\n"
}

/// The files of one run: kept, removed, report and figure.
struct Outputs {
    kept: PathBuf,
    removed: PathBuf,
    report: PathBuf,
    plot: PathBuf,
}

impl Outputs {
    fn in_dir(dir: &Path, name: &str) -> Self {
        Self {
            kept: dir.join(format!("{name}.kept.tsv")),
            removed: dir.join(format!("{name}.removed.tsv")),
            report: dir.join(format!("{name}.report.json")),
            plot: dir.join(format!("{name}.svg")),
        }
    }

    fn contents(&self) -> [String; 4] {
        [&self.kept, &self.removed, &self.report, &self.plot].map(read)
    }
}

/// `bitext clean` of `input` into `out`, with `extra` arguments.
fn clean(input: &Path, out: &Outputs, extra: &[&str]) -> Command {
    let mut cmd = cli![
        "clean",
        "--input",
        input,
        "-o",
        &out.kept,
        "--removed",
        &out.removed
    ];
    cmd.args([
        "--src-col",
        "2",
        "--tgt-col",
        "3",
        "--max-repeats",
        "5",
        "-q",
    ])
    .arg("--report")
    .arg(&out.report)
    .arg("--plot")
    .arg(&out.plot)
    .env("BITEXT_LID_MODEL", "/nonexistent/lid.176.ftz")
    .args(extra);
    cmd
}

/// An encoder of one-hot word vectors (every word of [`crawl`]'s sentences known but those of
/// one line, which gets a zero vector), written to `dir`.
fn encoder(dir: &Path) -> String {
    let (de, en) = common::word_vectors(
        dir,
        &common::one_hot_vectors(&["das", "haus", "ist", "rot", "startseite"]),
        &common::one_hot_vectors(&["the", "house", "is", "red", "home"]),
    );
    common::bow_spec(&de, &en).replace('}', r#","no_known_word":"zero"}"#)
}

#[test]
fn every_shard_count_writes_the_bytes_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "crawl.tsv", crawl(600));
    let spec = encoder(dir.path());
    let (cal, _) = common::calibration(dir.path());
    let cal = cal.to_str().unwrap();
    let settings: [&[&str]; 4] = [
        &[],
        &["--dedup", "source", "--unescape-html"],
        // One translation per source, the best-scored kept.
        &["--encoder", &spec, "--dedup", "source", "--batch", "5"],
        &[
            "--encoder",
            &spec,
            "--min-score",
            "0.6",
            "--calibration",
            cal,
            "--batch",
            "7",
        ],
    ];
    for extra in settings {
        let one = Outputs::in_dir(dir.path(), "one");
        succeed(&mut clean(&input, &one, extra));
        let want = one.contents();
        let kept = want[0].lines().count();
        assert!(kept > 100 && kept < 500, "{kept} kept, {extra:?}");
        for reason in ["markup", "boilerplate", "duplicate", "numbers"] {
            assert!(want[1].contains(reason), "no {reason} with {extra:?}");
        }
        for shards in [1, 3, 8] {
            let work = dir.path().join(format!("work-{shards}-{}", extra.len()));
            let sharded = Outputs::in_dir(dir.path(), "sharded");
            let mut cmd = clean(&input, &sharded, extra);
            cmd.arg("--shards")
                .arg(shards.to_string())
                .arg("--work-dir")
                .arg(&work);
            succeed(&mut cmd);
            assert_eq!(sharded.contents(), want, "{shards} shards, {extra:?}");
        }
    }
    let one = Outputs::in_dir(dir.path(), "one");
    let scored = read(&one.kept);
    let cols: Vec<&str> = scored.lines().next().unwrap().split('\t').collect();
    assert_eq!(cols.len(), 5, "id, two sides, score, probability: {cols:?}");
    let (s, p): (f64, f64) = (cols[3].parse().unwrap(), cols[4].parse().unwrap());
    assert!(s >= 0.6 && (0.0..=1.0).contains(&p), "{cols:?}");
    let removed = read(&one.removed);
    assert!(removed.contains("\tscore\tmin_score\tscore -1.0000 below 0.6"));
    let report: serde_json::Value = serde_json::from_str(&read(&one.report)).unwrap();
    let bins = report["scores"]["counts"].as_array().unwrap();
    let binned: u64 = bins.iter().map(|c| c.as_u64().unwrap()).sum();
    assert_eq!(binned, report["kept"].as_u64().unwrap());
    assert!(read(&one.plot).starts_with("<svg") && read(&one.plot).contains("scores of the kept"));
}

#[test]
fn language_identification_runs_in_the_judge_steps() {
    let dir = tempfile::tempdir().unwrap();
    let text = "1\tDas Haus ist rot.\tThe house is red.\n\
                2\tThe house is green.\tDas Haus ist grün.\n\
                3\tGuten Morgen.\tBonjour.\n\
                4\tGuten Morgen.\tGood morning.\n";
    let input = write(dir.path(), "crawl.tsv", text);
    let model = common::toy_lid(dir.path());
    let lid = [
        "--src-lang",
        "de",
        "--tgt-lang",
        "en",
        "--lid-model",
        model.to_str().unwrap(),
    ];
    let one = Outputs::in_dir(dir.path(), "one");
    succeed(&mut clean(&input, &one, &lid));
    let sharded = Outputs::in_dir(dir.path(), "sharded");
    let mut cmd = clean(&input, &sharded, &lid);
    cmd.args(["--shards", "2", "--work-dir"])
        .arg(dir.path().join("w"));
    succeed(&mut cmd);
    assert_eq!(sharded.contents(), one.contents());
    assert!(read(&one.removed).contains("\tlid\tswapped\t"));
    assert!(read(&one.removed).contains("\tlid\twrong_language\t"));
}

#[test]
fn a_run_resumes_and_runs_step_by_step() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "crawl.tsv", crawl(200));
    let one = Outputs::in_dir(dir.path(), "one");
    succeed(&mut clean(&input, &one, &[]));
    let work = dir.path().join("work");
    let sharded = Outputs::in_dir(dir.path(), "sharded");
    let with_shards = |extra: &[&str]| {
        let mut cmd = clean(&input, &sharded, &["--shards", "3"]);
        cmd.arg("--work-dir").arg(&work).args(extra);
        cmd
    };
    fail_at_step(with_shards(&[]), "judge-1");
    succeed(&mut with_shards(&[]));
    assert_eq!(sharded.contents(), one.contents());
    assert!(logged(&work, 0, "skipped ").contains("judge-0"));
    let from = common::log_len(&work);
    succeed(&mut with_shards(&[]));
    assert!(
        logged(&work, from, "ran ").is_empty(),
        "a rerun redoes nothing"
    );

    // Planned only, run by another engine step by step, then written out.
    let stepwise = dir.path().join("stepwise");
    let mut plan = clean(&input, &sharded, &["--shards", "3", "--plan-only"]);
    succeed(plan.arg("--work-dir").arg(&stepwise));
    let names = step_names(&stepwise);
    assert_eq!(names.first().map(String::as_str), Some("count-0"));
    assert!(
        names.iter().any(|n| n == "dedup-2")
            && names.ends_with(&["write".into(), "write-removed".into()])
    );
    fail(mine_step(&stepwise).arg("write"), "has not completed");
    succeed(mine_step(&stepwise).args(&names));
    std::fs::remove_file(&sharded.kept).unwrap();
    let mut write_out = clean(&input, &sharded, &["--shards", "3"]);
    let (_, err) = succeed(write_out.arg("--work-dir").arg(&stepwise));
    assert!(
        err.contains(&format!("0 ran, {} already done", names.len())),
        "{err}"
    );
    assert_eq!(sharded.contents(), one.contents());
}

#[test]
fn sharded_runs_refuse_what_they_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "crawl.tsv", crawl(20));
    let out = Outputs::in_dir(dir.path(), "x");
    let work = dir.path().join("work");
    let w = work.to_str().unwrap();
    fail(
        &mut clean(
            &input,
            &out,
            &[
                "--shards",
                "2",
                "--work-dir",
                w,
                "--bad-lines",
                "skip",
                "--rejects",
                "r.tsv",
            ],
        ),
        "--bad-lines skip is not available with --shards",
    );
    fail(
        &mut clean(&input, &out, &["--shards", "0", "--work-dir", w]),
        "shard count must be in 1..=",
    );
    let (cal, _) = common::calibration(dir.path());
    fail(
        &mut clean(&input, &out, &["--calibration", cal.to_str().unwrap()]),
        "--calibration gives the probability of the encoder's score",
    );
    assert!(!out.kept.exists());
}
