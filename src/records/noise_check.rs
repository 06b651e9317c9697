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
    /// Per rank: detours counted by length in octaves, bucket k holding lengths in
    /// [2^(k+1), 2^(k+2)) µs (2-4 µs, 4-8 µs, ..., the last bucket open above): how many were
    /// long enough to matter against a given window. Empty in files written before it.
    #[serde(default)]
    pub octaves: Vec<Vec<u32>>,
}

/// Number of octave buckets of [`NoiseCheck::octaves`]: 2 µs up to 16 ms and above.
pub const NOISE_OCTAVES: usize = 13;

/// Counts `durations_s` (seconds) into the octave buckets of [`NoiseCheck::octaves`].
pub fn octave_counts(durations_s: &[f64]) -> Vec<u32> {
    let mut counts = vec![0u32; NOISE_OCTAVES];
    for &d in durations_s {
        let k = (d * 1e6 / 2.0).log2().floor().max(0.0) as usize;
        counts[k.min(NOISE_OCTAVES - 1)] += 1;
    }
    counts
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

    /// Detours per second on `rank` longer than `length_s` seconds, from the octave counts:
    /// the buckets above `length_s` in full and the one that holds it at half weight. `None`
    /// without octave counts (files written before them).
    pub fn rate_longer_than(&self, rank: usize, length_s: f64) -> Option<f64> {
        let counts = self.octaves.get(rank).filter(|c| !c.is_empty())?;
        let mut n = 0.0;
        for (k, &c) in counts.iter().enumerate() {
            let low = 2e-6 * 2f64.powi(k as i32);
            let high = if k + 1 == counts.len() {
                f64::INFINITY
            } else {
                2.0 * low
            };
            if low >= length_s {
                n += c as f64;
            } else if high > length_s {
                n += 0.5 * c as f64;
            }
        }
        Some(n / self.duration_s)
    }

    /// Why noise matters for a configuration whose operation takes `op_s` seconds (median
    /// warm-up time of the slowest rank) on `p` ranks in a window of `window_s` seconds, or
    /// `None` when it is small:
    /// - when more than 5 % of repetitions are expected to meet, on some rank, a detour longer
    ///   than half the window (it can push a repetition past its window or make a rank start
    ///   late): 1 − exp(−Σ rate(> w/2) × w), Poisson arrivals over the window's span. Almost
    ///   every machine has *some* detour longer than half a 50 µs window; what matters is how
    ///   often one falls into a repetition. Without octave counts (older files) the longest
    ///   detour against half the window is the test;
    /// - when more than 5 % of repetitions are expected to meet a detour of any length on
    ///   some rank during the operation (1 − exp(−Σ rates × op_s)).
    pub fn concern(&self, p: usize, op_s: f64, window_s: Option<f64>) -> Option<String> {
        let rate: f64 = self.per_s.iter().take(p).sum();
        let hit = 1.0 - (-rate * op_s).exp();
        let longest = self.longest_s.iter().take(p).copied().fold(0.0, f64::max);
        let mut why = Vec::new();
        if let Some(w) = window_s {
            let long_rate: Option<f64> = (0..p.min(self.per_s.len()))
                .map(|r| self.rate_longer_than(r, 0.5 * w))
                .sum();
            match long_rate {
                Some(long_rate) => {
                    let long_hit = 1.0 - (-long_rate * w).exp();
                    if long_hit > 0.05 {
                        why.push(format!(
                            "about {:.0} % of repetitions meet a detour longer than half the \
                             window ({:.1} us) on one of the {p} ranks ({long_rate:.0} such \
                             detours/s between them)",
                            long_hit * 100.0,
                            0.5 * w * 1e6
                        ));
                    }
                }
                None if longest > 0.5 * w => why.push(format!(
                    "the longest detour seen ({:.1} us) is more than half the window ({:.1} us)",
                    longest * 1e6,
                    w * 1e6
                )),
                None => {}
            }
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
            octaves: Vec::new(),
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

    #[test]
    fn octaves_count_lengths_and_rate_follows_them() {
        // 3, 5, 9 us and 20 ms (open bucket) in a 0.2 s check.
        let counts = octave_counts(&[3e-6, 5e-6, 9e-6, 20e-3]);
        assert_eq!(&counts[..4], &[1, 1, 1, 0]);
        assert_eq!(counts[NOISE_OCTAVES - 1], 1);
        let mut c = check();
        c.octaves = vec![counts, vec![0; NOISE_OCTAVES]];
        // Longer than 8 us: the 8-16 us bucket in full and the 20 ms one: 2 / 0.2 s.
        assert_eq!(c.rate_longer_than(0, 8e-6), Some(10.0));
        // Longer than 6 us: the 4-8 us bucket counts half.
        assert_eq!(c.rate_longer_than(0, 6e-6), Some(12.5));
        assert_eq!(check().rate_longer_than(0, 6e-6), None);
    }

    #[test]
    fn a_rare_long_detour_is_no_concern_but_frequent_ones_are() {
        let mut c = check();
        // 1 detour of 4 ms per 0.2 s on rank 1 (5/s): against a 100 us window, 5 x 1e-4 =
        // 0.05 % of repetitions. No concern, though the longest is 40 windows long.
        let mut rare = vec![0; NOISE_OCTAVES];
        rare[10] = 1; // 2.048-4.096 ms
        c.octaves = vec![vec![0; NOISE_OCTAVES], rare];
        assert_eq!(c.concern(2, 1e-6, Some(100e-6)), None);
        // 200 detours of 64-128 us per 0.2 s (1000/s): 1 - exp(-1000 x 1e-4) = 9.5 %.
        let mut frequent = vec![0; NOISE_OCTAVES];
        frequent[5] = 200;
        c.octaves = vec![vec![0; NOISE_OCTAVES], frequent];
        let msg = c.concern(2, 1e-6, Some(100e-6)).unwrap();
        assert!(msg.contains("about 10 % of repetitions"), "{msg}");
    }
}
