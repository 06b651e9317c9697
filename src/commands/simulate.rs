//! `delaybench simulate`: the measurement's plan in simulated time, by SimGrid's SMPI or the
//! built-in LogGOPS engine. It needs no MPI: the engines run the ranks in simulated time.

use super::{finish, Run};
use crate::cli::SimulationArgs;
use crate::simulate::{self, SimulateError};
use std::io::Write;
use std::process::ExitCode;

impl Run for SimulationArgs {
    fn run(self) -> ExitCode {
        let done = simulate_as_asked(&self, &mut std::io::stdout().lock());
        finish(done.map_err(anyhow::Error::from))
    }
}

/// `--calibrate` alone, or the plan built from the options by the measurement's builder
/// ([`crate::plan::Request::to_plan`]), then simulated with the plain options.
///
/// Errors: every [`SimulateError`]; option and plan errors come before anything runs.
fn simulate_as_asked(args: &SimulationArgs, out: &mut dyn Write) -> Result<(), SimulateError> {
    if args.calibrate {
        return Ok(simulate::smpi::calibrate::run(out)?);
    }
    let window_s = args.window_s().map_err(SimulateError::Plan)?;
    // Every P is given (`--procs` has a default), so no world size is needed for the default.
    let plan = args.request(window_s).to_plan(0, rand::random());
    simulate::run(&plan, &args.options(), out)
}
