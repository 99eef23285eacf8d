//! Fetching a model's files into the hub cache (feature `hub`): hf-hub's blocking client
//! (`ureq`), at the address and with the token of a [`Fetch`] (the environment's:
//! `HF_ENDPOINT`, `HF_TOKEN`; else hf-hub reads the token in `$HF_HOME/token`).
//!
//! What a later resolution could take as complete is written last. hf-hub downloads each
//! file into `blobs/<etag>.part` (resumed from there by the next try, with a `Range` request),
//! renames it to `blobs/<etag>` only once the body is whole (a body cut short is an error), and
//! then links `snapshots/<commit>/<file>` to it. The files are fetched pinned to the commit the
//! revision names when the download starts, configuration first and the graph last, so a
//! snapshot without its graph is never resolved; `refs/<revision>` is written (atomically) only
//! once every file is in place.
//!
//! Each file is then checked against the name hf-hub gives its blob, the hub's ETag: a large
//! (LFS) file's is the SHA-256 of its bytes, a small file's the SHA-1 of its git blob. A file
//! that does not hash to it is removed (blob and link) and the download fails naming both
//! hashes; a mirror whose ETags are not hashes of either form is not checked.

use std::path::Path;

use bitext_core::io::AtomicFile;
use bitext_encode::{Error, Result};
use hf_hub::api::sync::ApiBuilder;
use hf_hub::{Repo, RepoType};

use super::st::{self, POOLING_DIR};
use super::{HubModel, HubName, choose_graph, is_commit, resolve, tokenizer_candidates};

/// The environment variable of the hub's address (hf-hub's).
pub const HF_ENDPOINT: &str = "HF_ENDPOINT";
/// The environment variable of an access token (gated or private models).
pub const HF_TOKEN: &str = "HF_TOKEN";
/// The hub's address when [`HF_ENDPOINT`] is not set.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Where and how [`download`] fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fetch {
    /// The hub's address (`https://huggingface.co`).
    pub endpoint: String,
    /// An access token; `None`: hf-hub's, from the `token` file beside the cache.
    pub token: Option<String>,
    /// hf-hub's progress bars on standard error.
    pub progress: bool,
}

impl Fetch {
    /// `endpoint`, without a token of its own or progress bars.
    #[must_use]
    pub fn new(endpoint: impl Into<String>) -> Self {
        Fetch {
            endpoint: endpoint.into(),
            token: None,
            progress: false,
        }
    }

    /// The environment's: [`HF_ENDPOINT`] (else [`DEFAULT_ENDPOINT`]), [`HF_TOKEN`].
    #[must_use]
    pub fn from_env() -> Self {
        let var = |v: &str| std::env::var(v).ok().filter(|s| !s.trim().is_empty());
        Fetch {
            endpoint: var(HF_ENDPOINT).unwrap_or_else(|| DEFAULT_ENDPOINT.to_string()),
            token: var(HF_TOKEN),
            progress: false,
        }
    }
}

