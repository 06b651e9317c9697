//! The arguments of `delaybench completions`.

use clap::Args;

/// Arguments of `delaybench completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}
