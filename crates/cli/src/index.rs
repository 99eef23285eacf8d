//! The `--index` option (which kNN backend searches: an `IndexSpec` of `bitext-knn`, parsed
//! once, before any file is read) and the both-ways search of margin scoring through the
//! library's recipe (`bitext_mine::MineSpec`), with a progress bar per stage. Every exact
//! spec (`exact`, `{"type":"exact",…}`) searches both directions in one pass over the
//! similarity tiles; a faiss spec builds an index over each side in turn. `--threads` sizes
//! the exact search's thread pool; results do not depend on it.

use anyhow::{Result, bail};
use bitext_knn::{IndexSpec, Metric, Precision, Stage};
use bitext_mine::{MineSpec, Neighbourhoods};
use indicatif::ProgressBar;

use crate::input::progress_bar;

/// `-k`, `--index` and `--threads`: the kNN search of margin scoring.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SearchArgs {
    /// Neighbourhood size on both sides: candidates per sentence and the margins' means.
    #[arg(
        short = 'k',
        long = "neighborhood",
        default_value_t = 4,
        value_name = "K"
    )]
    pub(crate) k: usize,
    /// kNN index: "exact" (both directions in one pass over the similarity tiles; so does any
    /// JSON exact spec such as '{"type":"exact","query_block":512}'), or (built with the `faiss`
    /// feature) a faiss factory string such as "IVF4096,Flat" or "HNSW32" (an index per side).
    #[arg(long, default_value = "exact", value_name = "SPEC")]
    pub(crate) index: String,
    /// Threads of the exact search (0: one per core); the output does not depend on it. faiss
    /// indexes use OpenMP's threads (OMP_NUM_THREADS).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) threads: usize,
    /// Arithmetic of the exact search's scan: auto (the exact path measured fastest on this
    /// CPU, f32 included, on a sample of the search; cached in ~/.cache/bitext/auto.json, or
    /// BITEXT_AUTO_CACHE=FILE|off), f32, or bf16 /
    /// int8 (a quantised copy scanned, the candidates re-ranked in f32 with a proof that
    /// nothing else reaches the top k; where the proof fails, a wider scan or the f32 search;
    /// on a CPU without a kernel that makes them faster, f32, saying so). The output is the
    /// same at every precision; the kernel and the counts are printed.
    #[arg(long, default_value = "auto", value_name = "P")]
    pub(crate) precision: Precision,
}

impl SearchArgs {
    /// Whether `--precision` names a reduced precision (faiss indexes have their own).
    pub(crate) fn precision_is_explicit(&self) -> bool {
        matches!(self.precision, Precision::Bf16 | Precision::Int8)
    }

    /// The spec, parsed and checked (before any file is read), with the threads and precision.
    pub(crate) fn spec(&self) -> Result<IndexSpec> {
        let spec = parse_spec(&self.index)?;
        if self.precision_is_explicit() && spec.is_faiss() {
            bail!(
                "--precision {} applies to the exact index; faiss chooses its own with the \
                 factory string (e.g. \"SQ8\", \"SQfp16\")",
                self.precision
            );
        }
        let spec = spec.with_threads(self.threads);
        // `auto` (the default) leaves a JSON spec's own precision as it is.
        Ok(if self.precision == Precision::Auto {
            spec
        } else {
            spec.with_precision(self.precision)
        })
    }
}

/// The index spec named by `--index`: `exact`, a JSON spec or a faiss factory string, ranking by
/// inner product (the embeddings are L2-normalised, so it is the cosine).
pub(crate) fn parse_spec(spec: &str) -> Result<IndexSpec> {
    let parsed: IndexSpec = spec
        .parse()
        .map_err(|e| anyhow::anyhow!("--index {spec:?}: {e}"))?;
    if parsed.metric() != Metric::InnerProduct {
        bail!(
            "--index {spec:?}: margin scoring needs an inner-product index, not {:?}",
            parsed.metric()
        );
    }
    parsed
        .check()
        .map_err(|e| anyhow::anyhow!("--index {spec:?}: {e}"))?;
    Ok(parsed)
}

/// Both sides normalised and searched both ways by `spec` ([`MineSpec::neighbourhoods`]); a
/// progress bar per stage.
pub(crate) fn neighbourhoods<'a>(
    spec: &MineSpec,
    src: bitext_core::EmbeddingsView<'a>,
    trg: bitext_core::EmbeddingsView<'a>,
    quiet: bool,
) -> Result<Neighbourhoods<'a>> {
    let mut bar: Option<(Stage, ProgressBar)> = None;
    let mut progress = |stage: Stage, done: usize, total: usize| {
        if bar.as_ref().is_none_or(|(s, _)| *s != stage) {
            if let Some((_, b)) = bar.take() {
                b.finish_and_clear();
            }
            let msg = match stage {
                Stage::IndexTarget => "indexing targets",
                Stage::Forward => "searching src → trg",
                Stage::IndexSource => "indexing sources",
                Stage::Backward => "searching trg → src",
                _ => "searching both ways",
            };
            bar = Some((stage, progress_bar(total, msg, quiet)));
        }
        if let Some((_, b)) = &bar {
            b.set_position(done as u64);
        }
    };
    let hoods = spec.neighbourhoods(src, trg, &mut progress);
    if let Some((_, b)) = bar {
        b.finish_and_clear();
    }
    let hoods = hoods?;
    if let Some([fwd, bwd]) = hoods.neighbors().certification
        && !quiet
    {
        eprintln!("kNN source → target: {fwd}");
        eprintln!("kNN target → source: {}", bwd.without_note());
    }
    Ok(hoods)
}
