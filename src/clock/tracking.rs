//! Drift tracking during a run: cheap min-RTT offset probes taken between
//! and inside blocks, and a clock model refitted over the whole span so far.
//!
//! A slope fitted over a short synchronisation and extrapolated over a long run is what fails
//! (a 0.1 µs offset error over 0.4 s is a 0.25 ppm slope error, 2.5 µs after 10 s; across
//! hosts over TCP, a 50 ms fit was measured 10 ppm off while its own standard error said
//! 1.6 ppm). Probes spread over the run give the regression a span that grows with the run,
//! so the model gets more accurate as the run goes, not less.
//!
//! The initial synchronisation enters the fit twice:
//! - its offset at the moment of the synchronisation is the *anchor* point, weighing
//!   [`ANCHOR_WEIGHT`] probes for a drift-aware model (jk, hca, treefit: a fit of hundreds
//!   of exchanges) and one probe for an offset-only model;
//! - a drift-aware model's slope is a prior on the slope, weighted by the spread of its own
//!   fit points, Σ(t − t̄)² (s², [`SyncOutcome::slope_sxx_s2`](super::SyncOutcome)), as if
//!   each fit point were as precise as one probe. The refitted slope is the
//!   precision-weighted mean `(S·s_probes + λ·s_initial) / (S + λ)` with `S` = Σw(t − t̄)²
//!   of the anchor and probes and `λ` the prior's weight (ridge regression towards the
//!   initial slope). So a probe taken 10 ms after a 50 ms fit barely moves the slope, and
//!   one taken a second later sets it: a probe's slope over 1 s is known 20× better than a
//!   fit's over 50 ms.
//!
//! An offset-only model (slope 0, which is no estimate of the drift) has no prior, so the
//! first probe already gives a slope.

use crate::clock::ClockModel;

/// Weight of a drift-aware initial model's anchor, in probes: its intercept comes from a fit
/// over many fit points of many exchanges, a probe from one min-RTT exchange.
pub const ANCHOR_WEIGHT: f64 = 10.0;

/// One rank's offset observations and the model refitted from them.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftTracker {
    initial: ClockModel,
    /// Weight of the initial slope as a prior, s² (0: none).
    slope_prior_s2: f64,
    /// (local time s, offset to the global clock s, weight): the anchor, then every probe.
    points: Vec<(f64, f64, f64)>,
}

impl DriftTracker {
    /// Starts from the model of the initial synchronisation, completed at local time
    /// `t_sync_s` (seconds), whose slope came from fit points spread by `slope_sxx_s2`
    /// (Σ(t − t̄)², s²; 0 or NaN when no slope was fitted).
    pub fn new(initial: ClockModel, t_sync_s: f64, slope_sxx_s2: f64) -> Self {
        let drift_aware = initial.slope != 0.0;
        let weight = if drift_aware { ANCHOR_WEIGHT } else { 1.0 };
        let slope_prior_s2 = if drift_aware && slope_sxx_s2.is_finite() {
            slope_sxx_s2.max(0.0)
        } else {
            0.0
        };
        DriftTracker {
            initial,
            slope_prior_s2,
            points: vec![(t_sync_s, initial.offset_at(t_sync_s), weight)],
        }
    }

    /// Probes recorded so far (local time s, offset s), oldest first, without the anchor.
    pub fn probes(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.points[1..].iter().map(|p| (p.0, p.1))
    }

    /// Adds a probe: at local time `t_local_s` the clock was `offset_s` seconds ahead of the
    /// global clock. Returns the refitted model (see the module documentation).
    pub fn add(&mut self, t_local_s: f64, offset_s: f64) -> ClockModel {
        if t_local_s.is_finite() && offset_s.is_finite() {
            self.points.push((t_local_s, offset_s, 1.0));
        }
        self.model()
    }

