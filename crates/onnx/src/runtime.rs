//! Finding and loading the ONNX Runtime shared library (once per process).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bitext_encode::{Error, Result};

/// The environment variables naming the ONNX Runtime library, in the order they are read.
pub const RUNTIME_VARS: [&str; 2] = ["BITEXT_ONNXRUNTIME", "ORT_DYLIB_PATH"];

/// The ONNX Runtime library this process loaded (one per process), or why it could not.
static RUNTIME: OnceLock<std::result::Result<(PathBuf, ort::environment::Environment), String>> =
    OnceLock::new();

/// Where the ONNX Runtime library is: `spec_path`, else the first of [`RUNTIME_VARS`] set.
///
/// # Errors
/// [`Error::Invalid`] when none is given, saying how to give one.
pub fn runtime_path(spec_path: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = spec_path {
        return Ok(p.to_path_buf());
    }
    for v in RUNTIME_VARS {
        if let Some(p) = std::env::var_os(v).filter(|p| !p.is_empty()) {
            return Ok(PathBuf::from(p));
        }
    }
    Err(Error::Invalid(format!(
        "no ONNX Runtime library: give the spec's \"runtime\" or set {} to libonnxruntime.so \
         (e.g. `pip install onnxruntime`, then onnxruntime/capi/libonnxruntime.so.* in its \
         site-packages)",
        RUNTIME_VARS.join(" or ")
    )))
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
