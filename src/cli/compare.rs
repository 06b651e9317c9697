//! The arguments of `delaybench compare`.

use super::groups::{BootstrapArgs, TimesArgs};
use crate::export::{Format, TABLES};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench compare`: two records files and how to compare them.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Records file A (the reference).
    pub a: PathBuf,
    /// Records file B, compared with A.
    pub b: PathBuf,
    /// Output: a table for reading, or CSV, TSV, JSON, Markdown.
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
    /// Also draw the comparison (median t_global and benefit of A and B vs P, with
    /// intervals) as PNG and SVG figures into this directory.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub times: TimesArgs,
}
