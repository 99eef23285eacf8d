//! `bitext encoders`: the pretrained encoders this machine has by name, and what each needs to
//! run. The Hugging Face cache's models with an ONNX graph (`--encoder hf:ORG/NAME[@REVISION]`,
//! resolved by `bitext_onnx::hub`: graph, tokenizer, pooling, dimension, normalisation), the
//! USE-M graph `$USEM_ONNX` names, and the ONNX Runtime library every one of them needs; an
//! aligned table, or JSON (`--json`). `--download` fetches models into the cache first
//! (feature `hub`).

use anyhow::Result;
use clap::Args;

/// Arguments of `bitext encoders`.
#[derive(Debug, Args)]
pub(crate) struct EncodersArgs {
    /// Print JSON (`{"cache", "runtime", "encoders": [...]}`, absolute paths) instead of the
    /// table.
    #[arg(long)]
    json: bool,
    /// First fetch this model's missing files (graph, tokenizer.json, configuration) from the
    /// Hugging Face hub ($HF_ENDPOINT, else huggingface.co; token $HF_TOKEN) into the cache:
    /// `hf:ORG/NAME[@REVISION]`, each file checked against the hub's SHA-256 (or git SHA-1).
    /// Repeatable.
    #[arg(long, value_name = "NAME")]
    #[cfg_attr(
        not(feature = "hub"),
        arg(
            help = "Fetch a model from the Hugging Face hub (not in this build: needs the \
                    cargo feature `hub`)"
        )
    )]
    download: Vec<String>,
    #[command(flatten)]
    quiet: crate::flags::Quiet,
}

/// List (after `--download`).
#[cfg(not(feature = "onnx"))]
pub(crate) fn run(_a: &EncodersArgs) -> Result<()> {
    anyhow::bail!(
        "`bitext encoders` lists pretrained ONNX encoders: not in this build (needs the cargo \
         feature `onnx`; install the default build: `cargo install --path crates/cli`)"
    )
}

/// List (after `--download`).
#[cfg(feature = "onnx")]
pub(crate) fn run(a: &EncodersArgs) -> Result<()> {
    listing::run(a)
}

#[cfg(feature = "onnx")]
mod listing {
    use std::path::{Path, PathBuf};

    use anyhow::Result;
    use bitext_onnx::hub::{self, HubModel, HubName};
    use serde::Serialize;

    use super::EncodersArgs;

    /// The environment variable naming the USE-M graph (as the tests and `cargo xtask eval`).
    const USEM_ONNX: &str = "USEM_ONNX";

    /// One encoder.
    #[derive(Debug, Serialize)]
    struct Row {
        /// What `--encoder` takes.
        encoder: String,
        commit: Option<String>,
        graph: Option<PathBuf>,
        /// A `tokenizer.json`, or "in the graph".
        tokenizer: Option<String>,
        pooling: Option<&'static str>,
        dim: Option<usize>,
        normalize: Option<bool>,
        /// What it lacks to run (empty: ready).
        needs: Vec<String>,
        /// What was assumed for want of a file.
        notes: Vec<String>,
        /// The snapshot directory (the table's paths are relative to it).
        #[serde(skip)]
        base: Option<PathBuf>,
    }

    /// The ONNX Runtime library, or why there is none.
    #[derive(Debug, Serialize)]
    struct Runtime {
        path: Option<PathBuf>,
        error: Option<String>,
    }

    /// The whole listing (`--json`).
    #[derive(Debug, Serialize)]
    struct Listing {
        cache: Option<PathBuf>,
        runtime: Runtime,
        encoders: Vec<Row>,
    }

    pub(super) fn run(a: &EncodersArgs) -> Result<()> {
        let cache = hub::cache_root();
        if !a.download.is_empty() {
            let root = cache.as_ref().map_err(|e| anyhow::anyhow!("{e}"))?;
            fetch(root, &a.download, a.quiet.quiet)?;
        }
        let runtime = match bitext_onnx::runtime_path(None) {
            Ok(p) => Runtime {
                path: Some(p),
                error: None,
            },
            Err(e) => Runtime {
                path: None,
                error: Some(match e {
                    bitext_encode::Error::Invalid(why) => why,
                    other => other.to_string(),
                }),
            },
        };
        let mut encoders: Vec<Row> = match &cache {
            Ok(root) => hub::list(root).into_iter().map(row).collect(),
            Err(_) => Vec::new(),
        };
        if let Some(p) = std::env::var_os(USEM_ONNX).filter(|p| !p.is_empty()) {
            encoders.push(usem(PathBuf::from(p)));
        }
        if runtime.path.is_none() {
            for r in &mut encoders {
                r.needs.push("ONNX Runtime".into());
            }
        }
        let listing = Listing {
            cache: cache.ok(),
            runtime,
            encoders,
        };
        if a.json {
            println!("{}", serde_json::to_string_pretty(&listing)?);
        } else {
            print!("{}", table(&listing));
        }
        Ok(())
    }

