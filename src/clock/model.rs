//! A rank's clock model (offset and skew to the global clock) and the drift-tracking probe
//! that refits it: the clock component's core types, which records files store as they are.

use crate::wire::Wire;
use serde::{Deserialize, Serialize};

/// A rank's clock model: `offset(t) = slope * (t - t_ref_s) + intercept_s`, and the global
/// time of local time `t` is `g = t - offset(t)` (Hunold and Carpen-Amarie 2015, §5).
/// Offset-only methods have `slope = 0`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClockModel {
    /// Rate difference to the reference clock (dimensionless, s/s).
    pub slope: f64,
    /// Offset in seconds at local time `t_ref_s`.
    pub intercept_s: f64,
    /// Local time in seconds at which `intercept_s` was measured.
    pub t_ref_s: f64,
}

impl ClockModel {
    /// The model of the reference clock itself (rank 0): no offset, no skew.
    pub const IDENTITY: ClockModel = ClockModel {
        slope: 0.0,
        intercept_s: 0.0,
        t_ref_s: 0.0,
    };

    /// Offset-only model (slope 0) with the given offset in seconds.
    pub fn offset_only(offset_s: f64) -> Self {
        ClockModel {
            slope: 0.0,
            intercept_s: offset_s,
            t_ref_s: 0.0,
        }
    }

    /// Offset in seconds of this clock to the reference at local time `t` (seconds).
    pub fn offset_at(&self, t: f64) -> f64 {
        self.slope * (t - self.t_ref_s) + self.intercept_s
    }

    /// Global time (seconds) of local time `t` (seconds).
    pub fn to_global(&self, t: f64) -> f64 {
        t - self.offset_at(t)
    }

    /// Local time (seconds) at which this clock reads global time `g` (seconds).
    pub fn to_local(&self, g: f64) -> f64 {
        // g = t - slope (t - t_ref) - intercept  =>  t = (g + intercept - slope t_ref) / (1 - slope)
        (g + self.intercept_s - self.slope * self.t_ref_s) / (1.0 - self.slope)
    }

    /// The line with the given `slope` through the offset `offset_s` (seconds) measured at
    /// local time `t_s` (seconds): how HCA re-sets the intercept of a regression model from a
    /// fresh offset measurement (Hunold and Carpen-Amarie 2015, Algorithm 4, COMPUTE_AND_SET_INTERCEPT, line 26).
    pub fn through(slope: f64, t_s: f64, offset_s: f64) -> Self {
        ClockModel {
            slope,
            intercept_s: offset_s,
            t_ref_s: t_s,
        }
    }

    /// MERGE_LMS (Hunold and Carpen-Amarie 2015, eq. 1 and Algorithm 4 lines 29-32):
    /// composes two models along a path of the synchronisation tree.
    ///
    /// `self` is the model of a clock B relative to a reference A (a function of B's local
    /// time), `child` the model of a clock C relative to B (a function of C's local time); the
    /// result is C's model relative to A, a function of C's local time with `t_ref_s` =
    /// `child.t_ref_s`. With C's offset to B `o_cb(t) = t - t_B` and B's offset to A
    /// `o_ba(t_B) = t_B - t_A`: `t - t_A = o_cb(t) + o_ba(t - o_cb(t))`, so
    ///
    /// - slope = s_ba + s_cb − s_ba·s_cb (eq. 1),
    /// - intercept (at t = child.t_ref_s) = i_cb + i_ba + s_ba·(child.t_ref_s − i_cb − t_ref_ba).
    ///
    /// With both `t_ref_s = 0` the intercept is the paper's i_ba + i_cb − s_ba·i_cb. Unlike
    /// the paper, which gives each process's timestamps its own origin (`initial_time`), this
    /// composition is exact for any `t_ref_s`.
    pub fn merge(&self, child: &ClockModel) -> ClockModel {
        let slope = self.slope + child.slope - self.slope * child.slope;
        let intercept_s = child.intercept_s
            + self.intercept_s
            + self.slope * (child.t_ref_s - child.intercept_s - self.t_ref_s);
        ClockModel {
            slope,
            intercept_s,
            t_ref_s: child.t_ref_s,
        }
    }
}

/// One drift-tracking probe: a rank's min-RTT offset to the global clock,
/// measured against its reference in the synchronisation tree, and the model refitted from it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClockProbe {
    /// World rank whose clock was probed.
    pub world_rank: u32,
    /// Its local clock when the probe ended, seconds.
    pub t_local_s: f64,
    /// Offset of its local clock to the global clock, seconds (local − global).
    pub offset_s: f64,
    /// Smallest RTT of the probe, seconds: the offset is within RTT/2 of the truth.
    pub rtt_s: f64,
    /// Repetition of the block before which it was taken (0: before the block).
    pub before_rep: u32,
    /// The online model after the refit.
    pub model: ClockModel,
}

impl Wire for ClockModel {
    const LEN: usize = 3;
    fn put(&self, out: &mut Vec<f64>) {
        out.extend([self.slope, self.intercept_s, self.t_ref_s]);
    }
    fn take(xs: &[f64]) -> Self {
        ClockModel {
            slope: xs[0],
            intercept_s: xs[1],
            t_ref_s: xs[2],
        }
    }
}

impl Wire for ClockProbe {
    const LEN: usize = 5 + ClockModel::LEN;
    fn put(&self, out: &mut Vec<f64>) {
        out.extend([
            f64::from(self.world_rank),
            self.t_local_s,
            self.offset_s,
            self.rtt_s,
            f64::from(self.before_rep),
        ]);
        self.model.put(out);
    }
    fn take(xs: &[f64]) -> Self {
        ClockProbe {
            world_rank: xs[0] as u32,
            t_local_s: xs[1],
            offset_s: xs[2],
            rtt_s: xs[3],
            before_rep: xs[4] as u32,
            model: ClockModel::take(&xs[5..]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_cross_the_wire_unchanged() {
        let probe = ClockProbe {
            world_rank: 7,
            t_local_s: 12.5,
            offset_s: -3e-4,
            rtt_s: 2e-6,
            before_rep: 40,
            model: ClockModel::through(20e-6, 12.5, -3e-4),
        };
        let back: Vec<ClockProbe> = crate::wire::decode(&crate::wire::encode(&[probe, probe]));
        assert_eq!(back, vec![probe, probe]);
    }

    #[test]
    fn clock_model_inverts() {
        let m = ClockModel {
            slope: 20e-6,
            intercept_s: 1e-3,
            t_ref_s: 100.0,
        };
        let t = 105.0;
        let g = m.to_global(t);
        assert!((g - (t - (20e-6 * 5.0 + 1e-3))).abs() < 1e-12);
        assert!((m.to_local(g) - t).abs() < 1e-9);
        assert_eq!(ClockModel::IDENTITY.to_global(7.5), 7.5);
    }
}
