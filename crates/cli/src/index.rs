//! The `--index` option: which kNN backend builds the search indexes.

use anyhow::{Result, bail};
use bitext_core::EmbeddingsView;
use bitext_knn::KnnIndex;
use bitext_mine::IndexFactory;
use bitext_mine::testing::BruteForce;

/// The index factory named by `spec`.
pub(crate) fn factory(spec: &str) -> Result<Box<dyn IndexFactory>> {
    match spec {
        "exact" => Ok(Box::new(
            |v: EmbeddingsView<'_>| -> bitext_knn::Result<Box<dyn KnnIndex>> {
                Ok(Box::new(BruteForce::over(v)))
            },
        )),
        other => bail!("unknown index {other:?}: this build knows only \"exact\""),
    }
}