    #[cfg(feature = "hub")]
    fn fetch(root: &Path, names: &[String], quiet: bool) -> Result<()> {
        let mut how = hub::Fetch::from_env();
        how.progress = !quiet;
        for n in names {
            let name = HubName::parse(n)?;
            let m = hub::download(root, &name, &how)?;
            if !quiet {
                eprintln!("hf:{name}: {} (commit {})", m.graph.display(), m.commit);
            }
        }
        Ok(())
    }

    #[cfg(not(feature = "hub"))]
    fn fetch(_root: &Path, _names: &[String], _quiet: bool) -> Result<()> {
        anyhow::bail!(
            "--download: not in this build (needs the cargo feature `hub`; the default build \
             has it: `cargo install --path crates/cli`)"
        )
    }

    fn pooling_name(p: bitext_encode::Pooling) -> &'static str {
        if p == bitext_encode::Pooling::Cls {
            "cls"
        } else {
            "mean"
        }
    }

    /// The row of a listed model.
    fn row(l: hub::Listed) -> Row {
        let spec = |name: &HubName| format!("hf:{name}");
        match l.model {
            Ok(HubModel {
                name,
                commit,
                snapshot,
                graph,
                tokenizer,
                pooling,
                normalize,
                dim,
                notes,
                ..
            }) => Row {
                encoder: spec(&name),
                commit: Some(commit),
                graph: Some(graph),
                tokenizer: Some(tokenizer.display().to_string()),
                pooling: Some(pooling_name(pooling)),
                dim,
                normalize: Some(normalize),
                needs: Vec::new(),
                notes,
                base: Some(snapshot),
            },
            Err(why) => Row {
                encoder: spec(&l.name),
                commit: l.commit,
                graph: None,
                tokenizer: None,
                pooling: None,
                dim: None,
                normalize: None,
                needs: vec![why],
                notes: Vec::new(),
                base: None,
            },
        }
    }

    /// The row of the USE-M graph.
    fn usem(path: PathBuf) -> Row {
        let needs = if path.is_file() {
            Vec::new()
        } else {
            vec![format!(
                "{USEM_ONNX} names {}, which is not a file",
                path.display()
            )]
        };
        Row {
            encoder: format!("onnx:{}", path.display()),
            commit: None,
            tokenizer: Some("in the graph".into()),
            graph: Some(path),
            pooling: None,
            dim: None,
            normalize: Some(true),
            needs,
            notes: Vec::new(),
            base: None,
        }
    }

    /// `p` relative to `base` when under it.
    fn short(p: &str, base: Option<&Path>) -> String {
        base.and_then(|b| Path::new(p).strip_prefix(b).ok())
            .map_or_else(|| p.to_string(), |r| r.display().to_string())
    }

    /// The listing as an aligned table, with the cache, the runtime and the notes.
    fn table(l: &Listing) -> String {
        let dash = || "-".to_string();
        let header = [
            "ENCODER",
            "COMMIT",
            "GRAPH",
            "TOKENIZER",
            "POOLING",
            "DIM",
            "NORMALISED",
            "NEEDS",
        ];
        let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
        for r in &l.encoders {
            let base = r.base.as_deref();
            rows.push(vec![
                r.encoder.clone(),
                r.commit
                    .as_deref()
                    .map_or_else(dash, |c| c.chars().take(12).collect()),
                r.graph
                    .as_ref()
                    .map_or_else(dash, |g| short(&g.display().to_string(), base)),
                r.tokenizer.as_deref().map_or_else(dash, |t| short(t, base)),
                r.pooling.map_or_else(dash, str::to_string),
                r.dim.map_or_else(dash, |d| d.to_string()),
                r.normalize
                    .map_or_else(dash, |n| if n { "yes" } else { "no" }.to_string()),
                if r.needs.is_empty() {
                    "ready".to_string()
                } else {
                    r.needs.join("; ")
                },
            ]);
        }
        let mut widths = vec![0; header.len()];
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        match &l.cache {
            Some(c) => out.push_str(&format!("Hugging Face cache: {}\n", c.display())),
            None => out.push_str("Hugging Face cache: none (set HF_HUB_CACHE, HF_HOME or HOME)\n"),
        }
        match (&l.runtime.path, &l.runtime.error) {
            (Some(p), _) => out.push_str(&format!("ONNX Runtime: {}\n", p.display())),
            (None, Some(e)) => out.push_str(&format!("ONNX Runtime: {e}\n")),
            (None, None) => {}
        }
        out.push('\n');
        if l.encoders.is_empty() {
            out.push_str(
                "no ONNX encoders: fetch one with `bitext encoders --download hf:ORG/NAME` (a \
                 repository with an ONNX export and a tokenizer.json), or set USEM_ONNX\n",
            );
            return out;
        }
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        for r in &l.encoders {
            for n in &r.notes {
                out.push_str(&format!("{}: {n}\n", r.encoder));
            }
        }
        out
    }
}
