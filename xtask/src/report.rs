//! What the test step ran and skipped: tests that need something from outside the workspace
//! (ONNX Runtime, the USE-M graph, Debian's `spm_encode`) or from the CPU (a kNN kernel) record
//! themselves through `bitext_testkit::needs` into the file named by [`REPORT_VAR`], which
//! `cargo xtask ci` sets for its test step. Read back here, each group becomes a line of the
//! step table (`ONNX Runtime: 11 run, 0 skipped`), and under `CI=true` a skipped group whose
//! dependency `.ci/run` installs fails the run: installed, it must be found.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The variable naming the report file (`bitext_testkit::needs::REPORT_VAR`; a tidy test
/// checks that the two agree).
pub(crate) const REPORT_VAR: &str = "BITEXT_TEST_REPORT";

/// The groups whose dependency `.ci/run` installs (`bitext_testkit::needs::group`): each is
/// listed in the step table even when no test reached it.
pub(crate) const INSTALLED: &[&str] = &["ONNX Runtime", "USE-M graph", "spm_encode"];

/// The prefix of the kNN kernels' groups (`bitext_testkit::needs::group::kernel`).
pub(crate) const KERNEL_PREFIX: &str = "kNN kernel ";

/// The report file of the test step, in the target directory.
pub(crate) fn path() -> PathBuf {
    crate::target_dir().join("bitext-test-report.tsv")
}

/// Checks run and skipped in one group, and why they were skipped.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Group {
    pub(crate) ran: usize,
    pub(crate) skipped: usize,
    /// The distinct reasons given, in order.
    pub(crate) why: Vec<String>,
}

/// Remove an earlier run's report at `path`, so that the step's report is its own.
pub(crate) fn fresh(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// The groups of a report's text, by name.
pub(crate) fn parse(text: &str, name: &Path) -> Result<BTreeMap<String, Group>> {
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [group, status, _test, why] = fields[..] else {
            bail!(
                "{}:{}: expected group, status, test and reason separated by tabs",
                name.display(),
                i + 1
            );
        };
        let g = groups.entry(group.to_string()).or_default();
        match status {
            "ran" => g.ran += 1,
            "skipped" => {
                g.skipped += 1;
                if !g.why.iter().any(|w| w == why) {
                    g.why.push(why.to_string());
                }
            }
            other => bail!(
                "{}:{}: unknown status {other:?} (ran or skipped)",
                name.display(),
                i + 1
            ),
        }
    }
    Ok(groups)
}

/// Add the groups `.ci/run` installs that no test recorded, so that the table lists them.
pub(crate) fn expect_installed(groups: &mut BTreeMap<String, Group>) {
    for g in INSTALLED {
        groups.entry((*g).to_string()).or_default();
    }
}

/// Read the report at `path` (no file: no test recorded anything).
pub(crate) fn read(path: &Path) -> Result<BTreeMap<String, Group>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    parse(&text, path)
}

/// The step table's lines: one per group (dependencies first, then kernels), then the kernels
/// that ran at `place` (on this CPU, under an emulator).
pub(crate) fn rows(groups: &BTreeMap<String, Group>, place: &str) -> Vec<String> {
    let line = |name: &str, g: &Group| {
        let mut s = format!("{name}: {} run, {} skipped", g.ran, g.skipped);
        if g.ran + g.skipped == 0 {
            s.push_str(" (no test reached it)");
        } else if !g.why.is_empty() {
            s.push_str(&format!(" ({})", g.why.join("; ")));
        }
        s
    };
    let (kernels, deps): (Vec<_>, Vec<_>) = groups
        .iter()
        .partition(|(name, _)| name.starts_with(KERNEL_PREFIX));
    let mut out: Vec<String> = deps.iter().map(|(n, g)| line(n, g)).collect();
    out.extend(kernels.iter().map(|(n, g)| line(n, g)));
    let ran: Vec<&str> = kernels
        .iter()
        .filter(|(_, g)| g.ran > 0)
        .map(|(n, _)| &n[KERNEL_PREFIX.len()..])
        .collect();
    if !kernels.is_empty() {
        out.push(format!(
            "kNN kernels run {place}: {}",
            if ran.is_empty() {
                "none".to_string()
            } else {
                ran.join(", ")
            }
        ));
    }
    out
}

/// The groups `.ci/run` installs that were skipped: under `CI=true`, each fails the run.
pub(crate) fn missing_installed(groups: &BTreeMap<String, Group>) -> Vec<String> {
    INSTALLED
        .iter()
        .filter_map(|name| {
            let g = groups.get(*name)?;
            (g.skipped > 0).then(|| format!("{name}: {} skipped ({})", g.skipped, g.why.join("; ")))
        })
        .collect()
}

/// Whether this run is CI's (`CI=true`, as CI services set it): a dependency `.ci/run`
/// installs must then be there.
pub(crate) fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "ONNX Runtime\tran\trun::a\t\n\
                          ONNX Runtime\tskipped\trun::b\tno lib\n\
                          ONNX Runtime\tskipped\trun::c\tno lib\n\
                          kNN kernel avx2\tran\tx\t\n\
                          kNN kernel neon\tskipped\ty\tthis CPU cannot run the neon kernel\n\
                          kNN kernel avx2\tran\tz\t\n";

    #[test]
    fn groups_are_counted_and_listed_with_the_kernels_that_ran() {
        let mut g = parse(REPORT, Path::new("r.tsv")).unwrap();
        assert_eq!(g.len(), 3);
        expect_installed(&mut g);
        assert_eq!(
            g["ONNX Runtime"],
            Group {
                ran: 1,
                skipped: 2,
                why: vec!["no lib".into()]
            }
        );
        assert_eq!(
            rows(&g, "on this CPU"),
            [
                "ONNX Runtime: 1 run, 2 skipped (no lib)",
                "USE-M graph: 0 run, 0 skipped (no test reached it)",
                "spm_encode: 0 run, 0 skipped (no test reached it)",
                "kNN kernel avx2: 2 run, 0 skipped",
                "kNN kernel neon: 0 run, 1 skipped (this CPU cannot run the neon kernel)",
                "kNN kernels run on this CPU: avx2",
            ]
        );
        assert_eq!(missing_installed(&g), ["ONNX Runtime: 2 skipped (no lib)"]);
        let clean = parse("spm_encode\tran\tt\t\n", Path::new("r.tsv")).unwrap();
        assert!(missing_installed(&clean).is_empty());
    }

    #[test]
    fn malformed_reports_are_errors_naming_the_line() {
        let e = parse("a\tran\tt\t\nbroken\n", Path::new("r.tsv")).unwrap_err();
        assert!(e.to_string().starts_with("r.tsv:2:"), "{e}");
        let e = parse("a\tmaybe\tt\t\n", Path::new("r.tsv")).unwrap_err();
        assert!(e.to_string().contains("unknown status"), "{e}");
        assert!(read(Path::new("/nonexistent/report.tsv")).is_ok());
    }

    /// The names here are testkit's: the variable and the groups `.ci/run` installs.
    #[test]
    fn names_agree_with_testkit() {
        let src =
            std::fs::read_to_string(crate::project_root().join("crates/testkit/src/needs.rs"))
                .unwrap();
        assert!(
            src.contains(&format!("pub const REPORT_VAR: &str = \"{REPORT_VAR}\";")),
            "REPORT_VAR differs from testkit's"
        );
        for g in INSTALLED {
            assert!(
                src.contains(&format!("= \"{g}\";")),
                "{g} is not a testkit group"
            );
        }
        assert!(src.contains(&format!("format!(\"{KERNEL_PREFIX}{{name}}\")")));
    }
}
