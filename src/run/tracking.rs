//! Drift tracking during a run, the MPI side: the communicators of a probe round and the
//! collection of its probes on rank 0. The protocol itself is the clock component's
//! ([`crate::clock::probe_round`]); ranks sharing a leader's clock take its new model.

use super::gather::{broadcast, gather_one};
use super::release_clock::ReleaseClock;
use super::shared_clock::{clock_group, syncing_ranks};
use super::transport::MpiTransport;
use crate::clock::shared::SharedVerdict;
use crate::clock::{probe_round, ClockProbe};
use mpi::topology::SimpleCommunicator;

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
        let (group, _) = clock_group(comm, host);
        ProbeComms {
            comm,
            group,
            syncing: syncing_ranks(comm, verdict),
            world_rank,
        }
    }
}

/// Collective on the measuring communicator: one probe round. Updates this rank's online
/// model and returns every probe on rank 0 of the communicator (empty elsewhere).
/// `before_rep`: the block's repetition the round comes before.
pub fn probe_clocks(timing: &ReleaseClock, comms: &ProbeComms, before_rep: u32) -> Vec<ClockProbe> {
    let mine = comms.syncing.as_ref().and_then(|syncing| {
        let local = MpiTransport {
            comm: syncing,
            clock: timing.clock.as_ref(),
        };
        probe_round(&timing.live, &local, comms.world_rank, before_rep)
    });
    let leader_model = broadcast(&comms.group, &timing.model());
    if comms.syncing.is_none() {
        timing.follow(leader_model);
    }
    gather_one(comms.comm, mine)
        .map(|all| all.into_iter().flatten().collect())
        .unwrap_or_default()
}
