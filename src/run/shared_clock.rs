//! Hierarchical clock synchronisation over shared clocks: ranks that read
//! their host leader's clock take its model exactly, after a check; only leaders (and ranks
//! that failed the check) run the chosen method, over the network.

use super::session::{Gathered, Session};
use super::transport::MpiTransport;
use crate::clock::shared::{consistent_with_shared, leaders, local_clock_identity, SharedVerdict};
use crate::clock::ClockModel;
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
        let mut identities = vec![0u64; comm.size() as usize];
        comm.all_gather_into(&local_clock_identity(my_host), &mut identities[..]);
        let leader = leaders(&identities)[me];

        let group = comm
            .split_by_color_with_key(Color::with_value(leader as i32), me as i32)
            .expect("every rank has a colour");
        let (verdict, offset_s, rtt_s, check_exchanges) =
            self.check_against_leader(&group, me == leader);
        self.clock_verdict = verdict;

        // Leaders and failed ranks synchronise; comm rank 0 is a leader, so it is rank 0 here.
        let color = if verdict.synchronises() {
            Color::with_value(0)
        } else {
            Color::undefined()
        };
        let mut own = None;
        if let Some(syncing) = comm.split_by_color_with_key(color, me as i32) {
            own = Some(self.synchronise_own(&syncing, method).0);
        }
        // Ranks that share their leader's clock wait for its model asleep: a blocking
        // broadcast busy-polls, and on a host with fewer cores than ranks that takes the
        // leader's core away from its ping-pongs (MPICH, 2 ranks on 1 core: 3.5 s of sync
        // instead of 53 ms).
        super::session::idle_barrier(&group);
        let mut model = self.timing.model.get();
        let mut leader_model = [model.slope, model.intercept_s, model.t_ref_s];
        group
            .process_at_rank(0)
            .broadcast_into(&mut leader_model[..]);
        if verdict == SharedVerdict::Shared {
            model = ClockModel {
                slope: leader_model[0],
                intercept_s: leader_model[1],
                t_ref_s: leader_model[2],
            };
            self.timing.set_synchronised(model);
        }
        let check = SharedClockCheck {
            leader: self.world_rank_of(comm, leader),
            verdict,
            offset_s,
            rtt_s,
        };
        let rtt = own.map_or(rtt_s, |o| o.rtt_s);
        let exchanges = check_exchanges + own.map_or(0, |o| o.exchanges);
        let slope_se = own.map_or(f64::NAN, |o| o.slope_se);
        gather_on_root(comm, model, check, (rtt, exchanges, slope_se), started)
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
        let color = if self.clock_verdict.synchronises() {
            Color::with_value(0)
        } else {
            Color::undefined()
        };
        let syncing = world.split_by_color_with_key(color, world.rank())?;
        let transport = MpiTransport {
            comm: &syncing,
            clock: self.timing.clock.as_ref(),
        };
        let measured =
            crate::clock::measure_errors(&transport, &self.timing.model.get(), nonimproving)?;
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

/// Gathers every rank's model and check on rank 0 of `comm`. `rtt_exchanges`: the smallest
/// RTT seen while this rank's clock was measured (by the method, or by the check for ranks
/// that did not synchronise), seconds, the ping-pong exchanges it took part in, and the
/// standard error of its fitted slope (NaN if none).
fn gather_on_root(
    comm: &SimpleCommunicator,
    model: ClockModel,
    check: SharedClockCheck,
    rtt_exchanges: (f64, u32, f64),
    started: Instant,
) -> Gathered {
    let verdict_code = match check.verdict {
        SharedVerdict::Leader => 0.0,
        SharedVerdict::Shared => 1.0,
        SharedVerdict::FailedCheck => 2.0,
        SharedVerdict::Emulated => 3.0,
    };
    let (rtt, exchanges, slope_se) = rtt_exchanges;
    let mine = [
        model.slope,
        model.intercept_s,
        model.t_ref_s,
        rtt,
        check.leader as f64,
        verdict_code,
        check.offset_s,
        check.rtt_s,
        exchanges as f64,
        slope_se,
    ];
    let root = comm.process_at_rank(0);
    if comm.rank() != 0 {
        root.gather_into(&mine[..]);
        return Gathered::default();
    }
    let mut all = vec![0.0; mine.len() * comm.size() as usize];
    root.gather_into_root(&mine[..], &mut all[..]);
    let rows: Vec<&[f64]> = all.chunks(mine.len()).collect();
    Gathered {
        models: rows
            .iter()
            .map(|r| ClockModel {
                slope: r[0],
                intercept_s: r[1],
                t_ref_s: r[2],
            })
            .collect(),
        rtt_s: rows.iter().map(|r| r[3]).collect(),
        exchanges: rows.iter().map(|r| r[8] as u32).collect(),
        slope_se: rows.iter().map(|r| r[9]).collect(),
        duration_s: started.elapsed().as_secs_f64(),
        shared: rows
            .iter()
            .map(|r| SharedClockCheck {
                leader: r[4] as u32,
                verdict: match r[5] as u8 {
                    0 => SharedVerdict::Leader,
                    1 => SharedVerdict::Shared,
                    2 => SharedVerdict::FailedCheck,
                    _ => SharedVerdict::Emulated,
                },
                offset_s: r[6],
                rtt_s: r[7],
            })
            .collect(),
    }
}
