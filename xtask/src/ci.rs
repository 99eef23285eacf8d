//! `cargo xtask ci`: the checks every change must pass, in the order that fails fastest.

use anyhow::{Context, Result, bail};

use crate::{cargo, run_cmd};

/// Features turned on for CI's clippy, test and doc runs (`package/feature`; never
/// `--all-features`, which would pull in wgpu).
pub(crate) const CI_FEATURES: &[&str] = &[
    "bitext-tokenize/sentencepiece",
    "bitext-knn/faiss",
    "bitext-cli/faiss",
    "bitext-shard/faiss",
    "bitext/neural",
];

/// The wgpu backend of bitext-neural must compile: `cargo check` only (6.6 min on top of the
/// rest on two cores, measured from a fresh target directory's clippy state; see
/// docs/BENCHMARKS.md "CI from scratch"), never run, since CI has no GPU.
pub(crate) const WGPU_CHECK: &[&str] = &[
    "check",
    "-p",
    "bitext-neural",
    "--features",
    "wgpu",
    "--all-targets",
    "--locked",
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
/// Cost, measured on the two-core machine while other builds ran (load 3–4): on a target
/// directory warm from the rest of CI, the first run compiles the 51 units whose features differ
/// from the workspace's (syn, serde, half, rayon, … and the workspace crates themselves), 2 min
/// 7 s (2 min 24 s of CPU); afterwards it re-checks only what changed, 3–7 s (0.4 s when
/// nothing did).
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

/// The fuzz targets (`fuzz/`, a workspace of its own) must build: on stable, without the
/// sanitizer flags `cargo fuzz` adds (docs/FUZZING.md runs them).
pub(crate) const FUZZ_BUILD: &[&str] = &[
    "build",
    "--manifest-path",
    "fuzz/Cargo.toml",
    "--bins",
    "--locked",
];

/// Extra `cargo` invocations of `cargo xtask ci --full`: checks kept out of the default run
/// because they are slow under load, run by hand before resolving the issues that need them.
pub(crate) const FULL_EXTRA: &[&[&str]] = &[
    // faiss OPQ training (10 s on an idle machine, about two minutes under load).
    &[
        "test",
        "-p",
        "bitext-knn",
        "--features",
        "faiss",
        "--test",
        "conformance",
        "--",
        "--ignored",
    ],
];

/// The Python that runs the Ray test: `BITEXT_RAY_PYTHON` (`.ci/run` sets it to the virtual
/// environment where it installs `ray`), else `python3`.
fn ray_python() -> std::ffi::OsString {
    std::env::var_os("BITEXT_RAY_PYTHON").unwrap_or_else(|| "python3".into())
}

/// The Ray driver's test (`python/bitext-ray/tests/test_local_cluster.py`): a local cluster of
/// a head and two workers on 127.0.0.1 runs a sharded plan whose output must equal the
/// single-process run's. Skipped, saying why, only when `ray` cannot be imported.
fn ray_test() -> Result<()> {
    let python = ray_python();
    let probe = std::process::Command::new(&python)
        .args(["-c", "import ray"])
        .output();
    match probe {
        Ok(o) if o.status.success() => {}
        Ok(o) => {
            eprintln!(
                "ray test SKIPPED: `{} -c \"import ray\"` failed ({}); .ci/run installs ray \
                 into a virtual environment and sets BITEXT_RAY_PYTHON",
                python.to_string_lossy(),
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            );
            return Ok(());
        }
        Err(e) => {
            eprintln!(
                "ray test SKIPPED: cannot start {} ({e})",
                python.to_string_lossy()
            );
            return Ok(());
        }
    }
    // The binary `cargo test --workspace` built for the CLI's integration tests.
    let target: std::path::PathBuf = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| crate::project_root().join("target"), Into::into);
    let bitext = target.join("debug/bitext");
    if !bitext.exists() {
        bail!(
            "{} is missing: the workspace tests build it",
            bitext.display()
        );
    }
    let mut test = std::process::Command::new(&python);
    test.arg(crate::project_root().join("python/bitext-ray/tests/test_local_cluster.py"))
        .arg("--bitext")
        .arg(&bitext);
    run_cmd(&mut test)
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let full = match args {
        [] => false,
        [a] if a == "--full" => true,
        _ => anyhow::bail!("usage: cargo xtask ci [--full]"),
    };
    let features = CI_FEATURES.join(",");
    let with_features = |cmd: &mut std::process::Command| {
        if !features.is_empty() {
            cmd.args(["--features", &features]);
        }
    };
    run_cmd(cargo().args(["fmt", "--all", "--", "--check"]))?;
    check_no_burn_without_neural()?;

    let mut clippy = cargo();
    clippy.args(["clippy", "--workspace", "--all-targets", "--locked"]);
    with_features(&mut clippy);
    run_cmd(clippy.args(["--", "-D", "warnings"]))?;
    run_cmd(cargo().args(NO_NEURAL_CLIPPY))?;

    let mut test = cargo();
    test.args(["test", "--workspace", "--locked"]);
    with_features(&mut test);
    run_cmd(&mut test)?;

    let mut doc = cargo();
    doc.args(["doc", "--workspace", "--no-deps", "--locked"])
        .env("RUSTDOCFLAGS", "-D warnings");
    with_features(&mut doc);
    run_cmd(&mut doc)?;

    run_cmd(cargo().args(WGPU_CHECK))?;
    run_cmd(cargo().args(FUZZ_BUILD))?;
    ray_test()?;

    if full {
        for extra in FULL_EXTRA {
            run_cmd(cargo().args(*extra))?;
        }
    }
    eprintln!("ci: all checks passed{}", if full { " (full)" } else { "" });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::burn_packages;

    #[test]
    fn burn_packages_are_found_by_name() {
        let tree = "bitext-cli v0.1.0 (/w/crates/cli)\nburn v0.22.1\nburn-flex v0.22.1\n\
                    burn v0.22.1\nbitext-neural v0.1.0 (/w/crates/neural)\nburnish v1.0.0\n\
                    serde v1.0.0\n";
        assert_eq!(burn_packages(tree), ["bitext-neural", "burn", "burn-flex"]);
        assert!(burn_packages("bitext-cli v0.1.0 (/w/crates/cli)\nserde v1.0.0\n").is_empty());
    }
}
