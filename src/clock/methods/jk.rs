//! `jk`: the linear drift model of Jones and Koenig (2012), as described and benchmarked by
//! Hunold and Carpen-Amarie 2015, §2 and §6.

use crate::clock::fit::{estimate_rtt, median_point, points_model, FitParams, WARMUP_PINGPONGS};
use crate::clock::pingpong::{handshake_client, handshake_reference, ping, send_stop, serve_pings};
use crate::clock::sync::{ClockSync, Stats, SyncOutcome};
use crate::clock::Transport;

/// Linear clock models against rank 0 (Hunold and Carpen-Amarie 2015, §2): per peer, the RTT is estimated as in
/// Algorithm 3, then `fitpoints` fit points are taken, each the median offset of
/// `exchanges_per_fitpoint` ping-pongs corrected by RTT/2 (Algorithm 4, lines 9-19), and the
/// model is the least-squares line of offset vs local time — slope *and* intercept from the
/// regression.
///
/// Rank 0 serves the peers round-robin within each fit-point slot, as mpi-time-sync does: every
/// peer's regression then spans the whole synchronisation (not 1/(P−1) of it, one peer after
/// the other), and the sync takes `fitpoints` slots, not (P − 1) times as many.
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
        if t.rank() != 0 {
            return self.peer(t);
        }
        let mut exchanges = 0;
        // Each peer's turn: a handshake, its ping-pongs, its STOP.
        let mut turn = |peer: usize| {
            handshake_reference(t, peer);
            exchanges += serve_pings(t, peer, &|| t.now()).answered;
        };
        for peer in 1..t.size() {
            turn(peer);
        }
        let start = t.now();
        for k in 0..self.fit.fitpoints.max(1) {
            let slot = start + self.fit.fit_interval_s.max(0.0) * k as f64;
            let now = t.now();
            if slot > now {
                t.pause(slot - now);
            }
            for peer in 1..t.size() {
                turn(peer);
            }
        }
        SyncOutcome::reference(exchanges)
    }
}

impl JkSync {
    /// A peer: its RTT estimate at its first turn, then one fit point per slot.
    fn peer(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        handshake_client(t, 0);
        let rtt_s = estimate_rtt(t, 0, self.fit.rtt_pingpongs);
        stats.exchanges += WARMUP_PINGPONGS + self.fit.rtt_pingpongs.max(1);
        send_stop(t, 0, [0.0; 3]);
        let n_ex = self.fit.exchanges_per_fitpoint.max(1);
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for _ in 0..self.fit.fitpoints.max(1) {
            handshake_client(t, 0);
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
        let model = points_model(&xs, &ys, &mut stats);
        stats.outcome(model)
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

/// This method's entry in the registry ([`super`]).
pub(super) const ENTRY: crate::clock::method::MethodEntry = crate::clock::method::MethodEntry {
    name: "jk",
    models_drift: true,
    build: |p| Box::new(JkSync { fit: p.fit() }),
};
