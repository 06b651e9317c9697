//! `hca`: the hierarchical clock synchronisation of Hunold and Carpen-Amarie 2015, §6,
//! Algorithms 1-4.
//!
//! Our reading of the pseudocode, checked against the text of §6 and the authors' ReproMPI
//! code: (1) Algorithm 2 line 15 reads `MERGE_LMS(l_client[i], l_client[i])`; it is
//! `MERGE_LMS(l_client[0], l_client[i])` — the client's model to its reference composed with
//! the model of client + i to the client. (2) The per-round COMPUTE_AND_SET_INTERCEPT calls of
//! Algorithm 2 (lines 11, 20, 29, 34) belong to the *second* approach (`#ifdef
//! hierarchical_intercepts`, as the text says), COMPUTE_AND_SET_ALL_INTERCEPTS of Algorithm 1
//! to the first (`#ifndef`).

use crate::clock::fit::{learn_model, serve_model, FitParams};
use crate::clock::hierarchy::{bottom_up, PairLearner};
use super::jk::fit_params_strings;
use crate::clock::pingpong::answer_pingpong;
use super::skampi::skampi_offset;
use crate::clock::sync::{ClockSync, Stats, SyncOutcome};
use crate::clock::Transport;
use crate::clock::ClockModel;

/// HCA (Hunold and Carpen-Amarie 2015, §6): linear models in the O(log P) tree of Netgauge — per pair the RTT estimate of
/// Algorithm 3 and the regression of Algorithm 4 (as in [`JkSync`](crate::clock::JkSync)) —
/// gathered bottom-up and composed with MERGE_LMS (eq. 1, [`ClockModel::merge`]); ranks above
/// the largest power of two learn against r − t and rank 0 merges (Algorithm 2). The slopes
/// come from the regressions; the intercepts are re-measured with SKaMPI's offset method
/// ([`skampi_offset`]) because regression intercepts are imprecise (Hunold and Carpen-Amarie 2015, §6):
///
/// - `hierarchical_intercepts = false` (the paper's *first approach*, used in its
///   evaluation, default): after rank 0 sent every rank its merged model, rank 0 measures the
///   offset of every rank one after the other (O(P) SKaMPI steps) and each rank puts its
///   line with its merged slope through that offset (COMPUTE_AND_SET_ALL_INTERCEPTS).
/// - `hierarchical_intercepts = true` (*second approach*, O(log P) overall): in each pair the
///   client re-sets its intercept from a SKaMPI offset to its reference right after the fit,
///   and the intercepts are merged along the tree with the slopes; intercept errors add up
///   along the path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HcaSync {
    /// Fit parameters (N_FITPTS, N_EXCHANGES, spacing, RTT ping-pongs).
    pub fit: FitParams,
    /// Ping-pongs of each SKaMPI offset measurement.
    pub skampi_pingpongs: u32,
    /// Second approach: intercepts per pair in the tree instead of O(P) against rank 0.
    pub hierarchical_intercepts: bool,
}

impl PairLearner for HcaSync {
    fn client(&self, t: &dyn Transport, reference: usize, stats: &mut Stats) -> ClockModel {
        let model = learn_model(t, reference, &self.fit, stats);
        if !self.hierarchical_intercepts {
            return model;
        }
        reset_intercept(t, reference, model.slope, stats)
    }

    fn reference(
        &self,
        t: &dyn Transport,
        client: usize,
        clock: &dyn Fn() -> f64,
        stats: &mut Stats,
    ) {
        serve_model(t, client, clock, stats);
        if self.hierarchical_intercepts {
            stats.exchanges += skampi_offset(t, client, self.skampi_pingpongs).exchanges;
        }
    }
}

/// COMPUTE_AND_SET_INTERCEPT, client side (Algorithm 4 lines 22-26): the SKaMPI offset to
/// `reference`, then the line with `slope` through that offset at the local time now.
fn reset_intercept(
    t: &dyn Transport,
    reference: usize,
    slope: f64,
    stats: &mut Stats,
) -> ClockModel {
    let est = answer_pingpong(t, reference);
    stats.exchanges += est.exchanges;
    stats.measured(est.rtt_s);
    ClockModel::through(slope, t.now(), est.offset_s)
}

impl ClockSync for HcaSync {
    fn name(&self) -> &'static str {
        "hca"
    }

    fn params(&self) -> Vec<String> {
        let mut v = fit_params_strings(&self.fit);
        v.push(format!("skampi_pingpongs={}", self.skampi_pingpongs));
        v.push(format!(
            "hca_hierarchical_intercepts={}",
            self.hierarchical_intercepts
        ));
        v
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        let model = bottom_up(t, self, &mut stats);
        if self.hierarchical_intercepts {
            return stats.outcome(model);
        }
        // COMPUTE_AND_SET_ALL_INTERCEPTS (Algorithm 1 line 6, Algorithm 2 lines 45-50).
        if t.rank() == 0 {
            for peer in 1..t.size() {
                stats.exchanges += skampi_offset(t, peer, self.skampi_pingpongs).exchanges;
            }
            return SyncOutcome::reference(stats.exchanges);
        }
        let model = reset_intercept(t, 0, model.slope, &mut stats);
        stats.outcome(model)
    }
}

/// This method's entry in the registry ([`super`]).
pub(super) const ENTRY: crate::clock::method::MethodEntry = crate::clock::method::MethodEntry {
    name: "hca",
    models_drift: true,
    build: |p| {
        Box::new(HcaSync {
            fit: p.fit(),
            skampi_pingpongs: p.skampi_pingpongs,
            hierarchical_intercepts: p.hca_hierarchical_intercepts,
        })
    },
};
