//! Tidy: one place builds every spec. Outside the crate that defines a spec type and
//! `bitext::build` (`src/build.rs`), no code dispatches on the spec's variants (a `match` arm,
//! `if let`, `let … else` or `matches!` naming one); callers use the builder and the spec's own
//! methods (`as_bow`, `as_model`, `reads_input`, `is_margin`, …). Building a spec from flags
//! (`ScorerSpec::Levenshtein` as a value) is not dispatching and stays allowed, and so is any
//! test.

use super::{all_sources, code_of};

/// Each spec type, the variants a caller could dispatch on, and the crate that defines it.
const SPECS: &[(&str, &[&str], &str)] = &[
    ("EncoderSpec", &["Bow", "Model", "Onnx"], "crates/encode/"),
    (
        "ScorerSpec",
        &[
            "Cosine",
            "Dot",
            "NegEuclidean",
            "Margin",
            "Emd",
            "Model",
            "Ibm1",
            "Levenshtein",
            "LengthRatio",
        ],
        "crates/mine/",
    ),
    ("IndexSpec", &["Exact", "Faiss"], "crates/knn/"),
];

/// The one file outside the defining crates that dispatches on specs.
const BUILDER: &str = "src/build.rs";

/// Whether `code` (a line without comments and strings) dispatches on `path` (`Type::Variant`).
fn dispatches(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| {
        let after = &code[at + path.len()..];
        // A longer name (`ScorerSpec::Model` in `ScorerSpec::ModelX`) is not this variant.
        if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            return false;
        }
        let before = &code[..at];
        after.contains("=>")
            || before.contains("if let")
            || before.contains("while let")
            || before.contains("matches!(")
            || (before.trim_start().starts_with("let ") && code.contains(" else"))
    })
}

#[test]
fn specs_are_dispatched_only_where_they_are_defined_and_built() {
    let mut bad = Vec::new();
    for f in all_sources() {
        let rel = super::relative(&f);
        if rel == BUILDER || rel.contains("/tests/") || rel.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        // In-file unit tests come last, after `#[cfg(test)]`.
        let code_part = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (i, line) in code_part.lines().enumerate() {
            let code = code_of(line);
            for (ty, variants, home) in SPECS {
                if rel.starts_with(home) {
                    continue;
                }
                for v in *variants {
                    let path = format!("{ty}::{v}");
                    if dispatches(&code, &path) {
                        bad.push(format!(
                            "{rel}:{}: dispatches on {path}: build specs through \
                             bitext::build ({BUILDER}) or ask the spec (as_bow, as_model, …)",
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "specs:\n{}", bad.join("\n"));
}

#[test]
fn dispatch_detection_tells_matching_from_building() {
    assert!(dispatches(
        "        EncoderSpec::Model(m) => neural(m),",
        "EncoderSpec::Model"
    ));
    assert!(dispatches(
        "    if let EncoderSpec::Bow(b) = spec {",
        "EncoderSpec::Bow"
    ));
    assert!(dispatches(
        "    let EncoderSpec::Onnx(o) = &spec else {",
        "EncoderSpec::Onnx"
    ));
    assert!(dispatches(
        "    matches!(s, ScorerSpec::Margin { .. })",
        "ScorerSpec::Margin"
    ));
    // Building a spec is not dispatching on one.
    assert!(!dispatches(
        "            ScorerArg::Levenshtein => ScorerSpec::Levenshtein,",
        "ScorerSpec::Levenshtein"
    ));
    assert!(!dispatches(
        "        (Some(dir), _) => EncoderSpec::Model(ModelSpec {",
        "EncoderSpec::Model"
    ));
    assert!(!dispatches(
        "    let s = ScorerSpec::Cosine;",
        "ScorerSpec::Cosine"
    ));
    assert!(!dispatches(
        "    x => ScorerSpec::ModelFoo,",
        "ScorerSpec::Model"
    ));
}
