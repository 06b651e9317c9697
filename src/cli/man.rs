//! The arguments of `delaybench man`.

use clap::Args;
use std::path::PathBuf;

/// Arguments of `delaybench man`.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// Directory for the pages, e.g. ~/.local/share/man/man1 (created when missing).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}
