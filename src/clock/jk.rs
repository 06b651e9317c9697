//! `jk`: the linear drift model of Jones and Koenig (2012), as described and benchmarked by
//! Hunold and Carpen-Amarie 2015 (004) §2 and §6.

use super::fit::{learn_model, serve_model, FitParams};
use super::pingpong::{handshake_client, handshake_reference};
use super::sync::{ClockSync, Stats, SyncOutcome};
use super::Transport;

/// Linear clock models against rank 0, one peer after the other (O(P) steps; 004 §2): per
/// peer, the RTT is estimated as in Algorithm 3, then `fitpoints` fit points are taken, each
/// the median offset of `exchanges_per_fitpoint` ping-pongs corrected by RTT/2 (Algorithm 4,
/// lines 9-19), and the model is the least-squares line of offset vs local time — slope *and*
/// intercept from the regression. Accurate over long periods but slow: the fits of all P − 1
/// peers run one after the other (004 §7, Figure 10).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JkSync {
    /// Fit parameters (N_FITPTS, N_EXCHANGES, spacing, RTT ping-pongs).
    pub fit: FitParams,
}

impl ClockSync for JkSync {
    fn name(&self) -> &'static str {
        "jk"
    }

    fn params(&self) -> Vec<String> {
        fit_params_strings(&self.fit)
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        if t.rank() != 0 {
            handshake_client(t, 0);
            let model = learn_model(t, 0, &self.fit, &mut stats);
            return stats.outcome(model);
        }
        for peer in 1..t.size() {
            handshake_reference(t, peer);
            serve_model(t, peer, &|| t.now(), &mut stats);
        }
        SyncOutcome::reference(stats.exchanges)
    }
}

/// `name=value` strings of fit parameters for the records header.
pub(crate) fn fit_params_strings(f: &FitParams) -> Vec<String> {
    vec![
        format!("fitpoints={}", f.fitpoints),
        format!("exchanges_per_fitpoint={}", f.exchanges_per_fitpoint),
        format!("fit_interval_s={}", f.fit_interval_s),
        format!("rtt_pingpongs={}", f.rtt_pingpongs),
    ]
}
