//! The Python tests of `cargo xtask ci`: the bindings' pytest suite (`python/bitext/tests`,
//! over the extension module the workspace tests built, with the data scripts' tests in
//! `recipes/data`) and the Ray driver's local-cluster test (`python/bitext-ray`). Each runs in the virtual environment `.ci/run` installs its
//! packages into, and is skipped, saying why, only when those packages cannot be imported.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::run_cmd;

/// The Python that runs the Ray test: `BITEXT_RAY_PYTHON` (`.ci/run` sets it to the virtual
/// environment where it installs `ray`), else `python3`.
fn ray_python() -> OsString {
    std::env::var_os("BITEXT_RAY_PYTHON").unwrap_or_else(|| "python3".into())
}

/// The Python that runs the bindings' tests: `BITEXT_PY_PYTHON` (`.ci/run` sets it to the
/// virtual environment where it installs numpy, pytest, faiss-cpu and POT), else `python3`.
fn bindings_python() -> OsString {
    std::env::var_os("BITEXT_PY_PYTHON").unwrap_or_else(|| "python3".into())
}

/// Why `python -c "import MODULES"` fails (`None` when it works); `var` names the variable
/// `.ci/run` sets to the environment that has them.
fn missing(python: &OsString, modules: &str, var: &str) -> Option<String> {
    let import = format!("import {modules}");
    match Command::new(python).args(["-c", &import]).output() {
        Ok(o) if o.status.success() => None,
        Ok(o) => Some(format!(
            "`{} -c \"{import}\"` failed ({}); .ci/run installs them into a virtual \
             environment and sets {var}",
            python.to_string_lossy(),
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )),
        Err(e) => Some(format!("cannot start {} ({e})", python.to_string_lossy())),
    }
}

/// Why the Ray test cannot run here, or `None` when it can.
pub(crate) fn ray_missing() -> Option<String> {
    missing(&ray_python(), "ray", "BITEXT_RAY_PYTHON")
}

/// Why the bindings' tests cannot run here, or `None` when they can.
pub(crate) fn bindings_missing() -> Option<String> {
    missing(
        &bindings_python(),
        "numpy, pytest, faiss, ot",
        "BITEXT_PY_PYTHON",
    )
}

/// The target directory's dev-profile outputs (`cargo test --workspace` built them).
fn debug_dir() -> PathBuf {
    crate::target_dir().join("debug")
}

/// A file the workspace tests built, or an error saying so.
fn built(path: PathBuf) -> Result<PathBuf> {
    if path.exists() {
        Ok(path)
    } else {
        bail!(
            "{} is missing: the workspace tests build it",
            path.display()
        )
    }
}

/// The Ray driver's test (`python/bitext-ray/tests/test_local_cluster.py`): a local cluster of
/// a head and two workers on 127.0.0.1 runs a sharded plan whose output must equal the
/// single-process run's.
pub(crate) fn ray_test() -> Result<()> {
    // The binary `cargo test --workspace` built for the CLI's integration tests.
    let bitext = built(debug_dir().join("bitext"))?;
    let mut test = Command::new(ray_python());
    test.arg(crate::project_root().join("python/bitext-ray/tests/test_local_cluster.py"))
        .arg("--bitext")
        .arg(&bitext);
    run_cmd(&mut test)
}

/// The bindings' pytest suite (`python/bitext/tests`): the package's Python files and the
/// extension module the workspace tests built (`deps/libbitext_python.so`, built for
/// `crates/python/tests/stubs.rs`, as maturin names it: `_bitext.abi3.so`) are staged in the
/// target directory's `python-bitext/bitext/`, which the tests import; `BITEXT_BIN` names the
/// `bitext` binary their parity tests compare with. What maturin adds to a wheel (metadata,
/// the module built with `PYO3_BUILD_EXTENSION_MODULE`) is measured by the wheel build in
/// docs/BENCHMARKS.md, not here. The same run takes the tests of the data scripts
/// (`recipes/data/test_*.py`: the catalogue readers of the game dialogue, the LID dev set and
/// the multilingual pairs), which need only pytest.
pub(crate) fn bindings_test() -> Result<()> {
    let debug = debug_dir();
    // `cargo test` leaves the cdylib among the dependencies (`deps/`, its name unhashed); only
    // `cargo build` copies it up, so a copy there may be stale.
    let module = built(debug.join("deps/libbitext_python.so"))?;
    let bitext = built(debug.join("bitext"))?;
    let root = crate::project_root();
    let stage = debug.join("python-bitext");
    let package = stage.join("bitext");
    if stage.exists() {
        std::fs::remove_dir_all(&stage).with_context(|| format!("removing {}", stage.display()))?;
    }
    std::fs::create_dir_all(&package)?;
    let sources = root.join("python/bitext/bitext");
    for entry in std::fs::read_dir(&sources)? {
        let path = entry?.path();
        if path.is_file() {
            copy(&path, &package.join(path.file_name().expect("a file name")))?;
        }
    }
    copy(&module, &package.join("_bitext.abi3.so"))?;
    let mut test = Command::new(bindings_python());
    test.args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("python/bitext/tests"))
        .arg(root.join("recipes/data"))
        .env("PYTHONPATH", &stage)
        .env("BITEXT_BIN", &bitext);
    run_cmd(&mut test)
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    std::fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}
