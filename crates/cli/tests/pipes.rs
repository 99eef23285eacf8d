//! The Unix way through every text and TSV command: `-` for standard input and output, `.gz`,
//! `.xz` and `.zst` by extension, outputs checked before work, and bad streams (truncated or
//! corrupt compressed input, binary data on standard input, a reader that closes standard
//! output early) ending in a clear error or a clean exit, never a panic or a partial file.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bitext_core::io::{AtomicFile, LineReader};
use bitext_core::{Embeddings, Rng};

mod common;
use common::{cli, emd, fail, mine_embeddings, piped, read, succeed, with_input, write, write_raw};

/// `text` written to `dir/name` compressed by its extension (bitext's own writer; the
/// compressed formats themselves are tested in bitext-core).
fn compressed(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    let mut f = AtomicFile::create_text(&p).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.commit().unwrap();
    p
}

/// The text of a (possibly compressed) file, read back line by line.
fn text_of(path: &Path) -> String {
    let mut r = LineReader::open(path).unwrap();
    let mut s = String::new();
    while r.advance().unwrap() {
        s.push_str(r.line());
        s.push('\n');
    }
    s
}

fn vectors(dir: &Path) -> (PathBuf, PathBuf) {
    (
        write(dir, "de.vec", "3 2\nhund 1 0\nkatze 0 1\nbaum -1 0.2\n"),
        compressed(
            dir,
            "en.vec.gz",
            "3 2\ndog 0.95 0.05\ncat 0.05 0.95\ntree -0.98 0.1\n",
        ),
    )
}

const TSV: &str = "u1\tHund\tdog\nu2\tHund Katze\tcat\nu3\tBaum\tdog\nu4\tKatze\tcat\n";

fn score(de: &Path, en: &Path, input: &str, output: &str) -> Command {
    emd("score", de, en, input, output)
}

#[test]
fn score_and_filter_read_stdin_write_stdout_and_compress_by_extension() {
    let (d, plain_in) = with_input(TSV);
    let (de, en) = vectors(d.path());
    let plain_out = d.path().join("out.tsv");
    let p = |p: &Path| p.to_str().unwrap().to_string();
    succeed(&mut score(&de, &en, &p(&plain_in), &p(&plain_out)));
    let want = read(&plain_out);
    assert_eq!(want.lines().count(), 4);
    // stdin → stdout.
    let (ok, out, err) = piped(&mut score(&de, &en, "-", "-"), TSV.as_bytes());
    assert!(ok, "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), want);
    // .gz → .zst and .xz → .gz.
    for (src, dst) in [("in.tsv.gz", "out.tsv.zst"), ("in.tsv.xz", "out.tsv.gz")] {
        let input = compressed(d.path(), src, TSV);
        let output = d.path().join(dst);
        succeed(&mut score(&de, &en, &p(&input), &p(&output)));
        assert_ne!(std::fs::read(&output).unwrap(), want.as_bytes(), "{dst}");
        assert_eq!(text_of(&output), want, "{dst}");
    }
    // filter: the same lines kept from a file and from stdin.
    let filter = |input: &str, output: &str| {
        let mut c = emd("filter", &de, &en, input, output);
        c.args(["-q", "--budget-lines", "2"]);
        c
    };
    let kept = d.path().join("kept.tsv.gz");
    succeed(&mut filter(&p(&plain_in), &p(&kept)));
    let (ok, out, err) = piped(&mut filter("-", "-"), TSV.as_bytes());
    assert!(ok, "{err}");
    assert_eq!(String::from_utf8(out).unwrap(), text_of(&kept));
    assert_eq!(text_of(&kept).lines().count(), 2);
}

#[test]
fn embed_mine_and_eval_take_streams() {
    let d = tempfile::tempdir().unwrap();
    let (de, en) = vectors(d.path());
    // embed: sentences on stdin (BUCC format detected by peeking), vectors from .vec.gz.
    let bucc = "en-1\tdog\nen-2\tcat\nen-3\ttree\n";
    let spec = format!(r#"{{"type":"bow","vectors":"{}"}}"#, en.display());
    let from_file = d.path().join("a.f32");
    let file = write(d.path(), "en.txt", bucc);
    succeed(&mut cli![
        "embed",
        "-q",
        "--encoder",
        &spec,
        "--input",
        &file,
        "-o",
        &from_file
    ]);
    let from_stdin = d.path().join("b.f32");
    let (ok, _, err) = piped(
        &mut cli![
            "embed",
            "-q",
            "--encoder",
            &spec,
            "--input",
            "-",
            "-o",
            &from_stdin
        ],
        bucc.as_bytes(),
    );
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read(&from_stdin).unwrap(),
        std::fs::read(&from_file).unwrap()
    );
    assert_eq!(std::fs::read(&from_file).unwrap().len(), 3 * 2 * 4);
    let _ = de;
    // mine: pairs to stdout with -o -, and to a compressed file.
    let mut rng = Rng::seed(3);
    let x: Vec<f32> = (0..12 * 8).map(|_| rng.normal() as f32).collect();
    let y: Vec<f32> = x.iter().map(|v| v + 0.05 * rng.normal() as f32).collect();
    let xf = write_raw(d.path(), "x.f32", &Embeddings::new(x, 8).unwrap());
    let yf = write_raw(d.path(), "y.f32", &Embeddings::new(y, 8).unwrap());
    let mine = |out: &str| {
        let mut c = mine_embeddings(8, &xf, &yf);
        c.args(["-o", out]);
        c
    };
    let (stdout, _) = succeed(&mut mine("-"));
    assert_eq!(stdout.lines().count(), 12, "{stdout}");
    let xz = d.path().join("pairs.tsv.xz");
    succeed(&mut mine(xz.to_str().unwrap()));
    assert_eq!(text_of(&xz), stdout);
    // eval: a compressed gold file and the mined pairs on stdin.
    let gold: String = (0..12).map(|i| format!("{i}\t{i}\n")).collect();
    let gold = compressed(d.path(), "gold.zst", &gold);
    let (ok, out, err) = piped(
        &mut cli!["eval", "bucc", "--gold", &gold, "--mined", "-"],
        stdout.as_bytes(),
    );
    assert!(ok, "{err}");
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("all pairs: P 1.0000 R 1.0000"), "{out}");
    // The one-command path reads its text twice, so it refuses stdin by name.
    let e = piped(
        &mut cli![
            "mine",
            "-q",
            "--encoder",
            &spec,
            "--src-text",
            "-",
            "--tgt-text",
            &file,
            "--src-embeddings",
            d.path().join("s.npy"),
            "--tgt-embeddings",
            d.path().join("t.npy")
        ],
        bucc.as_bytes(),
    );
    assert!(!e.0 && e.2.contains("standard input (-)"), "{}", e.2);
}

