//! The arguments of `delaybench algorithms` (run under mpirun).

use crate::export::{Format, ALGORITHMS};
#[cfg(feature = "mpi")]
use crate::run::AlgorithmsOptions;
use clap::Args;

/// Options of `delaybench algorithms` (run under mpirun, one rank is enough).
#[derive(Debug, Clone, Args)]
pub struct AlgorithmsArgs {
    /// `table` (also `text`) or `json` (one document).
    #[arg(long, value_parser = Format::parser(ALGORITHMS), default_value = "table")]
    pub format: Format,
}

/// The run side's plain options: it never sees a command-line type.
#[cfg(feature = "mpi")]
impl From<AlgorithmsArgs> for AlgorithmsOptions {
    fn from(a: AlgorithmsArgs) -> Self {
        AlgorithmsOptions { format: a.format }
    }
}
