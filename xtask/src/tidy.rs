//! Tidy checks, run as tests by `cargo test` (and so by `cargo xtask ci`): the architecture
//! invariants of `ARCHITECTURE.md` and the style rules of the project, checked on the sources, and
//! the rules of the documents themselves (`tidy/docs.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::project_root;

mod commands;
mod docs;
mod specs;
mod writes;

/// Longest a source file may grow before it must be split by role.
const MAX_LINES: usize = 600;

/// The data flow, as ranks: a crate may depend only on crates of lower rank.
/// text → tokenize → encode → knn → similarity → {transport, lexical, neural, onnx} → mine →
/// {eval, shard} → cli.
const RANKS: &[(&str, u32)] = &[
    ("bitext-core", 0),
    ("bitext-tokenize", 1),
    // Language identification: text in, a language out (beside the encoders).
    ("bitext-lid", 2),
    // Cleaning a crawl: rule filters and near-duplicate keys over text (and its languages).
    ("bitext-clean", 3),
    ("bitext-encode", 2),
    ("bitext-knn", 3),
    ("bitext-similarity", 4),
    ("bitext-transport", 5),
    ("bitext-lexical", 5),
    ("bitext-neural", 5),
    // Pretrained ONNX encoders (ONNX Runtime): beside the neural models, after encode.
    ("bitext-onnx", 5),
    ("bitext-mine", 6),
    // Test support: the conformance suites of the traits of the crates above; a
    // dev-dependency of integration tests only (`testkit_is_only_used_by_integration_tests`).
    ("bitext-testkit", 6),
    ("bitext-eval", 7),
    // The pair classifier: features from every scorer, calibrated by eval's calibration.
    ("bitext-classify", 8),
    // Sharded mining: steps over the mining recipe (its own stage after mine).
    ("bitext-shard", 9),
    ("bitext-cli", 10),
    // The Python extension module (the `bitext` wheel): a binary beside the CLI.
    ("bitext-python", 10),
];

/// The crates that build a binary for users (the `bitext` command, the Python extension
/// module): the only ones that may depend on bitext-neural.
const BINARIES: &[&str] = &["bitext-cli", "bitext-python"];

pub(super) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name()
                .is_some_and(|n| n != "target" && !n.to_string_lossy().starts_with('.'))
            {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `f` relative to the project root, with `/` separators: how tidy's messages and lists name
/// files.
pub(super) fn relative(f: &Path) -> String {
    f.strip_prefix(project_root())
        .unwrap_or(f)
        .to_string_lossy()
        .replace('\\', "/")
}

pub(super) fn all_sources() -> Vec<PathBuf> {
    let root = project_root();
    let mut files = Vec::new();
    for dir in ["crates", "src", "examples", "benches", "xtask"] {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(
        files.len() > 10,
        "found too few sources under {}",
        root.display()
    );
    files
}

#[test]
fn every_file_opens_with_module_docs_and_stays_small() {
    let mut bad = Vec::new();
    for f in all_sources() {
        let text = std::fs::read_to_string(&f).unwrap();
        if !text.trim_start().starts_with("//!") {
            bad.push(format!(
                "{}: does not open with a `//!` comment",
                f.display()
            ));
        }
        let n = text.lines().count();
        if n > MAX_LINES {
            bad.push(format!(
                "{}: {n} lines (split it by role; limit {MAX_LINES})",
                f.display()
            ));
        }
    }
    assert!(bad.is_empty(), "tidy:\n{}", bad.join("\n"));
}

/// `[dependencies]`-like sections of a manifest: dependency names per section kind.
fn dependencies(manifest: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut section = String::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.trim_matches(['[', ']']).to_string();
            // `[dependencies.foo]` declares foo.
            for kind in ["dependencies", "build-dependencies", "dev-dependencies"] {
                if let Some(name) = section.strip_prefix(&format!("{kind}.")) {
                    out.entry(kind.to_string())
                        .or_default()
                        .push(name.to_string());
                }
            }
            continue;
        }
        let kind = section.rsplit('.').next().unwrap_or_default();
        if ["dependencies", "build-dependencies", "dev-dependencies"].contains(&kind)
            && !line.is_empty()
            && !line.starts_with('#')
        {
            let name = line.split(['=', '.']).next().unwrap_or_default().trim();
            out.entry(kind.to_string())
                .or_default()
                .push(name.to_string());
        }
    }
    out
}

