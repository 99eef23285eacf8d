//! `cargo xtask ci`: the checks every change must pass, in the order that fails fastest.

use std::process::Command;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

use crate::{cargo, run_cmd};

/// The steps CI ran and their wall times, printed as a table at the end of every run, passed or
/// failed, so that each submission's log shows where its time went.
pub(crate) struct Steps {
    /// `(name, seconds, passed)` in the order they ran; no seconds for a line that reports
    /// rather than runs ([`Steps::note`]).
    done: Vec<(String, Option<f64>, bool)>,
    /// When xtask started.
    start: Instant,
    /// What happened before xtask ran, from `.ci/run`: package setup and the build of xtask.
    before: Vec<(String, f64)>,
}

impl Steps {
    /// A new record. `.ci/run` exports `BITEXT_CI_START` and `BITEXT_CI_SETUP_END` (seconds
    /// since the epoch when it began and when its package setup ended); what lies between the
    /// second and now is the build of xtask. Without them only xtask's own steps are counted.
    pub(crate) fn new() -> Self {
        let env = |k: &str| std::env::var(k).ok()?.trim().parse::<f64>().ok();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        let before = match (env("BITEXT_CI_START"), env("BITEXT_CI_SETUP_END")) {
            (Some(t0), Some(t1)) if t0 <= t1 && t1 <= now => vec![
                ("setup: system and Python packages".to_string(), t1 - t0),
                ("build xtask".to_string(), now - t1),
            ],
            _ => Vec::new(),
        };
        Self {
            done: Vec::new(),
            start: Instant::now(),
            before,
        }
    }

    /// Run `cmd` as the step `name`.
    pub(crate) fn run(&mut self, name: &str, cmd: &mut Command) -> Result<()> {
        self.time(name, || run_cmd(cmd))
    }

    /// Time `f` as the step `name`.
    pub(crate) fn time(&mut self, name: &str, f: impl FnOnce() -> Result<()>) -> Result<()> {
        let t = Instant::now();
        let r = f();
        self.done
            .push((name.to_string(), Some(t.elapsed().as_secs_f64()), r.is_ok()));
        r
    }

    /// Record a step that did not run, with the reason. Under `CI=true` that is an error when
    /// `.ci/run` installs what the step needs: installed, it must be found.
    pub(crate) fn skipped(&mut self, name: &str, why: &str) -> Result<()> {
        eprintln!("{name} SKIPPED: {why}");
        self.done
            .push((format!("{name} (SKIPPED, see above)"), Some(0.0), true));
        if crate::report::under_ci() {
            bail!("{name} skipped under CI=true: {why}");
        }
        Ok(())
    }

    /// A line of the table that reports rather than runs (what a step ran and skipped).
    pub(crate) fn note(&mut self, line: &str) {
        self.done.push((format!("  {line}"), None, true));
    }

    /// The table of steps and the total.
    pub(crate) fn table(&self) -> String {
        let rows: Vec<(String, Option<f64>)> = self
            .before
            .iter()
            .map(|(n, s)| (n.clone(), Some(*s)))
            .chain(self.done.iter().map(|(n, s, ok)| {
                let n = if *ok {
                    n.clone()
                } else {
                    format!("{n} (FAILED)")
                };
                (n, *s)
            }))
            .collect();
        let total =
            self.before.iter().map(|(_, s)| s).sum::<f64>() + self.start.elapsed().as_secs_f64();
        let width = rows
            .iter()
            .filter(|(_, s)| s.is_some())
            .map(|(n, _)| n.len())
            .max()
            .unwrap_or(0)
            .max(5);
        let mut out = String::from("ci: step times (wall)\n");
        for (n, s) in &rows {
            match s {
                Some(s) => out.push_str(&format!("  {n:width$}  {s:8.1} s\n")),
                None => out.push_str(&format!("  {n}\n")),
            }
        }
        out.push_str(&format!(
            "  {:width$}  {total:8.1} s ({})",
            "total",
            minutes(total)
        ));
        out
    }
}

