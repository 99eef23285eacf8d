//! Helpers shared by the CLI's integration tests: the binary under test (`cli![args…]` for
//! a command line of strings and paths), running it and checking how it ended, the command
//! lines the tests share, writing input files (alone in a fresh folder: [`with_file`],
//! [`with_input`]) and reading outputs ([`read`], [`rows`], [`last_column`]), toy corpora and
//! word vectors, and the plans and logs of sharded runs.

#![allow(dead_code, unreachable_pub, unused_imports, unused_macros)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bitext_core::io::raw::{self, RawDtype};
use bitext_core::{Embeddings, Rng};

/// The `bitext` binary built for these tests.
pub fn bitext() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bitext"))
}

/// The `bitext` binary with these arguments, strings and paths alike:
/// `cli!["embed", "--input", &path]`.
macro_rules! cli {
    ($($arg:expr),* $(,)?) => {{
        let mut cmd = $crate::common::bitext();
        $(cmd.arg($arg);)*
        cmd
    }};
}
pub(crate) use cli;

/// Run `cmd` to the end: whether it succeeded, its stdout and its stderr (both UTF-8).
pub fn run(cmd: &mut Command) -> (bool, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Run `cmd`, which must succeed: its stdout and stderr.
pub fn succeed(cmd: &mut Command) -> (String, String) {
    let (ok, out, err) = run(cmd);
    assert!(ok, "{cmd:?} failed: {err}");
    (out, err)
}

/// Run `cmd`, which must fail with an error containing `want`: its stderr.
pub fn fail(cmd: &mut Command, want: &str) -> String {
    let (ok, _, err) = run(cmd);
    assert!(
        !ok,
        "{cmd:?} succeeded; expected an error containing {want:?}"
    );
    assert!(err.contains(want), "expected {want:?} in: {err}");
    err
}

/// Run `cmd` with `input` fed to its standard input: whether it succeeded, its stdout as bytes,
/// its stderr, and how writing the input went.
fn feed(cmd: &mut Command, input: &[u8]) -> (bool, Vec<u8>, String, std::io::Result<()>) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    let written = feeder.join().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    (out.status.success(), out.stdout, err, written)
}

/// `cmd` with `input` on its standard input: whether it succeeded, its stdout as bytes and its
/// stderr. The command may stop reading early (an error): a closed pipe is not a test failure.
pub fn piped(cmd: &mut Command, input: &[u8]) -> (bool, Vec<u8>, String) {
    let (ok, out, err, _) = feed(cmd, input);
    (ok, out, err)
}

/// [`piped`] for a command that must read all of `input`.
pub fn piped_whole(cmd: &mut Command, input: &[u8]) -> (bool, Vec<u8>, String) {
    let (ok, out, err, written) = feed(cmd, input);
    written.unwrap();
    (ok, out, err)
}

/// Every one of these command lines (after `bitext`) prints its usage.
pub fn assert_help(commands: &[&[&str]]) {
    for args in commands {
        let (out, _) = succeed(bitext().args(*args));
        assert!(out.contains("Usage:"), "{args:?}: {out}");
    }
}

/// Write `content` to `dir/name` and return the path.
pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

/// A fresh temporary folder holding `content` as `name`: the folder and that file.
pub fn with_file(name: &str, content: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), name, content);
    (d, p)
}

/// A fresh temporary folder holding `content` as the input `in.tsv`: the folder and that file.
pub fn with_input(content: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    with_file("in.tsv", content)
}

/// The text of a file (UTF-8), which must exist.
pub fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The tab-separated fields of each line of a text file.
pub fn rows(path: &Path) -> Vec<Vec<String>> {
    read(path)
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// The last tab-separated field of each line of a text file as a number (the score a command
/// appended).
pub fn last_column(path: &Path) -> Vec<f64> {
    read(path)
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap().parse().unwrap())
        .collect()
}

/// The flags that make columns 2 and 3 of `id<TAB>source<TAB>target` the two sides.
pub const COLS: [&str; 4] = ["--src-col", "2", "--tgt-col", "3"];

