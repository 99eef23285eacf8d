//! Encoders by name: `hf:ORG/NAME[@REVISION]` resolved in the Hugging Face hub's cache on disk
//! into an [`OnnxSpec`] (no network: [`download`] fetches, behind the feature `hub`).
//!
//! The cache ([`cache_root`]): `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
//! `~/.cache/huggingface/hub`. A model `ORG/NAME` lives in `models--ORG--NAME/`: `refs/REVISION`
//! (default `main`) holds a commit hash, and `snapshots/<hash>/` the files of that commit; a
//! REVISION that is itself a 40-hex commit hash names its snapshot directly.
//!
//! In the snapshot ([`resolve`]):
//! - **the graph** ([`choose_graph`]): `onnx/model.onnx`, else `model.onnx`, else the one
//!   `*.onnx` file at the top or in `onnx/` (several: name one with `onnx:FILE` or a JSON spec);
//! - **the tokenizer**: `tokenizer.json` beside the graph, else at the top;
//! - **pooling**: sentence-transformers' `1_Pooling/config.json` (the Pooling module's
//!   directory in `modules.json`): `pooling_mode_mean_tokens` is mean, `pooling_mode_cls_token`
//!   the first token; another mode (max, …) is an error; no such file: mean;
//! - **normalisation**: a `Normalize` module in `modules.json` (`2_Normalize`); no
//!   `modules.json`: bitext's default, normalised;
//! - **the dimension**, where the files say it: `config.json`'s `hidden_size`, else the
//!   pooling config's `word_embedding_dimension` (unknown when `modules.json` has a `Dense`
//!   module, which changes it if the graph includes it).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use bitext_encode::{EncoderSpec, Error, OnnxSpec, Pooling, Result};
use bitext_tokenize::TokenizerSpec;

#[cfg(feature = "hub")]
mod download;
mod st;

#[cfg(feature = "hub")]
pub use download::{DEFAULT_ENDPOINT, Fetch, HF_ENDPOINT, HF_TOKEN, download};

/// The environment variable naming the hub cache itself.
pub const HF_HUB_CACHE: &str = "HF_HUB_CACHE";
/// The environment variable naming Hugging Face's home (the cache is its `hub/`).
pub const HF_HOME: &str = "HF_HOME";
/// The revision of a name without `@REVISION`.
pub const DEFAULT_REVISION: &str = "main";

/// A model on the hub by name: `ORG/NAME[@REVISION]` (the text of `hf:` after the prefix).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct HubName {
    repo: String,
    revision: String,
}

impl HubName {
    /// Parse `ORG/NAME[@REVISION]` (an `hf:` prefix is allowed; a name without `ORG/` is a
    /// legacy top-level repository).
    ///
    /// # Errors
    /// [`Error::Invalid`] for an empty or malformed name or revision (characters other than
    /// letters, digits, `-`, `_` and `.`, a `..`, more than one `/` in the name).
    pub fn parse(s: &str) -> Result<Self> {
        let t = s.trim();
        let t = t.strip_prefix("hf:").unwrap_or(t);
        let (repo, revision) = match t.split_once('@') {
            Some((r, v)) => (r, v),
            None => (t, DEFAULT_REVISION),
        };
        let bad = |why: &str| {
            Error::Invalid(format!(
                "Hugging Face name {s:?}: {why} (expected ORG/NAME or ORG/NAME@REVISION)"
            ))
        };
        let part_ok = |p: &str| {
            !p.is_empty()
                && p != "."
                && !p.contains("..")
                && !p.contains("--")
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        let parts: Vec<&str> = repo.split('/').collect();
        if parts.len() > 2 || !parts.iter().all(|p| part_ok(p)) {
            return Err(bad("not a repository name"));
        }
        let rev_ok = revision
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != ".." && !p.contains('\\'));
        if !rev_ok {
            return Err(bad("not a revision"));
        }
        Ok(HubName {
            repo: repo.to_string(),
            revision: revision.to_string(),
        })
    }

    /// The repository, `ORG/NAME`.
    #[must_use]
    pub fn repo(&self) -> &str {
        &self.repo
    }

