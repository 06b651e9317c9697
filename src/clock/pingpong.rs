//! Offset of one peer's clock to the root's by ping-pong with the timer delay.
//!
//! Niethammer et al. 2016 (002) §III-A eq. 2-3: the root reads t0, pings, the peer answers with
//! its time t'_r, the root reads t1 and immediately t2; λp = t1 − t0, Δ = t2 − t1 and
//! σ = t'_r − t0 − (λp + Δ)/2. Hoefler et al. 2010 (000) §3.1: keep the exchange with the
//! smallest round-trip time and stop after N consecutive exchanges that do not improve it.

use super::Transport;

const PING: f64 = 1.0;
const STOP: f64 = 0.0;

/// Result of one root–peer offset measurement, seen by both sides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OffsetEstimate {
    /// Clock offset σ of the peer to the root in seconds: peer time = root time + σ.
    pub offset_s: f64,
    /// Smallest round-trip time λp seen, seconds.
    pub rtt_s: f64,
    /// Ping-pong exchanges done.
    pub exchanges: u32,
}

/// Root side: measures the offset of `peer` until `nonimproving` consecutive exchanges do not
/// lower the smallest RTT, or `max_exchanges` were done. The peer must run [`answer_pingpong`].
pub fn measure_offset(
    t: &dyn Transport,
    peer: usize,
    nonimproving: u32,
    max_exchanges: u32,
) -> OffsetEstimate {
    let mut best = OffsetEstimate {
        offset_s: 0.0,
        rtt_s: f64::INFINITY,
        exchanges: 0,
    };
    let mut since_best = 0;
    while since_best < nonimproving && best.exchanges < max_exchanges {
        let t0 = t.now();
        t.send(peer, &[PING]);
        let reply = t.recv(peer);
        let t1 = t.now();
        let t2 = t.now();
        best.exchanges += 1;
        let (rtt, delta) = (t1 - t0, t2 - t1);
        if rtt < best.rtt_s {
            best.rtt_s = rtt;
            best.offset_s = reply[0] - t0 - (rtt + delta) / 2.0;
            since_best = 0;
        } else {
            since_best += 1;
        }
    }
    t.send(
        peer,
        &[STOP, best.offset_s, best.rtt_s, best.exchanges as f64],
    );
    best
}

/// Peer side of [`measure_offset`]: answers pings from `root` with its clock until told to
/// stop, and returns the estimate the root found. The first ping is awaited idly.
pub fn answer_pingpong(t: &dyn Transport, root: usize) -> OffsetEstimate {
    let mut msg = t.recv_idle(root);
    while msg[0] == PING {
        let now = t.now();
        t.send(root, &[now]);
        msg = t.recv(root);
    }
    OffsetEstimate {
        offset_s: msg[1],
        rtt_s: msg[2],
        exchanges: msg[3] as u32,
    }
}