/// German and English word vectors, `de.vec` and `en.vec` in `dir`, from their text.
pub fn word_vectors(dir: &Path, de: &str, en: &str) -> (PathBuf, PathBuf) {
    (write(dir, "de.vec", de), write(dir, "en.vec", en))
}

/// The text of a `.vec` file (its header line first) in which `words[i]` is the `i`-th unit
/// vector of `words.len()` dimensions.
pub fn one_hot_vectors(words: &[impl AsRef<str>]) -> String {
    let n = words.len();
    let mut text = format!("{n} {n}\n");
    for (i, w) in words.iter().enumerate() {
        let row: Vec<&str> = (0..n).map(|j| if i == j { "1" } else { "0" }).collect();
        text.push_str(&format!("{} {}\n", w.as_ref(), row.join(" ")));
    }
    text
}

/// The encoder spec of a bag of words over the source vectors `de` and the target vectors `en`.
pub fn bow_spec(de: &Path, en: &Path) -> String {
    format!(
        r#"{{"type":"bow","vectors":"{}","target_vectors":"{}"}}"#,
        de.display(),
        en.display()
    )
}

/// `bitext COMMAND --scorer SCORER` (`score` or `filter`) of `input` into `output`.
pub fn scored(
    command: &str,
    scorer: &str,
    input: impl AsRef<std::ffi::OsStr>,
    output: impl AsRef<std::ffi::OsStr>,
) -> Command {
    cli![
        command, "--scorer", scorer, "--input", input, "--output", output
    ]
}

/// `bitext COMMAND --scorer emd` (`score` or `filter`) of columns 2 and 3 of `input` into
/// `output`, with the word vectors `de` and `en`.
pub fn emd(
    command: &str,
    de: &Path,
    en: &Path,
    input: impl AsRef<std::ffi::OsStr>,
    output: impl AsRef<std::ffi::OsStr>,
) -> Command {
    let mut c = cli![
        command,
        "--scorer",
        "emd",
        "--src-vec",
        de,
        "--tgt-vec",
        en,
        "--input",
        input,
        "--output",
        output
    ];
    c.args(COLS);
    c
}

/// `bitext embed -q` of the sentences in `input` with the word vectors `vectors`, into `out`.
pub fn embed(input: &Path, vectors: &Path, out: &Path) -> Command {
    cli![
        "embed",
        "-q",
        "--input",
        input,
        "--vectors",
        vectors,
        "-o",
        out
    ]
}

/// `bitext mine -q` of the source and target embeddings `x` and `y` of dimension `dim` (raw
/// files, or names that need not exist).
pub fn mine_embeddings(
    dim: usize,
    x: impl AsRef<std::ffi::OsStr>,
    y: impl AsRef<std::ffi::OsStr>,
) -> Command {
    cli![
        "mine",
        "-q",
        "--dim",
        dim.to_string(),
        "--src-embeddings",
        x,
        "--trg-embeddings",
        y
    ]
}

/// `bitext embed -q` of the sentences in `input` (a file, or `-` for standard input) with the
/// encoder `spec`, into `out`.
pub fn embed_with(input: impl AsRef<std::ffi::OsStr>, spec: &str, out: &Path) -> Command {
    cli![
        "embed",
        "-q",
        "--input",
        input,
        "--encoder",
        spec,
        "-o",
        out
    ]
}

/// `bitext embed -q` of the sentences in `input` with the encoder `spec` for `side`, into `out`.
pub fn embed_encoder(input: &Path, spec: &str, side: &str, out: &Path) -> Command {
    let mut c = embed_with(input, spec, out);
    c.args(["--side", side]);
    c
}

/// A temporary folder holding a BUCC gold file `gold` of the pairs `d1 e1` … `dN eN` (`N` =
/// `pairs`) and mined pairs `mined.tsv` (`score<TAB>src<TAB>tgt`): the folder and the two files.
pub fn gold_and_mined(pairs: usize, mined: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let gold: String = (1..=pairs).map(|i| format!("d{i}\te{i}\n")).collect();
    let (d, gold) = with_file("gold", gold);
    let mined = write(d.path(), "mined.tsv", mined);
    (d, gold, mined)
}