    /// The revision (`main` when the name gives none).
    #[must_use]
    pub fn revision(&self) -> &str {
        &self.revision
    }

    /// Whether the revision is a commit hash (40 hex digits), which names a snapshot directly.
    #[must_use]
    pub fn is_commit(&self) -> bool {
        is_commit(&self.revision)
    }

    /// The model's directory in the cache: `models--ORG--NAME`.
    #[must_use]
    pub fn folder(&self) -> String {
        format!("models--{}", self.repo.replace('/', "--"))
    }

    /// The same repository at `revision`.
    #[must_use]
    pub fn at(&self, revision: &str) -> HubName {
        HubName {
            repo: self.repo.clone(),
            revision: revision.to_string(),
        }
    }
}

impl fmt::Display for HubName {
    /// `ORG/NAME`, with `@REVISION` unless it is `main`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repo)?;
        if self.revision != DEFAULT_REVISION {
            write!(f, "@{}", self.revision)?;
        }
        Ok(())
    }
}

/// Whether `s` is a commit hash (40 hex digits).
fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The hub cache for the environment `env`: `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
/// `$HOME/.cache/huggingface/hub` (`%USERPROFILE%` on Windows); `None` without any of them.
#[must_use]
pub fn cache_root_from(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |v: &str| env(v).filter(|p| !p.is_empty()).map(PathBuf::from);
    if let Some(p) = set(HF_HUB_CACHE) {
        return Some(p);
    }
    if let Some(p) = set(HF_HOME) {
        return Some(p.join("hub"));
    }
    let home = set("HOME").or_else(|| set("USERPROFILE"))?;
    Some(home.join(".cache").join("huggingface").join("hub"))
}

/// The hub cache of this process's environment ([`cache_root_from`]).
///
/// # Errors
/// [`Error::Invalid`] when no variable says where it is.
pub fn cache_root() -> Result<PathBuf> {
    cache_root_from(|v| std::env::var_os(v)).ok_or_else(|| {
        Error::Invalid(format!(
            "no Hugging Face cache: set {HF_HUB_CACHE}, {HF_HOME} or HOME"
        ))
    })
}

/// A model resolved in the cache: its files and what its configuration says.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HubModel {
    /// The name it was resolved from.
    pub name: HubName,
    /// The commit of its snapshot.
    pub commit: String,
    /// The snapshot directory.
    pub snapshot: PathBuf,
    /// The ONNX graph.
    pub graph: PathBuf,
    /// The `tokenizer.json`.
    pub tokenizer: PathBuf,
    /// The pooling of per-token outputs.
    pub pooling: Pooling,
    /// Whether vectors are L2-normalised.
    pub normalize: bool,
    /// The vectors' dimension, where the files say it.
    pub dim: Option<usize>,
    /// What was assumed for want of a file, or may not hold (one line each).
    pub notes: Vec<String>,
}

impl HubModel {
    /// The ONNX spec of the model: its graph, its `tokenizer.json`, its pooling and
    /// normalisation; the rest of [`OnnxSpec::new`]'s defaults.
    #[must_use]
    pub fn spec(&self) -> OnnxSpec {
        let mut spec = OnnxSpec::new(&self.graph);
        spec.tokenizer = Some(TokenizerSpec::TokenizerJson {
            file: self.tokenizer.clone(),
        });
        spec.pooling = self.pooling;
        spec.normalize = self.normalize;
        spec
    }
}

/// The graph among a snapshot's files (relative paths with `/`): `onnx/model.onnx`, else
/// `model.onnx`, else the one `*.onnx` at the top or in `onnx/`. `Err` holds the candidates:
/// none, or several.
///
/// # Errors
/// The `*.onnx` candidates when there is not exactly one.
pub fn choose_graph<'a>(files: &[&'a str]) -> std::result::Result<&'a str, Vec<&'a str>> {
    for want in ["onnx/model.onnx", "model.onnx"] {
        if let Some(f) = files.iter().find(|f| **f == want) {
            return Ok(f);
        }
    }
    let mut candidates: Vec<&str> = files
        .iter()
        .copied()
        .filter(|f| {
            let name = f.strip_prefix("onnx/").unwrap_or(f);
            !name.contains('/') && name.ends_with(".onnx")
        })
        .collect();
    candidates.sort_unstable();
    match candidates.as_slice() {
        [one] => Ok(one),
        _ => Err(candidates),
    }
}

/// The `tokenizer.json` candidates for a graph (relative path): beside it, then at the top.
#[must_use]
pub fn tokenizer_candidates(graph: &str) -> Vec<String> {
    let mut c = Vec::new();
    if let Some((dir, _)) = graph.rsplit_once('/') {
        c.push(format!("{dir}/tokenizer.json"));
    }
    c.push("tokenizer.json".to_string());
    c
}

/// The snapshot `name` points to in `root`: its commit and directory.
///
/// # Errors
/// [`Error::Invalid`] naming the refs file or snapshot directory that is missing, or a refs
/// file that holds no commit hash.
pub fn snapshot(root: &Path, name: &HubName) -> Result<(String, PathBuf)> {
    let dir = root.join(name.folder());
    let commit = if name.is_commit() {
        name.revision().to_ascii_lowercase()
    } else {
        let refs = dir.join("refs").join(name.revision());
        let text = match std::fs::read_to_string(&refs) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::Invalid(format!(
                    "hf:{name}: not in the Hugging Face cache {}: no {} (download it with \
                     `bitext encoders --download hf:{name}`, or set {HF_HUB_CACHE} to the \
                     cache that has it)",
                    root.display(),
                    refs.display()
                )));
            }
            Err(e) => return Err(Error::Invalid(format!("{}: {e}", refs.display()))),
        };
        let commit = text.trim();
        if !is_commit(commit) {
            return Err(Error::Invalid(format!(
                "{}: not a commit hash (40 hex digits): {:?}",
                refs.display(),
                commit.chars().take(60).collect::<String>()
            )));
        }
        commit.to_ascii_lowercase()
    };
    let snap = dir.join("snapshots").join(&commit);
    if !snap.is_dir() {
        return Err(Error::Invalid(format!(
            "hf:{name}: no snapshot {} in the Hugging Face cache (download it with `bitext \
             encoders --download hf:{name}`)",
            snap.display()
        )));
    }
    Ok((commit, snap))
}

/// The `*.onnx` files of a snapshot (a link to a missing blob is not one), relative, with `/`.
#[must_use]
pub fn graphs_in(snapshot: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for sub in ["", "onnx"] {
        let Ok(entries) = std::fs::read_dir(snapshot.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if name.ends_with(".onnx") && e.path().is_file() {
                found.push(if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                });
            }
        }
    }
    found.sort();
    found
}

/// Resolve `name` in the cache at `root` (the layout and rules in the module's docs).
///
/// # Errors
/// [`Error::Invalid`] naming what is missing and where it looked: the refs file, the
/// snapshot, the graph (or the several candidates), `tokenizer.json`; a malformed
/// `modules.json`, pooling config or `config.json` (naming the file), a pooling mode other
/// than mean or cls.
pub fn resolve(root: &Path, name: &HubName) -> Result<HubModel> {
    let (commit, snap) = snapshot(root, name)?;
    let graphs = graphs_in(&snap);
    let names: Vec<&str> = graphs.iter().map(String::as_str).collect();
    let graph = match choose_graph(&names) {
        Ok(g) => g.to_string(),
        Err(c) if c.is_empty() => {
            return Err(Error::Invalid(format!(
                "hf:{name}: no ONNX graph in {} (looked for onnx/model.onnx, model.onnx and \
                 *.onnx at the top and in onnx/; an interrupted download? `bitext encoders \
                 --download hf:{name}`)",
                snap.display()
            )));
        }
        Err(c) => {
            return Err(Error::Invalid(format!(
                "hf:{name}: several ONNX graphs in {} ({}) and none is onnx/model.onnx or \
                 model.onnx: name one with onnx:FILE or a JSON spec",
                snap.display(),
                c.join(", ")
            )));
        }
    };
    let tried = tokenizer_candidates(&graph);
    let tokenizer = tried
        .iter()
        .map(|t| snap.join(t))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            Error::Invalid(format!(
                "hf:{name}: no tokenizer.json for the graph {graph} in {} (looked for {})",
                snap.display(),
                tried.join(", ")
            ))
        })?;
    let conf = st::read(&snap)?;
    Ok(HubModel {
        name: name.clone(),
        commit,
        graph: snap.join(&graph),
        snapshot: snap,
        tokenizer,
        pooling: conf.pooling,
        normalize: conf.normalize,
        dim: conf.dim,
        notes: conf.notes,
    })
}

/// Resolve `hf:` text (`ORG/NAME[@REVISION]`) in this process's cache ([`cache_root`]) into
/// its ONNX spec: the resolver [`install`] gives [`EncoderSpec`]'s parser.
///
/// # Errors
/// As [`HubName::parse`], [`cache_root`] and [`resolve`].
pub fn resolve_spec(name: &str) -> Result<OnnxSpec> {
    let name = HubName::parse(name)?;
    Ok(resolve(&cache_root()?, &name)?.spec())
}

/// Make `hf:ORG/NAME[@REVISION]` encoder specs parse, in this process, by resolving them in
/// the Hugging Face cache ([`resolve_spec`]).
pub fn install() {
    EncoderSpec::set_hub_resolver(resolve_spec);
}

/// One entry of [`list`]: a name in the cache whose snapshot has an ONNX graph, and what
/// resolving it gave.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Listed {
    /// The name (`@REVISION` as the refs file names it, or the commit of a snapshot no refs
    /// file names).
    pub name: HubName,
    /// The commit, when the refs file holds one.
    pub commit: Option<String>,
    /// The resolved model, or why it cannot be run (what it lacks).
    pub model: std::result::Result<HubModel, String>,
}

/// The revisions a model directory's `refs/` names (nested ones as `a/b`).
fn refs_in(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let Some(n) = e.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let rel = if prefix.is_empty() {
            n
        } else {
            format!("{prefix}/{n}")
        };
        if e.path().is_dir() {
            refs_in(&e.path(), &rel, out);
        } else {
            out.push(rel);
        }
    }
}

/// The models of the cache at `root` whose snapshots have an ONNX graph, by name and revision:
/// each revision a refs file names, and each snapshot no refs file names (by its commit).
#[must_use]
pub fn list(root: &Path) -> Vec<Listed> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return out;
    };
    let mut dirs: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let n = e
                .file_name()
                .to_str()?
                .strip_prefix("models--")?
                .to_string();
            Some((n.replace("--", "/"), e.path()))
        })
        .collect();
    dirs.sort();
    for (repo, dir) in dirs {
        let Ok(base) = HubName::parse(&repo) else {
            continue;
        };
        let mut revisions = Vec::new();
        refs_in(&dir.join("refs"), "", &mut revisions);
        revisions.sort();
        // A refs file named by a commit (hf-hub writes one per download) lists as the
        // snapshot it names, after the named revisions.
        revisions.retain(|r| !is_commit(r));
        let mut named = Vec::new();
        for rev in revisions {
            let name = base.at(&rev);
            let snap = snapshot(root, &name);
            if let Ok((commit, snap)) = &snap {
                named.push(commit.clone());
                if graphs_in(snap).is_empty() {
                    continue;
                }
            }
            out.push(Listed {
                commit: snap.ok().map(|s| s.0),
                model: resolve(root, &name).map_err(|e| e.to_string()),
                name,
            });
        }
        let mut unnamed: Vec<String> = std::fs::read_dir(dir.join("snapshots"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|c| is_commit(c) && !named.contains(c))
            .collect();
        unnamed.sort();
        for commit in unnamed {
            let name = base.at(&commit);
            if graphs_in(&dir.join("snapshots").join(&commit)).is_empty() {
                continue;
            }
            out.push(Listed {
                commit: Some(commit),
                model: resolve(root, &name).map_err(|e| e.to_string()),
                name,
            });
        }
    }
    out
}
