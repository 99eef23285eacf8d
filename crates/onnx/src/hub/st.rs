//! What a snapshot's sentence-transformers and transformers configuration says: pooling
//! (`1_Pooling/config.json`, or the Pooling module's directory in `modules.json`),
//! normalisation (a `Normalize` module), the dimension (`config.json`'s `hidden_size`).

use std::path::{Path, PathBuf};

use bitext_encode::{Error, Pooling, Result};
use serde_json::Value;

/// The pooling directory when `modules.json` names none.
pub(crate) const POOLING_DIR: &str = "1_Pooling";

/// What the configuration files of a snapshot say.
#[derive(Debug)]
pub(crate) struct Config {
    pub(crate) pooling: Pooling,
    pub(crate) normalize: bool,
    pub(crate) dim: Option<usize>,
    pub(crate) notes: Vec<String>,
}

/// A JSON file of the snapshot, or `None` when it is absent.
fn json(path: &Path) -> Result<Option<Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::Invalid(format!("{}: {e}", path.display()))),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Error::Invalid(format!("{}: not JSON: {e}", path.display())))
}

/// The modules of a `modules.json` (`[{"path": …, "type": …}, …]`): (type, path) each.
pub(crate) fn modules(v: &Value, path: &Path) -> Result<Vec<(String, String)>> {
    let list = v
        .as_array()
        .ok_or_else(|| Error::Invalid(format!("{}: expected a list of modules", path.display())))?;
    let field = |m: &Value, k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    Ok(list
        .iter()
        .map(|m| (field(m, "type"), field(m, "path")))
        .collect())
}

/// The pooling directory `modules.json` names (or [`POOLING_DIR`]).
pub(crate) fn pooling_dir(modules: &[(String, String)]) -> String {
    modules
        .iter()
        .find(|(t, p)| t.ends_with("Pooling") && !p.is_empty())
        .map_or_else(|| POOLING_DIR.to_string(), |(_, p)| p.clone())
}

/// The pooling a sentence-transformers pooling config asks for.
fn pooling(v: &Value, path: &Path) -> Result<Pooling> {
    let on: Vec<&str> = v
        .as_object()
        .ok_or_else(|| Error::Invalid(format!("{}: expected an object", path.display())))?
        .iter()
        .filter(|(k, v)| k.starts_with("pooling_mode_") && v.as_bool() == Some(true))
        .map(|(k, _)| k.as_str())
        .collect();
    match on.as_slice() {
        ["pooling_mode_mean_tokens"] => Ok(Pooling::Mean),
        ["pooling_mode_cls_token"] => Ok(Pooling::Cls),
        [] => Err(Error::Invalid(format!(
            "{}: no pooling_mode_* is true",
            path.display()
        ))),
        other => Err(Error::Invalid(format!(
            "{}: asks for {}; bitext's ONNX encoder pools by mean (pooling_mode_mean_tokens) \
             or the first token (pooling_mode_cls_token) only",
            path.display(),
            other.join(" + ")
        ))),
    }
}

/// A positive integer field of a JSON object.
fn positive(v: &Value, key: &str) -> Option<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// Read the configuration of the snapshot `snap`.
///
/// # Errors
/// A file that is present but not JSON or not of its shape (naming it); a pooling mode other
/// than mean or cls.
pub(crate) fn read(snap: &Path) -> Result<Config> {
    let mut notes = Vec::new();
    let modules_path = snap.join("modules.json");
    let modules = match json(&modules_path)? {
        Some(v) => Some(modules(&v, &modules_path)?),
        None => None,
    };
    let pool_path: PathBuf = snap
        .join(pooling_dir(modules.as_deref().unwrap_or_default()))
        .join("config.json");
    let pool = json(&pool_path)?;
    let pooling = match &pool {
        Some(v) => pooling(v, &pool_path)?,
        None => {
            notes.push(format!(
                "no {}: mean pooling assumed",
                rel(snap, &pool_path)
            ));
            Pooling::Mean
        }
    };
    let normalize = match &modules {
        Some(m) => m.iter().any(|(t, _)| t.ends_with("Normalize")),
        None => {
            notes.push("no modules.json: vectors normalised (bitext's default)".into());
            true
        }
    };
    let dense = modules
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|(t, _)| t.ends_with("Dense"));
    let config_path = snap.join("config.json");
    let config = json(&config_path)?;
    let dim = match dense {
        Some((_, p)) => {
            notes.push(format!(
                "modules.json has a Dense module ({p}): the vectors are right only if the \
                 graph includes it"
            ));
            None
        }
        None => config
            .as_ref()
            .and_then(|c| positive(c, "hidden_size"))
            .or_else(|| {
                pool.as_ref()
                    .and_then(|p| positive(p, "word_embedding_dimension"))
            }),
    };
    Ok(Config {
        pooling,
        normalize,
        dim,
        notes,
    })
}

/// `path` relative to `snap`, with `/`.
fn rel(snap: &Path, path: &Path) -> String {
    path.strip_prefix(snap)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}