    /// The current model: the initial one until the first probe, then the weighted
    /// least-squares line through the anchor and the probes, its slope drawn towards the
    /// initial slope by the prior (module documentation).
    pub fn model(&self) -> ClockModel {
        if self.points.len() == 1 {
            return self.initial;
        }
        let w: f64 = self.points.iter().map(|p| p.2).sum();
        let t_mean = self.points.iter().map(|p| p.2 * p.0).sum::<f64>() / w;
        let o_mean = self.points.iter().map(|p| p.2 * p.1).sum::<f64>() / w;
        let (mut sto, mut stt) = (0.0, 0.0);
        for &(t, o, w) in &self.points {
            sto += w * (t - t_mean) * (o - o_mean);
            stt += w * (t - t_mean) * (t - t_mean);
        }
        let prior = self.slope_prior_s2;
        let slope = if stt + prior > 0.0 && (stt + prior).is_finite() {
            (sto + prior * self.initial.slope) / (stt + prior)
        } else {
            self.initial.slope
        };
        // Whatever the slope, the line passes through the weighted mean of the offsets at the
        // weighted mean time, the least-squares intercept for that slope.
        ClockModel {
            slope,
            intercept_s: o_mean,
            t_ref_s: t_mean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drift_aware(slope: f64, offset: f64, t_ref: f64) -> ClockModel {
        ClockModel {
            slope,
            intercept_s: offset,
            t_ref_s: t_ref,
        }
    }

    /// Σ(t − t̄)² of the default treefit fit: 50 points evenly over 50 ms.
    const FIT_50_OVER_50MS: f64 = 50.0 * 0.05 * 0.05 / 12.0;

    #[test]
    fn a_probe_soon_after_the_sync_barely_moves_the_slope() {
        let initial = drift_aware(20e-6, 1e-3, 100.0);
        let mut t = DriftTracker::new(initial, 100.0, FIT_50_OVER_50MS);
        assert_eq!(t.model(), initial);
        // 10 ms after the sync, a probe 0.11 us off the (true) initial line: alone it would
        // say 31 ppm; against the 50 ms fit it moves the slope by about 0.1 ppm.
        let m = t.add(100.01, initial.offset_at(100.01) + 0.11e-6);
        assert!((m.slope - 20e-6).abs() < 0.2e-6, "slope {}", m.slope);
        assert!(m.slope > 20e-6, "the probe pulls the slope its way");
        // The offset at the probe moves by about 1/11 of its error (anchor weight 10).
        let moved = m.offset_at(100.01) - initial.offset_at(100.01);
        assert!((0.0..0.02e-6).contains(&moved), "moved {moved}");
    }

    #[test]
    fn a_probe_a_second_later_corrects_a_wrong_initial_slope() {
        // Two hosts over TCP: the 50 ms fit said 30 ppm, the clock drifts 20 ppm.
        let truth = |t: f64| 1.5e-3 + 20e-6 * (t - 100.0);
        let initial = drift_aware(30e-6, truth(100.0), 100.0);
        let mut t = DriftTracker::new(initial, 100.0, FIT_50_OVER_50MS);
        let m = t.add(101.0, truth(101.0));
        assert!((m.slope - 20e-6).abs() < 0.3e-6, "slope {}", m.slope);
        // One more second on: within 0.3 us, where the initial slope is 20 us off.
        assert!((m.offset_at(102.0) - truth(102.0)).abs() < 0.3e-6);
        assert!((initial.offset_at(102.0) - truth(102.0)).abs() > 19e-6);
    }

    #[test]
    fn without_a_fitted_slope_the_initial_slope_is_kept_until_probes_spread() {
        // A drift-aware model whose fit spread is unknown (NaN) has no prior: one probe at the
        // anchor's own time leaves the slope undetermined, so the initial one stays.
        let initial = drift_aware(5e-6, 0.0, 0.0);
        let mut t = DriftTracker::new(initial, 0.0, f64::NAN);
        let m = t.add(0.0, 0.0);
        assert_eq!(m.slope, 5e-6);
    }

    #[test]
    fn two_probes_of_an_offset_only_model_give_the_drift() {
        // Offset-only initial model (slope 0) of a clock drifting 20 ppm.
        let mut t = DriftTracker::new(ClockModel::offset_only(1e-3), 0.0, 0.0);
        let m = t.add(1.0, 1e-3 + 20e-6);
        assert!((m.slope - 20e-6).abs() < 1e-12);
        assert!((m.offset_at(2.0) - (1e-3 + 40e-6)).abs() < 1e-12);
    }

    #[test]
    fn many_probes_refit_the_slope_over_the_whole_span() {
        // True clock: 1.5 ms ahead at t = 100 s, drifting +20 ppm; the initial slope is off
        // by 0.5 ppm, as a short initial fit can be.
        let truth = |t: f64| 1.5e-3 + 20e-6 * (t - 100.0);
        let initial = drift_aware(20.5e-6, truth(100.0), 100.0);
        let mut tracker = DriftTracker::new(initial, 100.0, FIT_50_OVER_50MS);
        for i in 1..=60 {
            // Alternating 50 ns measurement noise.
            let t = 100.0 + i as f64;
            let noise = if i % 2 == 0 { 50e-9 } else { -50e-9 };
            tracker.add(t, truth(t) + noise);
        }
        let m = tracker.model();
        assert!((m.slope - 20e-6).abs() < 0.01e-6, "slope {}", m.slope);
        // Extrapolated 1 s past the last probe: within 0.1 us of the truth.
        assert!((m.offset_at(161.0) - truth(161.0)).abs() < 0.1e-6);
        // The initial slope would be 30 us off there.
        assert!((initial.offset_at(161.0) - truth(161.0)).abs() > 25e-6);
    }

    #[test]
    fn non_finite_probes_are_ignored() {
        let mut t = DriftTracker::new(ClockModel::IDENTITY, 0.0, 0.0);
        t.add(f64::NAN, 1.0);
        t.add(1.0, f64::INFINITY);
        assert_eq!(t.probes().count(), 0);
    }
}
