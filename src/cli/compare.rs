//! The arguments of `delaybench compare`.

use super::groups::{BootstrapArgs, TimesArgs};
use crate::export::{Format, TABLES};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench compare`: two records files or series of launches, or two
/// capture folders of an application, and how to compare them.
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// Records file A (the reference); a folder of launches A (`delaybench launches`' DIR,
    /// its launch-K.cbor, decided over the launches); or capture folder A of an application.
    pub a: PathBuf,
    /// Records file B or a folder of launches B, compared with A; or capture folder B: per
    /// call site, the time in its calls after (B) against before (A).
    pub b: PathBuf,
    /// Output: a table for reading, or CSV, TSV, JSON, Markdown.
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
    /// Also draw the comparison (median t_global and benefit of A and B vs P, with
    /// intervals) as PNG and SVG figures into this directory (records files only).
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
    /// Also write the comparison as one self-contained HTML page to this file: both runs'
    /// identities side by side, the difference table (sortable) and the figures, inline
    /// (of two capture folders: the captures and the per-site table, no figure).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub bootstrap: BootstrapArgs,
    #[command(flatten)]
    pub times: TimesArgs,
}
