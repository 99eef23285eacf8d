//! What the commands share to run: outputs checked before work, the columns of a TSV, text
//! embedded into a file (streaming, or reused when made earlier), sharded runs' steps, mined
//! pairs written, input lines skipped under `--bad-lines skip`, plots; and the error of a neural
//! command in a build without the models.
//! Commands import these, never each other.

mod columns;
mod embedded;
mod mined;
mod rejects;
mod shards;
mod svg;

pub(crate) use columns::read_columns_skipping;
pub(crate) use embedded::{Streamed, embed_cached, encode_streaming, unencodable};
// The teacher's vectors of `train --teacher` (feature `neural`) reuse the cache's keys.
#[cfg(feature = "neural")]
pub(crate) use embedded::{cache_key, made_under, record_key, sidecar};
pub(crate) use mined::Output;
pub(crate) use rejects::RejectSink;
pub(crate) use shards::{copy_output, filter_sharded, planned, run_options, run_steps};
pub(crate) use svg::write_svg;

/// Check, before any long work, that every output given can be written (its directory exists
/// and takes a new file): `bitext mine -o /missing/dir/x.tsv` fails at once, not after mining.
pub(crate) fn check_outputs<'a>(
    paths: impl IntoIterator<Item = Option<&'a std::path::Path>>,
) -> anyhow::Result<()> {
    for p in paths.into_iter().flatten() {
        bitext_core::io::check_output(p)?;
    }
    Ok(())
}

/// The error of a neural command or option (`what`, e.g. "`bitext train`") in a binary built
/// without the cargo feature `neural`. Those commands and options still parse in such a
/// build, so that `--help` and the flags are the same in every build.
#[cfg(not(feature = "neural"))]
pub(crate) fn neural_unavailable(what: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{what} is not available: this bitext was built without the cargo feature `neural` \
         (the neural models, on burn); install the default build, which has it: \
         `cargo install --path crates/cli` (without `--no-default-features`)"
    )
}
