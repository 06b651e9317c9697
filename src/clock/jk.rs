//! `jk`: the linear drift model of Jones and Koenig (2012), as described and benchmarked by
//! Hunold and Carpen-Amarie 2015 (004) §2 and §6, with mpits' round-robin order of peers.

use super::fit::{estimate_rtt, median_point, points_model, FitParams, WARMUP_PINGPONGS};
use super::pingpong::{
    expect_ready, handshake_client, handshake_reference, ping, send_stop, serve_pings, READY,
};
use super::sync::{ClockSync, Stats, SyncOutcome};
use super::Transport;

/// Linear clock models against rank 0 (O(P) steps; 004 §2): per peer, the RTT is estimated
/// as in Algorithm 3, then `fitpoints` fit points are taken, each the median offset of
/// `exchanges_per_fitpoint` ping-pongs corrected by RTT/2 (Algorithm 4, lines 9-19), and the
/// model is the least-squares line of offset vs local time — slope *and* intercept from the
/// regression, the slope set to 0 when it is not significant.
///
/// Rank 0 serves the peers **round-robin within each fit point** (as mpits' JK loops over
/// fit points with the peers inside): in slot k it lets peer 1, 2, ..., P − 1 take their k-th
/// point in turn. Every regression then spans the whole synchronisation
/// (`fitpoints × fit_interval_s` as long as one slot's P − 1 points fit in the interval), and
/// the synchronisation takes about that long instead of (P − 1) times it. The RTT estimates
/// (Algorithm 3) still run one peer after the other, before the fits.
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
            let model = jk_client(t, &self.fit, &mut stats);
            return stats.outcome(model);
        }
        for peer in 1..t.size() {
            handshake_reference(t, peer);
            stats.exchanges += serve_pings(t, peer, &|| t.now()).answered;
        }
        let interval = self.fit.fit_interval_s.max(0.0);
        let start = t.now();
        for k in 0..self.fit.fitpoints.max(1) {
            let slot = start + interval * k as f64;
            let now = t.now();
            if slot > now {
                t.pause(slot - now);
            }
            for peer in 1..t.size() {
                t.send(peer, &[READY]);
                stats.exchanges += serve_pings(t, peer, &|| t.now()).answered;
            }
        }
        SyncOutcome::reference(stats.exchanges)
    }
}

/// Client side of [`JkSync`]: the RTT estimate, then one fit point each time rank 0 says
/// READY (ending each with STOP so rank 0 serves the next peer), then the regression.
fn jk_client(t: &dyn Transport, p: &FitParams, stats: &mut Stats) -> crate::records::ClockModel {
    handshake_client(t, 0);
    let rtt_s = estimate_rtt(t, 0, p.rtt_pingpongs);
    send_stop(t, 0, [0.0; 3]);
    stats.exchanges += WARMUP_PINGPONGS + p.rtt_pingpongs.max(1);
    let n_ex = p.exchanges_per_fitpoint.max(1);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..p.fitpoints.max(1) {
        expect_ready(t, 0);
        let exchanges: Vec<_> = (0..n_ex).map(|_| ping(t, 0, false)).collect();
        send_stop(t, 0, [0.0; 3]);
        stats.exchanges += n_ex;
        for e in &exchanges {
            stats.measured(e.rtt_s());
        }
        let (x, y) = median_point(&exchanges, rtt_s);
        xs.push(x);
        ys.push(y);
    }
    points_model(&xs, &ys, stats)
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
