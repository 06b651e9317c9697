//! Drift tracking during a run: between blocks and inside long
//! window-synchronised blocks, the ranks that synchronise themselves probe their offset to the
//! global clock against their reference in the synchronisation tree, top-down, and refit their
//! online model over every probe so far; ranks sharing a leader's clock take its new model.

use super::timing::Timing;
use super::transport::MpiTransport;
use crate::clock::shared::{leaders, local_clock_identity, SharedVerdict};
use crate::clock::{answer_pingpong, measure_offset, remaining_pairs, tree_rounds};
use crate::clock::{ClockModel, ClockProbe};
use crate::clock::{GlobalClockTransport, TreePair};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

/// Consecutive non-improving ping-pongs that end a probe: cheaper than a full offset
/// measurement, since the refit averages over many probes.
const PROBE_NONIMPROVING: u32 = 20;
/// Safety cap on exchanges per probe.
const PROBE_MAX_EXCHANGES: u32 = 2000;

/// The communicators of a probe round on one measuring communicator.
pub struct ProbeComms<'c> {
    comm: &'c SimpleCommunicator,
    /// Ranks of `comm` with this rank's clock identity; rank 0 is their leader.
    group: SimpleCommunicator,
    /// Ranks of `comm` that synchronise themselves (`None` on ranks sharing a clock).
    syncing: Option<SimpleCommunicator>,
    world_rank: u32,
}

impl<'c> ProbeComms<'c> {
    /// Collective on `comm`: groups by clock identity as the initial synchronisation did.
    pub fn new(
        comm: &'c SimpleCommunicator,
        host: &str,
        world_rank: u32,
        verdict: SharedVerdict,
    ) -> Self {
        let me = comm.rank() as usize;
        let mut identities = vec![0u64; comm.size() as usize];
        comm.all_gather_into(&local_clock_identity(host), &mut identities[..]);
        let leader = leaders(&identities)[me];
        let group = comm
            .split_by_color_with_key(Color::with_value(leader as i32), me as i32)
            .expect("every rank has a colour");
        let color = if verdict.synchronises() {
            Color::with_value(0)
        } else {
            Color::undefined()
        };
        let syncing = comm.split_by_color_with_key(color, me as i32);
        ProbeComms {
            comm,
            group,
            syncing,
            world_rank,
        }
    }
}

/// The pairs of a top-down probe round over `p` ranks: the tree's rounds from the root down,
/// then the ranks above the largest power of two, so a reference has its new model before it
/// serves its client.
fn top_down_pairs(p: usize) -> Vec<TreePair> {
    let mut rounds = tree_rounds(p);
    rounds.reverse();
    rounds
        .into_iter()
        .flatten()
        .chain(remaining_pairs(p))
        .collect()
}

/// Collective on the measuring communicator: one probe round. Updates this rank's online
/// model and returns every probe on rank 0 of the communicator (empty elsewhere).
/// `before_rep`: the block's repetition the round comes before.
pub fn probe_clocks(timing: &Timing, comms: &ProbeComms, before_rep: u32) -> Vec<ClockProbe> {
    let mut mine = [f64::NAN; 9];
    if let Some(syncing) = &comms.syncing {
        if let Some(probe) = probe_in_tree(timing, syncing) {
            mine = [
                comms.world_rank as f64,
                probe.0,
                probe.1,
                probe.2,
                before_rep as f64,
                0.0,
                0.0,
                0.0,
                1.0,
            ];
            let m = timing.model.get();
            mine[5..8].copy_from_slice(&[m.slope, m.intercept_s, m.t_ref_s]);
        }
    }
    let m = timing.model.get();
    let mut leader_model = [m.slope, m.intercept_s, m.t_ref_s];
    comms
        .group
        .process_at_rank(0)
        .broadcast_into(&mut leader_model[..]);
    if comms.syncing.is_none() {
        timing.model.set(ClockModel {
            slope: leader_model[0],
            intercept_s: leader_model[1],
            t_ref_s: leader_model[2],
        });
    }
    gather_probes(comms.comm, &mine)
}

/// This rank's part in the top-down round on `syncing`: serves its clients on its global
/// clock, and as a client measures its local clock against its reference's global clock and
/// refits. Returns (local time, offset, RTT) of its own probe, `None` on the root.
fn probe_in_tree(timing: &Timing, syncing: &SimpleCommunicator) -> Option<(f64, f64, f64)> {
    let me = syncing.rank() as usize;
    let local = MpiTransport {
        comm: syncing,
        clock: timing.clock.as_ref(),
    };
    let mut own = None;
    for pair in top_down_pairs(syncing.size() as usize) {
        if pair.reference == me {
            let global = GlobalClockTransport {
                inner: &local,
                model: timing.model.get(),
            };
            measure_offset(
                &global,
                pair.client,
                PROBE_NONIMPROVING,
                PROBE_MAX_EXCHANGES,
            );
        } else if pair.client == me {
            // Reference's global time + offset = this rank's local time.
            let est = answer_pingpong(&local, pair.reference);
            let t = timing.clock.now();
            let model = timing.refit(t, est.offset_s);
            timing.model.set(model);
            own = Some((t, est.offset_s, est.rtt_s));
        }
    }
    own
}

fn gather_probes(comm: &SimpleCommunicator, mine: &[f64; 9]) -> Vec<ClockProbe> {
    let root = comm.process_at_rank(0);
    if comm.rank() != 0 {
        root.gather_into(&mine[..]);
        return Vec::new();
    }
    let mut all = vec![0.0; mine.len() * comm.size() as usize];
    root.gather_into_root(&mine[..], &mut all[..]);
    all.chunks(mine.len())
        .filter(|r| r[8] == 1.0)
        .map(|r| ClockProbe {
            world_rank: r[0] as u32,
            t_local_s: r[1],
            offset_s: r[2],
            rtt_s: r[3],
            before_rep: r[4] as u32,
            model: ClockModel {
                slope: r[5],
                intercept_s: r[6],
                t_ref_s: r[7],
            },
        })
        .collect()
}
