//! `cargo xtask`: the project's automation, in Rust so that it runs wherever cargo does.
//!
//! - `cargo xtask ci`: format check, a check that the CLI without its `neural` feature links no
//!   burn, clippy with `-D warnings` on all targets (and on that CLI, with the GPU backends),
//!   tests (with a report of what they skipped for want of a tool or a CPU kernel), bitext-knn's
//!   tests on aarch64 under qemu, docs with `-D warnings`, and the Python tests. This is exactly
//!   what `.ci/run` runs.
//! - `cargo xtask eval [TASK...]`: evaluations on the real data in `../shared/data` (or
//!   `$BITEXT_SHARED/data`), each recorded in `docs/eval/TASK.md` (summarised by hand in
//!   `docs/EVALUATION.md`); a notice and exit code 0 when the data is absent. Runs in release
//!   mode.
//! - `cargo xtask bench [ARGS...]`: the criterion benchmarks (`cargo bench -p bitext ARGS`).
//! - `cargo xtask dist [--arch aarch64]`: the release archive of the `bitext` binary for Linux
//!   x86-64 or aarch64 against glibc 2.17 (cargo-zigbuild; ONNX Runtime, manual pages and
//!   completions included) and the manylinux2014 Python wheel, in `target/dist/` (see
//!   `dist/mod.rs`).

mod ci;
#[cfg(target_arch = "x86_64")]
mod cross;
mod dist;
#[cfg(feature = "eval")]
mod eval;
mod pytest;
mod report;
#[cfg(test)]
mod tidy;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  ci                 format check, burn-free CLI check, clippy -D warnings, tests and
                     what they skipped, aarch64 kNN tests (qemu), docs -D warnings, pytest
  eval [TASK...]     real-data evaluations, each into docs/eval/TASK.md (tasks: `eval --list`)
  bench [ARGS...]    criterion benchmarks (arguments go to `cargo bench -p bitext`)
  dist [--help]      release archive (bitext for glibc 2.17, ONNX Runtime, man pages,
                     completions) and manylinux2014 wheel into target/dist/";

fn main() -> ExitCode {
    // Before any thread starts, and only for the evaluations: they train and encode with burn,
    // which allocates and frees large blocks at every operation (see the function's docs); the
    // other commands only run cargo.
    #[cfg(feature = "eval")]
    if std::env::args().nth(1).as_deref() == Some("eval") {
        bitext_neural::backend::tune_allocator();
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = project_root();
    std::env::set_current_dir(&root).context("entering the project root")?;
    match args.first().map(String::as_str) {
        Some("ci") => ci::run(&args[1..]),
        Some("eval") => run_eval(&args[1..]),
        Some("bench") => {
            let mut cmd = cargo();
            cmd.args(["bench", "-p", "bitext"]).args(&args[1..]);
            run_cmd(&mut cmd)
        }
        Some("dist") => dist::run(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n{USAGE}"),
    }
}

/// `cargo xtask eval`: the evaluations train and mine, so they run from a release build of
/// xtask with its feature `eval` (the libraries, burn included). The `cargo xtask` alias builds
/// neither, so that CI's first step compiles only xtask: without the feature, this hands over
/// to `cargo run --release -p xtask --features eval`.
fn run_eval(args: &[String]) -> Result<()> {
    #[cfg(feature = "eval")]
    return eval::run(args);
    #[cfg(not(feature = "eval"))]
    run_cmd(
        cargo()
            .args([
                "run",
                "--release",
                "--quiet",
                "-p",
                "xtask",
                "--features",
                "eval",
            ])
            .args(["--", "eval"])
            .args(args),
    )
}

/// The workspace root (the parent of this crate's directory). `cargo run` names the crate's
/// directory at run time; the path compiled in is only the fallback, because a binary left in a
/// shared target directory by a build in another checkout (CI's clean clone, since removed) is
/// not rebuilt for an older checkout, and its compiled-in path would be that clone's.
pub(crate) fn project_root() -> PathBuf {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    Path::new(&dir)
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The target directory: `CARGO_TARGET_DIR` (which `.ci/run` sets), else the workspace's.
pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| project_root().join("target"), Into::into)
}

/// A `cargo` command (the one running us, when known).
pub(crate) fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Run a command, echoing it, failing on a non-zero exit.
pub(crate) fn run_cmd(cmd: &mut Command) -> Result<()> {
    run_timed(cmd).map(drop)
}

/// [`run_cmd`], returning the command's wall time in seconds.
pub(crate) fn run_timed(cmd: &mut Command) -> Result<f64> {
    let shown = shown(cmd);
    eprintln!("$ {shown}");
    let start = std::time::Instant::now();
    let status = cmd.status().with_context(|| format!("starting {shown}"))?;
    let secs = start.elapsed().as_secs_f64();
    eprintln!("  ({secs:.1} s)");
    if !status.success() {
        bail!("`{shown}` failed with {status}");
    }
    Ok(secs)
}

/// A command line as it would be typed.
pub(crate) fn shown(cmd: &Command) -> String {
    format!(
        "{} {}",
        cmd.get_program().to_string_lossy(),
        cmd.get_args()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    )
}
