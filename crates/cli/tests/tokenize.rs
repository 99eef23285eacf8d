//! End-to-end tests of `bitext tokenize train|encode|decode` on text generated here, with a
//! model trained in the test. Where Debian's `spm_encode` / `spm_decode` are installed (CI
//! installs the `sentencepiece` package), the output is compared with theirs byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use bitext_core::Rng;
use bitext_testkit::needs::{self, group};

mod common;
use common::{assert_help, bitext, cli, fail, piped_whole, read, succeed, tokenize_train, write};

/// `bitext tokenize encode` with `args` and `--model model` on `input`, which must succeed: its
/// stdout.
fn encode(model: &Path, args: &[&str], input: &[u8]) -> String {
    let (ok, out, err) = piped_whole(
        bitext()
            .args(["tokenize", "encode"])
            .args(args)
            .arg("--model")
            .arg(model),
        input,
    );
    assert!(ok, "{args:?}: {err}");
    String::from_utf8(out).unwrap()
}

/// `n` lines of generated text in one language, seeded.
fn text(words: &[&str], n: usize, seed: u64) -> String {
    let mut rng = Rng::seed(seed);
    let mut out = String::new();
    for _ in 0..n {
        let len = 2 + rng.below(8);
        let line: Vec<&str> = (0..len).map(|_| *rng.choose(words).unwrap()).collect();
        out.push_str(&line.join(" "));
        out.push_str(if rng.bernoulli(0.3) { ", 42!\n" } else { ".\n" });
    }
    out
}

const DE: &[&str] = &[
    "der", "Hund", "schläft", "im", "Garten", "und", "die", "Katze", "läuft", "über", "Straße",
    "heute", "nicht", "groß",
];
const EN: &[&str] = &[
    "the", "dog", "sleeps", "in", "garden", "and", "cat", "runs", "over", "street", "today", "not",
    "big",
];

/// Train a joint BPE model on generated German and English files in `dir`.
fn train(dir: &Path) -> PathBuf {
    let de = write(dir, "train.de", text(DE, 300, 1));
    let en = write(dir, "train.en", text(EN, 300, 2));
    let model = dir.join("joint.model");
    let (_, err) = succeed(
        tokenize_train(&de, 90, &model)
            .arg("--input")
            .arg(&en)
            .args(["--model-type", "bpe", "--lang", "de,en", "--threads", "2"]),
    );
    assert!(
        err.contains("trained a bpe model of 90 pieces on 600 sentences"),
        "{err}"
    );
    assert!(err.contains("train.de: 300 lines, 300 used"), "{err}");
    model
}

/// Input with what `spm_encode` must survive: empty and blank lines, `\r`, an unknown
/// character, a language tag, a last line without newline.
fn sample_input() -> Vec<u8> {
    let mut s = text(DE, 20, 7);
    s.push_str(&text(EN, 20, 8));
    s.push_str("\n   \nder Hund\r\n<de> der Hund 😀\nüber  die   Straße\nlast line");
    s.into_bytes()
}

/// Debian's `spm_encode` with its own library: cargo puts the vendored
/// `libsentencepiece.so.0` (0.2.1) on `LD_LIBRARY_PATH` for tests, where the Debian binary
/// (0.1.97) would load it and stop being an independent reference.
fn debian(bin: &Path) -> Command {
    let mut cmd = Command::new(bin);
    cmd.env_remove("LD_LIBRARY_PATH");
    cmd
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

#[test]
fn train_encode_decode_one_line_per_line() {
    let d = tempfile::tempdir().unwrap();
    let model = train(d.path());
    let input = sample_input();
    let n_lines = input.split(|&b| b == b'\n').count();
    let mut outputs = Vec::new();
    for format in ["id", "piece"] {
        let out = encode(&model, &["--output-format", format], &input);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), n_lines, "{format}");
        assert!(out.ends_with('\n'));
        // The empty and the blank line give empty lines.
        assert_eq!(lines[40], "");
        assert_eq!(lines[41], "");
        outputs.push(out);
    }
    let ids: Vec<&str> = outputs[0].lines().collect();
    let pieces: Vec<&str> = outputs[1].lines().collect();
    // The tag is one piece (after the `▁` of sentencepiece's dummy prefix) with id 4.
    let tag = pieces[43].split(' ').position(|p| p == "<de>").unwrap();
    assert_eq!(ids[43].split(' ').nth(tag), Some("4"), "{}", ids[43]);
    assert!(pieces[43].ends_with(" 😀"), "{}", pieces[43]);
    assert!(ids[43].ends_with(" 1"), "{}", ids[43]);
    for (i, p) in ids.iter().zip(&pieces) {
        assert_eq!(i.split(' ').count(), p.split(' ').count());
    }

    // Decoding ids and pieces gives the normalized text back.
    let ids_file = write(d.path(), "ids.txt", &outputs[0]);
    let pieces_file = write(d.path(), "pieces.txt", &outputs[1]);
    let dec = d.path().join("dec.txt");
    for (file, format) in [(&ids_file, "id"), (&pieces_file, "piece")] {
        succeed(&mut cli![
            "tokenize",
            "decode",
            "--input-format",
            format,
            "--model",
            &model,
            "--input",
            file,
            "--output",
            &dec
        ]);
        let text = read(&dec);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), n_lines);
        assert_eq!(
            lines[0],
            String::from_utf8(input.clone())
                .unwrap()
                .lines()
                .next()
                .unwrap()
        );
        assert_eq!(lines[42], "der Hund");
        assert_eq!(lines[44], "über die Straße");
        assert_eq!(lines[45], "last line");
        let unk = if format == "id" { " ⁇ " } else { "😀" };
        assert!(lines[43].ends_with(unk), "{format}: {}", lines[43]);
    }

    // --output writes the same bytes as stdout; several inputs are read in order.
    let half = input.len() / 2;
    let cut = half + input[half..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let a = write(d.path(), "a.txt", &input[..cut]);
    let b = write(d.path(), "b.txt", &input[cut..]);
    let out_file = d.path().join("out.ids");
    succeed(&mut cli![
        "tokenize", "encode", "--model", &model, "--input", &a, "--input", &b, "--output",
        &out_file
    ]);
    assert_eq!(read(&out_file), outputs[0]);
    // A byte-order mark at the start of each input file is not text.
    let a_bom = write(
        d.path(),
        "a_bom.txt",
        [&b"\xEF\xBB\xBF"[..], &input[..cut]].concat(),
    );
    let b_bom = write(
        d.path(),
        "b_bom.txt",
        [&b"\xEF\xBB\xBF"[..], &input[cut..]].concat(),
    );
    succeed(&mut cli![
        "tokenize", "encode", "--model", &model, "--input", &a_bom, "--input", &b_bom, "--output",
        &out_file
    ]);
    assert_eq!(read(&out_file), outputs[0]);

    // Debian's spm_encode gives the same bytes for the same model.
    if let Some(spm) = needs::file(group::SPM_ENCODE, which("spm_encode")) {
        for (format, ours) in ["id", "piece"].iter().zip(&outputs) {
            let (ok, theirs, err) = piped_whole(
                debian(&spm)
                    .arg(format!("--model={}", model.display()))
                    .arg(format!("--output_format={format}")),
                &input,
            );
            assert!(ok, "{err}");
            assert_eq!(String::from_utf8(theirs).unwrap(), *ours, "{format}");
        }
    }
}

