//! The arguments of `delaybench schemes` (run under mpirun).

use super::clock_args::ClockArgs;
use super::parsers::{parse_op, parse_window, WindowArg};
use crate::clock::ClockSyncMethod;
use crate::export::{Format, TABLES};
use crate::plan::{ClockSource, Op};
#[cfg(feature = "mpi")]
use crate::run::SchemesOptions;
use crate::units::SizeList;
use clap::Args;

/// Options of `delaybench schemes` (run under mpirun).
#[derive(Debug, Clone, Args)]
pub struct SchemesArgs {
    /// Kernels, comma-separated (see the measurement's --ops).
    #[arg(long, value_delimiter = ',', value_parser = parse_op, default_value = "bcast,allreduce")]
    pub ops: Vec<Op>,
    /// Message sizes with units, multiples of 8 bytes: a list (8,64KiB) or powers of two
    /// MIN:MAX (8:64KiB, as OSU's -m; also 8..64KiB).
    #[arg(long, short = 'm', default_value = "8,64KiB")]
    pub sizes: SizeList,
    /// Process counts P [default: powers of two up to the world size, and the world size].
    #[arg(long, value_delimiter = ',')]
    pub procs: Vec<u32>,
    /// Repetitions (or loop iterations) per scheme, and per destination for OL_i.
    #[arg(long, short = 'i', default_value_t = 200)]
    pub nrep: u32,
    /// Window scheme: largest lateness of a rank's start (e.g. 50us) before the repetition is
    /// left out, or `auto` (1 us spinning, 10 us on oversubscribed hosts).
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true)]
    pub late_tolerance: WindowArg,
    /// Clock synchronisation method for the global clock of the window scheme.
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
impl From<SchemesArgs> for SchemesOptions {
    fn from(a: SchemesArgs) -> Self {
        SchemesOptions {
            params: a.params.params(),
            emulate_clock: a.params.emulate_clock,
            ops: a.ops,
            sizes: a.sizes.bytes,
            procs: a.procs,
            nrep: a.nrep,
            late_tolerance_s: match a.late_tolerance {
                WindowArg::Auto => None,
                WindowArg::Fixed(t) => Some(t),
            },
            clock_sync: a.clock_sync,
            clock: a.clock,
            format: a.format,
        }
    }
}
