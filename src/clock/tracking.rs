//! Drift tracking during a run (issue 8, item 3): cheap min-RTT offset probes taken between
//! and inside blocks, and a clock model refitted over the whole span so far.
//!
//! A slope fitted over a 0.4 s synchronisation and extrapolated over a long run is what fails
//! (a 0.1 µs offset error over 0.4 s is a 0.25 ppm slope error, 2.5 µs after 10 s). Probes
//! spread over the run give the regression a span that grows with the run, so the model gets
//! more accurate as the run goes, not less.

use super::regression::linear_fit;
use crate::records::ClockModel;

/// Fewest probes (besides the initial model) before their own slope replaces the initial one:
/// with fewer, the span is short and the initial fit's slope is the better estimate.
pub const MIN_POINTS_FOR_SLOPE: usize = 3;

/// One rank's offset observations and the model refitted from them.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftTracker {
    initial: ClockModel,
    /// Per probe: (local time, seconds; offset of the local clock to the global clock, seconds).
    points: Vec<(f64, f64)>,
}

impl DriftTracker {
    /// Starts from the model of the initial synchronisation.
    pub fn new(initial: ClockModel) -> Self {
        DriftTracker {
            initial,
            points: Vec::new(),
        }
    }

    /// Probes recorded so far, (local time s, offset s), oldest first.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// Adds a probe: at local time `t_local_s` the clock was `offset_s` seconds ahead of the
    /// global clock. Returns the refitted model: the least-squares line through every probe
    /// once there are [`MIN_POINTS_FOR_SLOPE`] of them, before that the initial slope through
    /// the latest probe.
    pub fn add(&mut self, t_local_s: f64, offset_s: f64) -> ClockModel {
        if t_local_s.is_finite() && offset_s.is_finite() {
            self.points.push((t_local_s, offset_s));
        }
        self.model()
    }

    /// The current model (the initial one until the first probe).
    pub fn model(&self) -> ClockModel {
        let n = self.points.len();
        if n == 0 {
            return self.initial;
        }
        if n < MIN_POINTS_FOR_SLOPE {
            // Too short a span for a slope of their own: the initial slope through the latest
            // probe (through the probes' mean, it would lag behind a drifting clock).
            let (t, offset) = self.points[n - 1];
            return ClockModel {
                slope: self.initial.slope,
                intercept_s: offset,
                t_ref_s: t,
            };
        }
        let xs: Vec<f64> = self.points.iter().map(|p| p.0).collect();
        let ys: Vec<f64> = self.points.iter().map(|p| p.1).collect();
        match linear_fit(&xs, &ys) {
            Some(fit) => ClockModel {
                slope: fit.slope,
                intercept_s: fit.y_mean,
                t_ref_s: fit.x_mean,
            },
            None => self.initial,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_probes_keep_the_initial_slope_and_move_the_offset() {
        let initial = ClockModel {
            slope: 20e-6,
            intercept_s: 1e-3,
            t_ref_s: 100.0,
        };
        let mut t = DriftTracker::new(initial);
        assert_eq!(t.model(), initial);
        let m = t.add(101.0, 1e-3 + 20e-6 + 0.3e-6);
        assert_eq!(m.slope, 20e-6);
        assert!((m.offset_at(101.0) - (1e-3 + 20.3e-6)).abs() < 1e-12);
    }

    #[test]
    fn two_probes_of_a_drifting_clock_anchor_on_the_latest() {
        // Offset-only initial model (slope 0) of a clock drifting 20 ppm.
        let mut t = DriftTracker::new(ClockModel::offset_only(1e-3));
        t.add(1.0, 1e-3 + 20e-6);
        let m = t.add(2.0, 1e-3 + 40e-6);
        assert!((m.offset_at(2.0) - (1e-3 + 40e-6)).abs() < 1e-12);
    }

    #[test]
    fn many_probes_refit_the_slope_over_the_whole_span() {
        // True clock: 1.5 ms ahead at t = 100 s, drifting +20 ppm; the initial slope is off
        // by 0.5 ppm, as a short initial fit can be.
        let truth = |t: f64| 1.5e-3 + 20e-6 * (t - 100.0);
        let initial = ClockModel {
            slope: 20.5e-6,
            intercept_s: truth(100.0),
            t_ref_s: 100.0,
        };
        let mut tracker = DriftTracker::new(initial);
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
        let mut t = DriftTracker::new(ClockModel::IDENTITY);
        t.add(f64::NAN, 1.0);
        t.add(1.0, f64::INFINITY);
        assert!(t.points().is_empty());
    }
}
