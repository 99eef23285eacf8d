//! The `--index` option (which kNN backend builds the search indexes) and the two searches of
//! margin scoring with a progress bar per stage.

use anyhow::{Result, bail};
use bitext_mine::{Miner, NeighborPair, Stage};
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
        "exact" => Ok(Box::new(brute)),
        other => bail!("unknown index {other:?}: this build knows only \"exact\""),
    }
}

/// Both searches, with a progress bar per stage.
pub(crate) fn search(
    miner: &Miner,
    src: bitext_core::EmbeddingsView<'_>,
    trg: bitext_core::EmbeddingsView<'_>,
    factory: &dyn bitext_mine::IndexFactory,
    quiet: bool,
) -> Result<NeighborPair> {
    let mut bar: Option<(Stage, ProgressBar)> = None;
    let nb = miner.search(src, trg, factory, &mut |stage, done, total| {
        if bar.as_ref().is_none_or(|(s, _)| *s != stage) {
            if let Some((_, b)) = bar.take() {
                b.finish_and_clear();
            }
            let msg = match stage {
                Stage::IndexTarget => "indexing targets",
                Stage::Forward => "searching src → trg",
                Stage::IndexSource => "indexing sources",
                _ => "searching trg → src",
            };
            bar = Some((stage, progress_bar(total, msg, quiet)));
        }
        if let Some((_, b)) = &bar {
            b.set_position(done as u64);
        }
    });
    if let Some((_, b)) = bar {
        b.finish_and_clear();
    }
    Ok(nb?)
}
