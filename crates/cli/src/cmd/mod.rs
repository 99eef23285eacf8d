//! One module per subcommand.

pub(crate) mod align_docs;
pub(crate) mod calibrate;
pub(crate) mod embed;
pub(crate) mod emd;
pub(crate) mod eval;
pub(crate) mod extract;
pub(crate) mod filter;
pub(crate) mod fix;
pub(crate) mod ibm1;
pub(crate) mod mine;
pub(crate) mod mine_step;
#[cfg(feature = "neural")]
pub(crate) mod neural;
pub(crate) mod score;
pub(crate) mod tokenize;
pub(crate) mod train;

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