/// `1234.5` as `20 min 34 s`.
fn minutes(secs: f64) -> String {
    let s = secs.round() as u64;
    format!("{} min {:02} s", s / 60, s % 60)
}

/// Features turned on for CI's test run (`package/feature`; never `--all-features`, which would
/// pull in wgpu): the native backends, the neural models, and xtask's evaluations (so that
/// their code is compiled and their unit tests run).
pub(crate) const TEST_FEATURES: &[&str] = &[
    "bitext-tokenize/sentencepiece",
    "bitext-knn/faiss",
    "bitext-cli/faiss",
    "bitext-shard/faiss",
    "bitext/neural",
    "xtask/eval",
];

/// Features of CI's clippy and doc runs: [`TEST_FEATURES`] and the GPU backends of
/// bitext-neural (wgpu, and CUDA through the patched cubecl-cuda in `vendor/`). Checking wgpu here, in the same `cargo check` graph as everything else, means
/// burn is checked once; the separate `cargo check -p bitext-neural --features wgpu` that CI
/// ran before re-checked all of burn with its new features on top of the wgpu stack (687 s of
/// a 3,052 s run from scratch: docs/notes/benchmarks-log.md "CI from scratch"). Never built or
/// run: CI has no GPU. Rustdoc takes the same features so that it reads the metadata clippy left.
pub(crate) fn check_features() -> Vec<&'static str> {
    [TEST_FEATURES, &["bitext-neural/wgpu", "bitext-neural/cuda"]].concat()
}

/// Rustdoc of the libraries, xtask and the examples, `-D warnings`. The examples are there
/// for their docs and for cargo's feature resolution: a target that needs dev-dependencies
/// turns on the dev-dependencies' features (criterion gives ciborium its `default`, which burn
/// reads), so with them the dependencies resolve as in clippy's `--all-targets` and rustdoc
/// reads clippy's metadata; without them it re-checked burn and everything after it (168 s
/// instead of about 20).
pub(crate) const DOC: &[&str] = &[
    "doc",
    "--workspace",
    "--no-deps",
    "--locked",
    "--lib",
    "--bin",
    "xtask",
    "--examples",
];

/// The dependency tree of the `bitext` binary built without its default feature `neural`
/// (`cargo install --path crates/cli --no-default-features`): it must hold no burn package
/// ([`burn_packages`]). Build dependencies count too, since they are compiled as well. Fast
/// (0.4 s): cargo only resolves, it compiles nothing.
pub(crate) const NO_NEURAL_TREE: &[&str] = &[
    "tree",
    "-p",
    "bitext-cli",
    "--no-default-features",
    "--edges",
    "normal,build",
    "--prefix",
    "none",
    "--format",
    "{p}",
    "--locked",
];

/// The `bitext` binary without `neural` must build without warnings: its `cfg` gates are easy
/// to break (a `bitext_neural` path outside them, an import or helper left unused), and every
/// other check builds the CLI with the feature. Clippy rather than `cargo check`: the same
/// dependency builds (`-D warnings` reaches only the workspace's crates), and warnings fail.
/// `--all-targets` also compiles the no-neural integration test (`crates/cli/tests/neural.rs`),
/// which is not run: that would link a second `bitext`.
///
/// Cost on the idle two-core machine (docs/notes/benchmarks-log.md "CI from scratch"): after the
/// workspace clippy of a from-scratch run, 39 s (the units whose features differ from the
/// workspace's: proc macros at `opt-level = 0`, serde, rayon, … and the workspace crates); warm,
/// only what changed, 0.4–7 s. It reuses faiss's and sentencepiece's C++ only because `cc` has
/// the same features in both graphs (the root `Cargo.toml` says why).
pub(crate) const NO_NEURAL_CLIPPY: &[&str] = &[
    "clippy",
    "-p",
    "bitext-cli",
    "--no-default-features",
    "--features",
    "faiss",
    "--all-targets",
    "--locked",
    "--",
    "-D",
    "warnings",
];

