//! The `--index` option (which kNN backend builds the search indexes: an `IndexSpec` of
//! `bitext-knn`) and the two searches of margin scoring with a progress bar per stage. Plain
//! `exact` searches both directions in one pass over the similarity tiles; any other spec (a
//! JSON exact spec with its own parameters, a faiss factory string) builds an index over each
//! side in turn.

use anyhow::{Result, bail};
use bitext_mine::{BidirectionalParams, Miner, NeighborPair, Stage};
use indicatif::ProgressBar;

use crate::input::progress_bar;
use bitext_knn::{IndexSpec, Metric};

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

/// Both directions' neighbours: the one-pass exact search for `exact`, two index searches
/// otherwise; a progress bar per stage.
pub(crate) fn search(
    miner: &Miner,
    src: bitext_core::EmbeddingsView<'_>,
    trg: bitext_core::EmbeddingsView<'_>,
    spec: &str,
    threads: usize,
    quiet: bool,
) -> Result<NeighborPair> {
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
    let index = parse_spec(spec)?;
    let nb = if spec.trim().eq_ignore_ascii_case("exact") {
        let params = BidirectionalParams {
            threads,
            ..BidirectionalParams::default()
        };
        miner.search_exact(src, trg, params, &mut progress)
    } else {
        miner.search(src, trg, &index, &mut progress)
    };
    if let Some((_, b)) = bar {
        b.finish_and_clear();
    }
    Ok(nb?)
}
