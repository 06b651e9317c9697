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
        let (mine, _, _) = check.run(world, &self.session, &host);
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
        };
        Some(result)
    }
}
