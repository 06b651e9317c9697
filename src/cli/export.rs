//! The arguments of `delaybench export`.

use super::groups::TimesArgs;
use crate::export::{ExportRows, Format, EXPORTS};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench export`: one records (or noise) file and its rows.
#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// Records file written by a measurement run.
    pub file: PathBuf,
    /// Output format of the rows (Parquet needs --output).
    #[arg(long, value_parser = Format::parser(EXPORTS), default_value = "csv")]
    pub format: Format,
    #[command(flatten)]
    pub times: TimesArgs,
    /// One row per rank and repetition (`rank`), or per repetition with t_global (`rep`).
    #[arg(long, value_enum, default_value = "rank")]
    pub rows: ExportRows,
    /// File to write [default: standard output; Parquet needs one], or the new directory
    /// of an OTF2 archive (`--format otf2`). Never overwritten.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}