#[test]
fn crates_follow_the_data_flow_and_only_neural_uses_burn() {
    let root = project_root();
    let mut bad = Vec::new();
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        seen += 1;
        let name = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("name = "))
            .map(|n| n.trim_matches('"').to_string())
            .unwrap();
        let rank = RANKS.iter().find(|(n, _)| *n == name).map(|r| r.1);
        let Some(rank) = rank else {
            bad.push(format!(
                "{name}: not placed in the data flow (add it to RANKS and ARCHITECTURE.md)"
            ));
            continue;
        };
        let deps = dependencies(&text);
        for kind in ["dependencies", "build-dependencies"] {
            for dep in deps.get(kind).into_iter().flatten() {
                if dep.starts_with("burn") && name != "bitext-neural" {
                    bad.push(format!(
                        "{name}: depends on {dep}; only bitext-neural may use burn"
                    ));
                }
                if dep == "bitext-neural" && !BINARIES.contains(&name.as_str()) {
                    bad.push(format!(
                        "{name}: depends on bitext-neural (it would pull in burn)"
                    ));
                }
                if let Some((_, r)) = RANKS.iter().find(|(n, _)| n == dep)
                    && *r >= rank
                    && dep != "bitext-neural"
                {
                    bad.push(format!(
                        "{name} (rank {rank}) depends on {dep} (rank {r}): against the data flow"
                    ));
                }
            }
        }
    }
    assert_eq!(seen, RANKS.len(), "crates/ and RANKS disagree");
    assert!(bad.is_empty(), "architecture:\n{}", bad.join("\n"));
}

/// The test-support crate: a dev-dependency only, so that no library or binary links the
/// suites (and their dependencies) and unit tests never see a second copy of the crate under
/// test.
const TESTKIT: &str = "bitext-testkit";