#[test]
fn bad_streams_give_clear_errors_and_no_partial_output() {
    let d = tempfile::tempdir().unwrap();
    let (de, en) = vectors(d.path());
    let out = d.path().join("out.tsv");
    let o = out.to_str().unwrap();
    // Truncated and corrupt compressed input.
    let gz = compressed(d.path(), "in.tsv.gz", &TSV.repeat(200));
    let bytes = std::fs::read(&gz).unwrap();
    let cut = write(d.path(), "cut.tsv.gz", &bytes[..bytes.len() / 2]);
    fail(
        &mut score(&de, &en, cut.to_str().unwrap(), o),
        "cut.tsv.gz: corrupt or truncated gzip data",
    );
    let junk = write(d.path(), "junk.tsv.zst", "not zstd at all\n");
    fail(
        &mut score(&de, &en, junk.to_str().unwrap(), o),
        "junk.tsv.zst: corrupt or truncated zstd data",
    );
    assert!(!out.exists(), "no partial output");
    // Binary data on standard input: the line is named.
    let (ok, _, err) = piped(
        &mut score(&de, &en, "-", o),
        b"u1\tHund\tdog\n\xff\xfe\x00\x01\n",
    );
    assert!(!ok && err.contains("<stdin>:2: invalid UTF-8"), "{err}");
    assert!(!out.exists(), "no partial output");
    // A binary format refuses a stream by name.
    fail(
        &mut mine_embeddings(8, "x.f32.gz", "y.f32"),
        "cannot be gzip compressed",
    );
    // A missing output directory fails before any input is read (the inputs do not exist).
    fail(
        mine_embeddings(8, "none.f32", "none.f32")
            .arg("-o")
            .arg(d.path().join("missing/x.tsv")),
        "directory",
    );
    assert!(!d.path().join("missing").exists());
}

#[test]
fn a_reader_that_closes_stdout_early_ends_the_command_cleanly() {
    let (d, input) = with_input(TSV.repeat(20_000));
    let (de, en) = vectors(d.path());
    // Enough output to fill the pipe after the reader has gone.
    let mut child = score(&de, &en, input.to_str().unwrap(), "-")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("u1\tHund\tdog\t"), "{first}");
    // The reader is dropped here: stdout is closed.
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}: {err}");
    assert!(!err.contains("panicked") && !err.contains("error"), "{err}");
}
