//! The clock synchronisation trait and what one rank gets out of it.

use super::Transport;
use crate::clock::ClockModel;

/// What a synchronisation gives one rank. The run side gathers the per-rank outcomes itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyncOutcome {
    /// This rank's clock model to rank 0's clock ([`ClockModel::IDENTITY`] on rank 0).
    pub model: ClockModel,
    /// Smallest round-trip time in seconds this rank saw while its own clock was being
    /// measured (0 on rank 0, which is never measured).
    pub rtt_s: f64,
    /// Ping-pong exchanges this rank took part in, on either side.
    pub exchanges: u32,
    /// Standard error of the fitted slope (s/s) of a drift-aware method; a slope within its
    /// 95 % interval of 0 was set to 0. NaN when no slope was fitted (offset-only methods,
    /// rank 0).
    pub slope_se: f64,
    /// False when the fitted slope failed the significance test
    /// ([`LinearFit::slope_significant`](super::LinearFit::slope_significant)) and the model's
    /// slope was set to 0; true otherwise, also when no slope was fitted.
    pub slope_significant: bool,
    /// Σ(t − t̄)² over the fit points of this rank's own slope, s² (0 when no slope was
    /// fitted): how much the initial slope counts against later drift-tracking probes
    /// ([`DriftTracker`](super::tracking::DriftTracker)).
    pub slope_sxx_s2: f64,
}

impl SyncOutcome {
    /// Outcome of rank 0: the identity model.
    pub fn reference(exchanges: u32) -> Self {
        SyncOutcome {
            model: ClockModel::IDENTITY,
            rtt_s: 0.0,
            exchanges,
            slope_se: f64::NAN,
            slope_significant: true,
            slope_sxx_s2: 0.0,
        }
    }
}

/// A clock synchronisation method, run collectively by every rank of the transport.
pub trait ClockSync {
    /// Name in records and on the command line (the [`ClockSyncMethod`](super::ClockSyncMethod)
    /// value name).
    fn name(&self) -> &'static str;
    /// Parameters as `name=value` strings for the records header.
    fn params(&self) -> Vec<String>;
    /// Runs the method; every rank of `t` calls it, and rank 0's clock is the global clock.
    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome;
}

/// Per-rank bookkeeping shared by the methods: smallest RTT as the measured side, exchanges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stats {
    pub rtt_s: f64,
    pub exchanges: u32,
    /// Standard error of the last fitted slope, NaN if none.
    pub slope_se: f64,
    /// Whether that slope passed the significance test; true if none was fitted.
    pub slope_significant: bool,
    /// Σ(t − t̄)² of that fit's points, s² (0 if none).
    pub slope_sxx_s2: f64,
}

impl Stats {
    pub fn new() -> Self {
        Stats {
            rtt_s: f64::INFINITY,
            exchanges: 0,
            slope_se: f64::NAN,
            slope_significant: true,
            slope_sxx_s2: 0.0,
        }
    }

    /// Records an RTT seen while this rank was the measured side.
    pub fn measured(&mut self, rtt_s: f64) {
        self.rtt_s = self.rtt_s.min(rtt_s);
    }

    pub fn outcome(&self, model: ClockModel) -> SyncOutcome {
        SyncOutcome {
            model,
            rtt_s: if self.rtt_s.is_finite() {
                self.rtt_s
            } else {
                0.0
            },
            exchanges: self.exchanges,
            slope_se: self.slope_se,
            slope_significant: self.slope_significant,
            slope_sxx_s2: self.slope_sxx_s2,
        }
    }
}
