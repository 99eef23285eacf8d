//! `cargo xtask ci`: the checks every change must pass, in the order that fails fastest.

use anyhow::Result;

use crate::{cargo, run_cmd};

/// Features turned on for CI's clippy, test and doc runs (`package/feature`; never
/// `--all-features`, which would pull in wgpu).
pub(crate) const CI_FEATURES: &[&str] = &[
    "bitext-tokenize/sentencepiece",
    "bitext-knn/faiss",
    "bitext-cli/faiss",
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

    let mut clippy = cargo();
    clippy.args(["clippy", "--workspace", "--all-targets", "--locked"]);
    with_features(&mut clippy);
    run_cmd(clippy.args(["--", "-D", "warnings"]))?;

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

    if full {
        for extra in FULL_EXTRA {
            run_cmd(cargo().args(*extra))?;
        }
    }
    eprintln!("ci: all checks passed{}", if full { " (full)" } else { "" });
    Ok(())
}
