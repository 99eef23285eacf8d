//! Helpers shared by the CLI's integration tests: the binary under test, running it, and
//! writing input files.

#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `bitext` binary built for these tests.
pub fn bitext() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bitext"))
}

/// Run `cmd` to the end: whether it succeeded, its stdout and its stderr (both UTF-8).
pub fn run(cmd: &mut Command) -> (bool, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Write `content` to `dir/name` and return the path.
pub fn write(dir: &Path, name: &str, content: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}
