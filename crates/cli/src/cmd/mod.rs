//! One module per subcommand.

pub(crate) mod embed;
pub(crate) mod emd;
pub(crate) mod eval;
pub(crate) mod filter;
pub(crate) mod mine;
pub(crate) mod neural;
pub(crate) mod score;
pub(crate) mod tokenize;
pub(crate) mod train;
