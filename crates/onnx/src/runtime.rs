//! Finding and loading the ONNX Runtime shared library (once per process).
//!
//! Where the library is ([`runtime_path`], the pure rule in [`find_runtime`]), in this order:
//! 1. the spec's `runtime`;
//! 2. beside the running binary: a `libonnxruntime.so*` (macOS: `libonnxruntime*.dylib`,
//!    Windows: `onnxruntime.dll`) in the executable's directory, then in `../lib/` from it (a
//!    release archive's `bin/bitext` and `lib/libonnxruntime.so.1.x`); the unversioned name
//!    first, else the highest version;
//! 3. the first of the environment variables [`RUNTIME_VARS`] that is set;
//!
//! else an error listing what was tried.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bitext_encode::{Error, Result};

/// The environment variables naming the ONNX Runtime library, in the order they are read.
pub const RUNTIME_VARS: [&str; 2] = ["BITEXT_ONNXRUNTIME", "ORT_DYLIB_PATH"];

/// The ONNX Runtime library this process loaded (one per process), or why it could not.
static RUNTIME: OnceLock<std::result::Result<(PathBuf, ort::environment::Environment), String>> =
    OnceLock::new();

/// The library's unversioned file name on this platform.
#[cfg(target_os = "macos")]
pub const LIBRARY_NAME: &str = "libonnxruntime.dylib";
/// The library's unversioned file name on this platform.
#[cfg(target_os = "windows")]
pub const LIBRARY_NAME: &str = "onnxruntime.dll";
/// The library's unversioned file name on this platform.
#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub const LIBRARY_NAME: &str = "libonnxruntime.so";

/// The version in a file name of the library (`libonnxruntime.so.1.17.0` → `[1, 17, 0]`, the
/// unversioned name → `[]`), or `None` for another file.
fn library_version(name: &str) -> Option<Vec<u64>> {
    let rest = if cfg!(target_os = "macos") {
        // libonnxruntime.1.17.0.dylib
        let stem = name
            .strip_suffix(".dylib")?
            .strip_prefix("libonnxruntime")?;
        stem.strip_prefix('.').or(stem.is_empty().then_some(""))?
    } else if cfg!(target_os = "windows") {
        return (name == LIBRARY_NAME).then(Vec::new);
    } else {
        let tail = name.strip_prefix(LIBRARY_NAME)?;
        tail.strip_prefix('.').or(tail.is_empty().then_some(""))?
    };
    if rest.is_empty() {
        return Some(Vec::new());
    }
    rest.split('.').map(|p| p.parse().ok()).collect()
}

/// The library in `dir`: the unversioned name, else the highest version.
fn library_in(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<(Vec<u64>, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = library_version(e.file_name().to_str()?)?;
            let path = e.path();
            path.is_file().then_some((version, path))
        })
        .collect();
    // The unversioned name (an empty version) first, then the highest version.
    found.sort_by(|a, b| match (a.0.is_empty(), b.0.is_empty()) {
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        _ => b.0.cmp(&a.0),
    });
    found.into_iter().next().map(|(_, p)| p)
}

/// The directories beside the executable `exe` where the library is looked for: its own
/// directory, then `../lib` from it.
#[must_use]
pub fn beside_exe(exe: &Path) -> Vec<PathBuf> {
    let Some(dir) = exe.parent() else {
        return Vec::new();
    };
    let mut dirs = vec![dir.to_path_buf()];
    if let Some(up) = dir.parent() {
        dirs.push(up.join("lib"));
    }
    dirs
}

/// Where the ONNX Runtime library is, for the executable `exe` and the environment `env` (a
/// variable's value, or `None`): `spec_path`; else the library beside `exe`
/// ([`beside_exe`]); else the first of [`RUNTIME_VARS`] set (and not empty). Pure but for
/// listing the directories beside `exe`: nothing is loaded.
///
/// # Errors
/// [`Error::Invalid`] when none is found, listing what was tried and saying how to give one.
pub fn find_runtime(
    spec_path: Option<&Path>,
    exe: Option<&Path>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<PathBuf> {
    if let Some(p) = spec_path {
        return Ok(p.to_path_buf());
    }
    let dirs = exe.map(beside_exe).unwrap_or_default();
    if let Some(p) = dirs.iter().find_map(|d| library_in(d)) {
        return Ok(p);
    }
    for v in RUNTIME_VARS {
        if let Some(p) = env(v).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
    }
    let looked = if dirs.is_empty() {
        "the binary's directory is unknown".to_string()
    } else {
        let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        format!("none in {}", dirs.join(" or "))
    };
    Err(Error::Invalid(format!(
        "no ONNX Runtime library: give the spec's \"runtime\", put {LIBRARY_NAME}* beside the \
         bitext binary or in ../lib from it ({looked}), or set {} to {LIBRARY_NAME} (e.g. \
         `pip install onnxruntime`, then onnxruntime/capi/{LIBRARY_NAME}.* in its \
         site-packages); neither variable is set",
        RUNTIME_VARS.join(" or ")
    )))
}

/// Where the ONNX Runtime library is for this process: [`find_runtime`] with the running
/// executable ([`std::env::current_exe`]) and the process's environment.
///
/// # Errors
/// As [`find_runtime`].
pub fn runtime_path(spec_path: Option<&Path>) -> Result<PathBuf> {
    let exe = std::env::current_exe().ok();
    find_runtime(spec_path, exe.as_deref(), |v| std::env::var_os(v))
}

/// Load ONNX Runtime from `path` (once per process; a second, different path is an error).
pub(crate) fn environment(path: &Path) -> Result<&'static ort::environment::Environment> {
    // Checked before the process-wide cell, so that a wrong path does not stay the answer
    // for every later load in this process.
    if !path.is_file() {
        return Err(Error::Invalid(format!(
            "{}: no such file (the ONNX Runtime library)",
            path.display()
        )));
    }
    let got = RUNTIME.get_or_init(|| {
        let env = ort::init_from(path)
            .map_err(|e| format!("{}: cannot load ONNX Runtime: {e}", path.display()))?
            .with_name("bitext")
            .build()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((path.to_path_buf(), env))
    });
    match got {
        Ok((loaded, env)) if loaded == path => Ok(env),
        Ok((loaded, _)) => Err(Error::Invalid(format!(
            "ONNX Runtime is already loaded from {} in this process; cannot load {} too",
            loaded.display(),
            path.display()
        ))),
        Err(e) => Err(Error::Invalid(e.clone())),
    }
}
