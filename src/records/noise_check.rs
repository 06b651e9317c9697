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
    /// Per rank: the share of the check's loop the rank waited on a run queue (Linux's
    /// `/proc/self/schedstat`), NaN where unknown. Empty in files written before it.
    #[serde(default)]
    pub run_queue_share: Vec<f64>,
    /// Per rank: the share of the check's loop the hypervisor took from the rank's CPU
    /// (`/proc/stat`'s steal, in the kernel's ticks of 1/USER_HZ s), NaN where unknown. Empty
    /// in files written before it.
    #[serde(default)]
    pub steal_share: Vec<f64>,
}

/// A detour at least this long, seconds, took the rank's CPU away (the scheduler ran another
/// task, or the hypervisor another guest) rather than serving an interrupt. On the virtual
/// machines measured (docs/accuracy.md) interrupts and the timer tick give a mode of 16-32 µs
/// detours at about 1 kHz, and the rate of detours from 64 µs on predicts the share of
/// windows in which a rank was preempted while it waited.
pub const CPU_LOSS_S: f64 = 64e-6;

/// The share of windows, at most, that [`NoiseCheck::concern`] lets a CPU loss hit before it
/// warns.
const HIT_SHARE: f64 = 0.05;

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
        let taken = self.taken_by(self.per_s.len());
        format!(
            "noise check ({} ms per rank, detours > {:.1} us): {:.0} detours/s per rank on \
             average (worst {:.0}), {:.2} % of time lost (worst {:.2} %), longest {:.1} us{corr}\
             {taken}; cost {:.0} ms",
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

    /// [`Self::rate_longer_than`] summed over the first `p` ranks: detours per second longer
    /// than `length_s` on some rank. `None` without octave counts.
    fn rate_longer_than_on(&self, p: usize, length_s: f64) -> Option<f64> {
        (0..p.min(self.per_s.len()))
            .map(|r| self.rate_longer_than(r, length_s))
            .sum()
    }

    /// The longest detour of the first `p` ranks, seconds.
    fn longest_on(&self, p: usize) -> f64 {
        self.longest_s.iter().take(p).copied().fold(0.0, f64::max)
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
        let longest = self.longest_on(p);
        let mut why = Vec::new();
        if let Some(w) = window_s {
            match self.rate_longer_than_on(p, 0.5 * w) {
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
        if let Some(w) = window_s {
            why.extend(self.window_loss(p, w));
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

impl NoiseCheck {
    /// `; in the check other tasks (run queue) took up to Q % of a rank's CPU and the
    /// hypervisor (steal) up to S %`, the worst of the first `ranks` ranks; empty in files
    /// written before the shares or where `/proc` did not give them.
    fn taken_by(&self, ranks: usize) -> String {
        let worst = |v: &[f64]| {
            v.iter()
                .take(ranks)
                .copied()
                .filter(|x| x.is_finite())
                .reduce(f64::max)
        };
        match (worst(&self.run_queue_share), worst(&self.steal_share)) {
            (Some(q), Some(s)) => format!(
                "; in the check other tasks (run queue) took up to {:.2} % of a rank's CPU and \
                 the hypervisor (steal) up to {:.2} %",
                q * 100.0,
                s * 100.0
            ),
            _ => String::new(),
        }
    }

    /// Why a window of `window_s` seconds on `p` ranks loses accuracy to CPU losses, or
    /// `None` when at most 5 % of windows are hit: the share of windows in which some rank
    /// loses its CPU for [`CPU_LOSS_S`] or more while it waits, 1 − exp(−Σ rate(≥ 64 µs) × w)
    /// (Poisson arrivals at the check's rates), what such a hit costs (a late release, by up to
    /// the detour, which makes the repetition invalid; or a release from cold caches), whether
    /// the scheduler or the hypervisor took the CPU in the check, and the longest window hit
    /// in at most 5 %: −ln(0.95) / Σ rate. `None` without octave counts.
    pub fn window_loss(&self, p: usize, window_s: f64) -> Option<String> {
        let rate = self.rate_longer_than_on(p, CPU_LOSS_S)?;
        let hit = 1.0 - (-rate * window_s).exp();
        if hit <= HIT_SHARE {
            return None;
        }
        let longest = self.longest_on(p);
        let by = self.taken_by(p);
        let safe_s = -(1.0 - HIT_SHARE).ln() / rate;
        Some(format!(
            "about {:.0} % of the {} windows will see a rank lose its CPU for {:.0} us or more \
             while it waits ({rate:.0} such detours/s between the {p} ranks{by}); a rank so hit \
             near its release starts late by up to the detour (the longest seen: {:.0} us), \
             which makes the repetition invalid, or starts from cold caches and widens the start \
             spread beyond what a short window gives; a window of {} or less is hit in at most \
             {:.0} %",
            hit * 100.0,
            crate::units::format_duration(window_s),
            CPU_LOSS_S * 1e6,
            longest * 1e6,
            crate::units::format_duration(safe_s),
            HIT_SHARE * 100.0
        ))
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
            run_queue_share: Vec::new(),
            steal_share: Vec::new(),
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

    #[test]
    fn a_long_window_is_a_concern_where_a_short_one_is_not() {
        // As this machine measured: 16-32 us detours at about 1 kHz (interrupts, not a lost
        // CPU) and 7 of 64 us or more in the 0.2 s check (35/s between the two ranks).
        let mut c = check();
        let mut r0 = vec![0; NOISE_OCTAVES];
        r0[3] = 200;
        r0[5] = 4;
        let mut r1 = vec![0; NOISE_OCTAVES];
        r1[3] = 180;
        r1[6] = 2;
        r1[9] = 1;
        c.octaves = vec![r0, r1];
        c.longest_s = vec![100e-6, 1.5e-3];
        // 1 - exp(-35 x 1 ms) = 3.4 %: a 1 ms window is no concern, and the 16-32 us
        // detours, however many, do not count.
        assert_eq!(c.window_loss(2, 1e-3), None);
        // 1 - exp(-35 x 10 ms) = 30 %; the longest window at 5 %: -ln(0.95) / 35 = 1.466 ms.
        let msg = c.window_loss(2, 10e-3).unwrap();
        assert!(msg.contains("about 30 % of the 10ms windows"), "{msg}");
        assert!(msg.contains("a window of 1.466ms or less"), "{msg}");
        assert!(msg.contains("the longest seen: 1500 us"), "{msg}");
        assert!(!msg.contains("steal"), "no shares, no clause: {msg}");
        // One rank alone (rank 0: 20/s) at 10 ms: 18 %.
        assert!(c.window_loss(1, 10e-3).unwrap().contains("about 18 %"));
        // concern() gives it too, before the blocks.
        assert!(c
            .concern(2, 1e-6, Some(10e-3))
            .unwrap()
            .contains("lose its CPU"));
        // Who took the CPU, where /proc said.
        c.run_queue_share = vec![0.004, 0.012];
        c.steal_share = vec![0.0, f64::NAN];
        let msg = c.window_loss(2, 10e-3).unwrap();
        assert!(
            msg.contains("run queue) took up to 1.20 %") && msg.contains("(steal) up to 0.00 %"),
            "{msg}"
        );
        assert!(c.line().contains("(steal) up to 0.00 %"), "{}", c.line());
        // Without octave counts (older files) there is no rate to tell.
        assert_eq!(check().window_loss(2, 10e-3), None);
    }
}