#[test]
fn framing_matches_spm_encode_extra_options() {
    let d = tempfile::tempdir().unwrap();
    let model = train(d.path());
    let input = text(DE, 30, 3).into_bytes();
    let out = encode(&model, &["--add-bos", "--add-eos"], &input);
    assert!(
        out.lines()
            .all(|l| l.starts_with("2 ") && l.ends_with(" 3")),
        "{out}"
    );
    if let Some(spm) = which("spm_encode") {
        let (ok, theirs, err) = piped_whole(
            debian(&spm)
                .arg(format!("--model={}", model.display()))
                .args(["--output_format=id", "--extra_options=bos:eos"]),
            &input,
        );
        assert!(ok, "{err}");
        assert_eq!(String::from_utf8(theirs).unwrap(), out);
    }
    let out = encode(&model, &["--add-eos", "--max-len", "3"], &input);
    assert!(
        out.lines()
            .all(|l| l.split(' ').count() <= 3 && l.ends_with(" 3")),
        "{out}"
    );
}

#[test]
fn errors_name_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let model = train(d.path());

    let bad = write(d.path(), "bad.txt", b"der Hund\ndie \xff Katze\n");
    let encode_bad = |model: &Path| cli!["tokenize", "encode", "--model", model, "--input", &bad];
    fail(
        &mut encode_bad(&model),
        "bad.txt:2: invalid UTF-8 at byte 4",
    );

    let (ok, _, err) = piped_whole(
        bitext()
            .args(["tokenize", "encode", "--empty", "error", "--model"])
            .arg(&model),
        b"der Hund\n\ndie Katze\n",
    );
    assert!(!ok && err.contains("<stdin>:2: empty line"), "{err}");

    let out = d.path().join("never.txt");
    for (name, bytes) in [
        ("missing.model", None),
        ("corrupt.model", Some(&b"not a model"[..])),
    ] {
        let path = d.path().join(name);
        if let Some(b) = bytes {
            std::fs::write(&path, b).unwrap();
        }
        fail(encode_bad(&path).arg("--output").arg(&out), name);
    }
    // A failed run leaves no output behind.
    fail(encode_bad(&model).arg("--output").arg(&out), "bad.txt:2");
    assert!(!out.exists());

    let decode = |input: &Path| cli!["tokenize", "decode", "--model", &model, "--input", input];
    let ids = write(d.path(), "ids.txt", "5 6\n7 x\n");
    fail(&mut decode(&ids), "ids.txt:2: not an id list");
    let ids = write(d.path(), "ids2.txt", "5 6\n7 90\n");
    fail(&mut decode(&ids), "ids2.txt:2: token id 90 is outside");

    let empty = write(d.path(), "e.de", "der Hund\n\n");
    let m2 = d.path().join("m2.model");
    let train = |extra: &[&str]| {
        let mut cmd = cli![
            "tokenize",
            "train",
            "--vocab-size",
            "40",
            "--input",
            &empty,
            "--model",
            &m2
        ];
        cmd.args(extra);
        cmd
    };
    fail(&mut train(&[]), "e.de:2: empty line");
    assert!(!m2.exists());
    // One sentence is too little for 40 pieces: sentencepiece's own message comes through.
    fail(
        &mut train(&["--skip-empty", "--model-type", "bpe"]),
        "sentencepiece",
    );
    fail(
        bitext().args(["tokenize", "train", "--vocab-size", "10", "--model", "x"]),
        "--input",
    );
}

#[test]
fn tokenize_subcommands_have_help() {
    assert_help(&[
        &["tokenize", "--help"],
        &["tokenize", "train", "--help"],
        &["tokenize", "encode", "--help"],
        &["tokenize", "decode", "--help"],
    ]);
}
