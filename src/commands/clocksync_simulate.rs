//! The clock-synchronisation simulator, `delaybench clocksync --simulate`: the methods in the
//! event-driven virtual-time simulator, offline (no MPI: dispatched before MPI would be
//! initialised); the command line's options become its [`ScalingPlan`] in `cli`.

use crate::clock::scaling::{simulate, ScalingPlan};
use crate::export::{write_simulated, ExportError, Format};
use std::io::Write;

/// Runs the simulation `plan` and writes the rows to `out` in `format`; progress goes to
/// stderr as each method and P finishes. Errors: writing.
pub(super) fn run(
    plan: &ScalingPlan,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let rows = simulate(plan, &mut |rows| {
        let r = &rows[0];
        eprintln!(
            "delaybench: simulated {} at P = {}: {} seeds, sync {:.1} ms, {:.2} s wall each",
            r.method,
            r.nprocs,
            r.seeds,
            r.sync_s * 1e3,
            r.wall_s
        );
    });
    write_simulated(&rows, format, out)
}
