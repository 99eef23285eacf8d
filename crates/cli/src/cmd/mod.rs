//! One module per subcommand. A command module imports no other command's: what commands
//! share lives in `crate::flags` (argument groups), `crate::run` (runners), `crate::build`
//! (specs) and `crate::input` (inputs); xtask's tidy checks it.

pub(crate) mod align_docs;
pub(crate) mod calibrate;
pub(crate) mod clean;
pub(crate) mod completions;
pub(crate) mod embed;
pub(crate) mod emd;
pub(crate) mod encoders;
pub(crate) mod eval;
pub(crate) mod extract;
pub(crate) mod filter;
pub(crate) mod fix;
pub(crate) mod lid;
pub(crate) mod man;
pub(crate) mod mine;
pub(crate) mod mine_step;
pub(crate) mod score;
pub(crate) mod tokenize;
pub(crate) mod train;
