//! What rank 0 tells the user: progress while measuring, the summary and figures at the end.

use crate::plan::checks::Estimate;
use crate::plan::{Op, Plan};
use crate::units::format_bytes;
use crate::units::format_duration;
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
    /// Progress for `total` blocks of at most `nrep` repetitions each, shown only when `show`
    /// (rank 0, not `--quiet`).
    pub fn new(show: bool, total: u64, nrep: u64) -> Self {
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
        let bar = target.filter(|_| show).map(|target| {
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
            plain: show && !terminal,
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

/// The plan as people read it, one item per line, with the block count and estimated
/// duration ([`Estimate`]): what `--dry-run` and `--verbose` print.
pub fn describe_plan(plan: &Plan, world_size: u32) -> String {
    let list = |items: Vec<String>| items.join(", ");
    let window = match plan.window_s {
        Some(w) => format_duration(w),
        None => "auto (sized from the warm-up)".into(),
    };
    let rows = [
        ("world size", world_size.to_string()),
        (
            "ops",
            list(plan.ops.iter().map(|o| o.to_string()).collect()),
        ),
        (
            "sizes",
            list(plan.sizes.iter().map(|&b| format_bytes(b)).collect()),
        ),
        (
            "P",
            list(plan.procs.iter().map(|p| p.to_string()).collect()),
        ),
        ("late ranks", plan.delay_ranks.to_string()),
        (
            "delays",
            list(plan.delays.iter().map(|d| d.label()).collect()),
        ),
        (
            "repetitions",
            format!("{} (+{} warm-up)", plan.nrep, plan.warmup),
        ),
        (
            "process sync",
            format!("{:?}, window {window}", plan.sync).to_lowercase(),
        ),
        ("clock sync", plan.clock_sync.name().to_string()),
        (
            "detours",
            match (&plan.detour, &plan.detour_trace) {
                (Some(d), _) => d.to_string(),
                (None, Some(t)) => format!(
                    "{t} ({} recorded ranks, {} s, CRC-32C {:08x})",
                    t.recorded_ranks, t.period_s, t.crc32c
                ),
                (None, None) => "none".into(),
            },
        ),
        ("seed", plan.seed.to_string()),
        ("estimate", Estimate::of(plan).to_string()),
    ];
    rows.iter()
        .map(|(k, v)| (*k, v.clone()))
        .chain(plan.delays.iter().filter_map(|d| replay_line(plan, d)))
        .map(|(k, v)| format!("delaybench: plan: {k:<13} {v}\n"))
        .collect()
}

/// The plan's line for a replayed capture site: its operation and size, how its ranks map,
/// and whether the run measures its operation. None for other delays.
fn replay_line(plan: &Plan, d: &crate::delay::DelayModel) -> Option<(&'static str, String)> {
    let r = crate::delay::models::replay::Replay::of(d)?;
    let calls = r.lateness_s.len() / r.recorded_size.max(1);
    let measured = match crate::plan::replay_choice::site_kernels(&r.op) {
        _ if r.op.is_empty() => String::new(),
        None => format!("; {} has no kernel: replayed on the ops above", r.op),
        Some(k) if plan.ops.iter().any(|o| k.contains(o)) => {
            format!("; the site's {} is measured", r.op)
        }
        Some(_) => format!("; the site's {} is NOT among the ops", r.op),
    };
    let counts = match r.capture_op() {
        Some(op) if op.has_count_vector() && r.counts.is_empty() => {
            "; no count vectors in the capture: uniform counts"
        }
        Some(op) if op.has_count_vector() => "; counts from the capture",
        _ => "",
    };
    Some((
        "replay",
        format!(
            "{} ({} {}, {calls} calls of {} ranks, map {}{measured}{counts})",
            r.site,
            if r.op.is_empty() { "op unknown" } else { &r.op },
            format_bytes(r.bytes),
            r.recorded_size,
            if r.map.is_empty() { "first" } else { &r.map },
        ),
    ))
}
