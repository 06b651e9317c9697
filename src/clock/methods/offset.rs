//! `offset`: offset-only synchronisation against rank 0 with the min-RTT ping-pong.

use crate::clock::pingpong::{answer_pingpong, measure_offset, stopping_rule_params};
use crate::clock::sync::{ClockSync, Stats, SyncOutcome};
use crate::clock::Transport;
use crate::clock::ClockModel;

/// Offset-only synchronisation against rank 0, one peer after the other (O(P) steps):
/// min-RTT ping-pong with the timer delay (Niethammer et al. 2016, eq. 2-3), stopped
/// after `nonimproving` consecutive exchanges that do not improve the RTT (Hoefler et al.
/// 2010, §3.1, N = 100). The model has slope 0, so its error grows with the clock skew.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffsetSync {
    /// N: consecutive non-improving exchanges that end one peer's measurement.
    pub nonimproving: u32,
    /// Safety cap on exchanges per peer.
    pub max_exchanges: u32,
}

impl Default for OffsetSync {
    fn default() -> Self {
        OffsetSync {
            nonimproving: 100,
            max_exchanges: 100_000,
        }
    }
}

impl ClockSync for OffsetSync {
    fn name(&self) -> &'static str {
        "offset"
    }

    fn params(&self) -> Vec<String> {
        stopping_rule_params(self.nonimproving, self.max_exchanges).to_vec()
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        if t.rank() != 0 {
            return answer_root(t);
        }
        for peer in 1..t.size() {
            stats.exchanges +=
                measure_offset(t, peer, self.nonimproving, self.max_exchanges).exchanges;
        }
        SyncOutcome::reference(stats.exchanges)
    }
}

/// Peer side of the offset-only methods against rank 0 (offset, skampi): answer rank 0's
/// pings until it sends the estimate, and take it as this rank's offset-only model.
pub(super) fn answer_root(t: &dyn Transport) -> SyncOutcome {
    let mut stats = Stats::new();
    let est = answer_pingpong(t, 0);
    stats.exchanges += est.exchanges;
    stats.measured(est.rtt_s);
    stats.outcome(ClockModel::offset_only(est.offset_s))
}

/// This method's entry in the registry ([`super`]).
pub(super) const ENTRY: crate::clock::method::MethodEntry = crate::clock::method::MethodEntry {
    name: "offset",
    models_drift: false,
    build: |p| {
        Box::new(OffsetSync {
            nonimproving: p.nonimproving,
            max_exchanges: p.max_exchanges,
        })
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::emulate::EmulationSpec;
    use crate::clock::sim::{run_world, SimConfig};

    #[test]
    fn offset_sync_finds_known_offsets() {
        let sync = OffsetSync {
            nonimproving: 20,
            max_exchanges: 10_000,
        };
        let spec: EmulationSpec = "offset=1ms*rank".parse().unwrap();
        let outcomes = run_world(3, &SimConfig::virtual_cluster(spec), |t| {
            sync.synchronize(t)
        });
        assert_eq!(outcomes[0].model, ClockModel::IDENTITY);
        assert_eq!(outcomes[0].rtt_s, 0.0);
        for (r, o) in outcomes.iter().enumerate().skip(1) {
            // Virtual time, 1 µs latency: within a fraction of an RTT of r ms.
            let found = o.model.intercept_s;
            assert!((found - r as f64 * 1e-3).abs() < 1e-6, "rank {r}: {found}");
            assert_eq!(o.model.slope, 0.0);
            assert!(o.exchanges > 20);
            assert!(o.rtt_s > 0.0);
        }
        let total: u32 = outcomes[1..].iter().map(|o| o.exchanges).sum();
        assert_eq!(
            outcomes[0].exchanges, total,
            "root took part in every exchange"
        );
    }
}
