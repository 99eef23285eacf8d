//! `bitext embed --encoder onnx:…`: a pretrained ONNX graph (a small transformer-style graph
//! built in code, with a sentencepiece model trained here) embeds through the binary exactly as
//! `bitext_onnx::OnnxEncoder` does in process; graphs that cannot be run are named in the
//! error. Running a graph needs the ONNX Runtime library (`BITEXT_ONNXRUNTIME`); without it
//! that part says so and passes.
#![cfg(feature = "onnx")]

use std::path::{Path, PathBuf};

use bitext_core::io::npy;
use bitext_encode::{OnnxSpec, SentenceEncoder, Side};
use bitext_onnx::graph::build::token_states;
use bitext_testkit::data::word_lines;
use bitext_testkit::needs::{self, group};
use bitext_tokenize::{Sentencepiece, SequenceConfig, TokenizerSpec};

mod common;
use common::{cli, embed_with, fail, succeed, tokenize_train, write};

/// A sentencepiece model (trained by `bitext tokenize train`) and a graph over its pieces
/// (`graph::build::token_states`).
fn graph(dir: &Path) -> (PathBuf, PathBuf) {
    let words = ["hund", "katze", "haus", "dog", "cat", "house", "the", "der"];
    let text = word_lines(&words, 200, 5, 5, 2).join("\n") + "\n";
    let spm = dir.join("spm.model");
    succeed(tokenize_train(&write(dir, "spm.txt", text), 24, &spm).args(["--threads", "1"]));
    let pieces = Sentencepiece::open(&spm).unwrap().pieces().len();
    let (g, _) = token_states(pieces, 6, 2, false);
    (write(dir, "enc.onnx", g), spm)
}

#[test]
fn embed_runs_an_onnx_graph_as_the_library_does() {
    let d = tempfile::tempdir().unwrap();
    // A missing graph is named, whatever the runtime.
    let missing = format!("onnx:{}", d.path().join("missing.onnx").display());
    let x = write(d.path(), "x.txt", "a\n");
    fail(
        &mut embed_with(x, &missing, &d.path().join("x.npy")),
        "missing.onnx",
    );
    if needs::file(group::ONNX_RUNTIME, bitext_onnx::runtime_path(None).ok()).is_none() {
        return;
    }
    let (g, spm) = graph(d.path());
    let spec = OnnxSpec {
        tokenizer: Some(TokenizerSpec::Sentencepiece {
            model: spm,
            sequence: SequenceConfig::default(),
        }),
        batch: 2,
        ..OnnxSpec::new(&g)
    };
    let lines = ["der hund", "the cat house", "katze", "house house the dog"];
    let input = write(d.path(), "in.txt", lines.join("\n") + "\n");
    let out = d.path().join("out.npy");
    let encoder = bitext_encode::EncoderSpec::Onnx(spec.clone()).to_string();
    let (_, err) = succeed(&mut embed_with(&input, &encoder, &out));
    assert!(err.contains("embedded 4 sentences (6 dimensions)"), "{err}");
    let got = npy::read_npy(&out).unwrap();
    let want = bitext_onnx::OnnxEncoder::load(&spec)
        .unwrap()
        .encode(Side::Source, &lines)
        .unwrap();
    assert_eq!(got.as_slice(), want.as_slice());

    // Raw text to pairs in one command: the bytes of embed then mine.
    let other = write(d.path(), "other.txt", "the dog\nkatze katze\nhaus der\n");
    let other_npy = d.path().join("other.npy");
    succeed(embed_with(&other, &encoder, &other_npy).args(["--side", "target"]));
    let mine = |x: &Path, y: &Path, extra: &[&str]| {
        let mut c = cli![
            "mine",
            "-q",
            "-k",
            "2",
            "--src-embeddings",
            x,
            "--tgt-embeddings",
            y,
            "--src-text",
            &input,
            "--tgt-text",
            &other
        ];
        c.args(extra);
        succeed(&mut c).0
    };
    let want = mine(&out, &other_npy, &[]);
    let (xo, yo) = (d.path().join("one-x.npy"), d.path().join("one-y.npy"));
    assert_eq!(mine(&xo, &yo, &["--encoder", &encoder]), want);
    assert_eq!(std::fs::read(&xo).unwrap(), std::fs::read(&out).unwrap());

    // Streamed in chunks (more lines than one chunk of 4,096), BUCC ids and raw output: the rows
    // the library gives the whole file at once.
    let many: Vec<String> = (0..5000).map(|i| lines[i % 4].repeat(1 + i % 3)).collect();
    let bucc: String = many
        .iter()
        .enumerate()
        .map(|(i, l)| format!("de-{i}\t{l}\n"))
        .collect();
    let big = write(d.path(), "big.de", bucc);
    let big_out = d.path().join("big.f32");
    succeed(&mut embed_with(&big, &encoder, &big_out));
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let whole = bitext_onnx::OnnxEncoder::load(&spec_again(&encoder))
        .unwrap()
        .encode(Side::Source, &refs)
        .unwrap();
    let got =
        bitext_core::io::raw::read_raw(&big_out, 6, bitext_core::io::raw::RawDtype::F32).unwrap();
    assert_eq!(got.as_slice(), whole.as_slice());
    // A bad line in the middle of a stream is named, and nothing is written.
    let bad = write(d.path(), "bad.de", "de-1\tder hund\nde-2\t \nde-3\tkatze\n");
    let bad_out = d.path().join("bad.npy");
    fail(&mut embed_with(&bad, &encoder, &bad_out), "bad.de:2");
    assert!(!bad_out.exists());
}

