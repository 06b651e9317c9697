//! `delaybench algorithms` (under mpirun): the MPI library's collective algorithm control variables.

use super::Run;
use crate::cli::AlgorithmsArgs;
use std::process::ExitCode;

impl Run for AlgorithmsArgs {
    fn run(self) -> ExitCode {
        crate::run::algorithms_main(self.into())
    }
}
