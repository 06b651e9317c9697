//! The point-to-point ping-pong before the blocks (header field `p2p`): per message size of
//! the plan, rank 0 with every other rank in turn, so that the lower bound of t_global can add
//! the smallest one-way time this run measured to the last arrival (docs/metrics.md, "Lower
//! bounds of t_global"). Outside every timed repetition: it runs once, after the noise check
//! and before the header is written.

use super::Runner;
use crate::records::{P2pSize, P2pTimes};
use crate::run::session::idle_barrier;
use mpi::traits::*;

/// Timed exchanges per (size, pair): "some tens", enough for the minimum to find an exchange
/// that nothing interrupted, short enough at large sizes.
const EXCHANGES: u32 = 30;
/// Tag of the ping-pong's messages, apart from the run's other point-to-point traffic
/// (7001 to 7003) and the reference kernels' (7101 to 7109).
const P2P_TAG: i32 = 7201;

impl Runner<'_> {
    /// The ping-pong (collective on the world): for each distinct message size of the plan
    /// (0 bytes for the barriers), rank 0 and world rank k exchange one untimed and
    /// [`EXCHANGES`] timed round trips of that many bytes, for k = 1, 2, ...; the ranks not in
    /// the pair wait with sleeps. Rank 0 keeps each pair's smallest RTT/2; the other ranks get
    /// `None`.
    pub(super) fn measure_p2p(&mut self) -> Option<P2pTimes> {
        let world = self.session.world;
        let me = world.rank();
        let n = world.size();
        let _pin = self.session.pin_for(n as u32);
        let mut sizes: Vec<u64> = self
            .plan
            .ops
            .iter()
            .flat_map(|&op| self.plan.sizes_for(op))
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        let clock = &self.session.timing.clock;
        let mut measured = Vec::with_capacity(sizes.len());
        for &bytes in &sizes {
            let mut buf = vec![0u8; bytes as usize];
            let mut one_way_s = Vec::with_capacity(n as usize - 1);
            for peer in 1..n {
                if me == 0 {
                    let other = world.process_at_rank(peer);
                    let mut best = f64::INFINITY;
                    for i in 0..=EXCHANGES {
                        let t0 = clock.now();
                        other.send_with_tag(&buf[..], P2P_TAG);
                        other.receive_into_with_tag(&mut buf[..], P2P_TAG);
                        let rtt = clock.now() - t0;
                        // The first exchange pays for the connection and the buffers.
                        if i > 0 {
                            best = best.min(rtt);
                        }
                    }
                    one_way_s.push(best / 2.0);
                } else if me == peer {
                    let root = world.process_at_rank(0);
                    for _ in 0..=EXCHANGES {
                        root.receive_into_with_tag(&mut buf[..], P2P_TAG);
                        root.send_with_tag(&buf[..], P2P_TAG);
                    }
                }
                // One pair at a time, the others asleep: no third rank takes a core from it.
                idle_barrier(world);
            }
            measured.push(P2pSize { bytes, one_way_s });
        }
        (me == 0).then(|| P2pTimes {
            exchanges: EXCHANGES,
            peers: (1..n as u32).collect(),
            sizes: measured,
        })
    }
}
