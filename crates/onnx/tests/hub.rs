//! `hf:ORG/NAME[@REVISION]` resolved in a fake Hugging Face cache built in a temporary
//! directory (the cache's root injected, never the process's environment): refs, named and
//! commit revisions, the graph and tokenizer rules, the sentence-transformers configuration,
//! what is missing, and the listing.

use std::path::{Path, PathBuf};

use bitext_encode::Pooling;
use bitext_onnx::hub::{self, HubName, cache_root_from, choose_graph, list, resolve};

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/// The files of a sentence-transformers export with CLS pooling and normalisation.
const ST: &[(&str, &str)] = &[
    (
        "config.json",
        r#"{"hidden_size": 384, "model_type": "bert"}"#,
    ),
    (
        "modules.json",
        r#"[{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]"#,
    ),
    (
        "1_Pooling/config.json",
        r#"{"word_embedding_dimension": 384, "pooling_mode_cls_token": true,
            "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": false}"#,
    ),
    ("tokenizer.json", "{}"),
    ("onnx/model.onnx", "graph"),
];

/// Write `files` into the snapshot `commit` of `repo` under `root`.
fn snapshot(root: &Path, repo: &str, commit: &str, files: &[(&str, &str)]) -> PathBuf {
    let snap = root
        .join(format!("models--{}", repo.replace('/', "--")))
        .join("snapshots")
        .join(commit);
    for (name, text) in files {
        let p = snap.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::create_dir_all(&snap).unwrap();
    snap
}

/// Write `refs/<rev>` of `repo` holding `text`.
fn refs(root: &Path, repo: &str, rev: &str, text: &str) {
    let p = root
        .join(format!("models--{}", repo.replace('/', "--")))
        .join("refs")
        .join(rev);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn name(s: &str) -> HubName {
    HubName::parse(s).unwrap()
}

fn err(root: &Path, s: &str) -> String {
    resolve(root, &name(s)).unwrap_err().to_string()
}

#[test]
fn main_resolves_through_its_refs_file() {
    let d = tempfile::tempdir().unwrap();
    let snap = snapshot(d.path(), "org/st", A, ST);
    refs(d.path(), "org/st", "main", &format!("{A}\n"));
    let m = resolve(d.path(), &name("hf:org/st")).unwrap();
    assert_eq!(m.commit, A);
    assert_eq!(m.snapshot, snap);
    assert_eq!(m.graph, snap.join("onnx/model.onnx"));
    assert_eq!(m.tokenizer, snap.join("tokenizer.json"));
    assert_eq!(
        (m.pooling, m.normalize, m.dim),
        (Pooling::Cls, true, Some(384))
    );
    assert!(m.notes.is_empty(), "{:?}", m.notes);
    let spec = m.spec();
    assert_eq!(spec.model, m.graph);
    assert_eq!((spec.pooling, spec.normalize), (Pooling::Cls, true));
    let json = serde_json::to_string(&spec).unwrap();
    assert!(json.contains("tokenizer_json"), "{json}");
}

#[test]
fn a_named_revision_and_a_commit_hash_pick_their_snapshots() {
    let d = tempfile::tempdir().unwrap();
    snapshot(d.path(), "org/st", A, ST);
    let other = snapshot(
        d.path(),
        "org/st",
        B,
        &[("model.onnx", "g"), ("tokenizer.json", "{}")],
    );
    refs(d.path(), "org/st", "main", A);
    refs(d.path(), "org/st", "v2", B);
    let m = resolve(d.path(), &name("org/st@v2")).unwrap();
    assert_eq!(
        (m.commit.as_str(), m.graph.clone()),
        (B, other.join("model.onnx"))
    );
    // A commit names its snapshot without a refs file (case-insensitive hex).
    let m = resolve(d.path(), &name(&format!("org/st@{}", B.to_uppercase()))).unwrap();
    assert_eq!(m.snapshot, other);
    // Without modules.json or a pooling config: mean, normalised, said in the notes.
    assert_eq!((m.pooling, m.normalize, m.dim), (Pooling::Mean, true, None));
    assert_eq!(m.notes.len(), 2, "{:?}", m.notes);
    let e = err(d.path(), &format!("org/st@{}", "c".repeat(40)));
    assert!(
        e.contains("no snapshot") && e.contains(&"c".repeat(40)),
        "{e}"
    );
    let e = err(d.path(), "org/st@v3");
    assert!(e.contains("not in the Hugging Face cache"), "{e}");
    assert!(
        e.contains(&format!("refs{}v3", std::path::MAIN_SEPARATOR)),
        "{e}"
    );
}

#[test]
fn malformed_or_missing_refs_are_errors_naming_the_file() {
    let d = tempfile::tempdir().unwrap();
    snapshot(d.path(), "org/st", A, ST);
    for bad in ["", "not-a-hash", &A[..39], &format!("{A}0")] {
        refs(d.path(), "org/st", "main", bad);
        let e = err(d.path(), "org/st");
        assert!(
            e.contains("not a commit hash") && e.contains("main"),
            "{bad:?}: {e}"
        );
    }
    refs(d.path(), "org/st", "main", B);
    let e = err(d.path(), "org/st");
    assert!(e.contains("no snapshot") && e.contains(B), "{e}");
    let e = err(d.path(), "org/absent");
    assert!(e.contains("models--org--absent"), "{e}");
    assert!(e.contains("--download hf:org/absent"), "{e}");
}

#[test]
fn missing_graph_or_tokenizer_name_what_was_looked_for() {
    let d = tempfile::tempdir().unwrap();
    let no_graph: Vec<_> = ST
        .iter()
        .copied()
        .filter(|f| !f.0.ends_with(".onnx"))
        .collect();
    snapshot(d.path(), "org/a", A, &no_graph);
    refs(d.path(), "org/a", "main", A);
    let e = err(d.path(), "org/a");
    assert!(
        e.contains("no ONNX graph") && e.contains("onnx/model.onnx"),
        "{e}"
    );
    let no_tok: Vec<_> = ST
        .iter()
        .copied()
        .filter(|f| f.0 != "tokenizer.json")
        .collect();
    snapshot(d.path(), "org/b", A, &no_tok);
    refs(d.path(), "org/b", "main", A);
    let e = err(d.path(), "org/b");
    assert!(
        e.contains("no tokenizer.json") && e.contains("onnx/tokenizer.json, tokenizer.json"),
        "{e}"
    );
}

#[test]
fn the_graph_rule_prefers_the_usual_names_then_a_single_file() {
    assert_eq!(
        choose_graph(&["model.onnx", "onnx/model.onnx"]),
        Ok("onnx/model.onnx")
    );
    assert_eq!(
        choose_graph(&["model.onnx", "onnx/x.onnx"]),
        Ok("model.onnx")
    );
    assert_eq!(
        choose_graph(&["a.txt", "onnx/model_qint8.onnx"]),
        Ok("onnx/model_qint8.onnx")
    );
    assert_eq!(
        choose_graph(&["onnx/b.onnx", "a.onnx", "deep/dir/c.onnx"]),
        Err(vec!["a.onnx", "onnx/b.onnx"])
    );
    assert_eq!(choose_graph(&["deep/dir/c.onnx", "model.bin"]), Err(vec![]));

    // On disk: several candidates are an error listing them.
    let d = tempfile::tempdir().unwrap();
    snapshot(
        d.path(),
        "org/q",
        A,
        &[
            ("onnx/model_q4.onnx", "g"),
            ("onnx/model_fp16.onnx", "g"),
            ("tokenizer.json", "{}"),
        ],
    );
    refs(d.path(), "org/q", "main", A);
    let e = err(d.path(), "org/q");
    assert!(
        e.contains("onnx/model_fp16.onnx, onnx/model_q4.onnx"),
        "{e}"
    );
    // A tokenizer.json beside the graph comes before the top one.
    snapshot(
        d.path(),
        "org/t",
        A,
        &[
            ("onnx/model.onnx", "g"),
            ("onnx/tokenizer.json", "{}"),
            ("tokenizer.json", "{}"),
        ],
    );
    refs(d.path(), "org/t", "main", A);
    let m = resolve(d.path(), &name("org/t")).unwrap();
    assert!(
        m.tokenizer.ends_with("onnx/tokenizer.json"),
        "{:?}",
        m.tokenizer
    );
}

#[test]
fn sentence_transformers_configuration_sets_pooling_normalisation_and_dimension() {
    let d = tempfile::tempdir().unwrap();
    let with = |files: &[(&str, &str)]| {
        let mut all: Vec<(&str, &str)> = vec![("onnx/model.onnx", "g"), ("tokenizer.json", "{}")];
        all.extend_from_slice(files);
        let _ = std::fs::remove_dir_all(d.path().join("models--org--m"));
        snapshot(d.path(), "org/m", A, &all);
        refs(d.path(), "org/m", "main", A);
        resolve(d.path(), &name("org/m"))
    };
    let mean = r#"{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": false, "word_embedding_dimension": 768}"#;
    let plain = r#"[{"path": "", "type": "sentence_transformers.models.Transformer"},
                    {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]"#;
    let m = with(&[("modules.json", plain), ("1_Pooling/config.json", mean)]).unwrap();
    // No Normalize module: not normalised; the pooling config's dimension without config.json.
    assert_eq!(
        (m.pooling, m.normalize, m.dim),
        (Pooling::Mean, false, Some(768))
    );
    // The Pooling module's own directory.
    let moved = r#"[{"path": "pool", "type": "sentence_transformers.models.Pooling"}]"#;
    let cls = r#"{"pooling_mode_cls_token": true}"#;
    let m = with(&[("modules.json", moved), ("pool/config.json", cls)]).unwrap();
    assert_eq!(m.pooling, Pooling::Cls);
    // A Dense module leaves the dimension unknown, with a note.
    let dense = r#"[{"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                    {"path": "2_Dense", "type": "sentence_transformers.models.Dense"}]"#;
    let m = with(&[
        ("modules.json", dense),
        ("config.json", r#"{"hidden_size": 768}"#),
    ])
    .unwrap();
    assert_eq!(m.dim, None);
    assert!(
        m.notes.iter().any(|n| n.contains("2_Dense")),
        "{:?}",
        m.notes
    );
    // Max pooling, or two modes at once, cannot be run.
    let max = r#"{"pooling_mode_max_tokens": true, "pooling_mode_mean_tokens": false}"#;
    let e = with(&[("1_Pooling/config.json", max)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pooling_mode_max_tokens") && e.contains("1_Pooling"),
        "{e}"
    );
    let two = r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}"#;
    assert!(with(&[("1_Pooling/config.json", two)]).is_err());
    // Malformed files are errors naming them.
    let e = with(&[("modules.json", "[{")]).unwrap_err().to_string();
    assert!(e.contains("modules.json") && e.contains("not JSON"), "{e}");
    let e = with(&[("modules.json", "{}")]).unwrap_err().to_string();
    assert!(e.contains("a list of modules"), "{e}");
    let e = with(&[("config.json", "nope")]).unwrap_err().to_string();
    assert!(e.contains("config.json"), "{e}");
}

#[test]
fn names_parse_and_print() {
    let n = name("hf:org/model-1.5_x@v1.0");
    assert_eq!((n.repo(), n.revision()), ("org/model-1.5_x", "v1.0"));
    assert_eq!(n.to_string(), "org/model-1.5_x@v1.0");
    assert_eq!(name("org/m").to_string(), "org/m");
    assert_eq!(name("org/m@refs/pr/1").revision(), "refs/pr/1");
    assert_eq!(name("gpt2").folder(), "models--gpt2");
    assert!(name(&format!("o/m@{A}")).is_commit());
    for bad in [
        "",
        "org/",
        "/m",
        "a/b/c",
        "org/m@",
        "org/../m",
        "org/m@../x",
        "o r/m",
        "org/a--b",
    ] {
        assert!(HubName::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn the_cache_root_follows_the_hub_variables() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.into())
    };
    let all = env(&[("HF_HUB_CACHE", "/c"), ("HF_HOME", "/h"), ("HOME", "/u")]);
    assert_eq!(cache_root_from(all), Some(PathBuf::from("/c")));
    let home = env(&[("HF_HUB_CACHE", ""), ("HF_HOME", "/h"), ("HOME", "/u")]);
    assert_eq!(cache_root_from(home), Some(PathBuf::from("/h/hub")));
    let user = env(&[("HOME", "/u")]);
    assert_eq!(
        cache_root_from(user),
        Some(PathBuf::from("/u/.cache/huggingface/hub"))
    );
    assert_eq!(cache_root_from(env(&[])), None);
}

#[test]
fn the_listing_shows_models_with_a_graph_and_what_they_lack() {
    let d = tempfile::tempdir().unwrap();
    snapshot(d.path(), "org/st", A, ST);
    refs(d.path(), "org/st", "main", A);
    // hf-hub's refs file named by the commit lists once, as main.
    refs(d.path(), "org/st", A, A);
    // A snapshot no refs file names, listed by its commit.
    snapshot(
        d.path(),
        "org/st",
        B,
        &[("model.onnx", "g"), ("tokenizer.json", "{}")],
    );
    // A graph without a tokenizer: listed, with the error.
    snapshot(d.path(), "org/notok", A, &[("model.onnx", "g")]);
    refs(d.path(), "org/notok", "main", A);
    // No graph at all (a PyTorch model): not listed.
    snapshot(d.path(), "org/torch", A, &[("model.safetensors", "w")]);
    refs(d.path(), "org/torch", "main", A);
    std::fs::create_dir_all(d.path().join("datasets--org--data")).unwrap();
    let got: Vec<(String, bool)> = list(d.path())
        .iter()
        .map(|l| (l.name.to_string(), l.model.is_ok()))
        .collect();
    let want = [
        ("org/notok".to_string(), false),
        ("org/st".to_string(), true),
        (format!("org/st@{B}"), true),
    ];
    assert_eq!(got, want);
    let l = list(d.path());
    assert!(
        l[0].model
            .as_ref()
            .unwrap_err()
            .contains("no tokenizer.json")
    );
    assert_eq!(l[1].commit.as_deref(), Some(A));
    assert!(list(&d.path().join("absent")).is_empty());
}

#[test]
#[cfg(unix)]
fn a_link_to_a_missing_blob_is_not_a_file() {
    // The cache's snapshot files are links into blobs/; a blob an interrupted download never
    // wrote leaves nothing to resolve.
    let d = tempfile::tempdir().unwrap();
    let snap = snapshot(d.path(), "org/l", A, &[("tokenizer.json", "{}")]);
    std::fs::create_dir_all(snap.join("onnx")).unwrap();
    std::os::unix::fs::symlink("../../../blobs/missing", snap.join("onnx/model.onnx")).unwrap();
    refs(d.path(), "org/l", "main", A);
    assert!(err(d.path(), "org/l").contains("no ONNX graph"));
    assert!(hub::graphs_in(&snap).is_empty());
}