/// `bitext calibrate --scores SCORES -o OUT`, for the caller's further options.
pub fn calibrate_scores(scores: &Path, out: &Path) -> Command {
    cli!["calibrate", "--scores", scores, "-o", out]
}

/// `bitext eval bucc --gold GOLD --mined MINED`, for the caller's further options.
pub fn eval_bucc(gold: &Path, mined: &Path) -> Command {
    cli!["eval", "bucc", "--gold", gold, "--mined", mined]
}

/// `n` sources and `m` targets of dimension `d`; targets `j < planted` are noisy copies of
/// source `j`.
pub fn planted(
    d: usize,
    n: usize,
    m: usize,
    planted: usize,
    seed: u64,
) -> (Embeddings, Embeddings) {
    let mut rng = Rng::seed(seed);
    let mut row = |s: f32| (0..d).map(|_| s * rng.normal() as f32).collect::<Vec<_>>();
    let x: Vec<Vec<f32>> = (0..n).map(|_| row(2.0)).collect();
    let mut y: Vec<Vec<f32>> = (0..m).map(|_| row(1.0)).collect();
    for (j, t) in y.iter_mut().enumerate().take(planted) {
        let noise = row(0.4);
        *t = x[j].iter().zip(&noise).map(|(a, e)| a + e).collect();
    }
    (
        Embeddings::from_rows(x, d).unwrap(),
        Embeddings::from_rows(y, d).unwrap(),
    )
}

/// Write `e` as a raw little-endian `f32` file `dir/name` and return the path.
pub fn write_raw(dir: &Path, name: &str, e: &Embeddings) -> PathBuf {
    let p = dir.join(name);
    raw::write_raw(&p, e.view(), RawDtype::F32).unwrap();
    p
}

/// `x` and `y` as raw `f32` files `x.f32` and `y.f32` in `dir`.
pub fn write_pair(dir: &Path, x: &Embeddings, y: &Embeddings) -> (PathBuf, PathBuf) {
    (write_raw(dir, "x.f32", x), write_raw(dir, "y.f32", y))
}

/// The `k`-th toy pair, `a3 a1` ↔ `b1 b3`, of `min + k mod spread` words (words `a0 … a14`,
/// `b0 … b14`).
pub fn toy_pair(k: usize, min: usize, spread: usize) -> (String, String) {
    let w: Vec<usize> = (0..min + k % spread)
        .map(|i| (k * 7 + i * 3) % 15)
        .collect();
    let a: Vec<String> = w.iter().map(|i| format!("a{i}")).collect();
    let b: Vec<String> = w.iter().rev().map(|i| format!("b{i}")).collect();
    (a.join(" "), b.join(" "))
}

/// Line-parallel toy text of the first `n` [`toy_pair`]s (`min`, `spread`) as `src.txt`,
/// `tgt.txt` and `pairs.tsv` (`id<TAB>src<TAB>tgt`) in a fresh temporary folder: the folder and
/// the three files.
pub fn toy_corpus(
    n: usize,
    min: usize,
    spread: usize,
) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let (mut s, mut t, mut tsv) = (String::new(), String::new(), String::new());
    for k in 0..n {
        let (a, b) = toy_pair(k, min, spread);
        s.push_str(&format!("{a}\n"));
        t.push_str(&format!("{b}\n"));
        tsv.push_str(&format!("id{k}\t{a}\t{b}\n"));
    }
    let d = tempfile::tempdir().unwrap();
    let src = write(d.path(), "src.txt", s);
    let tgt = write(d.path(), "tgt.txt", t);
    let tsv = write(d.path(), "pairs.tsv", tsv);
    (d, src, tgt, tsv)
}

/// [`toy_corpus`] of `n` pairs of 2 to 5 words.
pub fn corpus_dir(n: usize) -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    toy_corpus(n, 2, 4)
}

