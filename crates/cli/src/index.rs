//! The `--index` option (which kNN backend builds the search indexes) and the two searches of
//! margin scoring with a progress bar per stage.

use anyhow::{Result, bail};
use bitext_mine::{BidirectionalParams, Miner, NeighborPair, Stage};
use indicatif::ProgressBar;

use crate::input::progress_bar;
use bitext_core::EmbeddingsView;
use bitext_knn::KnnIndex;
use bitext_mine::IndexFactory;
use bitext_mine::testing::BruteForce;

fn brute(v: EmbeddingsView<'_>) -> bitext_knn::Result<Box<dyn KnnIndex + '_>> {
    Ok(Box::new(BruteForce::over(v)))
}

/// The index factory named by `spec`.
pub(crate) fn factory(spec: &str) -> Result<Box<dyn IndexFactory>> {
    match spec {
        "brute" => Ok(Box::new(brute)),
        other => bail!("unknown index {other:?}: this build knows \"exact\" and \"brute\""),
    }
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
    let nb = if spec == "exact" {
        let params = BidirectionalParams {
            threads,
            ..BidirectionalParams::default()
        };
        miner.search_exact(src, trg, params, &mut progress)
    } else {
        let factory = factory(spec)?;
        miner.search(src, trg, &*factory, &mut progress)
    };
    if let Some((_, b)) = bar {
        b.finish_and_clear();
    }
    Ok(nb?)
}