fn spec_again(encoder: &str) -> OnnxSpec {
    match encoder.parse::<bitext_encode::EncoderSpec>().unwrap() {
        bitext_encode::EncoderSpec::Onnx(o) => o,
        other => panic!("not an onnx spec: {other}"),
    }
}

/// `train siamese --init-vectors SPEC`: the student's fixed subword table is the graph's own
/// embedding lookup (the spec's `output`, an intermediate tensor), one row per piece of the
/// graph's sentencepiece model, computed once into the cache and reused; a spec that names no
/// output is refused before any work.
#[cfg(feature = "neural")]
#[test]
fn a_student_starts_from_its_teachers_piece_vectors() {
    if needs::file(group::ONNX_RUNTIME, bitext_onnx::runtime_path(None).ok()).is_none() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let (_, spm) = graph(d.path());
    let spm_bytes = std::fs::read(&spm).unwrap();
    let sp = Sentencepiece::from_bytes(spm_bytes.clone()).unwrap();
    let pieces: Vec<String> = sp.pieces().iter().map(|p| p.piece.clone()).collect();
    let vocab = pieces.len();
    let (g, table) = bitext_onnx::graph::build::piece_lookup(&spm_bytes, vocab, 8, 4);
    let g = write(d.path(), "lookup.onnx", g);
    let spec = |output: &str| {
        format!(
            r#"{{"type": "onnx", "model": "{}"{output}, "batch": 7}}"#,
            g.display()
        )
    };
    let with_output = spec(r#", "output": "emb""#);
    let words = [
        ("der hund", "the dog"),
        ("die katze", "the cat"),
        ("das haus", "the house"),
    ];
    let (mut src, mut tgt) = (String::new(), String::new());
    for i in 0..24 {
        let (s, t) = words[i % 3];
        src.push_str(&format!("{s} {s}\n"));
        tgt.push_str(&format!("{t} {t}\n"));
    }
    let (src, tgt) = (write(d.path(), "s.txt", src), write(d.path(), "t.txt", tgt));
    let cache = d.path().join("cache");
    let train = |out: &str, init: &str| {
        let mut c = cli![
            "train",
            "siamese",
            "--src-text",
            &src,
            "--tgt-text",
            &tgt,
            "--spm",
            &spm,
            "--init-vectors",
            init,
            "--freeze-embeddings",
            "--emb-dim",
            "8",
            "--preset",
            "small",
            "--epochs",
            "1",
            "--negatives",
            "1",
            "-o",
            d.path().join(out)
        ];
        c.env("XDG_CACHE_HOME", &cache);
        c
    };
    let (_, err) = succeed(&mut train("m1", &with_output));
    assert!(
        err.contains(&format!("the vectors of its {vocab} pieces (8 dimensions)")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{vocab} of {vocab} rows (100.0%) from the vectors"
        )),
        "{err}"
    );
    // The cached table: every piece, keyed by its text, its row of the graph's table
    // normalised (the spec's default).
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(cache.join("bitext/pieces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let wv = bitext_core::io::vec::read_vec(&files[0], None).unwrap();
    assert_eq!(wv.len(), vocab);
    for (i, p) in pieces.iter().enumerate() {
        let mut want = table[i * 8..(i + 1) * 8].to_vec();
        bitext_core::normalize_row(&mut want);
        let got = wv.get(p).unwrap();
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-6, "{p}: {got:?} vs {want:?}");
        }
    }
    // Reused by a second run.
    let (_, err) = succeed(&mut train("m2", &with_output));
    assert!(err.contains("reusing") && err.contains("pieces-"), "{err}");
    // Without "output" the graph's sentence vectors would be taken for pieces: refused.
    fail(&mut train("m3", &spec("")), "\"output\"");
    assert!(!d.path().join("m3").exists());
    // A graph fed by the spec's tokenizer has no pieces of its own to key the table: refused.
    let padded = bitext_encode::EncoderSpec::Onnx(OnnxSpec {
        tokenizer: Some(TokenizerSpec::Sentencepiece {
            model: spm.clone(),
            sequence: SequenceConfig::default(),
        }),
        output: Some("emb".into()),
        ..OnnxSpec::new(d.path().join("enc.onnx"))
    })
    .to_string();
    fail(&mut train("m4", &padded), "its own sentencepiece tokenizer");
    assert!(!d.path().join("m4").exists());
}
