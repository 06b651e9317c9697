//! `delaybench check-kernels` (under mpirun): the correctness check of the reduction kernels.

use super::Run;
use crate::cli::CheckKernelsArgs;
use std::process::ExitCode;

impl Run for CheckKernelsArgs {
    fn run(self) -> ExitCode {
        crate::run::check_kernels_main(self.into())
    }
}
