//! `treefit`: a drift-aware O(log P) method — every client fits its clock directly against
//! its reference's already-*global* clock, top-down through the tree of Hoefler et al. 2010, §3.2, and the
//! intercepts are re-measured top-down at the end.
//!
//! # Credit: HCA3
//!
//! In structure this is **HCA3** of Hunold and Carpen-Amarie's ReproMPI/mpits code (the
//! successor of the HCA of Hunold and Carpen-Amarie 2015): the tree is traversed top-down and a child learns its linear model
//! against its parent's *global* clock, so no models are merged. What treefit adds is (1) a
//! different fit-point estimator (the median midpoint offset of the lowest-RTT quarter of the
//! exchanges instead of Algorithm 4's median of RTT/2-corrected offsets), (2) the final
//! top-down intercept pass by causality bounds, and (3) the slope significance test of
//! [`LinearFit::to_model`](crate::clock::LinearFit::to_model) shared by every
//! regression. Comparisons should be made against HCA3, not only against their 2015 HCA: the
//! `clocksync --simulate` table (docs/clock-sync.md) runs both.
//!
//! # Method
//!
//! *Fit pass.* The pairs of [`tree_rounds`](crate::clock::tree_rounds) run in *reverse* order (rank 0
//! with t/2 first, then both of them with t/4 and 3t/4, ...), then the remaining ranks r ≥ t
//! with r − t. When a pair starts, its reference already has its model and answers every ping
//! with its *global* time `model.to_global(local)`. The client takes `fitpoints` fit points
//! spaced by `fit_interval_s`; for each it does `exchanges_per_fitpoint` ping-pongs, keeps the
//! quarter with the smallest RTTs (Hoefler et al. 2010, §3.1: "only the 25% of the results that had the
//! smallest roundtrip time") and takes the median of their midpoint offsets local − global
//! (Niethammer et al. 2016, eq. 2-3) at that exchange's local mid-time. Its model is the least-squares line
//! through the points ([`linear_fit`](crate::clock::linear_fit)).
//!
//! *Intercept pass.* The same top-down order once more: each client keeps its slope and puts
//! its line through its offset to its reference's (already re-measured) global clock,
//! measured from causality bounds as in SKaMPI's method (the reference read g while the
//! client's clock was between t0 and t1, so the offset lies in [t0 − g, t1 − g]; bounds moved
//! along the slope to one instant; midpoint of the tightest bounds), with ping-pongs until N
//! consecutive ones tighten neither bound by more than 1% of the interval (the stopping rule of Hoefler et al. 2010, §3.1,
//! applied to the bounds).
//!
//! # Why it is more accurate than HCA at equal synchronisation time
//!
//! Error model: a rank's global clock deviates from rank 0's by e(τ) = ε + η·τ, with ε the
//! intercept error and η the slope error; seconds after the synchronisation η·τ dominates.
//!
//! - *Better fit points, hence smaller η.* A fit point of Hunold and Carpen-Amarie 2015,
//!   Algorithm 4 (HCA, JK) is receive time − remote time − RTT/2 with a *mean* RTT from a separate phase (Algorithm 3): its
//!   error is the whole variation of the return delay, plus a bias whenever the RTT
//!   distribution during the fit differs from the one Algorithm 3 saw (a scheduling mode, a
//!   busy link, a parallel pair). The midpoint offset of Niethammer et al. 2016 needs no RTT estimate and cancels
//!   what both directions share; keeping the lowest-RTT quarter drops exchanges disturbed by
//!   noise (Hoefler et al. 2010, §3.1) and the median of the rest resists the few left. Same exchanges, same
//!   span, smaller scatter, smaller η.
//! - *No composition of separately estimated models.* A client fits against what its
//!   reference's global clock actually outputs, so the reference's error is inherited once
//!   and exactly, and model algebra adds nothing: no MERGE_LMS of models estimated at
//!   different times, no regression intercept, no models sent up and down the tree. (Errors
//!   still add along a path: ε and η of a rank at depth d are sums of d pairwise errors, as
//!   for HCA's merged slopes and Netgauge's offsets — the gain comes from better terms, not
//!   fewer.)
//! - *Intercepts last, in O(log P).* HCA's first approach re-measures intercepts in P − 1
//!   sequential steps (O(P)); its second approach sets each intercept right after its pair's
//!   fit, so the early ranks have drifted by η × (rest of the sync) when the sync ends.
//!   Treefit's intercept pass runs after all fits and takes log2 P + 1 short steps.
//!
//! The price: a rank at depth d carries d intercept measurements instead of one SKaMPI
//! measurement against rank 0; with causality bounds each is a small fraction of an RTT.
//!
//! Numbers (`tests/clock_methods.rs`, P = 4, `offset=1ms*rank,skew=20ppm*alt`, default
//! parameters, median of 5 runs, max |error| over the ranks 2 s after the sync; both methods
//! take 0.78 s):
//!
//! | simulator network | hca | hca (hierarchical intercepts) | treefit |
//! | --- | --- | --- | --- |
//! | real time, threads on 2 cores (release build) | 2.69 µs | 0.25 µs | 0.18 µs |
//! | virtual, 1 µs latency, 5% spikes of ≤ 20 µs | 0.07 µs | 0.08 µs | 0.10 µs |
//! | virtual, as above + latency wave of 5 µs / 0.3 s | 5.07 µs | 5.06 µs | 0.06 µs |
//!
//! These numbers come from symmetric links. In the event-driven simulator with asymmetric,
//! hierarchical links and one-sided noise (`clocksync --simulate`, docs/clock-sync.md, 10
//! seeds) treefit and [`Hca3Sync`](crate::clock::Hca3Sync) are equal right after the sync and hca3's
//! bounds fit points extrapolate better; hca, with its intercepts against rank 0, is the most
//! accurate right after the sync from P = 16 on.
//!
//! On a stationary network the two are equal within noise; where the RTT distribution changes
//! during the fits (threads sharing cores, background traffic) treefit stays sub-µs and HCA's
//! slopes are off by ppm. Right after the sync both are within 0.1 µs.

