//! Ping-pong primitives every method is built from, and the min-RTT offset of one peer.
//!
//! Niethammer et al. 2016, §III-A eq. 2-3: the measuring side reads t0, pings, the peer
//! answers with its time t'_r, the measuring side reads t1 and immediately t2; λp = t1 − t0,
//! Δ = t2 − t1 and σ = t'_r − t0 − (λp + Δ)/2. Hoefler et al. 2010, §3.1: keep the
//! exchange with the smallest round-trip time and stop after N consecutive exchanges that do
//! not improve it.
//!
//! Wire protocol (every message at most [`MAX_MSG_LEN`](super::MAX_MSG_LEN) f64, first value a
//! code): `[PING]` asks for one clock reading, `[PING_THEN_IDLE]` too but announces a pause
//! (the server waits for the next message without spinning), `[STOP, a, b, c]` ends a
//! serving loop and hands the server three result values. Replies are `[reading]`.

use super::Transport;
use crate::wire::Wire;

pub(crate) const STOP: f64 = 0.0;
pub(crate) const PING: f64 = 1.0;
pub(crate) const PING_THEN_IDLE: f64 = 2.0;
/// Handshake before a pair starts: "I am ready".
pub(crate) const READY: f64 = 3.0;
/// A clock model follows in values 1..4 (slope, intercept, t_ref).
pub(crate) const MODEL: f64 = 4.0;

/// One ping-pong seen by the side that sent the ping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exchange {
    /// Local time just before the ping was sent, seconds.
    pub t0: f64,
    /// The peer's clock reading in its answer, seconds (whatever clock the peer serves).
    pub remote: f64,
    /// Local time just after the answer arrived, seconds.
    pub t1: f64,
    /// Local time of the clock read right after `t1`, seconds (t2 − t1 = timer delay Δ).
    pub t2: f64,
}

impl Exchange {
    /// Round-trip time λp = t1 − t0, seconds (Niethammer et al. 2016, eq. 2).
    pub fn rtt_s(&self) -> f64 {
        self.t1 - self.t0
    }

    /// Offset σ of the peer's clock to this one, seconds: peer = local + σ, estimated as
    /// σ = t'_r − t0 − (λp + Δ)/2 (Niethammer et al. 2016, eq. 2-3).
    pub fn peer_offset_s(&self) -> f64 {
        self.remote - self.local_mid_s()
    }

    /// Local time at which the peer is taken to have read its clock: t0 + (λp + Δ)/2,
    /// seconds.
    ///
    /// A documented choice, not a silent bias: the Δ/2 term follows Niethammer et al. 2016, eq. 2, as ReproMPI and
    /// the paper do, so results compare. The answering peer reads its clock once, so with
    /// equal latencies in both directions its reading falls at t0 + λp/2 and eq. 2 places it
    /// Δ/2 later: σ is biased by −Δ/2 (the plain midpoint would be exact; the virtual-time
    /// simulator shows it). Δ, the cost of one clock read, is recorded in every header
    /// (`clock.timer_delay_s`, about 20 ns here), so the bias is about 10 ns, below the RTT/2
    /// bound of every offset.
    pub fn local_mid_s(&self) -> f64 {
        self.t0 + (self.rtt_s() + (self.t2 - self.t1)) / 2.0
    }
}

/// Sends one ping to `peer` (which runs [`serve_pings`]) and returns the exchange. With
/// `then_idle` the peer waits for the next message without spinning (use it before a pause).
pub fn ping(t: &dyn Transport, peer: usize, then_idle: bool) -> Exchange {
    let code = if then_idle { PING_THEN_IDLE } else { PING };
    let t0 = t.now();
    t.send(peer, &[code]);
    let reply = t.recv(peer);
    let t1 = t.now();
    let t2 = t.now();
    Exchange {
        t0,
        remote: reply[0],
        t1,
        t2,
    }
}

/// Ends the serving loop of `peer` and hands it three result values.
pub fn send_stop(t: &dyn Transport, peer: usize, payload: [f64; 3]) {
    t.send(peer, &[STOP, payload[0], payload[1], payload[2]]);
}

/// What the serving side of a ping-pong sequence learns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Served {
    /// The three values of the STOP message.
    pub payload: [f64; 3],
    /// Pings answered.
    pub answered: u32,
}

