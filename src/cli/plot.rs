//! The arguments of `delaybench plot`.

use super::groups::{SelectArgs, TimesArgs};
use crate::plot::{FigureKind, Stat};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench plot`: the files, where the figures go and which ones.
#[derive(Debug, Clone, Args)]
pub struct PlotArgs {
    /// Records files of one plan (launches pooled), or one `clocksync` CSV or noise file.
    #[arg(required = true, num_args = 1..)]
    pub files: Vec<PathBuf>,
    /// Directory for the figures [default: the first file's folder, beside it with its
    /// stem: `results/run.cbor` → `results/run/`].
    /// (`--figures`, as the measurement names its folder; `--out` stays accepted.)
    #[arg(long = "figures", alias = "out", value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Statistic of the valid repetitions to plot.
    #[arg(long, value_enum, default_value = "median")]
    pub stat: Stat,
    /// Draw only this figure.
    #[arg(long, value_enum, value_name = "NAME")]
    pub only: Option<FigureKind>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub times: TimesArgs,
}
