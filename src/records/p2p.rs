//! The point-to-point one-way times a measurement run took before its blocks (header field
//! `p2p`): per message size of the plan, a ping-pong between rank 0 and every other rank,
//! whose smallest RTT/2 is the one-way time the lower bound of t_global adds to the last
//! arrival (docs/metrics.md, "Lower bounds of t_global").

use serde::{Deserialize, Serialize};

/// What the ping-pong found. Absent in files of format version 2 and in simulated runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct P2pTimes {
    /// Timed exchanges per (size, pair), after one untimed one.
    pub exchanges: u32,
    /// The world ranks paired with rank 0, in the order the pairs ran (1..world size).
    pub peers: Vec<u32>,
    /// One entry per distinct message size of the plan, ascending.
    pub sizes: Vec<P2pSize>,
}

/// The one-way times of one message size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct P2pSize {
    /// Message size, bytes (0 for the barriers' empty messages).
    pub bytes: u64,
    /// Per peer (aligned with [`P2pTimes::peers`]): the smallest round-trip time over the
    /// exchanges, halved, seconds.
    pub one_way_s: Vec<f64>,
}

impl P2pSize {
    /// The smallest one-way time over the peers, seconds (`None` without peers).
    pub fn min_one_way_s(&self) -> Option<f64> {
        self.one_way_s
            .iter()
            .copied()
            .filter(|t| t.is_finite())
            .min_by(f64::total_cmp)
    }
}

impl P2pTimes {
    /// The smallest one-way time the run measured at `bytes`, over every pair, seconds;
    /// `None` when that size was not measured.
    pub fn one_way_s(&self, bytes: u64) -> Option<f64> {
        self.sizes
            .iter()
            .find(|s| s.bytes == bytes)
            .and_then(P2pSize::min_one_way_s)
    }

    /// One line for `info`: each size's smallest one-way time in microseconds.
    pub fn line(&self) -> String {
        let sizes: Vec<String> = self
            .sizes
            .iter()
            .map(|s| {
                let t = s
                    .min_one_way_s()
                    .map_or("-".into(), |t| format!("{:.3} us", t * 1e6));
                format!("{} {t}", crate::units::format_bytes(s.bytes))
            })
            .collect();
        format!(
            "min RTT/2 of {} exchanges, rank 0 with each of {} ranks: {}",
            self.exchanges,
            self.peers.len(),
            sizes.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_way_time_is_the_smallest_over_peers_at_that_size() {
        let t = P2pTimes {
            exchanges: 30,
            peers: vec![1, 2, 3],
            sizes: vec![
                P2pSize {
                    bytes: 0,
                    one_way_s: vec![0.4e-6, 0.3e-6, f64::NAN],
                },
                P2pSize {
                    bytes: 8,
                    one_way_s: vec![0.5e-6, 0.6e-6, 0.7e-6],
                },
            ],
        };
        assert_eq!(t.one_way_s(0), Some(0.3e-6));
        assert_eq!(t.one_way_s(8), Some(0.5e-6));
        assert_eq!(t.one_way_s(16), None, "a size not measured has none");
        assert!(t.line().contains("8B 0.500 us"), "{}", t.line());
    }
}
