//! Hierarchical clock synchronisation over shared clocks: ranks that read
//! their host leader's clock take its model exactly, after a check; only leaders (and ranks
//! that failed the check) run the chosen method, over the network.

use super::gather::{broadcast, gather_one};
use super::session::{Gathered, RankClock, Session};
use super::transport::MpiTransport;
use crate::clock::shared::{consistent_with_shared, leaders, local_clock_identity, SharedVerdict};
use crate::clock::{ClockSync, OffsetSync};
use crate::records::SharedClockCheck;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use std::time::Instant;

/// The shared-clock check: a short min-RTT offset measurement against the leader.
const CHECK: OffsetSync = OffsetSync {
    nonimproving: 30,
    max_exchanges: 3000,
};

impl Session<'_> {
    /// Collective on `comm` (whose rank 0 is world rank 0): groups ranks by clock identity,
    /// checks members against their leader, runs `method` over the leaders and the ranks that
    /// failed, and hands each leader's model to its members. Returns, on rank 0 of `comm`, per
    /// rank of `comm` the models and the checks (see [`Session::synchronise`]).
    pub fn synchronise_shared(
        &mut self,
        comm: &SimpleCommunicator,
        method: &dyn ClockSync,
    ) -> Gathered {
        let started = Instant::now();
        let me = comm.rank() as usize;
        let my_host = &self.hosts.names[self.world.rank() as usize];
        let (group, leader) = clock_group(comm, my_host);
        let (verdict, offset_s, rtt_s, check_exchanges) =
            self.check_against_leader(&group, me == leader);
        self.clock_verdict = verdict;

        // Leaders and failed ranks synchronise; comm rank 0 is a leader, so it is rank 0 here.
        let mut own = None;
        if let Some(syncing) = syncing_ranks(comm, verdict) {
            own = Some(self.synchronise_own(&syncing, method).0);
        }
        // Ranks that share their leader's clock wait for its model asleep: a blocking
        // broadcast busy-polls, and on a host with fewer cores than ranks that takes the
        // leader's core away from its ping-pongs (MPICH, 2 ranks on 1 core: 3.5 s of sync
        // instead of 53 ms).
        super::session::idle_barrier(&group);
        let mut model = self.timing.model();
        let leader_model = broadcast(&group, &model);
        if verdict == SharedVerdict::Shared {
            model = leader_model;
            self.timing.set_synchronised(model, 0.0);
        }
        let check = SharedClockCheck {
            leader: self.world_rank_of(comm, leader),
            verdict,
            offset_s,
            rtt_s,
        };
        // The smallest RTT seen while this rank's clock was measured: by the method, or by
        // the check for ranks that did not synchronise.
        let mine = RankClock {
            model,
            rtt_s: own.map_or(rtt_s, |o| o.rtt_s),
            exchanges: check_exchanges + own.map_or(0, |o| o.exchanges),
            slope_se: own.map_or(f64::NAN, |o| o.slope_se),
            check: Some(check),
        };
        Gathered::of(gather_one(comm, mine), started)
    }

    /// This rank's verdict, and the offset and RTT measured against the leader (NaN for
    /// leaders). Collective on `group`, whose rank 0 is the leader.
    fn check_against_leader(
        &self,
        group: &SimpleCommunicator,
        is_leader: bool,
    ) -> (SharedVerdict, f64, f64, u32) {
        let transport = MpiTransport {
            comm: group,
            clock: self.timing.clock.as_ref(),
        };
        let outcome = (group.size() > 1).then(|| CHECK.synchronize(&transport));
        let exchanges = outcome.map_or(0, |o| o.exchanges);
        if is_leader {
            return (SharedVerdict::Leader, f64::NAN, f64::NAN, exchanges);
        }
        let outcome = outcome.expect("a member's group has a leader");
        let (offset, rtt) = (outcome.model.intercept_s, outcome.rtt_s);
        let verdict = if self.emulated_skew {
            SharedVerdict::Emulated
        } else if consistent_with_shared(offset, rtt, self.timing.clock.resolution_s()) {
            SharedVerdict::Shared
        } else {
            SharedVerdict::FailedCheck
        };
        (verdict, offset, rtt, exchanges)
    }

    /// Collective on `world`: how far every rank's global clock is from rank 0's at this
    /// moment, in seconds per world rank, on rank 0 (`None` elsewhere). Only ranks that
    /// synchronised themselves are measured; a rank sharing its leader's clock has its
    /// leader's global clock exactly (same clock, same model), so it reports its leader's
    /// error instead of the ping-pong's own noise. `shared`: the checks, on rank 0.
    pub fn global_clock_errors(
        &self,
        shared: &[SharedClockCheck],
        nonimproving: u32,
    ) -> Option<Vec<f64>> {
        let world = self.world;
        let syncing = syncing_ranks(world, self.clock_verdict)?;
        let transport = MpiTransport {
            comm: &syncing,
            clock: self.timing.clock.as_ref(),
        };
        let measured =
            crate::clock::measure_errors(&transport, &self.timing.model(), nonimproving)?;
        if shared.len() != world.size() as usize {
            return Some(measured);
        }
        let syncing_ranks: Vec<usize> = (0..shared.len())
            .filter(|&r| shared[r].verdict.synchronises())
            .collect();
        let mut errors = vec![0.0; shared.len()];
        for (&r, e) in syncing_ranks.iter().zip(&measured) {
            errors[r] = *e;
        }
        for r in 0..shared.len() {
            if !shared[r].verdict.synchronises() {
                errors[r] = errors[shared[r].leader as usize];
            }
        }
        Some(errors)
    }

    fn world_rank_of(&self, comm: &SimpleCommunicator, rank: usize) -> u32 {
        let mut world_ranks = vec![0i32; comm.size() as usize];
        comm.all_gather_into(&self.world.rank(), &mut world_ranks[..]);
        world_ranks[rank] as u32
    }
}

/// Collective on `comm`: the ranks of `comm` with this rank's clock identity (same host, boot
/// and time namespace), ranked as in `comm` so that their leader, the lowest, is rank 0; and
/// the leader's rank in `comm`. Every grouping by clock (the synchronisation, drift-tracking
/// probes) is made here.
pub fn clock_group(comm: &SimpleCommunicator, host: &str) -> (SimpleCommunicator, usize) {
    let me = comm.rank() as usize;
    let mut identities = vec![0u64; comm.size() as usize];
    comm.all_gather_into(&local_clock_identity(host), &mut identities[..]);
    let leader = leaders(&identities)[me];
    let group = comm
        .split_by_color_with_key(Color::with_value(leader as i32), me as i32)
        .expect("every rank has a colour");
    (group, leader)
}

/// Collective on `comm`: the ranks of `comm` that synchronise themselves (their `verdict`
/// says so), ranked as in `comm`; `None` on the ranks that share a leader's clock.
pub fn syncing_ranks(
    comm: &SimpleCommunicator,
    verdict: SharedVerdict,
) -> Option<SimpleCommunicator> {
    let color = if verdict.synchronises() {
        Color::with_value(0)
    } else {
        Color::undefined()
    };
    comm.split_by_color_with_key(color, comm.rank())
}
