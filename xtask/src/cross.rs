//! The aarch64 kernels of bitext-knn (NEON, and SDOT for int8) tested on an x86-64 machine:
//! `cargo xtask ci` cross-compiles bitext-knn's tests for `aarch64-unknown-linux-gnu` and runs
//! them under user-mode emulation (`qemu-aarch64`). There `Auto` is NEON, so every suite runs
//! it, and the forced NEON suites run instead of being reported skipped.
//!
//! Needs the Rust target (`rustup target add aarch64-unknown-linux-gnu`), Debian's
//! `gcc-aarch64-linux-gnu` and `libc6-dev-arm64-cross` (the linker, and the C compiler and
//! library for the `-sys` crates) and `qemu-user`: `.ci/run` installs them. By hand:
//!
//! ```sh
//! CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
//! CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu" \
//!   cargo test -p bitext-knn --target aarch64-unknown-linux-gnu
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cargo;

/// The target.
pub(crate) const TARGET: &str = "aarch64-unknown-linux-gnu";
/// The cross linker (and C compiler, which the `cc` crate finds by the same prefix).
const LINKER: &str = "aarch64-linux-gnu-gcc";
/// The emulator, and the sysroot of the target's C library it loads programs with.
const QEMU: &str = "qemu-aarch64";
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

/// `program` on the `PATH`.
fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// Whether the toolchain has the target's standard library.
fn has_rust_target() -> bool {
    let Ok(out) = Command::new("rustc").args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Path::new(&sysroot)
        .join("lib/rustlib")
        .join(TARGET)
        .join("lib")
        .is_dir()
}

/// What is missing to run the emulated tests, or `None` when nothing is.
pub(crate) fn missing() -> Option<String> {
    let mut gone = Vec::new();
    if !has_rust_target() {
        gone.push(format!("the Rust target (rustup target add {TARGET})"));
    }
    if on_path(LINKER).is_none() || !Path::new(SYSROOT).is_dir() {
        gone.push(format!(
            "{LINKER} and {SYSROOT} (Debian's gcc-aarch64-linux-gnu, libc6-dev-arm64-cross)"
        ));
    }
    if on_path(QEMU).is_none() {
        gone.push(format!("{QEMU} (Debian's qemu-user)"));
    }
    (!gone.is_empty()).then(|| format!("missing {}; .ci/run installs them", gone.join(", ")))
}

/// Packages built at `opt-level = 2` for the emulated run (debug assertions stay on): the
/// kernels, the reference they are checked against, and the property tests' engine. At the dev
/// profile's 0, the emulated suites ran 158 s; at 2, 17 s, for 45 s more compiling (measured
/// warm on a 2-core Intel Xeon; docs/BENCHMARKS.md "CI from scratch").
const OPTIMISED: &[&str] = &["bitext-knn", "bitext-testkit", "bitext-core", "proptest"];

/// `cargo test -p bitext-knn` for the target, run under the emulator.
pub(crate) fn knn_tests() -> Command {
    let mut cmd = cargo();
    cmd.args(["test", "-p", "bitext-knn", "--locked", "--target", TARGET]);
    for package in OPTIMISED {
        cmd.arg("--config")
            .arg(format!("profile.dev.package.{package}.opt-level=2"));
    }
    cmd.env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", LINKER)
        .env(
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER",
            format!("{QEMU} -L {SYSROOT}"),
        );
    cmd
}
