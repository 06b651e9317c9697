//! Progress of a run on rank 0: a bar on a terminal, one line per configuration in logs.

use crate::plan::Op;
use crate::units::format_bytes;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Repetitions measured so far in the current block on this rank: the measurement loop adds
/// one per repetition (a relaxed atomic add, nothing that could disturb the timing), and the
/// progress bar's ticker reads it.
static REPETITIONS: AtomicU64 = AtomicU64::new(0);

/// One measured repetition done (called by the measurement loop on every rank).
pub fn repetition_done() {
    REPETITIONS.fetch_add(1, Ordering::Relaxed);
}

/// How often the bar's position follows the repetition counter.
const TICK: Duration = Duration::from_millis(200);

/// Progress of a run on rank 0: on a terminal a bar over all repetitions (ETA from their
/// rate) naming the block and configuration; in logs one line per configuration.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Ends the ticker thread that moves the bar.
    stop: Arc<AtomicBool>,
    /// Repetitions of the blocks already done (the bar's position at the block start).
    base: Arc<AtomicU64>,
    plain: bool,
    done: u64,
    total: u64,
    nrep: u64,
}

impl Progress {
    /// Progress for `total` blocks of at most `nrep` repetitions each (made on rank 0 when not
    /// `--quiet`).
    pub fn new(total: u64, nrep: u64) -> Self {
        // Only on stderr, and only when it is a terminal. Open MPI gives a rank's stdout a pty
        // even when mpirun's own output goes to a file or a pipe, so drawing on that pty put
        // the bar's escape codes into saved result tables; its stderr is a pipe, so under
        // mpirun and MPICH's mpiexec no bar is drawn (one line per configuration instead).
        let target = std::io::stderr()
            .is_terminal()
            .then(ProgressDrawTarget::stderr);
        let terminal = target.is_some();
        let stop = Arc::new(AtomicBool::new(false));
        let base = Arc::new(AtomicU64::new(0));
        let bar = target.map(|target| {
            let bar = ProgressBar::with_draw_target(Some(total * nrep), target);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} repetitions, {elapsed} elapsed, ETA {eta} | {msg}",
                )
                .expect("valid template"),
            );
            spawn_ticker(bar.clone(), stop.clone(), base.clone(), nrep);
            bar
        });
        REPETITIONS.store(0, Ordering::Relaxed);
        Progress {
            bar,
            stop,
            base,
            plain: !terminal,
            done: 0,
            total,
            nrep,
        }
    }

    /// A new (op, bytes, P) is being measured.
    pub fn configuration(&mut self, op: Op, bytes: u64, p: u32) {
        let size = if op.has_payload() {
            format_bytes(bytes)
        } else {
            "-".into()
        };
        let what = format!("{op} {size} P={p}");
        if let Some(bar) = &self.bar {
            bar.set_message(format!("block {}/{}: {what}", self.done + 1, self.total));
        } else if self.plain {
            eprintln!("[{:>4}/{} blocks] {what}", self.done, self.total);
        }
    }

    /// A block was measured and written.
    pub fn block_done(&mut self) {
        self.done += 1;
        // Adaptive blocks may stop early: the bar moves on to the next block's share.
        self.base.store(self.done * self.nrep, Ordering::Relaxed);
        REPETITIONS.store(0, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done * self.nrep);
            if let Some(rest) = bar.message().split_once(": ") {
                bar.set_message(format!(
                    "block {}/{}: {}",
                    self.done + 1,
                    self.total,
                    rest.1
                ));
            }
        }
    }

    /// Stops the ticker and clears the bar.
    pub fn finish(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Moves `bar` to the repetitions done every [`TICK`] until `stop`.
fn spawn_ticker(bar: ProgressBar, stop: Arc<AtomicBool>, base: Arc<AtomicU64>, nrep: u64) {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            let in_block = REPETITIONS.load(Ordering::Relaxed).min(nrep);
            bar.set_position(base.load(Ordering::Relaxed) + in_block);
            std::thread::sleep(TICK);
        }
    });
}
