//! `delaybench skew`: how far apart the ranks leave a barrier, on the global clock
//! (Hunold and Carpen-Amarie 2015, §4, Figure 4): MPI_Barrier and the own dissemination
//! barrier, each called at window-synchronised start instants.

use super::command::{print_table, rows_at_each_p};
use super::measure::{auto_window, slowest_call_after_barriers};
use super::process_sync::{windowed_calls, BarrierKind};
use super::session::Session;
use crate::analysis::exit_skew;
use crate::clock::build;
use crate::export::{write_skew, SkewRow};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::process::ExitCode;

/// What `delaybench skew` measures and how it reports: plain options, filled from the
/// command line at the edge.
#[derive(Debug, Clone)]
pub struct SkewOptions {
    /// Process counts P; empty: the default for the world size.
    pub procs: Vec<u32>,
    /// Barrier calls measured per barrier and P.
    pub nrep: u32,
    /// Clock synchronisation method for the global clock.
    pub clock_sync: crate::clock::ClockSyncMethod,
    /// Parameters of the clock synchronisation methods.
    pub params: crate::clock::ClockSyncParams,
    /// Per-rank clock offsets and skews to emulate, if any.
    pub emulate_clock: Option<crate::clock::EmulationSpec>,
    /// The clock read.
    pub clock: crate::plan::ClockSource,
    /// Output on stdout.
    pub format: crate::export::Format,
}

/// Runs the skew measurement under MPI and prints the table on rank 0.
pub fn main(opts: SkewOptions) -> ExitCode {
    let check = |_: &[u32]| {
        (opts.nrep >= 2)
            .then_some(())
            .ok_or_else(|| "--nrep must be at least 2 for a confidence interval".to_string())
    };
    let emulate = opts.emulate_clock.as_ref();
    super::command::command(
        &opts.procs,
        check,
        emulate,
        opts.clock,
        |session, procs, _| run(session, procs, &opts),
    )
}

/// The measurement of [`main`] once MPI and the session are up.
fn run(session: &mut Session, procs: Vec<u32>, opts: &SkewOptions) -> ExitCode {
    let world = session.world;
    let method = build(opts.clock_sync, &opts.params);
    session.synchronise(world, method.as_ref());
    let rows = rows_at_each_p(session, &procs, None, |session, comm, p| {
        let mut rows = Vec::new();
        for (name, kind) in [
            ("mpi_barrier", BarrierKind::Mpi),
            ("dissemination", BarrierKind::Dissemination),
        ] {
            if let Some(exits) = exits(comm, session, kind, opts.nrep) {
                rows.extend(exit_skew(&exits, p as usize).into_iter().map(|s| SkewRow {
                    barrier: name.into(),
                    nprocs: p,
                    rank: s.rank,
                    mean_s: s.mean_s,
                    ci95_s: s.ci95_s,
                    max_s: s.max_s,
                    n: s.n,
                }));
            }
        }
        rows
    });
    if world.rank() == 0 {
        if let Err(code) = print_table(|out| write_skew(&rows, opts.format, out)) {
            return code;
        }
    }
    ExitCode::SUCCESS
}

/// Global exit times of `nrep` barrier calls, each entered at a window start instant; on rank
/// 0, shape `[valid reps][p]` (repetitions where a rank started late or overran are dropped).
fn exits(
    comm: &SimpleCommunicator,
    session: &Session,
    kind: BarrierKind,
    nrep: u32,
) -> Option<Vec<f64>> {
    let timing = &session.timing;
    let slowest = slowest_call_after_barriers(comm, timing, 20, || kind.run(comm));
    let window = auto_window(&slowest, 0.0, timing.wait.spin_margin_s());
    // Per repetition: global exit time, and 1 for a late start or an overrun.
    let mine: Vec<[f64; 2]> = windowed_calls(comm, timing, window, nrep, || kind.run(comm))
        .iter()
        .map(|c| [c.exit_g, f64::from(c.flags != 0)])
        .collect();
    let all = super::gather::gather(comm, &mine)?;
    let valid = (0..nrep as usize).filter(|&rep| all.iter().all(|r| r[rep][1] == 0.0));
    Some(
        valid
            .flat_map(|rep| all.iter().map(move |r| r[rep][0]))
            .collect(),
    )
}
