//! What a plan asks of the machine before it runs: message buffers against memory and MPI's
//! count limit, and the run's estimated duration against a bound.
//!
//! Plain Rust over a [`Plan`]: rank 0 checks here before any measurement, so
//! an impossible size ends the run with a message instead of an allocation abort or an rsmpi
//! panic, and a run that would take practically forever is refused unless the user confirms.

use crate::plan::kernel::Op;
use crate::plan::run_plan::{Plan, ProcessSyncMethod};
use crate::units::{format_bytes, format_duration};
use std::fmt;
use thiserror::Error;

/// MPI counts are C `int`s: no buffer handed to one MPI call may hold more elements.
pub const MPI_COUNT_MAX: u64 = i32::MAX as u64;

/// Why a plan does not fit the machine or the time allowed.
#[derive(Debug, Error, PartialEq)]
pub enum LimitError {
    #[error("--sizes {size} for {op} at P = {p} needs {need} of buffers per rank, but only {avail} of memory is available per rank on the fullest host (MemAvailable / ranks there): use smaller sizes or fewer ranks per host")]
    Memory {
        op: Op,
        size: String,
        p: u32,
        need: String,
        avail: String,
    },
    #[error("--sizes {size} for {op} at P = {p} hands MPI a buffer of {count} elements, more than MPI's count limit {MPI_COUNT_MAX} (a C int): use sizes below {largest} for {op} at this P")]
    Count {
        op: Op,
        size: String,
        p: u32,
        count: u64,
        largest: String,
    },
    #[error("--delay {replay} sizes {op}'s partitions from the captured counts, which at P = {p} need {need} of buffers on the busiest rank, but only {avail} of memory is available per rank on the fullest host: measure at other P (--procs), or with the other --replay-map (folded sums the bytes of the ranks it folds, first leaves them out)")]
    CapturedMemory {
        op: Op,
        replay: String,
        p: u32,
        need: String,
        avail: String,
    },
    #[error("--delay {replay} sizes {op}'s partitions from the captured counts, which at P = {p} hand MPI a buffer of {count} bytes, more than MPI's count limit {MPI_COUNT_MAX} (a C int): measure at other P (--procs), or with the other --replay-map (folded sums the bytes of the ranks it folds, first leaves them out)")]
    CapturedCount {
        op: Op,
        replay: String,
        p: u32,
        count: u64,
    },
    #[error("the run would take about {estimate} ({detail}), more than --max-duration {bound}: pass --yes to run it anyway, or lower --nrep, --delay, --window or the number of configurations (--dry-run shows the plan)")]
    TooLong {
        estimate: String,
        bound: String,
        detail: String,
    },
}

/// Bytes of message buffers one rank allocates for `op` at message size `bytes` on `p` ranks:
/// the registry's [`crate::plan::kernel::Buffers`], which the run allocates from too.
pub fn buffer_bytes(op: Op, bytes: u64, p: u32) -> u64 {
    op.buffers().allocated_bytes(bytes, p)
}

/// Elements of the largest buffer one MPI call of `op` receives (bytes for bcast and alltoall,
/// f64 elements for reductions; rsmpi passes the whole slice length as the count).
pub fn largest_count(op: Op, bytes: u64, p: u32) -> u64 {
    op.buffers().largest_count(bytes, p)
}

/// Checks every (op, size) at the plan's largest P against MPI's count limit and, when known,
/// `mem_per_rank` (bytes of memory available to each rank on the fullest host).
///
/// Errors: [`LimitError::Count`], then [`LimitError::Memory`], for the first size that does
/// not fit.
pub fn check_sizes(plan: &Plan, mem_per_rank: Option<u64>) -> Result<(), LimitError> {
    let p = plan.procs.iter().copied().max().unwrap_or(2);
    for &op in plan.ops.iter().filter(|op| op.has_payload()) {
        for &bytes in &plan.sizes {
            let count = largest_count(op, bytes, p);
            if count > MPI_COUNT_MAX {
                let per_byte = (largest_count(op, 1 << 20, p) as f64) / (1u64 << 20) as f64;
                return Err(LimitError::Count {
                    op,
                    size: format_bytes(bytes),
                    p,
                    count,
                    largest: iec((MPI_COUNT_MAX as f64 / per_byte) as u64),
                });
            }
            // The count limit first: it does not depend on the host, so the message does not.
            let need = buffer_bytes(op, bytes, p);
            if let Some(avail) = mem_per_rank.filter(|&a| need > a) {
                return Err(LimitError::Memory {
                    op,
                    size: format_bytes(bytes),
                    p,
                    need: iec(need),
                    avail: iec(avail),
                });
            }
        }
    }
    Ok(())
}