/// Fetch what `name` lacks in the cache at `root` from the hub at `fetch.endpoint`: the
/// graph ([`choose_graph`] over the repository's files, with its external data
/// `<graph>_data`), its `tokenizer.json`, `config.json`, `modules.json` and the pooling
/// config; then resolve it ([`resolve`]). A model that resolves already is not fetched again.
///
/// # Errors
/// [`Error::Invalid`] naming the model, the file and the hub's answer (a network error, a
/// status, a body cut short), a repository without a graph or `tokenizer.json`, and what
/// [`resolve`] says of the files fetched.
pub fn download(root: &Path, name: &HubName, fetch: &Fetch) -> Result<HubModel> {
    if let Ok(m) = resolve(root, name) {
        return Ok(m);
    }
    let mut builder = ApiBuilder::from_env()
        .with_endpoint(fetch.endpoint.trim_end_matches('/').to_string())
        .with_cache_dir(root.to_path_buf())
        .with_progress(fetch.progress);
    if let Some(token) = &fetch.token {
        builder = builder.with_token(Some(token.clone()));
    }
    let api = builder
        .build()
        .map_err(|e| Error::Invalid(format!("hf:{name}: {e}")))?;
    let at = |rev: &str| {
        api.repo(Repo::with_revision(
            name.repo().to_string(),
            RepoType::Model,
            rev.to_string(),
        ))
    };
    let listing = at(name.revision());
    let info = listing.info().map_err(|e| {
        Error::Invalid(format!(
            "hf:{name}: cannot list the repository ({}): {e}",
            listing.info_request().url()
        ))
    })?;
    let commit = info.sha.trim().to_ascii_lowercase();
    if !is_commit(&commit) {
        return Err(Error::Invalid(format!(
            "hf:{name}: the hub answered the commit {:?}, not a 40-hex hash",
            info.sha
        )));
    }
    let files: Vec<&str> = info.siblings.iter().map(|s| s.rfilename.as_str()).collect();
    let graph = choose_graph(&files).map_err(|c| {
        Error::Invalid(if c.is_empty() {
            format!(
                "hf:{name}: the repository has no ONNX graph (onnx/model.onnx, model.onnx or \
                 one *.onnx at the top or in onnx/)"
            )
        } else {
            format!(
                "hf:{name}: the repository has several ONNX graphs ({}) and none is \
                 onnx/model.onnx or model.onnx",
                c.join(", ")
            )
        })
    })?;
    let tokenizer = tokenizer_candidates(graph)
        .into_iter()
        .find(|t| files.contains(&t.as_str()))
        .ok_or_else(|| {
            Error::Invalid(format!(
                "hf:{name}: the repository has no tokenizer.json for {graph}"
            ))
        })?;
    // Pinned to the commit, so that every file is of one snapshot.
    let pinned = at(&commit);
    let fetch = |file: &str| -> Result<()> {
        let link = pinned.get(file).map_err(|e| {
            Error::Invalid(format!(
                "hf:{name}: downloading {file} ({}): {e}",
                pinned.url(file)
            ))
        })?;
        verify(&link).map_err(|why| Error::Invalid(format!("hf:{name}: {file}: {why}")))
    };
    let present = |f: &str| files.contains(&f);
    for f in ["config.json", "modules.json"] {
        if present(f) {
            fetch(f)?;
        }
    }
    let pool = pooling_config(root, name, &commit);
    if present(&pool) {
        fetch(&pool)?;
    }
    let data = format!("{graph}_data");
    for f in &files {
        if f.starts_with(&data) {
            fetch(f)?;
        }
    }
    fetch(&tokenizer)?;
    fetch(graph)?;
    if !name.is_commit() {
        let refs = root.join(name.folder()).join("refs").join(name.revision());
        if let Some(dir) = refs.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Invalid(format!("{}: {e}", dir.display())))?;
        }
        let mut out = AtomicFile::create(&refs)?;
        std::io::Write::write_all(&mut out, commit.as_bytes()).map_err(|e| out.err(e))?;
        out.commit()?;
    }
    resolve(root, name)
}

/// Check the file `link` points to (`snapshots/<commit>/<file>` → `blobs/<etag>`) against its
/// ETag: a 64-hex one is the SHA-256 of its bytes, a 40-hex one the SHA-1 of its git blob
/// (`blob <len>\0` then the bytes); another form is not checked. A file that does not hash
/// to it is removed, blob and link, so that the next try fetches it again.
fn verify(link: &Path) -> std::result::Result<(), String> {
    use sha1::Digest as _;
    let blob = std::fs::canonicalize(link).map_err(|e| format!("{}: {e}", link.display()))?;
    let etag = blob
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let hex = |n: usize| etag.len() == n && etag.bytes().all(|b| b.is_ascii_hexdigit());
    let (sha256, sha1) = (hex(64), hex(40));
    if !sha256 && !sha1 {
        return Ok(());
    }
    // Streamed: a graph may be larger than memory allows twice.
    let io = |e: std::io::Error| format!("{}: {e}", blob.display());
    let mut f = std::fs::File::open(&blob).map_err(io)?;
    let got = if sha256 {
        let mut h = sha2::Sha256::new();
        std::io::copy(&mut f, &mut h).map_err(io)?;
        to_hex(&h.finalize())
    } else {
        let len = f.metadata().map_err(io)?.len();
        let mut h = sha1::Sha1::new();
        h.update(format!("blob {len}\0").as_bytes());
        std::io::copy(&mut f, &mut h).map_err(io)?;
        to_hex(&h.finalize())
    };
    if got == etag {
        return Ok(());
    }
    let _ = std::fs::remove_file(link);
    let _ = std::fs::remove_file(&blob);
    Err(format!(
        "its {} is {got} where the hub names it {etag} (a body changed on the way; removed: \
         run it again)",
        if sha256 { "SHA-256" } else { "git blob SHA-1" }
    ))
}

/// Lower-case hexadecimal of `bytes`.
fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The pooling config to fetch: in the directory the fetched `modules.json` names, else
/// [`POOLING_DIR`].
fn pooling_config(root: &Path, name: &HubName, commit: &str) -> String {
    let modules = root
        .join(name.folder())
        .join("snapshots")
        .join(commit)
        .join("modules.json");
    let dir = std::fs::read_to_string(&modules)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .and_then(|v| st::modules(&v, &modules).ok())
        .map_or_else(|| POOLING_DIR.to_string(), |m| st::pooling_dir(&m));
    format!("{dir}/config.json")
}