/// A calibration on scores in [0, 1] where a pair is parallel when its score is above 0.5, saved
/// as `dir/cal.json`: that path, and the calibration.
pub fn calibration(dir: &Path) -> (PathBuf, bitext_eval::calibration::Calibration) {
    use bitext_eval::calibration::{Calibration, FitOptions, LabelledScores};
    let sample: Vec<(f64, bool)> = (0..200).map(|i| (i as f64 / 199.0, i >= 100)).collect();
    let cal = Calibration::fit(
        &LabelledScores::new(sample).unwrap(),
        &FitOptions::default(),
    )
    .unwrap();
    let p = dir.join("cal.json");
    cal.save(&p).unwrap();
    (p, cal)
}

/// The steps a sharded run's `steps.log` in `work` says `what` (`ran `, `skipped `), from its
/// line `from` on.
pub fn logged(work: &Path, from: usize, what: &str) -> std::collections::BTreeSet<String> {
    let log = read(work.join("steps.log"));
    log.lines()
        .skip(from)
        .filter_map(|l| l.strip_prefix(what))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// Run the sharded command `cmd` made to fail at its step `step` (`BITEXT_FAIL_STEP`): it must
/// fail, naming that step and saying it failed on purpose.
pub fn fail_at_step(mut cmd: Command, step: &str) {
    cmd.env("BITEXT_FAIL_STEP", step);
    let (ok, _, err) = run(&mut cmd);
    assert!(
        !ok && err.contains(step) && err.contains("on purpose"),
        "{err}"
    );
}

/// `bitext mine-step --work-dir WORK`, for the steps (or `--list`) the caller adds.
pub fn mine_step(work: impl AsRef<std::ffi::OsStr>) -> Command {
    cli!["mine-step", "--work-dir", work]
}

/// The names of the steps of the plan in `work`, in the order `mine-step --list` gives them.
pub fn step_names(work: impl AsRef<std::ffi::OsStr>) -> Vec<String> {
    let (list, _) = succeed(mine_step(work).arg("--list"));
    list.lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["name"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// The id of the step `step` in `work`'s `plan.json`.
pub fn step_id(work: &Path, step: &str) -> String {
    let plan: serde_json::Value = serde_json::from_str(&read(work.join("plan.json"))).unwrap();
    let s = plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == step)
        .unwrap();
    s["id"].as_str().unwrap().to_string()
}

/// The bag-of-words encoder spec over a toy bilingual lexicon of 16 dimensions (seed `seed`),
/// whose vectors it writes to `a.vec` and `b.vec` in `dir`.
pub fn lexicon_encoder(dir: &Path, seed: u64) -> String {
    use bitext_testkit::data::{VOCAB, lexicon};
    let (a, b) = lexicon(VOCAB, 16, seed);
    let (va, vb) = (dir.join("a.vec"), dir.join("b.vec"));
    bitext_core::io::vec::write_vec(&va, &a).unwrap();
    bitext_core::io::vec::write_vec(&vb, &b).unwrap();
    let spec = serde_json::json!({
        "type": "bow", "vectors": va, "target_vectors": vb, "lowercase": false
    });
    spec.to_string()
}

/// The lines of `work`'s `steps.log` so far.
pub fn log_len(work: &Path) -> usize {
    std::fs::read_to_string(work.join("steps.log")).map_or(0, |s| s.lines().count())
}

/// A `.vec` file `dir/name` of the words `{prefix}0 … {prefix}14` of each of `prefixes`
/// (a header line first), `dim` values a word: column `c` of word `w` of the `p`-th prefix is
/// `((31·w + 7·c + shift·p) mod 13) / 13 − 0.5`.
pub fn toy_vectors(dir: &Path, name: &str, prefixes: &[&str], dim: usize, shift: usize) -> PathBuf {
    let mut text = format!("{} {dim}\n", 15 * prefixes.len());
    for (p, prefix) in prefixes.iter().enumerate() {
        for w in 0..15 {
            let row: Vec<String> = (0..dim)
                .map(|c| {
                    format!(
                        "{}",
                        ((w * 31 + c * 7 + p * shift) % 13) as f32 / 13.0 - 0.5
                    )
                })
                .collect();
            text.push_str(&format!("{prefix}{w} {}\n", row.join(" ")));
        }
    }
    write(dir, name, text)
}

/// `bitext tokenize train` of a sentencepiece model of `vocab` pieces, every character of
/// `input` covered, into `model`, for the caller's further options.
pub fn tokenize_train(input: &Path, vocab: usize, model: &Path) -> Command {
    cli![
        "tokenize",
        "train",
        "--input",
        input,
        "--vocab-size",
        vocab.to_string(),
        "--character-coverage",
        "1.0",
        "--model",
        model
    ]
}

/// `bitext score --model MODEL --input INPUT --output OUT`, for the caller's further options.
pub fn score_model(model: &Path, input: &Path, out: &Path) -> Command {
    cli!["score", "--model", model, "--input", input, "--output", out]
}

/// `bitext embed --model MODEL --input INPUT --side SIDE -q -o OUT`.
pub fn embed_model(model: &Path, input: &Path, side: &str, out: &Path) -> Command {
    cli![
        "embed", "--model", model, "--input", input, "--side", side, "-q", "-o", out
    ]
}

/// `bitext train mlp --encoder ENCODER --src SRC --tgt TGT -o OUT`, for the caller's options.
pub fn train_mlp(encoder: &Path, src: &Path, tgt: &Path, out: &Path) -> Command {
    cli![
        "train",
        "mlp",
        "--encoder",
        encoder,
        "--src",
        src,
        "--tgt",
        tgt,
        "-o",
        out
    ]
}

/// A fastText model of three languages written in code: each word of `de`, `en` and `fr` pulls
/// towards its language, anything else towards none (`</s>` alone: all three alike).
pub fn toy_lid(dir: &Path) -> std::path::PathBuf {
    use bitext_testkit::fasttext::{FastTextModel, Loss};
    let langs: [(&str, &[&str]); 3] = [
        (
            "de",
            &["Das", "Haus", "ist", "rot.", "Guten", "Morgen.", "grün."],
        ),
        (
            "en",
            &["The", "house", "is", "red.", "Good", "morning.", "green."],
        ),
        ("fr", &["La", "maison", "est", "rouge.", "Bonjour."]),
    ];
    let mut words = vec!["</s>"];
    for (_, w) in &langs {
        words.extend_from_slice(w);
    }
    let labels: Vec<String> = langs.iter().map(|(l, _)| format!("__label__{l}")).collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let mut m = FastTextModel::new(3, Loss::Softmax, &words, &labels);
    let mut row = 1;
    for (k, (_, w)) in langs.iter().enumerate() {
        for _ in w.iter() {
            m.input[row * 3 + k] = 1.0;
            row += 1;
        }
        m.output[k * 3 + k] = 10.0;
    }
    write(dir, "toy.bin", m.to_bin())
}

/// `--bad-lines skip --rejects REJECTS`, for a command that has `-q` already.
pub fn skipping(rejects: &Path) -> [&str; 4] {
    [
        "--bad-lines",
        "skip",
        "--rejects",
        rejects.to_str().unwrap(),
    ]
}

/// `--bad-lines skip -q --rejects REJECTS`.
pub fn skip(rejects: &Path) -> [&str; 5] {
    [
        "--bad-lines",
        "skip",
        "-q",
        "--rejects",
        rejects.to_str().unwrap(),
    ]
}

/// A small word-alignment model trained in `dir` on a toy corpus (an encoder too).
#[cfg(feature = "neural")]
pub fn aligner(dir: &Path) -> std::path::PathBuf {
    let (_corpus, src, tgt, _) = toy_corpus(24, 3, 6);
    let model = dir.join("aligner");
    let quick = [
        "--preset",
        "small",
        "--per-kind",
        "8",
        "--min-count",
        "1",
        "--epochs",
        "1",
    ];
    let mut train = cli![
        "train",
        "aligner",
        "-q",
        "-o",
        &model,
        "--src-text",
        &src,
        "--tgt-text"
    ];
    succeed(train.arg(&tgt).args(quick));
    model
}
