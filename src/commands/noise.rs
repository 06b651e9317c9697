//! `delaybench noise` (under mpirun): the machine's own noise on every rank.

use super::Run;
use crate::cli::NoiseArgs;
use std::process::ExitCode;

impl Run for NoiseArgs {
    fn run(self) -> ExitCode {
        crate::run::noise_main(self.into())
    }
}
