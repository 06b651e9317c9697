//! `delaybench simulate`: the measurement's plan in simulated time on SimGrid's SMPI. It
//! needs no MPI: SimGrid runs the ranks in its own processes.

use super::{finish, Run};
use crate::cli::SmpiArgs;
use std::process::ExitCode;

impl Run for SmpiArgs {
    fn run(self) -> ExitCode {
        let done = crate::smpi::run(&self, &mut std::io::stdout().lock());
        finish(done.map_err(anyhow::Error::from))
    }
}