/// Checks the v-form kernels whose partitions come from a replayed capture's counts
/// ([`crate::plan::vcounts::captured_counts`]) at every P of the plan against MPI's count limit
/// (each count, displacement and buffer length is a C int) and, when known, `mem_per_rank`
/// (bytes): what [`check_sizes`] does for the uniform sizes.
///
/// Errors: [`LimitError::CapturedCount`], then [`LimitError::CapturedMemory`], for the
/// first kernel and P that does not fit.
pub fn check_captured_counts(plan: &Plan, mem_per_rank: Option<u64>) -> Result<(), LimitError> {
    for &op in &plan.ops {
        for &p in &plan.procs {
            let Some(c) = crate::plan::vcounts::captured_counts(plan, op, p) else {
                continue;
            };
            let (family, n) = (op.family(), p as usize);
            let count = crate::plan::vcounts::largest_count(family, &c.send_matrix, n);
            if count > MPI_COUNT_MAX {
                return Err(LimitError::CapturedCount {
                    op,
                    replay: c.source,
                    p,
                    count,
                });
            }
            let need = crate::plan::vcounts::largest_buffers(family, &c.send_matrix, n);
            if let Some(avail) = mem_per_rank.filter(|&a| need > a) {
                return Err(LimitError::CapturedMemory {
                    op,
                    replay: c.source,
                    p,
                    need: iec(need),
                    avail: iec(avail),
                });
            }
        }
    }
    Ok(())
}

/// Bytes rounded for reading (`10.4 GiB`).
fn iec(bytes: u64) -> String {
    bytesize::ByteSize(bytes).display().iec().to_string()
}

/// Bytes of memory available per rank on the fullest host: the smallest `MemAvailable`
/// (bytes) reported on each host divided by that host's rank count. `hosts` and `mem` are
/// per world rank; `None` when no rank could read its memory.
pub fn memory_per_rank(hosts: &[String], mem: &[Option<u64>]) -> Option<u64> {
    let mut per_rank: Option<u64> = None;
    for host in hosts {
        let on_host: Vec<usize> = (0..hosts.len()).filter(|&r| &hosts[r] == host).collect();
        let avail = on_host.iter().filter_map(|&r| mem[r]).min();
        if let Some(a) = avail {
            let share = a / on_host.len() as u64;
            per_rank = Some(per_rank.map_or(share, |p| p.min(share)));
        }
    }
    per_rank
}

/// `MemAvailable` of this host in bytes, from the text of `/proc/meminfo`.
pub fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// How long a run of a plan will take, before it runs: seconds. The window of an automatic
/// run is not known before the warm-up, so it is bounded from below by the delays it must
/// hold; the estimate is then a lower bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Blocks measured (configurations x (baseline + delay models)).
    pub blocks: u64,
    /// Measured repetitions over the whole run (at most, with adaptive repetitions).
    pub repetitions: u64,
    /// Seconds of one repetition on average (window, or delay and margin without a window).
    pub per_repetition_s: f64,
    /// Seconds of the initial clock synchronisation (fit span of drift-aware methods).
    pub clock_sync_s: f64,
    /// Whether the estimate is a lower bound: true unless the window is fixed (automatic
    /// windows and barrier-like syncs add operation times not known before the run).
    pub lower_bound: bool,
}

/// Time a repetition needs beyond its delay when the window is automatic: the auto window's
/// constant part (2 x spin margin + 20 us, see the records' window rule), seconds.
const AUTO_MARGIN_S: f64 = 220e-6;

