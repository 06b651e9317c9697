//! The measurement (`mpirun -np N delaybench [OPTIONS]`, no subcommand).

use crate::cli::MeasureArgs;
use crate::plan::config_file::Study;
use std::process::ExitCode;

/// Runs the measurement `args` ask for under MPI; `study` is the study file they were merged
/// with, kept in the records header.
#[cfg(feature = "mpi")]
pub(super) fn run(args: &MeasureArgs, study: Option<Study>) -> ExitCode {
    crate::run::main(args.request(), args.run_options(), study.map(|s| s.text))
}

/// Without MPI nothing is measured: the options (and a study file) were checked when parsed,
/// and the refusal says how to rebuild.
#[cfg(not(feature = "mpi"))]
pub(super) fn run(_args: &MeasureArgs, _study: Option<Study>) -> ExitCode {
    super::needs_mpi("measuring needs")
}
