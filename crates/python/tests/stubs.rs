//! The Python package's declarations agree with the extension module: the type stubs
//! (`python/bitext/bitext/_bitext.pyi`) declare exactly the functions and classes
//! `src/lib.rs` registers (`FUNCTIONS`, `TEST_FUNCTIONS`, `CLASSES`), and the package's
//! `__init__.py` re-exports every public one. (Building this test also builds the extension
//! module, which `cargo xtask ci`'s pytest step then imports.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn package() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/bitext")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Top-level `def NAME` / `class NAME` of a stub file (overloads counted once).
fn declared(text: &str, keyword: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix(keyword))
        .filter_map(|rest| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .map(str::to_string)
        })
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| (*s).to_string()).collect()
}

#[test]
fn stubs_declare_exactly_what_the_module_registers() {
    let stub = read(&package().join("bitext/_bitext.pyi"));
    let mut functions = set(bitext_python::FUNCTIONS);
    functions.extend(set(bitext_python::TEST_FUNCTIONS));
    assert_eq!(declared(&stub, "def "), functions);
    assert_eq!(declared(&stub, "class "), set(bitext_python::CLASSES));
}

#[test]
fn the_module_registers_every_listed_name() {
    let lib = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"));
    let registered = |marker: &str, end: char| -> BTreeSet<String> {
        lib.match_indices(marker)
            .map(|(i, _)| {
                let rest = &lib[i + marker.len()..];
                let path = &rest[..rest.find(end).unwrap()];
                path.rsplit("::").next().unwrap().to_string()
            })
            .collect()
    };
    let mut functions = set(bitext_python::FUNCTIONS);
    functions.extend(set(bitext_python::TEST_FUNCTIONS));
    assert_eq!(registered("wrap_pyfunction!(", ','), functions);
    assert_eq!(registered("add_class::<", '>'), set(bitext_python::CLASSES));
}

#[test]
fn the_package_re_exports_every_public_name() {
    let init = read(&package().join("bitext/__init__.py"));
    for name in bitext_python::FUNCTIONS
        .iter()
        .chain(bitext_python::CLASSES)
    {
        assert!(
            init.contains(&format!("    {name},\n")) && init.contains(&format!("\"{name}\"")),
            "bitext/__init__.py neither imports nor lists {name}"
        );
    }
}
