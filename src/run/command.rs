//! What the MPI commands other than the measurement share: their start-up (MPI, the process
//! counts, the option check, the hosts, a session on an agreed clock), the measurement at each
//! P, and the printing of their table.

use super::session::Session;
use crate::clock::{Clock, MonotonicClock};
use crate::export::ExportError;
use crate::plan::ClockSource;
use mpi::topology::SimpleCommunicator;
use std::process::ExitCode;

/// The start every MPI command but the measurement shares: MPI, the process counts (`procs`,
/// or the default), the command's own check of its options given those counts (`check`: a
/// message refuses the command with exit status 2 on every rank, rank 0 printing it, before
/// anything is measured), the hosts, and a session on the clock of `source` (emulated as
/// `emulate` asks, with an agreed epoch). `body` gets the session, the process counts and the
/// agreed emulation.
pub fn command(
    procs: &[u32],
    check: impl FnOnce(&[u32]) -> Result<(), String>,
    emulate: Option<&crate::clock::EmulationSpec>,
    source: ClockSource,
    body: impl FnOnce(&mut Session, Vec<u32>, Option<&crate::clock::EmulationSpec>) -> ExitCode,
) -> ExitCode {
    use mpi::traits::Communicator;
    let Some(universe) = super::init() else {
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    if super::job::check_task_count(world.size() as u32).is_err() {
        return ExitCode::from(2);
    }
    let Some(procs) = checked_procs(&world, procs) else {
        return ExitCode::from(2);
    };
    if let Err(msg) = check(&procs) {
        if world.rank() == 0 {
            eprintln!("delaybench: error: {msg}");
        }
        return ExitCode::from(2);
    }
    let emulation = agreed_emulation(&world, emulate, source);
    let hosts = super::hosts::Hosts::discover(&world);
    let mut session = Session::new(&world, hosts, source, emulation.as_ref());
    body(&mut session, procs, emulation.as_ref())
}

/// At each P of `procs` in turn, the rows `measure` finds on the communicator of the P
/// measuring ranks (collective on the world; see [`super::session::at_p`], late-start
/// tolerance `tolerance_s`): on rank 0, every P's rows in that order.
pub fn rows_at_each_p<R>(
    session: &mut Session,
    procs: &[u32],
    tolerance_s: Option<f64>,
    mut measure: impl FnMut(&mut Session, &SimpleCommunicator, u32) -> Vec<R>,
) -> Vec<R> {
    let mut rows = Vec::new();
    for &p in procs {
        let (found, _) =
            session.measure_at(p, tolerance_s, |session, comm| measure(session, comm, p));
        rows.extend(found.unwrap_or_default());
    }
    rows
}

/// Prints a command's table on stdout with `write`. An error ends the command with a
/// failure (`Err`, the message printed), except a closed stdout (`| head`): the reader had
/// what it wanted.
pub fn print_table(
    write: impl FnOnce(&mut dyn std::io::Write) -> Result<(), ExportError>,
) -> Result<(), ExitCode> {
    match write(&mut std::io::stdout().lock()) {
        Err(e) if !crate::exit::is_broken_pipe(&e) => {
            eprintln!("delaybench: error: {e}");
            Err(ExitCode::FAILURE)
        }
        _ => Ok(()),
    }
}

/// A reading of the underlying (not emulated) clock of `source`, seconds.
pub fn base_clock_now(source: ClockSource) -> f64 {
    match source {
        ClockSource::Monotonic => MonotonicClock.now(),
        ClockSource::Wtime => super::transport::WtimeClock.now(),
    }
}

/// Process counts for `clocksync` and `skew`: the given ones, or the default. Every rank
/// checks alike; only rank 0 prints the error.
fn checked_procs(world: &SimpleCommunicator, procs: &[u32]) -> Option<Vec<u32>> {
    use mpi::traits::Communicator;
    let size = world.size() as u32;
    let procs = if procs.is_empty() {
        crate::plan::default_procs(size)
    } else {
        procs.to_vec()
    };
    let bad = procs.iter().find(|&&p| p < 2 || p > size);
    if size < 2 || bad.is_some() {
        if world.rank() == 0 {
            eprintln!(
                "delaybench: error: --procs must lie between 2 and the world size ({size}); \
                 launch at least 2 ranks"
            );
        }
        return None;
    }
    Some(procs)
}

/// The emulation spec with rank 0's current underlying clock reading as its epoch, on every
/// rank (collective).
fn agreed_emulation(
    world: &SimpleCommunicator,
    spec: Option<&crate::clock::EmulationSpec>,
    source: ClockSource,
) -> Option<crate::clock::EmulationSpec> {
    use mpi::traits::{Communicator, Root};
    let spec = spec?;
    let mut epoch = if world.rank() == 0 {
        base_clock_now(source)
    } else {
        0.0
    };
    world.process_at_rank(0).broadcast_into(&mut epoch);
    Some(spec.clone().with_epoch(epoch))
}
