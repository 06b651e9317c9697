//! How far apart the ranks started, by the run's own records: the start spread a
//! window-synchronised run achieved, as it can see it, and what that figure leaves out.
//!
//! A rank's recorded start is the clock reading that released it from its wait, on the global
//! clock the records are read on; minus the rank's own applied delay, it is where the rank
//! meant to start. The spread of one repetition is the largest minus the smallest of those
//! over its ranks. Against a truth measured outside delaybench (docs/accuracy.md) it misses
//! two things: each rank's clock error (bounded by half the round-trip time of the probe
//! that measured it) and the path from the release to the entry into the MPI call, which no
//! clock inside delaybench sees.

use super::EntrySummary;
use crate::records::Block;
use statrs::statistics::{Data, OrderStatistics};

/// Recorded start spread of the repetitions `reps` of `block` (valid ones, as
/// [`crate::analysis::BlockTimes::reps`] lists them), seconds, one per repetition in that
/// order: max − min over ranks of `t_start_global_s − applied_delay_s`. Empty for a block
/// without a window (barrier synchronisation has no common instant to miss).
pub fn start_spreads(block: &Block, reps: &[u32]) -> Vec<f64> {
    if block.window_s.is_none() {
        return Vec::new();
    }
    let p = block.nprocs as usize;
    reps.iter()
        .map(|&rep| {
            let at = rep as usize * p;
            let (lo, hi) = (at..at + p)
                .map(|i| block.t_start_global_s.0[i] - block.applied_delay_s.0[i])
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
                    (lo.min(s), hi.max(s))
                });
            hi - lo
        })
        .collect()
}

/// What bounds the clocks' share of the error of a recorded start spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockBound {
    /// Every rank shares one clock (the shared-clock check passed): the clocks add nothing.
    OneClock,
    /// The median RTT/2 of the drift-tracking probes whose times the records are read on,
    /// seconds: at a probe each rank's clock is within that of the reference (the
    /// ping-pong's bound), so two ranks' recorded starts can be wrong relative to each other
    /// by up to twice it.
    HalfRtt(f64),
    /// Online times without probes: no bound at hand.
    Unknown,
}

/// The recorded start spread of a run's window-synchronised valid repetitions, pooled over
/// its blocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StartSpread {
    /// Repetitions pooled.
    pub reps: usize,
    /// Median, 95th percentile and largest spread, seconds.
    pub median_s: f64,
    pub p95_s: f64,
    pub max_s: f64,
}

impl StartSpread {
    /// The summary of `spreads` (seconds, any order); `None` when there are none.
    pub fn of(spreads: Vec<f64>) -> Option<Self> {
        if spreads.is_empty() {
            return None;
        }
        let reps = spreads.len();
        let max_s = spreads.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut data = Data::new(spreads);
        Some(StartSpread {
            reps,
            median_s: data.median(),
            p95_s: data.percentile(95),
            max_s,
        })
    }

    /// One line for the end of a run; `clocks` says what bounds the clocks' share of the
    /// error, `entry` (runs that stamped the path into MPI) where the ranks entered MPI,
    /// which leads the line because it is what a truth outside the tool sees.
    pub fn line(&self, clocks: ClockBound, entry: Option<&EntrySummary>) -> String {
        let us = |s: f64| s * 1e6;
        let clock = match clocks {
            ClockBound::OneClock => {
                "the ranks read one clock (checked), which adds no error".to_string()
            }
            ClockBound::HalfRtt(h) => format!(
                "each rank's clock is uncertain by its probes' RTT/2 (median {:.3} us), so \
                 the true spread can exceed the recorded one by {:.3} us from the clocks alone",
                us(h),
                us(2.0 * h)
            ),
            ClockBound::Unknown => {
                "the run has no drift-tracking probes to bound its clocks' error".to_string()
            }
        };
        let recorded = format!(
            "median {:.3} us, p95 {:.3} us, max {:.3} us",
            us(self.median_s),
            us(self.p95_s),
            us(self.max_s)
        );
        match entry {
            Some(e) => format!(
                "start spread of the {} valid window-synchronised repetitions {}; by the \
                 recorded starts (the releases) alone: {recorded}; {clock}",
                self.reps,
                e.clause()
            ),
            None => format!(
                "start spread of the {} valid window-synchronised repetitions, by their \
                 recorded starts: {recorded}; {clock}; the time from a rank's release to its \
                 entry into MPI is not in these figures (not stamped in this file)",
                self.reps
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn spread_is_max_minus_min_of_the_starts_without_the_delays() {
        // 2 ranks, 3 repetitions, 1 us window-synchronised starts.
        let mut b = testdata::block(Op::Allreduce, 8, 2, 0.0, 3, 1e-6);
        b.window_s = Some(1e-3);
        let starts = [10.0, 10.000_000_3, 11.0, 10.999_999_8, 12.0, 12.000_050_4];
        let delays = [0.0, 0.0, 0.0, 0.0, 0.0, 50e-6];
        b.t_start_global_s.0 = starts.to_vec();
        b.applied_delay_s.0 = delays.to_vec();
        let s = start_spreads(&b, &[0, 1, 2]);
        let want = [0.3e-6, 0.2e-6, 0.4e-6];
        for (got, want) in s.iter().zip(want) {
            assert!((got - want).abs() < 1e-9, "{s:?}");
        }
        // Only the listed repetitions, in their order.
        assert_eq!(start_spreads(&b, &[2]).len(), 1);
        // Without a window there is no common instant.
        b.window_s = None;
        assert!(start_spreads(&b, &[0, 1, 2]).is_empty());
    }

    #[test]
    fn summary_and_line_give_the_figures_in_microseconds() {
        let spreads: Vec<f64> = (1..=100).map(|i| i as f64 * 1e-8).collect();
        let s = StartSpread::of(spreads).unwrap();
        assert_eq!(s.reps, 100);
        assert!((s.max_s - 1e-6).abs() < 1e-15);
        assert!(s.median_s > 0.49e-6 && s.median_s < 0.52e-6, "{s:?}");
        assert!(s.p95_s > 0.94e-6 && s.p95_s < 0.97e-6, "{s:?}");
        let line = s.line(ClockBound::HalfRtt(0.2e-6), None);
        assert!(line.contains("max 1.000 us"), "{line}");
        assert!(
            line.contains("median 0.200 us") && line.contains("by 0.400 us"),
            "{line}"
        );
        assert!(s
            .line(ClockBound::Unknown, None)
            .contains("no drift-tracking probes"));
        assert!(s.line(ClockBound::OneClock, None).contains("adds no error"));
        assert!(StartSpread::of(Vec::new()).is_none());
    }
}
