//! `treefit`: our drift-aware O(log P) method — every client fits its clock directly against
//! its reference's already-*global* clock, top-down through the tree of 000 §3.2.
//!
//! # Method
//!
//! The pairs of [`tree_rounds`](super::tree_rounds) run in *reverse* order (rank 0 with
//! t/2 first, then both of them with t/4 and 3t/4, ...), then the remaining ranks r ≥ t with
//! r − t. When a pair starts, its reference already has its final model and answers every
//! ping with its global time `model.to_global(local)`. The client
//!
//! 1. takes `fitpoints` fit points spaced by `fit_interval_s`, each the *minimum-RTT*
//!    exchange of `exchanges_per_fitpoint` ping-pongs (000 §3.1), with the offset
//!    local − global of 002 eq. 2-3 at the local mid-time of that exchange;
//! 2. takes the slope of the least-squares line through them ([`linear_fit`](super::linear_fit));
//! 3. re-measures the intercept with a final min-RTT ping-pong against the reference's global
//!    clock, stopped after N non-improving exchanges (000 §3.1), and puts its line through it.
//!
//! # Why it is more accurate than HCA at equal synchronisation time
//!
//! Error model: a rank's global clock deviates from rank 0's by e(τ) = ε + η·τ, ε the
//! intercept error and η the slope error; seconds after the synchronisation η·τ dominates.
//!
//! - *Fit points.* HCA and JK use the median offset of N_EXCHANGES exchanges, each corrected
//!   by half a *mean* RTT (Algorithms 3-4). The error of such a point is the asymmetry of
//!   one-way delays of a typical exchange — and a mean RTT skewed by outliers adds a bias.
//!   A min-RTT point's error is bounded by half of the smallest RTT of its exchanges (the
//!   true offset lies in [remote − t1, remote − t0]), so the points scatter less and the
//!   regression slope η, which dominates after a wait, is more precise for the same
//!   number of exchanges and the same fit span.
//! - *No composition of separately estimated models.* A client fits against what its
//!   reference's global clock *actually outputs*, so whatever error the reference's model has
//!   is inherited exactly once and nothing else is added: there is no MERGE_LMS of models
//!   estimated at different times with different origins, no regression intercept ever
//!   enters (HCA's merged regression intercepts are imprecise, 004 §6), no models travel up
//!   and down the tree. Errors still add along the path — ε and η of a rank at depth d are
//!   sums of d pairwise errors, as in Netgauge and in HCA's second approach — but each term
//!   is a single, well-conditioned min-RTT measurement.
//! - *Time.* Everything is O(log P): HCA's first approach spends P − 1 further sequential
//!   SKaMPI steps on intercepts after its O(log P) fits; treefit measures intercepts inside
//!   the pairs, so at equal synchronisation time it can give each fit a longer span (η falls
//!   with the span of the fit).
//!
//! The price: the intercept error of a rank at depth d is the sum of d min-RTT errors instead
//! of one SKaMPI error (HCA's first approach); at a few µs of RTT that is below a µs per level,
//! while the drift error it buys down is tens of µs after seconds. The test
//! `tests/clock_methods.rs` and `delaybench clocksync` show the numbers.

use super::fit::{fit_points_model, serve_model, FitParams, PointRule, WARMUP_PINGPONGS};
use super::hierarchy::{top_down, PairLearner};
use super::jk::fit_params_strings;
use super::pingpong::{min_rtt_exchange, ping, send_stop};
use super::sync::{ClockSync, Stats, SyncOutcome};
use super::Transport;
use crate::records::ClockModel;

/// Drift-aware O(log P) synchronisation by top-down fits against the reference's global
/// clock (see the module documentation for the method and why it beats HCA).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreefitSync {
    /// Fit parameters (N_FITPTS, N_EXCHANGES, spacing); `rtt_pingpongs` is not used (min-RTT
    /// points need no RTT estimate).
    pub fit: FitParams,
    /// N of the final min-RTT intercept measurement (000 §3.1).
    pub nonimproving: u32,
    /// Safety cap on the exchanges of the intercept measurement.
    pub max_exchanges: u32,
}

impl PairLearner for TreefitSync {
    fn client(&self, t: &dyn Transport, reference: usize, stats: &mut Stats) -> ClockModel {
        for _ in 0..WARMUP_PINGPONGS {
            ping(t, reference, false);
        }
        stats.exchanges += WARMUP_PINGPONGS;
        let fit = fit_points_model(t, reference, &self.fit, PointRule::MinRtt, stats);
        let (best, n) = min_rtt_exchange(t, reference, self.nonimproving, self.max_exchanges);
        stats.exchanges += n;
        stats.measured(best.rtt_s());
        let model = ClockModel::through(fit.slope, best.local_mid_s(), -best.peer_offset_s());
        send_stop(
            t,
            reference,
            [model.slope, model.intercept_s, model.t_ref_s],
        );
        model
    }

    fn reference(
        &self,
        t: &dyn Transport,
        client: usize,
        clock: &dyn Fn() -> f64,
        stats: &mut Stats,
    ) {
        serve_model(t, client, clock, stats);
    }
}

impl ClockSync for TreefitSync {
    fn name(&self) -> &'static str {
        "treefit"
    }

    fn params(&self) -> Vec<String> {
        let mut v = fit_params_strings(&self.fit);
        v.retain(|s| !s.starts_with("rtt_pingpongs="));
        v.push(format!("nonimproving={}", self.nonimproving));
        v.push(format!("max_exchanges={}", self.max_exchanges));
        v
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        let model = top_down(t, self, &mut stats);
        if t.rank() == 0 {
            return SyncOutcome::reference(stats.exchanges);
        }
        stats.outcome(model)
    }
}
