//! Files of a checkpoint directory: weights (burnpack), optimiser state, JSON documents, all
//! written atomically (temporary file, then rename) and read back with errors naming the file.
//!
//! A model directory holds `model.json` (what the model is: kind, configuration, vocabulary
//! files), `weights.bpk` (the parameters, exact `f32` bytes, so a model loads back
//! bit-identically), the vocabulary files and `training.json` (the training configuration and
//! per-epoch history). Its `resume/` subdirectory holds the last epoch's weights, optimiser
//! state and trainer state, from which training continues.

use std::io::Write;
use std::path::Path;

use bitext_core::io::AtomicFile;
use burn::module::Module;
use burn::optim::ModuleOptimizer;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// File name of the weights inside a model directory.
pub const WEIGHTS_FILE: &str = "weights.bpk";
/// File name of the model description inside a model directory.
pub const MODEL_FILE: &str = "model.json";
/// Subdirectory with the state to resume training from.
pub const RESUME_DIR: &str = "resume";

/// Writes a model description into a directory (the text training's adds its tokenizers).
pub type Describe = Box<dyn Fn(&Path) -> Result<()> + Send + Sync>;

/// A training task whose model description (`model.json`) is written by a [`Describe`] given
/// to it (the text training's, with the tokenizers) instead of its default, the family's kind
/// and network configuration only ([`write_description`]).
pub trait Described: Sized {
    /// Where the task keeps the writer.
    fn describe_mut(&mut self) -> &mut Option<Describe>;

    /// Use `describe` to write the model description.
    #[must_use]
    fn with_description(mut self, describe: Describe) -> Self {
        *self.describe_mut() = Some(describe);
        self
    }
}

/// Write a model's description into `dir`: with `describe` when given, else [`MODEL_FILE`]
/// naming the `kind` of model and its `network` configuration.
///
/// # Errors
/// As `describe`; as [`write_json`].
pub fn write_description<N: Serialize>(
    describe: Option<&Describe>,
    dir: &Path,
    (kind, network): (&str, &N),
) -> Result<()> {
    match describe {
        Some(d) => d(dir),
        None => write_json(
            &dir.join(MODEL_FILE),
            &serde_json::json!({ "kind": kind, "network": network }),
        ),
    }
}

/// Write `bytes` to `path` atomically.
///
/// # Errors
/// [`Error::Core`] with the path on I/O failure.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| f.err(e))?;
    f.commit()?;
    Ok(())
}

/// Read the whole file.
///
/// # Errors
/// [`Error::Core`] with the path.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::Core(bitext_core::Error::io(path, e)))
}

/// Write `value` as pretty JSON, atomically.
///
/// # Errors
/// As [`write_bytes`]; [`Error::Checkpoint`] when it cannot be serialised.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut s = serde_json::to_string_pretty(value)
        .map_err(|e| Error::checkpoint(path, format!("cannot serialise: {e}")))?;
    s.push('\n');
    write_bytes(path, s.as_bytes())
}

/// Read a JSON document (a leading byte-order mark is dropped).
///
/// # Errors
/// [`Error::Core`] when unreadable; [`Error::Checkpoint`] with the line and reason when
/// malformed.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = read_bytes(path)?;
    serde_json::from_slice(bitext_core::io::strip_bom(&bytes)).map_err(|e| {
        Error::Core(bitext_core::Error::parse(
            path,
            bitext_core::Location::Line(e.line()),
            e.to_string(),
        ))
    })
}

/// Save a module's parameters (burnpack, exact values and parameter ids).
///
/// # Errors
/// [`Error::Checkpoint`] when burn cannot serialise; I/O errors with the path.
pub fn save_weights<M: Module>(model: &M, path: &Path) -> Result<()> {
    let bytes = model
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| Error::checkpoint(path, format!("cannot serialise the weights: {e:?}")))?;
    write_bytes(path, &bytes)
}

/// Load parameters saved by [`save_weights`] into `model` (whose shapes must match).
///
/// # Errors
/// [`Error::Checkpoint`] naming the file when it is not a burnpack record or does not fit the
/// model (missing tensors, other shapes).
pub fn load_weights<M: Module>(model: M, path: &Path) -> Result<M> {
    let bytes = read_bytes(path)?;
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(bytes))
        .map_err(|e| Error::checkpoint(path, format!("not a weight file: {e:?}")))?;
    model
        .try_load_record(record)
        .map_err(|e| Error::checkpoint(path, format!("the weights do not fit the model: {e:?}")))
}

/// Save an optimiser's state.
///
/// # Errors
/// As [`save_weights`].
pub fn save_optimizer(optim: &ModuleOptimizer, path: &Path) -> Result<()> {
    let bytes = optim
        .into_bytes()
        .map_err(|e| Error::checkpoint(path, format!("cannot serialise the optimizer: {e:?}")))?;
    write_bytes(path, &bytes)
}

/// Load an optimiser's state into `optim`.
///
/// # Errors
/// As [`load_weights`].
pub fn load_optimizer(optim: ModuleOptimizer, path: &Path) -> Result<ModuleOptimizer> {
    let bytes = read_bytes(path)?;
    optim
        .from_bytes(Bytes::from_bytes_vec(bytes))
        .map_err(|e| Error::checkpoint(path, format!("not an optimizer state: {e:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_with_a_byte_order_mark_reads_and_bad_json_names_the_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("model.json");
        std::fs::write(&p, b"\xEF\xBB\xBF{\"a\": [1, 2]}").unwrap();
        let v: serde_json::Value = read_json(&p).unwrap();
        assert_eq!(v["a"][1], 2);
        std::fs::write(&p, b"{\n\"a\": }").unwrap();
        let e = read_json::<serde_json::Value>(&p).unwrap_err().to_string();
        assert!(e.contains("model.json:2"), "{e}");
    }
}
