//! Ending a run cleanly. SIGINT or SIGTERM (what `mpirun` and `mpiexec`
//! forward when interrupted) sets a flag; the ranks of a block agree on it every
//! [`STOP_CHECK_EVERY`] repetitions, finish the block with the repetitions measured so far,
//! and rank 0 leaves the records file without a footer, which readers report as an
//! interrupted run. A watchdog (`--timeout`) ends a rank whose operation has made no progress
//! for too long, naming the configuration, so that the launcher ends the job.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Repetitions between two agreements on an interruption: often enough to stop within
/// milliseconds, rarely enough not to disturb the measurement (one tiny allreduce, outside
/// the timed region).
pub const STOP_CHECK_EVERY: usize = 16;

/// The number of the signal that asked this rank to stop, 0 for none.
static SIGNAL: AtomicUsize = AtomicUsize::new(0);
static AGREED: AtomicBool = AtomicBool::new(false);

/// Installs the SIGINT and SIGTERM handlers: each stores its signal's number in [`SIGNAL`]
/// (signal-hook's flag, an atomic store and so async-signal-safe), and signal-hook installs
/// them with SA_RESTART, so MPI's own waits are not disturbed. A signal that cannot be hooked
/// (none is forbidden for these two) leaves the default action: the run then ends as before
/// the handlers existed, without its clean stop.
pub fn install() {
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(e) = signal_hook::flag::register_usize(sig, &SIGNAL, sig as usize) {
            eprintln!("delaybench: warning: cannot handle signal {sig} ({e}): an interrupted run stops without its clean end");
        }
    }
}

/// Collective on `comm`: whether any of its ranks was asked to stop (or the run already
/// agreed to). Every rank gets the same answer.
pub fn agreed(comm: &SimpleCommunicator) -> bool {
    let mine = SIGNAL
        .load(Ordering::Relaxed)
        .max(usize::from(AGREED.load(Ordering::Relaxed))) as i32;
    let mut any = 0;
    comm.all_reduce_into(&mine, &mut any, SystemOperation::max());
    if any != 0 {
        AGREED.store(true, Ordering::Relaxed);
        if SIGNAL.load(Ordering::Relaxed) == 0 {
            SIGNAL.store(any as usize, Ordering::Relaxed);
        }
    }
    any != 0
}

/// True once the ranks agreed to stop (no communication).
pub fn stopping() -> bool {
    AGREED.load(Ordering::Relaxed)
}

/// The signal that stopped the run, if any.
pub fn signal() -> Option<i32> {
    Some(SIGNAL.load(Ordering::Relaxed) as i32).filter(|&s| s != 0)
}

/// Milliseconds since [`watchdog`] started at the last sign of progress; 0 = not armed.
static LAST_BEAT_MS: AtomicU64 = AtomicU64::new(0);
static CONTEXT: Mutex<String> = Mutex::new(String::new());
static EPOCH: Mutex<Option<Instant>> = Mutex::new(None);

fn now_ms() -> u64 {
    let epoch = *EPOCH
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(Instant::now);
    epoch.elapsed().as_millis() as u64 + 1
}

/// Arms the watchdog for `context` (e.g. `allreduce 8 B P = 4, delay 50us`): from now on a
/// beat is expected at least every timeout.
pub fn arm(context: String) {
    *CONTEXT.lock().unwrap_or_else(|e| e.into_inner()) = context;
    beat();
}

/// A sign of progress (a repetition done; an idle rank polling while others measure).
pub fn beat() {
    LAST_BEAT_MS.store(now_ms(), Ordering::Relaxed);
}

/// Disarms the watchdog (at the end of the measurements).
pub fn disarm() {
    LAST_BEAT_MS.store(0, Ordering::Relaxed);
}

/// Starts the watchdog thread of this rank: when armed and no beat came for `timeout`, it
/// prints which configuration hangs and exits with status 3, and the launcher ends the job.
pub fn watchdog(rank: i32, timeout: Duration) {
    now_ms();
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(100).min(timeout / 4));
        let last = LAST_BEAT_MS.load(Ordering::Relaxed);
        if last != 0 && now_ms().saturating_sub(last) > timeout.as_millis() as u64 {
            let context = CONTEXT.lock().unwrap_or_else(|e| e.into_inner()).clone();
            eprintln!(
                "delaybench: error on rank {rank}: no progress for {:.1} s in {context}: the \
                 operation hangs (--timeout); ending the run, the records file keeps every \
                 complete block",
                timeout.as_secs_f64()
            );
            // _exit, not exit: the MPI library's exit handlers may wait for the very peer
            // that hangs.
            // SAFETY: _exit ends the process at once; nothing is left to run.
            unsafe { libc::_exit(3) };
        }
    });
}
