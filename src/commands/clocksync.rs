//! `delaybench clocksync`: the evaluation of the clock synchronisation methods under MPI, or
//! with `--simulate` the offline simulator.

use super::{clocksync_simulate, finish, Run};
use crate::cli::ClockSyncEvalArgs;
use std::process::ExitCode;

impl Run for ClockSyncEvalArgs {
    fn run(self) -> ExitCode {
        if self.simulate {
            let done = clocksync_simulate::run(
                &self.scaling_plan(),
                self.format,
                &mut std::io::stdout().lock(),
            );
            return finish(done.map_err(anyhow::Error::from));
        }
        #[cfg(feature = "mpi")]
        return crate::run::clocksync_main(self.into());
        #[cfg(not(feature = "mpi"))]
        return super::needs_mpi("`clocksync` without --simulate needs");
    }
}
