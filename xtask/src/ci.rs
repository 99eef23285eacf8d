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

/// Extra `cargo` invocations of `cargo xtask ci --full`: checks too slow for the 45-minute CI
/// budget on two cores, run by hand before resolving the issues that need them.
pub(crate) const FULL_EXTRA: &[&[&str]] = &[
    // burn's wgpu backend doubles burn's build (+35 min on two cores): checked here only.
    &[
        "check",
        "-p",
        "bitext-neural",
        "--features",
        "wgpu",
        "--all-targets",
        "--locked",
    ],
    // faiss OPQ training (about two minutes).
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

    if full {
        for extra in FULL_EXTRA {
            run_cmd(cargo().args(*extra))?;
        }
    }
    eprintln!("ci: all checks passed{}", if full { " (full)" } else { "" });
    Ok(())
}