/// Serving side: answers every ping from `peer` with `clock()` until STOP. The first message
/// (and each one after a [`ping`] with `then_idle`) is awaited idly.
pub fn serve_pings(t: &dyn Transport, peer: usize, clock: &dyn Fn() -> f64) -> Served {
    let mut answered = 0;
    let mut msg = t.recv_idle(peer);
    loop {
        let code = msg[0];
        if code == PING || code == PING_THEN_IDLE {
            let now = clock();
            t.send(peer, &[now]);
            answered += 1;
            msg = if code == PING {
                t.recv(peer)
            } else {
                t.recv_idle(peer)
            };
        } else if code == STOP {
            return Served {
                payload: [msg[1], msg[2], msg[3]],
                answered,
            };
        } else {
            panic!(
                "clock sync protocol error on rank {}: expected PING or STOP from rank {peer}, \
                 got code {code}",
                t.rank()
            );
        }
    }
}

/// Start of a pair, client side: tells `reference` this rank is ready, then waits idly until
/// the reference is ready too (so neither side spins while the other is still busy).
pub(crate) fn handshake_client(t: &dyn Transport, reference: usize) {
    t.send(reference, &[READY]);
    expect_ready(t, reference);
}

/// Start of a pair, reference side: waits idly for `client`, then tells it to begin.
pub(crate) fn handshake_reference(t: &dyn Transport, client: usize) {
    expect_ready(t, client);
    t.send(client, &[READY]);
}

fn expect_ready(t: &dyn Transport, from: usize) {
    let msg = t.recv_idle(from);
    assert!(
        msg[0] == READY,
        "clock sync protocol error on rank {}: expected READY from rank {from}, got {:?}",
        t.rank(),
        msg
    );
}

/// Sends a clock model (slope, intercept, t_ref) in one message.
pub(crate) fn send_model(t: &dyn Transport, to: usize, m: &crate::clock::ClockModel) {
    let mut msg = vec![MODEL];
    m.put(&mut msg);
    t.send(to, &msg);
}

/// Receives a clock model sent with [`send_model`], waiting idly.
pub(crate) fn recv_model(t: &dyn Transport, from: usize) -> crate::clock::ClockModel {
    let msg = t.recv_idle(from);
    assert!(
        msg[0] == MODEL,
        "clock sync protocol error on rank {}: expected a model from rank {from}, got {:?}",
        t.rank(),
        msg
    );
    crate::clock::ClockModel::take(&msg[1..])
}

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
/// lower the smallest RTT, or `max_exchanges` were done (Niethammer et al. 2016, eq. 2-3, Hoefler et al. 2010, §3.1). The peer
/// must run [`answer_pingpong`]; it learns the same estimate.
pub fn measure_offset(
    t: &dyn Transport,
    peer: usize,
    nonimproving: u32,
    max_exchanges: u32,
) -> OffsetEstimate {
    let (best, exchanges) = min_rtt_exchange(t, peer, nonimproving, max_exchanges);
    let est = OffsetEstimate {
        offset_s: best.peer_offset_s(),
        rtt_s: best.rtt_s(),
        exchanges,
    };
    send_stop(t, peer, [est.offset_s, est.rtt_s, est.exchanges as f64]);
    est
}

/// The parameters of a stopping rule on non-improving exchanges ([`measure_offset`]'s,
/// treefit's intercept pass) as a method lists them
/// ([`super::ClockSync::params`]): `nonimproving=N`, `max_exchanges=M`.
pub(crate) fn stopping_rule_params(nonimproving: u32, max_exchanges: u32) -> [String; 2] {
    [
        format!("nonimproving={nonimproving}"),
        format!("max_exchanges={max_exchanges}"),
    ]
}

/// Pings `peer` until `nonimproving` consecutive exchanges do not lower the smallest RTT (or
/// `max_exchanges` were done, at least one) and returns the min-RTT exchange and the number
/// of exchanges (Hoefler et al. 2010, §3.1). Does not stop the peer.
pub(crate) fn min_rtt_exchange(
    t: &dyn Transport,
    peer: usize,
    nonimproving: u32,
    max_exchanges: u32,
) -> (Exchange, u32) {
    let mut best = ping(t, peer, false);
    let mut exchanges = 1;
    let mut since_best = 0;
    while since_best < nonimproving && exchanges < max_exchanges {
        let ex = ping(t, peer, false);
        exchanges += 1;
        if ex.rtt_s() < best.rtt_s() {
            best = ex;
            since_best = 0;
        } else {
            since_best += 1;
        }
    }
    (best, exchanges)
}

/// Peer side of [`measure_offset`]: answers pings from `root` with its clock until told to
/// stop, and returns the estimate the root found. The first ping is awaited idly.
pub fn answer_pingpong(t: &dyn Transport, root: usize) -> OffsetEstimate {
    let served = serve_pings(t, root, &|| t.now());
    OffsetEstimate {
        offset_s: served.payload[0],
        rtt_s: served.payload[1],
        exchanges: served.payload[2] as u32,
    }
}