/// The packages of a [`NO_NEURAL_TREE`] listing (one `name vX.Y.Z` per line) that are burn
/// (`burn`, `burn-*`) or bring it (`bitext-neural`), each once, sorted.
pub(crate) fn burn_packages(tree: &str) -> Vec<&str> {
    let mut found: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name == "burn" || name.starts_with("burn-") || *name == "bitext-neural")
        .collect();
    found.sort_unstable();
    found.dedup();
    found
}

/// Run [`NO_NEURAL_TREE`] and fail if it lists a burn package.
fn check_no_burn_without_neural() -> Result<()> {
    eprintln!("$ cargo {}", NO_NEURAL_TREE.join(" "));
    let out = cargo()
        .args(NO_NEURAL_TREE)
        .output()
        .context("starting cargo tree")?;
    if !out.status.success() {
        bail!(
            "`cargo {}` failed with {}:\n{}",
            NO_NEURAL_TREE.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let tree = String::from_utf8_lossy(&out.stdout);
    let burn = burn_packages(&tree);
    if !burn.is_empty() {
        bail!(
            "bitext-cli without its default features depends on {}: the `bitext` binary \
             without `neural` must not compile burn (`cargo tree -p bitext-cli \
             --no-default-features -e normal -i <package>` shows the path)",
            burn.join(", ")
        );
    }
    Ok(())
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask ci");
    }
    let mut steps = Steps::new();
    let r = run_steps(&mut steps);
    eprintln!("{}", steps.table());
    r?;
    eprintln!("ci: all checks passed");
    Ok(())
}

/// `cargo <args> --features <features>`, with `--timings` when `BITEXT_CI_TIMINGS` is set
/// (cargo's HTML report of every unit's compile time, under the target directory's
/// `cargo-timings/`: where a from-scratch run spends its time).
fn cargo_with(args: &[&str], features: &[&str]) -> Command {
    // Cargo's own options go before a `--` (what follows is clippy's).
    let split = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    let mut cmd = cargo();
    cmd.args(&args[..split]);
    if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    if std::env::var_os("BITEXT_CI_TIMINGS").is_some() {
        cmd.arg("--timings");
    }
    cmd.args(&args[split..]);
    cmd
}

/// The workspace's tests, with the report of what they ran and skipped for want of something
/// outside the workspace or the CPU ([`crate::report`]): a line per group in the step table;
/// under `CI=true`, a skipped group that `.ci/run` installs fails the run.
fn test_step(steps: &mut Steps) -> Result<()> {
    let report = crate::report::path();
    crate::report::fresh(&report)?;
    let mut test = cargo_with(&["test", "--workspace", "--locked"], TEST_FEATURES);
    // Searches that measure `auto`'s precision cache it beside the report, not in ~/.cache.
    let auto_cache = report.with_file_name("auto-precision.json");
    steps.run(
        "test (workspace)",
        test.env(crate::report::REPORT_VAR, &report)
            .env("BITEXT_AUTO_CACHE", &auto_cache),
    )?;
    let mut groups = crate::report::read(&report)?;
    crate::report::expect_installed(&mut groups);
    for line in crate::report::rows(&groups, "on this CPU") {
        steps.note(&line);
    }
    steps.note(
        "GPU backends (wgpu, CUDA): not built by the test step (no GPU here); clippy checks \
         their code and tests",
    );
    steps.note(
        "CLI without `neural`: its tests (crates/cli/tests/neural.rs, aligner.rs) compiled by \
         clippy, not run (a second `bitext` binary); by hand: `cargo test -p bitext-cli \
         --no-default-features --target-dir target/no-neural --test neural --test aligner`",
    );
    let missing = crate::report::missing_installed(&groups);
    if crate::report::under_ci() && !missing.is_empty() {
        bail!(
            "under CI=true, tests were skipped for want of what .ci/run installs:\n  {}",
            missing.join("\n  ")
        );
    }
    Ok(())
}

/// bitext-knn's tests for aarch64 under `qemu-aarch64` ([`crate::cross`]): the NEON kernels,
/// which the x86-64 test step reports skipped. Its report lists the kernels that ran.
#[cfg(target_arch = "x86_64")]
fn aarch64_step(steps: &mut Steps) -> Result<()> {
    const NAME: &str = "test bitext-knn on aarch64 (qemu-aarch64)";
    if let Some(why) = crate::cross::missing() {
        return steps.skipped(NAME, &why);
    }
    let report = crate::report::path().with_extension("aarch64.tsv");
    crate::report::fresh(&report)?;
    steps.run(
        NAME,
        crate::cross::knn_tests().env(crate::report::REPORT_VAR, &report),
    )?;
    let groups = crate::report::read(&report)?;
    for line in crate::report::rows(&groups, "under qemu-aarch64") {
        steps.note(&line);
    }
    Ok(())
}

/// Every check, in the order that fails fastest. Where each check of the earlier CI went:
/// the wgpu compile check is in clippy's features ([`check_features`]); the fuzz targets,
/// once a workspace of their own built with `cargo build`, are a workspace member checked by
/// the same clippy run.
fn run_steps(steps: &mut Steps) -> Result<()> {
    steps.run(
        "cargo fmt --check",
        cargo().args(["fmt", "--all", "--", "--check"]),
    )?;
    steps.time(
        "no burn in the CLI without `neural`",
        check_no_burn_without_neural,
    )?;

    let mut clippy = cargo_with(
        &["clippy", "--workspace", "--all-targets", "--locked"],
        &check_features(),
    );
    steps.run(
        "clippy (workspace, all targets, wgpu, cuda, fuzz targets)",
        clippy.args(["--", "-D", "warnings"]),
    )?;
    steps.run(
        "clippy (CLI without `neural`)",
        &mut cargo_with(NO_NEURAL_CLIPPY, &[]),
    )?;

    test_step(steps)?;

    #[cfg(target_arch = "x86_64")]
    aarch64_step(steps)?;

    let mut doc = cargo_with(DOC, &check_features());
    steps.run(
        "rustdoc -D warnings",
        doc.env("RUSTDOCFLAGS", "-D warnings"),
    )?;

    match crate::pytest::bindings_missing() {
        Some(why) => steps.skipped("Python bindings (pytest)", &why)?,
        None => steps.time("Python bindings (pytest)", crate::pytest::bindings_test)?,
    }
    match crate::pytest::ray_missing() {
        Some(why) => steps.skipped("Ray driver test", &why)?,
        None => steps.time("Ray driver test", crate::pytest::ray_test)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Steps, burn_packages, minutes};

    #[test]
    fn the_step_table_lists_every_step_and_the_total() {
        let mut steps = Steps::new();
        steps.before = vec![("build xtask".into(), 12.0)];
        steps.time("fmt", || Ok(())).unwrap();
        assert!(steps.time("test", || anyhow::bail!("boom")).is_err());
        steps.skipped("ray", "no ray").unwrap_or_default();
        steps.note("ONNX Runtime: 3 run, 0 skipped");
        let t = steps.table();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 7, "{t}");
        assert!(
            lines[1].contains("build xtask") && lines[1].ends_with("12.0 s"),
            "{t}"
        );
        assert!(lines[2].contains("fmt"), "{t}");
        assert!(lines[3].contains("test (FAILED)"), "{t}");
        assert!(lines[4].contains("ray (SKIPPED"), "{t}");
        assert_eq!(lines[5], "    ONNX Runtime: 3 run, 0 skipped", "{t}");
        assert!(lines[6].trim_start().starts_with("total"), "{t}");
        assert!(lines[6].contains("(0 min 12 s)"), "{t}");
        assert_eq!(minutes(1234.4), "20 min 34 s");
    }

    #[test]
    fn burn_packages_are_found_by_name() {
        let tree = "bitext-cli v0.1.0 (/w/crates/cli)\nburn v0.22.1\nburn-flex v0.22.1\n\
                    burn v0.22.1\nbitext-neural v0.1.0 (/w/crates/neural)\nburnish v1.0.0\n\
                    serde v1.0.0\n";
        assert_eq!(burn_packages(tree), ["bitext-neural", "burn", "burn-flex"]);
        assert!(burn_packages("bitext-cli v0.1.0 (/w/crates/cli)\nserde v1.0.0\n").is_empty());
    }
}
