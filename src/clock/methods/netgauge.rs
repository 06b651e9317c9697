//! `netgauge`: offset-only O(log P) tree synchronisation of Hoefler, Schneider and Lumsdaine
//! 2010, §3.2 and Figure 7, as extracted by Hunold and Carpen-Amarie 2015, §2/§7.

use crate::clock::hierarchy::{bottom_up, PairLearner};
use crate::clock::pingpong::{answer_pingpong, measure_offset, stopping_rule_params};
use crate::clock::sync::{ClockSync, Stats, SyncOutcome};
use crate::clock::Transport;
use crate::clock::ClockModel;

/// Offset-only synchronisation in ⌈log2 P⌉ steps (Hoefler et al. 2010, §3.2): the largest power of two t ≤ P
/// ranks synchronise in log2 t rounds of parallel pairs ([`tree_rounds`](crate::clock::tree_rounds)),
/// each pair by the min-RTT ping-pong with N non-improving exchanges (Hoefler et al. 2010, §3.1, Niethammer et al. 2016, eq. 2-3);
/// a client passes the offsets it collected to its reference, which adds its own offset to
/// them; ranks ≥ t synchronise with rank r − t in one extra step and send their offset to
/// rank 0, which adds that of r − t and sends every rank its offset. Offsets add up along a
/// path of up to log2 P + 1 pairs, so the error grows with P (Hunold and Carpen-Amarie 2015, §7, Figure 8), and with
/// slope 0 it also grows with the time since the synchronisation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetgaugeSync {
    /// N: consecutive non-improving exchanges that end one pair's measurement (Hoefler et al. 2010: 100).
    pub nonimproving: u32,
    /// Safety cap on exchanges per pair.
    pub max_exchanges: u32,
}

impl Default for NetgaugeSync {
    fn default() -> Self {
        NetgaugeSync {
            nonimproving: 100,
            max_exchanges: 100_000,
        }
    }
}

impl PairLearner for NetgaugeSync {
    fn client(&self, t: &dyn Transport, reference: usize, stats: &mut Stats) -> ClockModel {
        let est = answer_pingpong(t, reference);
        stats.exchanges += est.exchanges;
        stats.measured(est.rtt_s);
        ClockModel::offset_only(est.offset_s)
    }

    /// The reference pings with its local clock; `clock` is not used.
    fn reference(
        &self,
        t: &dyn Transport,
        client: usize,
        _clock: &dyn Fn() -> f64,
        stats: &mut Stats,
    ) {
        stats.exchanges +=
            measure_offset(t, client, self.nonimproving, self.max_exchanges).exchanges;
    }
}

impl ClockSync for NetgaugeSync {
    fn name(&self) -> &'static str {
        "netgauge"
    }

    fn params(&self) -> Vec<String> {
        stopping_rule_params(self.nonimproving, self.max_exchanges).to_vec()
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        let mut stats = Stats::new();
        let model = bottom_up(t, self, &mut stats);
        stats.outcome(model)
    }
}

/// This method's entry in the registry ([`super`]).
pub(super) const ENTRY: crate::clock::method::MethodEntry = crate::clock::method::MethodEntry {
    name: "netgauge",
    models_drift: false,
    build: |p| {
        Box::new(NetgaugeSync {
            nonimproving: p.nonimproving,
            max_exchanges: p.max_exchanges,
        })
    },
};
