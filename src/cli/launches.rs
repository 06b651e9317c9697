//! The arguments of `delaybench launches`.

use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench launches`: N launches of one measurement into one folder, then
/// their analysis and figures over the launches.
#[derive(Debug, Clone, Args)]
pub struct LaunchesArgs {
    /// Launches to run, one after the other (each one `mpirun`, `srun` or the launcher
    /// given): the unit of replication the verdicts rest on.
    #[arg(value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub count: u32,
    /// Folder for the launches' records files (`launch-1.cbor`, ...) and their report
    /// (`report/`) [default: `results/launches-<UTC time, µs>-<pid>/`]. It must not exist
    /// yet or be empty: outputs are never overwritten.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The launcher and the measurement's command line, after `--`, ending with
    /// delaybench's own options, e.g. `-- mpirun -np 4 delaybench --delay-rank 0 --delay
    /// 50us`. Each launch appends `--output DIR/launch-K.cbor --tag launch=K --no-figures
    /// --no-summary` to it.
    #[arg(last = true, required = true, value_name = "LAUNCHER")]
    pub launcher: Vec<String>,
}
