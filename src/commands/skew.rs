//! `delaybench skew` (under mpirun): exit skew of the barriers on the global clock.

use super::Run;
use crate::cli::SkewArgs;
use std::process::ExitCode;

impl Run for SkewArgs {
    fn run(self) -> ExitCode {
        crate::run::skew_main(self.into())
    }
}
