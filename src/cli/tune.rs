//! The arguments of `delaybench tune`.

use super::groups::{BootstrapArgs, TimesArgs};
use super::parsers::parse_op;
use crate::analysis::tuning::{Extrapolation, TuneLibrary};
use crate::export::{Format, TABLES};
use crate::plan::Op;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench tune`: sweeps of the library's algorithms, the library and
/// pattern to tune for, the file to write, and whether to check it.
#[derive(Debug, Clone, Args)]
pub struct TuneArgs {
    /// Records files of algorithm sweeps (`--algorithms`, launches of
    /// `--algorithm-from-env`, or `simulate --algorithms`), pooled.
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// The library whose tuning file to write: `openmpi` (4.1's coll_tuned dynamic rules) or
    /// `mpich` (4.0's collective selection JSON).
    #[arg(long, value_enum)]
    pub library: TuneLibrary,
    /// The tuning file to write; it must not exist (files are never overwritten).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,
    /// The arrival pattern to tune for: `balanced` (no rank late), or a delayed pattern of
    /// the records as MODEL@RANKS (`50us@0`) or the model alone when it names one
    /// [default: the one delayed pattern of the records; with several, required].
    #[arg(long, value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Outside the measured message sizes and P: `stop` leaves them to the library's own
    /// choice; `extend` stretches the nearest rule, with a warning and a comment per rule.
    #[arg(long, value_enum, default_value = "stop")]
    pub outside: Extrapolation,
    /// Tune only these kernels, comma-separated (allreduce,bcast) [default: every kernel of
    /// the records].
    #[arg(long = "op", value_delimiter = ',', value_parser = parse_op, value_name = "OPS")]
    pub ops: Vec<Op>,
    /// After writing, launch delaybench with --algorithm-from-env under the file (and one
    /// probe file per rule) and compare, rule by rule, each reduction's fingerprint with the
    /// sweep's fingerprint of the rule's algorithm.
    #[arg(long)]
    pub verify: bool,
    /// The MPI launcher of --verify [default: $DELAYBENCH_MPIEXEC, else `mpirun` for
    /// openmpi and `mpiexec.mpich` for mpich].
    #[arg(long, value_name = "CMD", requires = "verify")]
    pub launcher: Option<String>,
    /// The delaybench binary --verify launches, built against the library tuned [default:
    /// this one].
    #[arg(long, value_name = "PATH", requires = "verify")]
    pub verify_exe: Option<PathBuf>,
    /// Output of the decision table: a table for reading, or rows as CSV, TSV, JSON, JSON
    /// Lines or Markdown (the tuning file itself goes to --output).
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub times: TimesArgs,
}
