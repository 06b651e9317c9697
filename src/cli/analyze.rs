//! The arguments of `delaybench analyze`.

use super::groups::{BootstrapArgs, SelectArgs, TimesArgs};
use crate::analysis::TimingMethod;
use crate::export::{Format, ANALYSES};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench analyze`: the summary, or one of the tables that replace it.
#[derive(Debug, Clone, Args)]
pub struct AnalyzeArgs {
    /// Records files written by measurement runs of one plan.
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Output: a table for reading, or CSV, TSV, JSON, Markdown (or Parquet, with --output).
    #[arg(long, value_parser = Format::parser(ANALYSES), default_value = "table")]
    pub format: Format,
    /// The summary table with every column (valid counts, t_delta, the benefit b of
    /// Niethammer et al. 2016 with its significance and ceiling, outliers, the reference and
    /// replay tables) instead of the narrow answer; `--format table` only (the other formats
    /// always hold every column).
    #[arg(long)]
    pub wide: bool,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Instead of the summary, the distribution of the per-repetition delay overlap
    /// benefit and the noise amplification of blocks with sampled delays.
    #[arg(long)]
    pub distribution: bool,
    /// Instead of the summary, the trend of t_global over the run per block (us per s).
    #[arg(long, conflicts_with = "distribution")]
    pub trend: bool,
    /// Instead of the summary, the overlap of blocks measured with --overlap: overhead,
    /// overlap % by the OSU and IMB-NBC definitions, and the late arrival hidden.
    #[arg(long, conflicts_with_all = ["distribution", "trend"])]
    pub overlap: bool,
    /// Instead of the summary, the median operation time by each timing method, side by
    /// side: global (t_global), max (t_max_local), root (t_root).
    #[arg(long, value_enum, value_delimiter = ',',
          conflicts_with_all = ["distribution", "trend", "overlap"])]
    pub timing: Vec<TimingMethod>,
    /// Instead of the summary, for runs with `--emulate-clock`: the true start spread of
    /// the ranks per tenth of each block, from the emulation's known clocks (an
    /// independent check of the global clock).
    #[arg(long, conflicts_with_all = ["distribution", "trend", "overlap", "timing"])]
    pub truth: bool,
    /// Instead of the summary, for runs that swept collective algorithms (--algorithms,
    /// or launches of --algorithm-from-env given together): per (op, size, P, delay) the
    /// fastest algorithm without and with the late rank and the one with the highest
    /// benefit, and whether each winner's bootstrap interval is clear of the others'.
    #[arg(long, conflicts_with_all = ["distribution", "trend", "overlap", "timing", "truth"])]
    pub algorithms: bool,
    /// Instead of the summary, for blocks that replayed a capture (--delay replay:...):
    /// per replayed site, kernel family, size and P the cost t_delta - t0 of the blocking
    /// and the nonblocking form with their intervals and whether the nonblocking form
    /// hides the pattern (the table, Markdown and JSON summaries show it too; this gives
    /// it as CSV).
    #[arg(long, conflicts_with_all = ["distribution", "trend", "overlap", "timing", "truth", "algorithms"])]
    pub replay: bool,
    /// Instead of the summary, given several launches of one plan: per configuration each
    /// launch's median t_global beside where its ranks and buffers were (CPUs, SMT
    /// siblings, page offsets, huge pages), and which of those separates the launches.
    #[arg(long, conflicts_with_all = ["distribution", "trend", "overlap", "timing", "truth", "algorithms", "replay"])]
    pub placement: bool,
    #[command(flatten)]
    pub times: TimesArgs,
    /// File to write [default: standard output; Parquet needs one]. Never overwritten.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}
