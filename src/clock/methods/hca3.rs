//! `hca3`: HCA3 of Hunold and Carpen-Amarie's ReproMPI and mpits code, the successor of the HCA of
//! Hunold and Carpen-Amarie 2015: the tree of Hoefler et al. 2010, §3.2, traversed top-down, each child learning its linear model against
//! its parent's *global* clock, so no models are merged.
//!
//! Our reading of that code: per fit point, the child measures its offset to the parent's
//! global clock with a ping-pong offset algorithm (here SKaMPI's causality bounds over the
//! point's N_EXCHANGES ping-pongs, [`PointRule::Bounds`]), and its model is the least-squares
//! line through the points — slope and intercept from the regression, no separate intercept
//! pass. It is here as the baseline of [`TreefitSync`](crate::clock::TreefitSync), which has the same
//! structure with other fit points and a final intercept pass.

use crate::clock::fit::{warmed_fit_and_stop, FitParams, PointRule};
use crate::clock::hierarchy::{top_down, top_down_outcome, PairLearner};
use super::jk::fit_params_strings;
use crate::clock::sync::{ClockSync, Stats, SyncOutcome};
use crate::clock::Transport;
use crate::clock::ClockModel;

/// HCA3 (ReproMPI/mpits): O(log P) top-down fits against the parent's global clock, fit
/// points by SKaMPI bounds, regression slope and intercept (slope 0 when not significant).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hca3Sync {
    /// Fit parameters (N_FITPTS, N_EXCHANGES, spacing); `rtt_pingpongs` is not used.
    pub fit: FitParams,
}

impl PairLearner for Hca3Sync {
    fn client(&self, t: &dyn Transport, reference: usize, stats: &mut Stats) -> ClockModel {
        warmed_fit_and_stop(t, reference, &self.fit, PointRule::Bounds, stats)
    }
}

impl ClockSync for Hca3Sync {
    fn name(&self) -> &'static str {
        "hca3"
    }

    fn params(&self) -> Vec<String> {
        let mut v = fit_params_strings(&self.fit);
        v.retain(|s| !s.starts_with("rtt_pingpongs="));
        v
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        let model = top_down(t, self, &mut stats);
        top_down_outcome(t, &stats, model)
    }
}

/// This method's entry in the registry ([`super`]).
pub(super) const ENTRY: crate::clock::method::MethodEntry = crate::clock::method::MethodEntry {
    name: "hca3",
    models_drift: true,
    build: |p| Box::new(Hca3Sync { fit: p.fit() }),
};
