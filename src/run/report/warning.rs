//! The warnings of a measurement run: printed on rank 0 as they arise and kept, in that order,
//! in the records' footer.

use crate::plan::Op;
use crate::units::{format_bytes, format_duration};
use std::fmt;

/// A warning of the measurement run; its text (`Display`) is what the user reads after
/// `delaybench: warning: ` and what the footer keeps.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// A Slurm job whose ranks share cores (the job's own text).
    SharedCpus(String),
    /// More measuring ranks than cores at one P (the session's text).
    Oversubscribed(String),
    /// The fixed `--window` (`window_s`, seconds) is shorter than the automatic window the
    /// warm-up asks for (`suggested_s`, seconds): many repetitions will overrun it or start
    /// late and be invalid.
    ShortWindow {
        op: Op,
        bytes: u64,
        p: u32,
        window_s: f64,
        suggested_s: f64,
    },
    /// The noise check's detours are large against a configuration's window or operation
    /// time (`why`, the check's words); given once per run.
    Noise {
        op: Op,
        bytes: u64,
        p: usize,
        why: String,
    },
    /// Blocks without a valid repetition (`names`, as `op size P delay`) out of `total`:
    /// their statistics are empty, and the run exits non-zero.
    EmptyBlocks { names: Vec<String>, total: u64 },
    /// The global clocks drifted apart by `max_change_s` by the end of the run, more than
    /// 10% of the smallest median t_global (`smallest_median_s`), both seconds.
    ClockDrift {
        max_change_s: f64,
        smallest_median_s: f64,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::SharedCpus(msg) | Warning::Oversubscribed(msg) => f.write_str(msg),
            Warning::ShortWindow {
                op,
                bytes,
                p,
                window_s,
                suggested_s,
            } => write!(
                f,
                "{op} {} P={p}: --window {} is shorter than the {} the warm-up and the largest \
                 delay need (what --window auto would use); expect invalid repetitions",
                format_bytes(*bytes),
                format_duration(*window_s),
                format_duration(*suggested_s)
            ),
            Warning::Noise { op, bytes, p, why } => write!(
                f,
                "noise: at {op} {} P={p}, {why}; expect noisy repetitions (see the \
                 project's noise documentation; only the first such configuration is named)",
                format_bytes(*bytes)
            ),
            Warning::EmptyBlocks { names, total } => write!(
                f,
                "{} of {total} blocks had no valid repetition (in each, a rank started late or the operation overran \
                 the window), so they have no statistics: {}. Give a larger --window (or `auto`), a \
                 larger --late-tolerance, or fewer ranks per core",
                names.len(),
                names.join("; ")
            ),
            Warning::ClockDrift {
                max_change_s,
                smallest_median_s,
            } => write!(
                f,
                "global clocks were up to {:.2} us apart at the end of the run, more than 10% \
                 of the smallest median t_global ({:.2} us): global times may be off by that \
                 much (re-synchronise with --resync-every; on one host --clock-sync offset is exact)",
                max_change_s * 1e6,
                smallest_median_s * 1e6
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_window_names_the_configuration_and_both_windows() {
        let w = Warning::ShortWindow {
            op: Op::Allreduce,
            bytes: 64,
            p: 2,
            window_s: 1e-6,
            suggested_s: 83e-6,
        };
        assert_eq!(
            w.to_string(),
            "allreduce 64B P=2: --window 1us is shorter than the 83us the warm-up and the \
             largest delay need (what --window auto would use); expect invalid repetitions"
        );
    }

    #[test]
    fn empty_blocks_counts_and_lists_them() {
        let w = Warning::EmptyBlocks {
            names: vec![
                "allreduce 8B P=2 delay 0".into(),
                "bcast 8B P=2 delay 50us".into(),
            ],
            total: 8,
        };
        assert_eq!(
            w.to_string(),
            "2 of 8 blocks had no valid repetition (in each, a rank started late or the \
             operation overran the window), so they have no statistics: allreduce 8B P=2 \
             delay 0; bcast 8B P=2 delay 50us. Give a larger --window (or `auto`), a larger \
             --late-tolerance, or fewer ranks per core"
        );
    }

    #[test]
    fn noise_names_the_first_configuration() {
        let w = Warning::Noise {
            op: Op::Bcast,
            bytes: 1024,
            p: 4,
            why: "detours up to 20 ms".into(),
        };
        assert_eq!(
            w.to_string(),
            "noise: at bcast 1KiB P=4, detours up to 20 ms; expect noisy repetitions (see the \
             project's noise documentation; only the first such configuration is named)"
        );
    }

    #[test]
    fn clock_drift_in_microseconds() {
        let w = Warning::ClockDrift {
            max_change_s: 1.5e-6,
            smallest_median_s: 4.25e-6,
        };
        assert_eq!(
            w.to_string(),
            "global clocks were up to 1.50 us apart at the end of the run, more than 10% of \
             the smallest median t_global (4.25 us): global times may be off by that much \
             (re-synchronise with --resync-every; on one host --clock-sync offset is exact)"
        );
    }

    #[test]
    fn given_texts_pass_through() {
        assert_eq!(
            Warning::SharedCpus("ranks share".into()).to_string(),
            "ranks share"
        );
    }
}