use crate::clock::fit::{stop_with_model, warmed_fit_and_stop, FitParams, PointRule};
use crate::clock::hierarchy::{top_down, top_down_outcome, PairLearner};
use super::jk::fit_params_strings;
use crate::clock::pingpong::{ping, stopping_rule_params, Exchange};
use crate::clock::sync::{ClockSync, Stats, SyncOutcome};
use crate::clock::Transport;
use crate::clock::ClockModel;

/// Drift-aware O(log P) synchronisation by top-down fits against the reference's global
/// clock, then a top-down pass that re-measures the intercepts (see the module
/// documentation for the method and why it beats HCA).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreefitSync {
    /// Fit parameters (N_FITPTS, N_EXCHANGES, spacing); `rtt_pingpongs` is not used (the
    /// midpoint offsets of Niethammer et al. 2016, eq. 2-3, need no RTT estimate).
    pub fit: FitParams,
    /// N of the min-RTT intercept measurements (Hoefler et al. 2010, §3.1).
    pub nonimproving: u32,
    /// Safety cap on the exchanges of one intercept measurement.
    pub max_exchanges: u32,
}

/// First pass: the client's slope (and a provisional intercept, the regression line's value
/// at the centre of the fit) against the reference's global clock.
struct FitPass<'a>(&'a TreefitSync);

impl PairLearner for FitPass<'_> {
    fn client(&self, t: &dyn Transport, reference: usize, stats: &mut Stats) -> ClockModel {
        warmed_fit_and_stop(t, reference, &self.0.fit, PointRule::LowRttMedian, stats)
    }
}

/// Second pass: the client keeps its slope and puts its line through its offset to the
/// reference's (already re-measured) global clock, measured by [`bounded_intercept`].
struct InterceptPass<'a> {
    sync: &'a TreefitSync,
    slope: f64,
}

impl PairLearner for InterceptPass<'_> {
    fn client(&self, t: &dyn Transport, reference: usize, stats: &mut Stats) -> ClockModel {
        let model = bounded_intercept(
            t,
            reference,
            self.slope,
            self.sync.nonimproving,
            self.sync.max_exchanges,
            stats,
        );
        stop_with_model(t, reference, &model);
        model
    }
}

/// Client side: the line with `slope` through this rank's offset to the clock `reference`
/// serves, from causality bounds as in SKaMPI's method ([`skampi_offset`](crate::clock::skampi_offset)):
/// the reference read its clock g while this clock was between t0 and t1, so the offset
/// local − reference lies in [t0 − g, t1 − g]. Each bound is moved along `slope` to the last
/// exchange's mid-time (so skew during the measurement does not widen the interval), the
/// tightest bounds over all exchanges are kept and the offset is their midpoint. Exchanges go
/// on until `nonimproving` consecutive ones tighten neither bound by more than 1% of the
/// interval (Hoefler et al. 2010, §3.1, stopping rule, applied to the bounds) or `max_exchanges` were done.
/// Does not stop the reference.
fn bounded_intercept(
    t: &dyn Transport,
    reference: usize,
    slope: f64,
    nonimproving: u32,
    max_exchanges: u32,
    stats: &mut Stats,
) -> ClockModel {
    let first = ping(t, reference, false);
    let t_ref = first.local_mid_s();
    // Bounds on the offset at local time t_ref.
    let bounds = |e: &Exchange| {
        let shift = slope * (e.local_mid_s() - t_ref);
        (e.t0 - e.remote - shift, e.t1 - e.remote - shift)
    };
    let (mut lo, mut hi) = bounds(&first);
    let mut min_rtt = first.rtt_s();
    let (mut n, mut since) = (1, 0);
    while since < nonimproving && n < max_exchanges.max(1) {
        let e = ping(t, reference, false);
        n += 1;
        min_rtt = min_rtt.min(e.rtt_s());
        let (l, h) = bounds(&e);
        // Only a tightening by more than 1% of the interval counts, so a latency that keeps
        // falling slowly does not keep the loop going.
        let significant = 0.01 * (hi - lo).abs();
        if l > lo + significant || h < hi - significant {
            since = 0;
        } else {
            since += 1;
        }
        lo = lo.max(l);
        hi = hi.min(h);
    }
    stats.exchanges += n;
    stats.measured(min_rtt);
    ClockModel::through(slope, t_ref, (lo + hi) / 2.0)
}

impl ClockSync for TreefitSync {
    fn name(&self) -> &'static str {
        "treefit"
    }

    fn params(&self) -> Vec<String> {
        let mut v = fit_params_strings(&self.fit);
        v.retain(|s| !s.starts_with("rtt_pingpongs="));
        v.extend(stopping_rule_params(self.nonimproving, self.max_exchanges));
        v
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        let fitted = top_down(t, &FitPass(self), &mut stats);
        let refresh = InterceptPass {
            sync: self,
            slope: fitted.slope,
        };
        let model = top_down(t, &refresh, &mut stats);
        top_down_outcome(t, &stats, model)
    }
}

/// This method's entry in the registry ([`super`]).
pub(super) const ENTRY: crate::clock::method::MethodEntry = crate::clock::method::MethodEntry {
    name: "treefit",
    models_drift: true,
    build: |p| {
        Box::new(TreefitSync {
            fit: p.fit(),
            nonimproving: p.nonimproving,
            max_exchanges: p.max_exchanges,
        })
    },
};
