//! `delaybench schemes` (under mpirun): one operation timed by every published scheme.

use super::Run;
use crate::cli::SchemesArgs;
use std::process::ExitCode;

impl Run for SchemesArgs {
    fn run(self) -> ExitCode {
        crate::run::schemes_main(self.into())
    }
}