#[test]
fn testkit_is_only_used_by_integration_tests() {
    let root = project_root();
    let mut manifests = vec![root.join("Cargo.toml"), root.join("xtask/Cargo.toml")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        manifests.push(entry.path().join("Cargo.toml"));
    }
    let mut bad = Vec::new();
    for manifest in manifests {
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        // `[workspace.dependencies]` only declares versions and paths for members to use.
        let mut in_workspace_deps = false;
        let own: String = text
            .lines()
            .filter(|l| {
                if l.trim_start().starts_with('[') {
                    in_workspace_deps = l.trim() == "[workspace.dependencies]";
                }
                !in_workspace_deps
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let deps = dependencies(&own);
        for kind in ["dependencies", "build-dependencies"] {
            if deps.get(kind).into_iter().flatten().any(|d| d == TESTKIT) {
                bad.push(format!(
                    "{}: {TESTKIT} in [{kind}] (it may only be a dev-dependency)",
                    manifest.display()
                ));
            }
        }
    }
    // Unit tests (`src/`) of a crate the testkit depends on would see a second copy of that
    // crate; only `tests/`, `benches/` and `examples/` may use it.
    let testkit_src = root.join("crates/testkit");
    for f in all_sources() {
        let in_src = f.components().any(|c| c.as_os_str() == "src");
        if in_src && !f.starts_with(&testkit_src) && !f.starts_with(root.join("xtask")) {
            let text = std::fs::read_to_string(&f).unwrap();
            if text.contains("bitext_testkit") {
                bad.push(format!(
                    "{}: uses bitext_testkit outside tests/",
                    f.display()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "testkit:\n{}", bad.join("\n"));
}

#[test]
fn ci_script_runs_the_readme_test_command() {
    let root = project_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(
        readme.contains("cargo xtask ci"),
        "README must name the test command"
    );
    let last = ci
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap();
    assert_eq!(
        last.trim(),
        "exec cargo xtask ci",
        ".ci/run must end by running the README's test command"
    );
    for f in [
        "ARCHITECTURE.md",
        "docs/BENCHMARKS.md",
        "docs/EVALUATION.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
    ] {
        assert!(root.join(f).is_file(), "{f} is missing");
    }
}

#[test]
fn dependency_parser_reads_the_usual_forms() {
    let m = "[package]\nname = \"x\"\n[dependencies]\nbitext-core.workspace = true\nburn = { version = \"1\" }\n\n[dev-dependencies]\nproptest = \"1\"\n[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n[dependencies.faiss]\nversion = \"0.13\"\n";
    let d = dependencies(m);
    assert_eq!(
        d["dependencies"],
        vec!["bitext-core", "burn", "libc", "faiss"]
    );
    assert_eq!(d["dev-dependencies"], vec!["proptest"]);
}

/// The files allowed to hold `unsafe` code (blocks, functions, impls, `extern` blocks or an
/// `allow(unsafe_code)`; the workspace denies it everywhere else), and why. The table
/// "Unsafe code" of `ARCHITECTURE.md` lists the same files.
const UNSAFE_FILES: &[(&str, &str)] = &[
    ("crates/core/src/mmap.rs", "memory-maps embedding files"),
    (
        "crates/tokenize/src/spm/ffi.rs",
        "calls SentencePiece's C++ trainer through the C shim",
    ),
    (
        "crates/knn/src/exact/kernel/x86.rs",
        "AVX2/AVX-512 micro-kernels of the exact search",
    ),
    (
        "crates/knn/src/exact/quant/x86.rs",
        "AVX512-BF16/VNNI, AVX-VNNI and AVX2 micro-kernels of the reduced-precision scan",
    ),
    (
        "crates/knn/src/exact/quant/amx.rs",
        "AMX tile kernels of the reduced-precision scan (inline assembly) and the tile permission",
    ),
    (
        "crates/knn/src/exact/quant/amx_bench.rs",
        "the ignored micro-benchmark of the x86 scan kernels (instruction rates, in-cache tiles)",
    ),
    (
        "crates/knn/src/exact/kernel.rs",
        "simd_tile! and scan_fn!, the kernels' shared tile and checked wrapper, expanded in them",
    ),
    (
        "crates/knn/src/exact/quant/scan.rs",
        "quant_scan_fn!, the reduced-precision kernels' checked wrapper, expanded in them",
    ),
    (
        "crates/knn/src/exact/kernel/neon.rs",
        "NEON micro-kernel of the exact search",
    ),
    (
        "crates/knn/src/exact/quant/neon.rs",
        "SDOT micro-kernel of the reduced-precision scan",
    ),
    (
        "crates/knn/src/faiss_index.rs",
        "one call into faiss's C API",
    ),
    ("crates/neural/src/backend.rs", "glibc's mallopt"),
    (
        "crates/neural/src/rnn/cell.rs",
        "AVX2/AVX-512 copies of the recurrent cells",
    ),
    (
        "crates/neural/src/host.rs",
        "gemm's raw-pointer interface (host inference's products)",
    ),
];

/// `line` without its `//` comment and with the contents of its string literals blanked out.
pub(super) fn code_of(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if in_string => {
                chars.next();
            }
            '"' => {
                in_string = !in_string;
                out.push(c);
            }
            _ if in_string => {}
            '/' if chars.peek() == Some(&'/') => break,
            // The character literal '"' opens no string.
            '\'' if chars.peek() == Some(&'"') => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether a source holds `unsafe` code: the keyword, or an `allow(unsafe_code)` attribute.
fn has_unsafe(text: &str) -> bool {
    text.lines().map(code_of).any(|code| {
        let word = code
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "unsafe");
        word || code.replace(' ', "").contains("allow(unsafe_code)")
    })
}

#[test]
fn unsafe_code_stays_in_the_listed_files() {
    let root = project_root();
    let mut bad = Vec::new();
    let mut found = Vec::new();
    for f in all_sources() {
        let rel = relative(&f);
        if has_unsafe(&std::fs::read_to_string(&f).unwrap()) {
            if !UNSAFE_FILES.iter().any(|(p, _)| *p == rel) {
                bad.push(format!(
                    "{rel}: holds unsafe code but is not in UNSAFE_FILES (keep unsafe out, or \
                     add the file with the reason to UNSAFE_FILES and ARCHITECTURE.md)"
                ));
            }
            found.push(rel);
        }
    }
    let arch = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let table = arch
        .split("## Unsafe code")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_default();
    for (p, _) in UNSAFE_FILES {
        if !found.iter().any(|f| f == p) {
            bad.push(format!(
                "{p}: in UNSAFE_FILES but holds no unsafe code: remove it"
            ));
        }
        if !table.contains(&format!("`{p}`")) {
            bad.push(format!(
                "{p}: missing from the \"Unsafe code\" table of ARCHITECTURE.md"
            ));
        }
    }
    let listed = table.lines().filter(|l| l.starts_with("| `")).count();
    if listed != UNSAFE_FILES.len() {
        bad.push(format!(
            "ARCHITECTURE.md lists {listed} files with unsafe code, UNSAFE_FILES {}",
            UNSAFE_FILES.len()
        ));
    }
    assert!(bad.is_empty(), "unsafe:\n{}", bad.join("\n"));
}

#[test]
fn unsafe_detection_skips_comments_and_strings() {
    assert!(has_unsafe("let x = unsafe { f() };"));
    assert!(has_unsafe("#![allow(unsafe_code)]"));
    assert!(has_unsafe("    unsafe extern \"C\" {"));
    assert!(!has_unsafe(
        "// unsafe { f() }\n//! the one place with `unsafe`"
    ));
    assert!(!has_unsafe(
        "let s = \"unsafe { } // \\\" unsafe\"; // unsafe"
    ));
    assert!(!has_unsafe(
        "#![deny(unsafe_code)]\nlet c = '\"'; let unsafe_ish = 1;"
    ));
}
