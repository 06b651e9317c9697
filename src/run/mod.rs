//! The MPI commands: the measurement run, `clocksync`, `skew`, `schemes`, `noise` and the
//! hidden `check-kernels`. The only layer that uses MPI.
//!
//! Measurement sequence (every rank runs the same plan): find the hosts, agree on the plan,
//! synchronise clocks, then per P on ranks 0..P-1 and per (op, bytes): warm up, size the
//! window, measure the baseline and each delay model as blocks that rank 0 writes as they
//! finish; finally measure the clock error and write the footer.

mod agree;
mod algorithms;
mod buffer_placement;
mod check;
mod clockeval;
mod command;
mod error;
mod gather;
mod hosts;
mod interrupt;
mod job;
mod kernels;
mod machines;
mod measure;
mod mpit;
mod noise;
mod overlap;
mod pinning;
mod process_sync;
mod release_clock;
mod report;
mod runner;
mod schemes;
mod session;
mod shared_clock;
mod skew;
mod start_path;
mod tracking;
mod transport;

pub use algorithms::{main as algorithms_main, AlgorithmsOptions};
pub use check::{main as check_kernels_main, CheckKernelsOptions};
pub use clockeval::{main as clocksync_main, ClockSyncEvalOptions};
pub use noise::{main as noise_main, NoiseOptions};
pub use schemes::{main as schemes_main, SchemesOptions};
pub use skew::{main as skew_main, SkewOptions};

use crate::exit::NO_VALID_EXIT;
use crate::plan::{Request, RunOptions};
use mpi::environment::Universe;
use std::process::ExitCode;

/// Runs the measurement `request` asks for under MPI, with the run's settings `opts` and the
/// text of its study file (`study`, for the header). Exit code 2 for bad input (nothing measured, no file
/// written), [`NO_VALID_EXIT`] when a block had no valid repetition; a failure during the run
/// aborts every rank.
pub fn main(request: Request, opts: RunOptions, study: Option<String>) -> ExitCode {
    if let Some(n) = opts.world_size {
        return agree::dry_run_without_mpi(&request, &opts, n);
    }
    let Some(universe) = init() else {
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    if job::check_task_count(mpi::traits::Communicator::size(&world) as u32).is_err() {
        return ExitCode::from(2);
    }
    let hosts = hosts::Hosts::discover(&world);
    let my_host = hosts.names[mpi::traits::Communicator::rank(&world) as usize].clone();
    let job = job::gather(&world, &my_host);
    let agreed = match agree::agree(&world, &request, &opts, &hosts.names) {
        Ok(a) => a,
        Err(e) => {
            if mpi::traits::Communicator::rank(&world) == 0 {
                eprintln!("delaybench: error: {e}");
            }
            return ExitCode::from(2);
        }
    };
    if agreed.plan_only(&world, &opts) {
        return ExitCode::SUCCESS;
    }
    interrupt::install();
    if let Some(t) = agreed.plan.timeout_s {
        interrupt::watchdog(
            mpi::traits::Communicator::rank(&world),
            std::time::Duration::from_secs_f64(t),
        );
    }
    // Every rank finds the same library and variables, so a refusal is every rank's: exit 2
    // everywhere, rank 0 saying why, before anything is measured.
    let sweep = if agreed.plan.algorithms.is_some() || agreed.plan.algorithm_from_env {
        match algorithms::Sweep::start(&agreed.plan, mpi::traits::Communicator::size(&world) as u32)
        {
            Ok(s) => Some(s),
            Err(e) => {
                if let Some(w) = &agreed.writer {
                    // Refused before the header: the empty file is not a run's records.
                    let _ = std::fs::remove_file(w.path());
                    eprintln!("delaybench: error: {e}");
                }
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    let mut runner = runner::Runner::new(&world, hosts, agreed.plan, &opts, study, agreed.end);
    runner.set_job(job);
    runner.set_sweep(sweep);
    match runner.run(agreed.writer) {
        Err(e) => fail(&world, &e.to_string()),
        // 128 + the signal, as shells report a process ended by it.
        Ok(()) => match interrupt::signal() {
            Some(sig) => ExitCode::from((128 + sig).clamp(0, 255) as u8),
            // Rank 0 alone holds the blocks; its exit code is the launcher's.
            None if runner.blocks_without_valid() > 0 => ExitCode::from(NO_VALID_EXIT),
            None => ExitCode::SUCCESS,
        },
    }
}

/// Starts MPI; `None` (with a message) when it was already started.
fn init() -> Option<Universe> {
    let universe = mpi::initialize();
    if universe.is_none() {
        eprintln!("delaybench: error: MPI was already initialised");
    }
    universe
}

/// Ends every rank after an error on this one: a message, then `MPI_Abort`, never a hang.
fn fail(world: &mpi::topology::SimpleCommunicator, msg: &str) -> ! {
    use mpi::traits::Communicator;
    eprintln!("delaybench: error on rank {}: {msg}", world.rank());
    world.abort(1)
}
