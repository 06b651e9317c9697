//! Drift tracking during a run: cheap min-RTT offset probes taken between
//! and inside blocks, and a clock model refitted over the whole span so far.
//!
//! A slope fitted over a 0.4 s synchronisation and extrapolated over a long run is what fails
//! (a 0.1 µs offset error over 0.4 s is a 0.25 ppm slope error, 2.5 µs after 10 s). Probes
//! spread over the run give the regression a span that grows with the run, so the model gets
//! more accurate as the run goes, not less.
//!
//! The initial synchronisation is one point of the fit, its *anchor*: its offset at the
//! moment of the synchronisation. A drift-aware initial model (jk, hca, treefit: a fit of
//! hundreds of exchanges) weighs [`ANCHOR_WEIGHT`] probes and keeps its slope until
//! [`MIN_PROBES_FOR_SLOPE`] probes exist, so that one noisy probe cannot make a short run
//! worse. An offset-only model (slope 0, which is no estimate of the drift) weighs one probe,
//! and the first probe already gives a slope.

use crate::clock::ClockModel;

/// Weight of a drift-aware initial model's anchor, in probes: its intercept comes from a fit
/// over many fit points of many exchanges, a probe from one min-RTT exchange.
pub const ANCHOR_WEIGHT: f64 = 10.0;
/// Probes before a drift-aware model's slope is refitted.
pub const MIN_PROBES_FOR_SLOPE: usize = 3;

/// One rank's offset observations and the model refitted from them.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftTracker {
    initial: ClockModel,
    drift_aware: bool,
    /// (local time s, offset to the global clock s, weight): the anchor, then every probe.
    points: Vec<(f64, f64, f64)>,
}

impl DriftTracker {
    /// Starts from the model of the initial synchronisation, completed at local time
    /// `t_sync_s` (seconds).
    pub fn new(initial: ClockModel, t_sync_s: f64) -> Self {
        let drift_aware = initial.slope != 0.0;
        let weight = if drift_aware { ANCHOR_WEIGHT } else { 1.0 };
        DriftTracker {
            initial,
            drift_aware,
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
    /// least-squares line through the anchor and the probes (with the initial slope kept for
    /// a drift-aware model with fewer than [`MIN_PROBES_FOR_SLOPE`] probes).
    pub fn model(&self) -> ClockModel {
        let probes = self.points.len() - 1;
        if probes == 0 {
            return self.initial;
        }
        let w: f64 = self.points.iter().map(|p| p.2).sum();
        let t_mean = self.points.iter().map(|p| p.2 * p.0).sum::<f64>() / w;
        let o_mean = self.points.iter().map(|p| p.2 * p.1).sum::<f64>() / w;
        let fixed = self.drift_aware && probes < MIN_PROBES_FOR_SLOPE;
        let slope = if fixed {
            self.initial.slope
        } else {
            weighted_slope(&self.points, t_mean, o_mean).unwrap_or(self.initial.slope)
        };
        // With a fixed slope the line passes through the weighted mean of the offsets, each
        // moved along that slope to the mean time.
        let intercept = if fixed {
            self.points
                .iter()
                .map(|p| p.2 * (p.1 - slope * (p.0 - t_mean)))
                .sum::<f64>()
                / w
        } else {
            o_mean
        };
        ClockModel {
            slope,
            intercept_s: intercept,
            t_ref_s: t_mean,
        }
    }
}

/// Weighted least-squares slope of (t, offset, weight) points about their weighted means;
/// `None` when the times do not spread.
fn weighted_slope(points: &[(f64, f64, f64)], t_mean: f64, o_mean: f64) -> Option<f64> {
    let (mut sto, mut stt) = (0.0, 0.0);
    for &(t, o, w) in points {
        sto += w * (t - t_mean) * (o - o_mean);
        stt += w * (t - t_mean) * (t - t_mean);
    }
    (stt > 0.0 && stt.is_finite()).then(|| sto / stt)
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

    #[test]
    fn one_noisy_probe_barely_moves_a_drift_aware_model() {
        let initial = drift_aware(20e-6, 1e-3, 100.0);
        let mut t = DriftTracker::new(initial, 100.0);
        assert_eq!(t.model(), initial);
        // The probe is 0.11 us off the (true) initial line: the model moves by 1/11 of it.
        let m = t.add(101.0, initial.offset_at(101.0) + 0.11e-6);
        assert_eq!(m.slope, 20e-6);
        assert!((m.offset_at(101.0) - initial.offset_at(101.0) - 0.01e-6).abs() < 1e-12);
    }

    #[test]
    fn two_probes_of_an_offset_only_model_give_the_drift() {
        // Offset-only initial model (slope 0) of a clock drifting 20 ppm.
        let mut t = DriftTracker::new(ClockModel::offset_only(1e-3), 0.0);
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
        let mut tracker = DriftTracker::new(initial, 100.0);
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
        let mut t = DriftTracker::new(ClockModel::IDENTITY, 0.0);
        t.add(f64::NAN, 1.0);
        t.add(1.0, f64::INFINITY);
        assert_eq!(t.probes().count(), 0);
    }
}
