//! Clock synchronisation methods: each rank obtains its clock model to rank 0's clock.

use super::{answer_pingpong, measure_offset, OffsetEstimate, Transport};
use crate::records::ClockModel;

/// What a synchronisation gives: this rank's model, and on rank 0 every rank's.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncOutcome {
    /// This rank's clock model (identity on rank 0).
    pub model: ClockModel,
    /// On rank 0: per rank the model, smallest RTT (s) and exchanges; empty elsewhere.
    pub models: Vec<ClockModel>,
    pub min_rtt_s: Vec<f64>,
    pub exchanges: Vec<u32>,
}

/// A clock synchronisation method, run collectively by every rank of the transport.
pub trait ClockSync {
    /// Name in records and on the command line.
    fn name(&self) -> &'static str;
    /// Parameters as `name=value` strings for the records header.
    fn params(&self) -> Vec<String>;
    /// Runs the method on every rank; rank 0's clock is the global clock.
    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome;
}

/// Offset-only synchronisation against rank 0, one peer after the other (O(P) steps):
/// min-RTT ping-pong with the timer delay (002 eq. 2-3), stopped after `nonimproving`
/// consecutive exchanges that do not improve the RTT (000 §3.1, N = 100).
#[derive(Debug, Clone, Copy)]
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
        vec![
            format!("nonimproving={}", self.nonimproving),
            format!("max_exchanges={}", self.max_exchanges),
        ]
    }

    fn synchronize(&self, t: &dyn Transport) -> SyncOutcome {
        if t.rank() != 0 {
            let est = answer_pingpong(t, 0);
            return SyncOutcome {
                model: ClockModel::offset_only(est.offset_s),
                models: vec![],
                min_rtt_s: vec![],
                exchanges: vec![],
            };
        }
        let root = OffsetEstimate {
            offset_s: 0.0,
            rtt_s: 0.0,
            exchanges: 0,
        };
        let ests: Vec<OffsetEstimate> = std::iter::once(root)
            .chain(
                (1..t.size())
                    .map(|peer| measure_offset(t, peer, self.nonimproving, self.max_exchanges)),
            )
            .collect();
        SyncOutcome {
            model: ClockModel::IDENTITY,
            models: ests
                .iter()
                .map(|e| ClockModel::offset_only(e.offset_s))
                .collect(),
            min_rtt_s: ests.iter().map(|e| e.rtt_s).collect(),
            exchanges: ests.iter().map(|e| e.exchanges).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::time::Instant;

    /// Two or more threads exchanging over channels; rank r's clock is offset by `r * 1 ms`.
    struct ThreadTransport {
        rank: usize,
        size: usize,
        epoch: Instant,
        tx: Vec<Sender<Vec<f64>>>,
        rx: Vec<Receiver<Vec<f64>>>,
    }

    impl Transport for ThreadTransport {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.size
        }
        fn now(&self) -> f64 {
            self.epoch.elapsed().as_secs_f64() + self.rank as f64 * 1e-3
        }
        fn send(&self, to: usize, msg: &[f64]) {
            self.tx[to].send(msg.to_vec()).unwrap();
        }
        fn recv(&self, from: usize) -> Vec<f64> {
            self.rx[from].recv().unwrap()
        }
    }

    fn world(size: usize) -> Vec<ThreadTransport> {
        let epoch = Instant::now();
        // chans[from][to]
        let mut senders = vec![vec![]; size];
        let mut receivers: Vec<Vec<Receiver<Vec<f64>>>> = (0..size).map(|_| vec![]).collect();
        for sends in senders.iter_mut() {
            for recvs in receivers.iter_mut() {
                let (tx, rx) = channel();
                sends.push(tx);
                recvs.push(rx);
            }
        }
        senders
            .into_iter()
            .zip(receivers)
            .enumerate()
            .map(|(rank, (tx, rx))| ThreadTransport {
                rank,
                size,
                epoch,
                tx,
                rx,
            })
            .collect()
    }

    #[test]
    fn offset_sync_finds_known_offsets() {
        let sync = OffsetSync {
            nonimproving: 20,
            max_exchanges: 10_000,
        };
        let outcomes: Vec<SyncOutcome> = std::thread::scope(|s| {
            let handles: Vec<_> = world(3)
                .into_iter()
                .map(|t| s.spawn(move || sync.synchronize(&t)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let root = &outcomes[0];
        assert_eq!(root.models.len(), 3);
        for (r, peer) in outcomes.iter().enumerate().skip(1) {
            // Thread hand-offs are slow and asymmetric: allow 200 us around r ms.
            let found = root.models[r].intercept_s;
            assert!((found - r as f64 * 1e-3).abs() < 2e-4, "rank {r}: {found}");
            assert_eq!(peer.model, root.models[r], "peer knows its own model");
            assert!(root.exchanges[r] >= 20);
            assert!(root.min_rtt_s[r] > 0.0);
        }
    }
}
