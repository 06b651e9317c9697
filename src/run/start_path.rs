//! `--start-path`: per repetition, how long the rank waited on a run queue and how much time
//! the hypervisor took from its CPU, read between repetitions (never inside the timed path)
//! from Linux's `/proc/self/schedstat` (the process's main thread, which measures) and
//! `/proc/stat`, through the `procfs` crate. With the release and
//! entry stamps every run records ([`crate::records::StartPathRecord`]), they tell which term
//! a long window adds to the true start spread: preemption, steal, or neither
//! (docs/accuracy.md).

use procfs::process::Process;
use procfs::{CurrentSI, KernelStats};

/// Cumulative counters of this process and of the machine's CPUs, read once per repetition.
pub struct ProcCounters {
    me: Process,
    /// Nanoseconds this thread has spent runnable but not running, at the last read.
    run_delay_ns: u64,
    /// Per CPU: its steal time at the last read, USER_HZ ticks.
    steal_ticks: Vec<u64>,
    /// Seconds per tick (1 / USER_HZ).
    tick_s: f64,
}

impl ProcCounters {
    /// The counters now; `None` where `/proc` cannot be read (not Linux, or hidden).
    pub fn new() -> Option<Self> {
        let me = Process::myself().ok()?;
        Some(ProcCounters {
            run_delay_ns: run_delay_ns(&me)?,
            me,
            steal_ticks: steal_ticks()?,
            tick_s: 1.0 / procfs::ticks_per_second() as f64,
        })
    }

    /// Since the last read: (seconds this thread waited on a run queue, seconds stolen from
    /// CPU `cpu`); NaN for what could not be read.
    pub fn advance(&mut self, cpu: u32) -> (f64, f64) {
        let run_delay = match run_delay_ns(&self.me) {
            Some(now) => {
                let d = now.saturating_sub(self.run_delay_ns) as f64 * 1e-9;
                self.run_delay_ns = now;
                d
            }
            None => f64::NAN,
        };
        let steal = match steal_ticks() {
            Some(now) => {
                let cpu = cpu as usize;
                let d = match (now.get(cpu), self.steal_ticks.get(cpu)) {
                    (Some(&n), Some(&b)) => n.saturating_sub(b) as f64 * self.tick_s,
                    _ => f64::NAN,
                };
                self.steal_ticks = now;
                d
            }
            None => f64::NAN,
        };
        (run_delay, steal)
    }
}

/// The main thread's run-queue wait, nanoseconds (Linux's
/// Documentation/scheduler/sched-stats.rst).
fn run_delay_ns(me: &Process) -> Option<u64> {
    me.schedstat().ok().map(|s| s.run_delay)
}

/// Every CPU's steal time, ticks, in CPU order.
fn steal_ticks() -> Option<Vec<u64>> {
    let stats = KernelStats::current().ok()?;
    Some(
        stats
            .cpu_time
            .iter()
            .map(|c| c.steal.unwrap_or(0))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_advance_by_nothing_negative() {
        let mut c = ProcCounters::new().expect("/proc is readable on Linux");
        let (run_delay, steal) = c.advance(0);
        assert!((0.0..1.0).contains(&run_delay), "{run_delay}");
        assert!((0.0..1.0).contains(&steal), "{steal}");
    }
}
