//! Options that change how a configuration's repetitions are measured: the overlap mode of
//! the nonblocking kernels and adaptive repetitions. Plain data, part of the [`crate::plan::Plan`].

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What the ranks compute between posting a nonblocking operation and waiting for it
/// (Hoefler et al. 2010, §4.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum OverlapMode {
    /// Time-based: busy-compute for t_b seconds of the clock (Hoefler et al. 2010, Listing 6). Hides
    /// overheads such as interrupts or descheduling inside the computed time.
    Time,
    /// Work-based: compute a fixed workload λ calibrated to take t_b, the maximum λ over
    /// ranks (Hoefler et al. 2010, §4.1 steps 1-8); overheads that slow the computation then show.
    Work,
    /// Time-based, sized as OSU 7.4 and IMB-NBC 2021 size it: each rank busy-computes for its
    /// own mean time in the pure pass, not for the common t_b (`osu_iallreduce.c` passes the
    /// rank's own `latency_in_secs` to `dummy_compute`; `IMB_iallreduce` its own `t_pure` to
    /// `IMB_cpu_exploit`). For comparisons with those tools.
    #[value(name = "time-own")]
    #[serde(rename = "time-own")]
    TimeOwn,
}

impl OverlapMode {
    /// `time`, `work` or `time-own`, as recorded.
    pub fn name(self) -> &'static str {
        match self {
            OverlapMode::Time => "time",
            OverlapMode::Work => "work",
            OverlapMode::TimeOwn => "time-own",
        }
    }
}

/// Overlap mode of the nonblocking kernels: post, compute (with `MPI_Test` calls every
/// `test_interval_bytes` of message, if set), then wait.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OverlapSpec {
    pub mode: OverlapMode,
    /// Bytes of message per `MPI_Test` call (Hoefler et al. 2010, §4.2); `None` = no tests.
    pub test_interval_bytes: Option<u64>,
}

impl OverlapSpec {
    /// Number of `MPI_Test` calls for a message of `bytes`: N = floor(bytes / interval) + 1
    /// (Hoefler et al. 2010, §4.2), spread as one at the start of the computation, one at the end and the rest
    /// evenly between; 0 without an interval.
    pub fn tests_for(&self, bytes: u64) -> u32 {
        match self.test_interval_bytes {
            Some(interval) if interval > 0 => (bytes / interval) as u32 + 1,
            _ => 0,
        }
    }
}

/// Adaptive repetitions (Lastovetsky, Rychkov and O'Flynn 2008, §3): measure at least `nrep_min`
/// repetitions, then stop as soon as the Student's t confidence interval (level `ci_level`)
/// of the mean t_global of the valid repetitions has a half-width below `ci_rel` x the mean,
/// or at `nrep_max`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveSpec {
    pub nrep_min: u32,
    pub nrep_max: u32,
    /// Confidence level in (0, 1), e.g. 0.95.
    pub ci_level: f64,
    /// Relative half-width bound, e.g. 0.05 for ±5 % of the mean.
    pub ci_rel: f64,
}

/// Repetitions between two checks of the stopping rule once `nrep_min` is reached: each
/// check is a collective, so it is not done after every repetition.
pub const ADAPTIVE_CHECK_EVERY: u32 = 10;

impl AdaptiveSpec {
    /// Checks the bounds.
    ///
    /// Errors: [`AdaptiveError`] naming the option to fix.
    pub fn validate(&self) -> Result<(), AdaptiveError> {
        if self.nrep_min < 2 || self.nrep_min > self.nrep_max {
            return Err(AdaptiveError::Counts {
                min: self.nrep_min,
                max: self.nrep_max,
            });
        }
        if !(self.ci_level > 0.0 && self.ci_level < 1.0) {
            return Err(AdaptiveError::Level(self.ci_level));
        }
        if !(self.ci_rel > 0.0 && self.ci_rel.is_finite()) {
            return Err(AdaptiveError::Rel(self.ci_rel));
        }
        Ok(())
    }
}

/// Why adaptive-repetition options cannot be used.
#[derive(Debug, Error, PartialEq)]
pub enum AdaptiveError {
    #[error("--nrep-min {min} and --nrep-max {max}: need 2 <= nrep-min <= nrep-max")]
    Counts { min: u32, max: u32 },
    #[error("--ci-level {0} must lie strictly between 0 and 1, e.g. 0.95")]
    Level(f64),
    #[error("--ci-rel {0} must be a positive fraction, e.g. 0.05 for 5 %")]
    Rel(f64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_recorded_and_parsed_by_the_same_name() {
        use clap::ValueEnum;
        for mode in OverlapMode::value_variants() {
            let parsed = OverlapMode::from_str(mode.name(), false).unwrap();
            assert_eq!(parsed, *mode);
            let json = serde_json::to_string(mode).unwrap();
            assert_eq!(json, format!("\"{}\"", mode.name()));
        }
        assert_eq!(OverlapMode::TimeOwn.name(), "time-own");
    }

    #[test]
    fn tests_per_message_follow_000() {
        let s = OverlapSpec {
            mode: OverlapMode::Time,
            test_interval_bytes: Some(2048),
        };
        // Hoefler et al. 2010, §4.2: 4096 B with a 2048 B interval: at the start, half way and at the end.
        assert_eq!(s.tests_for(4096), 3);
        assert_eq!(s.tests_for(8), 1);
        let none = OverlapSpec {
            test_interval_bytes: None,
            ..s
        };
        assert_eq!(none.tests_for(4096), 0);
    }

    #[test]
    fn adaptive_bounds_are_checked() {
        let ok = AdaptiveSpec {
            nrep_min: 10,
            nrep_max: 100,
            ci_level: 0.95,
            ci_rel: 0.05,
        };
        assert_eq!(ok.validate(), Ok(()));
        let bad = AdaptiveSpec {
            nrep_min: 200,
            ..ok
        };
        assert!(bad.validate().unwrap_err().to_string().contains("nrep-min"));
        let bad = AdaptiveSpec {
            ci_level: 1.0,
            ..ok
        };
        assert_eq!(bad.validate(), Err(AdaptiveError::Level(1.0)));
        let bad = AdaptiveSpec { ci_rel: 0.0, ..ok };
        assert_eq!(bad.validate(), Err(AdaptiveError::Rel(0.0)));
    }
}
