//! `delaybench completions`: a shell completion script.

use super::{finish, Run};
use crate::cli::{Cli, CompletionsArgs};
use anyhow::Context;
use clap::CommandFactory;
use std::io::Write;
use std::process::ExitCode;

impl Run for CompletionsArgs {
    fn run(self) -> ExitCode {
        // Generated into memory first: clap_complete panics when stdout closes early
        // (`| head`), and a closed pipe is no error for a script printer.
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut Cli::command(), "delaybench", &mut script);
        finish(
            std::io::stdout()
                .write_all(&script)
                .context("cannot print the completion script"),
        )
    }
}
