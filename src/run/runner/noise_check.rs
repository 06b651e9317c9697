//! The noise check before a run (`--no-noise-check` skips it): a short selfish-detour loop on
//! every rank, whose result the header keeps and the noise warning reads.

use super::Runner;
use crate::records::NoiseCheck;
use mpi::traits::*;
use std::time::Instant;

/// How long every rank runs the noise check's loop, seconds.
const NOISE_CHECK_S: f64 = 0.2;
/// The noise check counts detours longer than this, seconds.
const NOISE_CHECK_THRESHOLD_S: f64 = 2e-6;

impl Runner<'_> {
    /// The noise check (collective on the world): every rank runs a short selfish-detour
    /// loop at one global instant on a core of its own; rank 0 gets the result.
    pub(super) fn check_noise(&mut self) -> Option<NoiseCheck> {
        let world = self.session.world;
        let started = Instant::now();
        let _pin = self.session.pin_for(world.size() as u32);
        let check = crate::run::noise::Loop {
            variant: crate::noise::NoiseVariant::Selfish,
            duration_s: NOISE_CHECK_S,
            threshold_s: NOISE_CHECK_THRESHOLD_S,
            quantum_s: 0.0,
            inject: None,
            // Short: the ranks just left the synchronisation together.
            lead_s: 0.01,
        };
        let host = self.session.hosts.names[world.rank() as usize].clone();
        // What took the rank's CPU during the loop, beside the detours it saw: the scheduler
        // (run-queue wait) or the hypervisor (steal), which decide whether a long window
        // loses accuracy (`NoiseCheck::concern`).
        let mut counters = crate::run::start_path::ProcCounters::new();
        let looped = Instant::now();
        let (mine, _, _) = check.run(world, &self.session, &host);
        let lost = lost_shares(counters.as_mut(), looped.elapsed().as_secs_f64());
        let mut all_lost = vec![f64::NAN; 2 * world.size() as usize];
        world.all_gather_into(&lost[..], &mut all_lost[..]);
        let ranks = crate::run::noise::gather_ranks(world, &mine)?;
        let report = crate::analysis::noise_report(&ranks);
        let per =
            |f: fn(&crate::analysis::NoiseStats) -> f64| report.per_rank.iter().map(f).collect();
        let result = NoiseCheck {
            variant: check.variant.name().into(),
            duration_s: NOISE_CHECK_S,
            threshold_s: NOISE_CHECK_THRESHOLD_S,
            cost_s: started.elapsed().as_secs_f64(),
            per_s: per(|s| s.per_s),
            lost_share: per(|s| s.lost_share),
            longest_s: per(|s| s.longest_s),
            correlated_share: report.total.correlated_share,
            correlated_chance: report.total.correlated_chance,
            octaves: ranks
                .iter()
                .map(|r| crate::records::octave_counts(&r.detour_duration_s.0))
                .collect(),
            run_queue_share: all_lost.iter().step_by(2).copied().collect(),
            steal_share: all_lost.iter().skip(1).step_by(2).copied().collect(),
        };
        Some(result)
    }
}

/// The shares of `elapsed_s` seconds this rank waited on a run queue and lost to the
/// hypervisor's steal on its CPU since `counters` were read: `[run_queue, steal]`, NaN for
/// what `/proc` does not give.
fn lost_shares(
    counters: Option<&mut crate::run::start_path::ProcCounters>,
    elapsed_s: f64,
) -> [f64; 2] {
    // The loop ran pinned: the CPU now is the one it ran on.
    let cpu = crate::clock::tsc::stamp().cpu;
    match counters {
        Some(c) if elapsed_s > 0.0 => {
            let (run_delay_s, steal_s) = c.advance(cpu);
            [run_delay_s / elapsed_s, steal_s / elapsed_s]
        }
        _ => [f64::NAN; 2],
    }
}