impl Estimate {
    /// The estimate of `plan` (see [`Estimate`]).
    pub fn of(plan: &Plan) -> Estimate {
        let configurations: u64 = plan
            .ops
            .iter()
            .map(|&op| plan.sizes_for(op).len() as u64)
            .sum::<u64>()
            * plan.procs.len() as u64;
        let models = plan.delays_with_baseline().len() as u64;
        let blocks = configurations * models;
        // Every repetition of a delayed block lasts at least its delay; the baseline not.
        let mean_delay = plan.delays.iter().map(|d| d.mean_s()).sum::<f64>() / models as f64;
        let largest = plan.delays.iter().map(|d| d.mean_s()).fold(0.0, f64::max);
        let per_repetition_s = match (plan.sync, plan.window_s) {
            (ProcessSyncMethod::Window, Some(w)) => w,
            (ProcessSyncMethod::Window, None) => 1.1 * largest + AUTO_MARGIN_S,
            _ => mean_delay,
        };
        // Warm-up repetitions (unwindowed, undelayed) are left out: they take operation
        // times, which are not known before the run.
        let p = &plan.clock_params;
        Estimate {
            blocks,
            repetitions: blocks * most_repetitions(plan),
            per_repetition_s,
            clock_sync_s: p.fitpoints as f64 * p.fit_interval_s,
            // Only a fixed window fixes a repetition's length; otherwise the operation times
            // add to the delays.
            lower_bound: !(plan.sync == ProcessSyncMethod::Window && plan.window_s.is_some()),
        }
    }

    /// Total seconds: clock sync, then every repetition.
    pub fn total_s(&self) -> f64 {
        self.clock_sync_s + self.repetitions as f64 * self.per_repetition_s
    }

    /// Refuses an estimate above `bound_s` seconds. Errors: [`LimitError::TooLong`].
    pub fn check(&self, bound_s: f64) -> Result<(), LimitError> {
        if self.total_s() <= bound_s {
            return Ok(());
        }
        Err(LimitError::TooLong {
            estimate: human(self.total_s()),
            bound: human(bound_s),
            detail: format!(
                "{} blocks x {} repetitions x {} each",
                self.blocks,
                self.repetitions / self.blocks.max(1),
                human(self.per_repetition_s)
            ),
        })
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{} ({} blocks, {} repetitions of {} each, clock sync {})",
            if self.lower_bound { "at least " } else { "" },
            human(self.total_s()),
            self.blocks,
            self.repetitions,
            format_duration(self.per_repetition_s),
            format_duration(self.clock_sync_s)
        )
    }
}

/// Most repetitions one block measures: `--nrep`, or `--nrep-max` with adaptive repetitions.
pub fn most_repetitions(plan: &Plan) -> u64 {
    plan.adaptive.as_ref().map_or(plan.nrep, |a| a.nrep_max) as u64
}

/// Seconds as `1h 23m`, `4m 5s` or `2.5s`, for durations people plan around.
pub fn human(seconds: f64) -> String {
    if seconds >= 365.0 * 86400.0 {
        return format!("{:.0} years", seconds / (365.0 * 86400.0));
    }
    if seconds >= 86400.0 {
        return format!("{:.1} days", seconds / 86400.0);
    }
    let s = seconds.round() as u64;
    match s {
        3600.. => format!("{}h {}m", s / 3600, s % 3600 / 60),
        60.. => format!("{}m {}s", s / 60, s % 60),
        _ => format_duration(seconds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_per_kernel() {
        assert_eq!(buffer_bytes(Op::Barrier, 1 << 20, 4), 0);
        assert_eq!(buffer_bytes(Op::Ibcast, 1000, 4), 1000);
        assert_eq!(buffer_bytes(Op::Allreduce, 1000, 4), 2000);
        assert_eq!(buffer_bytes(Op::Ialltoall, 1000, 4), 8000);
        assert_eq!(largest_count(Op::Alltoall, 1000, 4), 4000);
        assert_eq!(largest_count(Op::Reduce, 800, 4), 100);
    }

    #[test]
    fn memory_is_shared_by_the_ranks_of_a_host() {
        let hosts: Vec<String> = ["a", "a", "b"].iter().map(|s| s.to_string()).collect();
        let mem = [Some(100), Some(80), Some(300)];
        // Host a: the smaller reading (80) over its 2 ranks.
        assert_eq!(memory_per_rank(&hosts, &mem), Some(40));
        assert_eq!(memory_per_rank(&hosts, &[None, None, None]), None);
        let text = "MemTotal:  16000 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(mem_available(text), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn human_durations() {
        assert_eq!(human(2.5), "2.5s");
        assert_eq!(human(125.0), "2m 5s");
        assert_eq!(human(3720.0), "1h 2m");
        assert_eq!(human(2.0 * 86400.0), "2.0 days");
    }
}
