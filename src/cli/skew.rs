//! The arguments of `delaybench skew` (run under mpirun).

use super::clock_args::ClockArgs;
use crate::clock::ClockSyncMethod;
use crate::export::{Format, TABLES};
use crate::plan::ClockSource;
#[cfg(feature = "mpi")]
use crate::run::SkewOptions;
use clap::Args;

/// Options of `delaybench skew` (run under mpirun).
#[derive(Debug, Clone, Args)]
pub struct SkewArgs {
    /// Process counts P [default: powers of two up to the world size, and the world size].
    #[arg(long, value_delimiter = ',')]
    pub procs: Vec<u32>,
    /// Barrier calls measured per barrier and P.
    #[arg(long, short = 'i', default_value_t = 1000)]
    pub nrep: u32,
    /// Clock synchronisation method for the global clock.
    #[arg(long, value_enum, default_value = "treefit")]
    pub clock_sync: ClockSyncMethod,
    #[command(flatten)]
    pub params: ClockArgs,
    /// Clock: monotonic (clock_gettime CLOCK_MONOTONIC) or wtime (MPI_Wtime).
    #[arg(long, value_enum, default_value = "monotonic")]
    pub clock: ClockSource,
    /// Output on stdout: table, csv, tsv, json or markdown.
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
}

/// The run side's plain options: it never sees a command-line type.
#[cfg(feature = "mpi")]
impl From<SkewArgs> for SkewOptions {
    fn from(a: SkewArgs) -> Self {
        SkewOptions {
            params: a.params.params(),
            emulate_clock: a.params.emulate_clock,
            procs: a.procs,
            nrep: a.nrep,
            clock_sync: a.clock_sync,
            clock: a.clock,
            format: a.format,
        }
    }
}
