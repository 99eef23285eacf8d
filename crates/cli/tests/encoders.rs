//! `bitext encoders` and `--encoder hf:ORG/NAME`: a fake Hugging Face cache in a temporary
//! directory (`HF_HUB_CACHE` of the child process), listed as a table and as JSON; an `hf:`
//! name embeds as the JSON spec of the same files does (with ONNX Runtime); `--download` from
//! a hub on 127.0.0.1 (`HF_ENDPOINT`, feature `hub`).
#![cfg(feature = "onnx")]

use std::path::{Path, PathBuf};
use std::process::Command;

use bitext_onnx::graph::build::token_states;
use bitext_testkit::needs::{self, group};

mod common;
use common::{bitext, embed_with, fail, succeed, write};

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// [`write`], creating `dir` first.
fn put(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    write(dir, name, content)
}

const WORDS: [&str; 8] = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "house", "tree",
];

/// `org/tiny` in a cache at `root`: a real transformer-style graph (4 dimensions), its
/// tokenizer, CLS pooling, no normalisation. The snapshot directory.
fn tiny_model(root: &Path) -> PathBuf {
    let dir = root.join("models--org--tiny");
    let snap = dir.join("snapshots").join(A);
    let (graph, _) = token_states(WORDS.len(), 4, 9, true);
    put(&snap.join("onnx"), "model.onnx", graph);
    put(
        &snap,
        "tokenizer.json",
        bitext_testkit::tokenizer::word_level_json(&WORDS),
    );
    put(&snap, "config.json", r#"{"hidden_size": 4}"#);
    put(
        &snap,
        "modules.json",
        r#"[{"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]"#,
    );
    put(
        &snap.join("1_Pooling"),
        "config.json",
        r#"{"pooling_mode_cls_token": true}"#,
    );
    put(&dir.join("refs"), "main", A);
    snap
}

/// `bitext ARGS` with the cache at `root` and no USE-M graph.
fn in_cache(root: &Path) -> Command {
    let mut c = bitext();
    c.env("HF_HUB_CACHE", root).env_remove("USEM_ONNX");
    c
}

#[test]
fn the_listing_names_each_model_and_what_it_needs() {
    let d = tempfile::tempdir().unwrap();
    let snap = tiny_model(d.path());
    // A graph without a tokenizer: listed with what it lacks.
    put(
        &d.path().join("models--org--half/snapshots").join(A),
        "model.onnx",
        "g",
    );
    put(&d.path().join("models--org--half/refs"), "main", A);
    let (out, _) = succeed(in_cache(d.path()).arg("encoders"));
    let line = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not in:\n{out}"))
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        line("hf:org/tiny")[1..7],
        [
            "aaaaaaaaaaaa",
            "onnx/model.onnx",
            "tokenizer.json",
            "cls",
            "4",
            "no"
        ]
    );
    assert!(out.contains("ENCODER") && out.contains("NEEDS"), "{out}");
    assert!(
        line("hf:org/half").join(" ").contains("no tokenizer.json"),
        "{out}"
    );
    assert!(out.contains(&d.path().display().to_string()), "{out}");

    let (json, _) = succeed(
        in_cache(d.path())
            .env("USEM_ONNX", d.path().join("usem.onnx"))
            .args(["encoders", "--json"]),
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let e = v["encoders"].as_array().unwrap();
    assert_eq!(e.len(), 3, "{json}");
    let tiny = e.iter().find(|r| r["encoder"] == "hf:org/tiny").unwrap();
    assert_eq!(
        tiny["graph"],
        snap.join("onnx/model.onnx").display().to_string()
    );
    assert_eq!(
        (tiny["dim"].as_u64(), tiny["pooling"].as_str()),
        (Some(4), Some("cls"))
    );
    assert_eq!(tiny["normalize"], false);
    let usem = e.iter().find(|r| r["tokenizer"] == "in the graph").unwrap();
    assert!(
        usem["needs"][0].as_str().unwrap().contains("not a file"),
        "{json}"
    );

    // An empty cache says how to fill it.
    let empty = tempfile::tempdir().unwrap();
    let (out, _) = succeed(in_cache(empty.path()).arg("encoders"));
    assert!(out.contains("--download hf:ORG/NAME"), "{out}");
}

#[test]
fn an_hf_name_is_the_spec_of_its_files() {
    let d = tempfile::tempdir().unwrap();
    let snap = tiny_model(d.path());
    let x = write(d.path(), "x.txt", "The cat\ntree house tree\n");
    // Not in the cache: refused when the flag is parsed, saying where it looked.
    fail(
        in_cache(d.path()).args(["embed", "--input"]).arg(&x).args([
            "--encoder",
            "hf:org/absent",
            "-o",
            "o.npy",
        ]),
        "not in the Hugging Face cache",
    );
    fail(
        in_cache(d.path()).args(["embed", "--input"]).arg(&x).args([
            "--encoder",
            "hf:org/tiny@nope",
            "-o",
            "o.npy",
        ]),
        "refs",
    );
    let Some(rt) = needs::file(group::ONNX_RUNTIME, bitext_onnx::runtime_path(None).ok()) else {
        return;
    };
    let by_name = d.path().join("name.npy");
    succeed(
        embed_with(&x, "hf:org/tiny", &by_name)
            .env("HF_HUB_CACHE", d.path())
            .env("BITEXT_ONNXRUNTIME", &rt),
    );
    let spec = serde_json::json!({
        "type": "onnx",
        "model": snap.join("onnx/model.onnx"),
        "tokenizer": {"type": "tokenizer_json", "file": snap.join("tokenizer.json")},
        "pooling": "cls",
        "normalize": false,
    });
    let by_spec = d.path().join("spec.npy");
    succeed(embed_with(&x, &spec.to_string(), &by_spec).env("BITEXT_ONNXRUNTIME", &rt));
    assert_eq!(
        std::fs::read(by_name).unwrap(),
        std::fs::read(by_spec).unwrap()
    );
}

#[cfg(feature = "hub")]
#[test]
fn download_fetches_from_the_endpoint_into_the_cache() {
    use std::io::{Read, Write};
    // The source of `tiny_model`'s files, served as the hub serves them.
    let src = tempfile::tempdir().unwrap();
    let snap = tiny_model(src.path());
    let files = [
        "config.json",
        "modules.json",
        "1_Pooling/config.json",
        "tokenizer.json",
        "onnx/model.onnx",
    ];
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let served = snap.clone();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut b = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && s.read(&mut b).unwrap_or(0) == 1 {
                head.push(b[0]);
            }
            let head = String::from_utf8_lossy(&head).to_string();
            let path = head.split(' ').nth(1).unwrap_or("").to_string();
            let range = head
                .lines()
                .find_map(|l| l.strip_prefix("Range: bytes="))
                .map(str::to_string);
            let (status, headers, body) = if path.starts_with("/api/models/org/tiny/revision/") {
                let sib: Vec<String> = files
                    .iter()
                    .map(|f| format!(r#"{{"rfilename":"{f}"}}"#))
                    .collect();
                (
                    "200 OK",
                    String::new(),
                    format!(r#"{{"sha":"{A}","siblings":[{}]}}"#, sib.join(",")).into_bytes(),
                )
            } else if let Some(f) = path.strip_prefix(&format!("/org/tiny/resolve/{A}/")) {
                let all = std::fs::read(served.join(f)).unwrap();
                let n = all.len();
                let (from, to) = match range.as_deref().and_then(|r| r.split_once('-')) {
                    Some((a, "")) => (a.parse().unwrap(), n - 1),
                    Some((a, b)) => (a.parse().unwrap(), b.parse().unwrap()),
                    None => (0, n - 1),
                };
                let h = format!(
                    "x-repo-commit: {A}\r\nETag: \"e{n}x{}\"\r\nContent-Range: bytes {from}-{to}/{n}\r\n",
                    f.len()
                );
                ("206 Partial Content", h, all[from..=to].to_vec())
            } else {
                ("404 Not Found", String::new(), Vec::new())
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(&body);
        }
    });
    let d = tempfile::tempdir().unwrap();
    let (out, _) = succeed(in_cache(d.path()).env("HF_ENDPOINT", &endpoint).args([
        "encoders",
        "-q",
        "--download",
        "hf:org/tiny",
    ]));
    assert!(out.lines().any(|l| l.starts_with("hf:org/tiny ")), "{out}");
    let got = d
        .path()
        .join("models--org--tiny/snapshots")
        .join(A)
        .join("onnx/model.onnx");
    assert_eq!(
        std::fs::read(got).unwrap(),
        std::fs::read(snap.join("onnx/model.onnx")).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("models--org--tiny/refs/main")).unwrap(),
        A
    );
}
