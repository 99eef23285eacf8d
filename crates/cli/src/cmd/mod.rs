//! One module per subcommand.

pub(crate) mod emd;
pub(crate) mod eval;
pub(crate) mod score;
pub(crate) mod tokenize;
