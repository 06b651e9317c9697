//! SKaMPI's clock offset method (Reussner, Sanders and Träff 2002; SKAMPI_PINGPONG in Hunold
//! and Carpen-Amarie 2015, §6 and Algorithm 4, where it re-measures HCA's intercepts
//! because "it provided us with the lowest initial clock offset values").
//!
//! Our reading. Hunold and Carpen-Amarie 2015 only name the method and refer to the authors' technical report for
//! pseudocode; the method in SKaMPI and in the authors' ReproMPI code is: a *fixed* number of
//! ping-pongs (100), each message carrying its sender's clock reading, and every message
//! *bounds* the offset σ (client = reference + σ) by causality. A ping sent by the reference
//! at s and read by the client at t gives σ ≤ t − s; an answer read by the client at t and
//! received by the reference at s' gives σ ≥ t − s'. The method keeps the tightest bounds
//! over all exchanges, td_max = min(t − s) and td_min = max(t − s'), and returns their
//! midpoint (td_min + td_max)/2. Unlike the min-RTT method (Hoefler et al. 2010, §3.1) the two bounds may come
//! from different exchanges, so the uncertainty is at most the smallest RTT and often less.
//!
//! Deviations: SKaMPI lets each side compute bounds from the timestamps it receives; here the
//! client reads its clock once per ping and the reference computes both bounds and sends the
//! result in the STOP message, so both sides agree on one value. SKaMPI's early stop on
//! re-synchronisation (RTT within 110% of an earlier minimum) is not used: every call does the
//! full fixed number, as the first call in SKaMPI does.

use crate::clock::pingpong::{ping, send_stop, OffsetEstimate};
use crate::clock::sync::{ClockSync, Stats, SyncOutcome};
use crate::clock::Transport;

/// SKaMPI's offset measurement, reference side: `pingpongs` ping-pongs with `client` (which
/// runs [`answer_pingpong`] and learns the same estimate); returns the offset σ of the
/// client's clock (client = reference + σ, seconds), the smallest RTT and the exchanges.
pub fn skampi_offset(t: &dyn Transport, client: usize, pingpongs: u32) -> OffsetEstimate {
    let (mut td_min, mut td_max) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut rtt = f64::INFINITY;
    let n = pingpongs.max(1);
    for _ in 0..n {
        let e = ping(t, client, false);
        td_max = td_max.min(e.remote - e.t0);
        td_min = td_min.max(e.remote - e.t1);
        rtt = rtt.min(e.rtt_s());
    }
    let est = OffsetEstimate {
        offset_s: (td_min + td_max) / 2.0,
        rtt_s: rtt,
        exchanges: n,
    };
    send_stop(t, client, [est.offset_s, est.rtt_s, est.exchanges as f64]);
    est
}

/// Offset-only synchronisation against rank 0 with SKaMPI's method, one peer after the other
/// (O(P) steps; Hunold and Carpen-Amarie 2015, §2 and §6): slope 0, intercept = SKaMPI offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkampiSync {
    /// Ping-pongs per peer (SKaMPI's Number_ping_pongs, 100).
    pub pingpongs: u32,
}

impl Default for SkampiSync {
    fn default() -> Self {
        SkampiSync { pingpongs: 100 }
    }
}

impl ClockSync for SkampiSync {
    fn name(&self) -> &'static str {
        "skampi"
    }

    fn params(&self) -> Vec<String> {
        vec![format!("skampi_pingpongs={}", self.pingpongs)]
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        if t.rank() != 0 {
            return super::offset::answer_root(t);
        }
        for peer in 1..t.size() {
            stats.exchanges += skampi_offset(t, peer, self.pingpongs).exchanges;
        }
        SyncOutcome::reference(stats.exchanges)
    }
}

/// This method's entry in the registry ([`super`]).
pub(super) const ENTRY: crate::clock::method::MethodEntry = crate::clock::method::MethodEntry {
    name: "skampi",
    models_drift: false,
    build: |p| {
        Box::new(SkampiSync {
            pingpongs: p.skampi_pingpongs,
        })
    },
};
