//! The arguments of `delaybench info`.

use crate::export::{Format, INFO};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench info`: a records or noise file.
#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    /// Records file (or noise file) to describe.
    pub file: PathBuf,
    /// Output: labelled lines for reading, or one JSON object.
    #[arg(long, value_parser = Format::parser(INFO), default_value = "table")]
    pub format: Format,
}
