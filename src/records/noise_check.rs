//! The noise check of a measurement run (header field `noise_check`): a short selfish-detour
//! loop on every rank at once, right after the clock synchronisation, so that every records
//! file says how noisy its machine was (docs/noise.md, "The check in every run").

use serde::{Deserialize, Serialize};

/// What the check found. Per-rank vectors are indexed by world rank; durations in seconds,
/// shares as fractions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseCheck {
    /// The loop (`selfish`).
    pub variant: String,
    /// How long every rank ran it, seconds.
    pub duration_s: f64,
    /// Detours longer than this were counted, seconds.
    pub threshold_s: f64,
    /// Wall time the check added to the run on rank 0, seconds (loop, start lead and gather).
    pub cost_s: f64,
    /// Per rank: detours per second.
    pub per_s: Vec<f64>,
    /// Per rank: share of the time lost in detours.
    pub lost_share: Vec<f64>,
    /// Per rank: the longest detour, seconds.
    pub longest_s: Vec<f64>,
    /// Share of all detour time that overlapped another rank's detour, and the share expected
    /// by chance (NaN with one rank); `analysis::noise_report` defines both.
    pub correlated_share: f64,
    pub correlated_chance: f64,
}

impl NoiseCheck {
    /// The largest per-rank rate (detours per second), share lost, and longest detour.
    pub fn worst(&self) -> (f64, f64, f64) {
        let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        (
            max(&self.per_s),
            max(&self.lost_share),
            max(&self.longest_s),
        )
    }

    /// One line for the end-of-run summary.
    pub fn line(&self) -> String {
        let (per_s, lost, longest) = self.worst();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let corr = if self.correlated_share.is_finite() {
            format!(
                ", {:.1} % of detour time correlated across ranks (chance {:.1} %)",
                self.correlated_share * 100.0,
                self.correlated_chance * 100.0
            )
        } else {
            String::new()
        };
        format!(
            "noise check ({} ms per rank, detours > {:.1} us): {:.0} detours/s per rank on \
             average (worst {:.0}), {:.2} % of time lost (worst {:.2} %), longest {:.1} us{corr}; \
             cost {:.0} ms",
            self.duration_s * 1e3,
            self.threshold_s * 1e6,
            mean(&self.per_s),
            per_s,
            mean(&self.lost_share) * 100.0,
            lost * 100.0,
            longest * 1e6,
            self.cost_s * 1e3
        )
    }

    /// Why noise matters for a configuration whose operation takes `op_s` seconds (median
    /// warm-up time of the slowest rank) on `p` ranks in a window of `window_s` seconds, or
    /// `None` when it is small: when the longest detour exceeds half the window (it can push
    /// a repetition past its window), or when more than 5 % of repetitions are expected to
    /// meet a detour on some rank (1 − exp(−Σ rates × op_s), Poisson arrivals).
    pub fn concern(&self, p: usize, op_s: f64, window_s: Option<f64>) -> Option<String> {
        let rate: f64 = self.per_s.iter().take(p).sum();
        let hit = 1.0 - (-rate * op_s).exp();
        let longest = self.longest_s.iter().take(p).copied().fold(0.0, f64::max);
        let mut why = Vec::new();
        if let Some(w) = window_s.filter(|&w| longest > 0.5 * w) {
            why.push(format!(
                "the longest detour seen ({:.1} us) is more than half the window ({:.1} us)",
                longest * 1e6,
                w * 1e6
            ));
        }
        if hit > 0.05 {
            why.push(format!(
                "about {:.0} % of repetitions ({:.1} us each) meet a detour on one of the {p} \
                 ranks ({rate:.0} detours/s between them)",
                hit * 100.0,
                op_s * 1e6
            ));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check() -> NoiseCheck {
        NoiseCheck {
            variant: "selfish".into(),
            duration_s: 0.2,
            threshold_s: 2e-6,
            cost_s: 0.26,
            per_s: vec![700.0, 500.0],
            lost_share: vec![0.01, 0.02],
            longest_s: vec![200e-6, 4e-3],
            correlated_share: 0.1,
            correlated_chance: 0.02,
        }
    }

    #[test]
    fn concern_follows_rate_op_time_and_window() {
        let c = check();
        // 1200 detours/s over 10 us: 1.2 % of repetitions. Small.
        assert_eq!(c.concern(2, 10e-6, Some(1e-2)), None);
        // Over 100 us: 11 %.
        let msg = c.concern(2, 100e-6, Some(1e-2)).unwrap();
        assert!(msg.contains("11 %"), "{msg}");
        // A 4 ms detour against a 1 ms window; rank 0 alone has only 200 us.
        assert!(c.concern(2, 1e-6, Some(1e-3)).unwrap().contains("window"));
        assert_eq!(c.concern(1, 1e-6, Some(1e-3)), None);
        assert_eq!(c.worst(), (700.0, 0.02, 4e-3));
        let line = c.line();
        assert!(
            line.contains("longest 4000.0 us") && line.contains("cost 260 ms"),
            "{line}"
        );
    }
}
