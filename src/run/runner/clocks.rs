//! The clocks during a run: re-synchronisation (`--resync-every`), drift-tracking probes
//! (`--track-every`), and the check of the global clocks at the end, which the footer keeps.

use super::Runner;
use crate::clock::ClockProbe;
use crate::records::Footer;
use crate::run::report::Warning;
use crate::run::tracking::{probe_clocks, ProbeComms};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

impl Runner<'_> {
    /// Re-synchronises the clocks of `comm`'s ranks when `--resync-every` has passed. Every
    /// rank of `comm` decides alike: rank 0 decides and broadcasts.
    pub(super) fn resync_if_due(&mut self, comm: &SimpleCommunicator) {
        let Some(every) = self.plan.resync_every_s else {
            return;
        };
        let mut due = u8::from(self.last_sync.elapsed().as_secs_f64() >= every);
        comm.process_at_rank(0).broadcast_into(&mut due);
        if due == 1 {
            let gathered = self
                .session
                .synchronise_shared(comm, self.clock_sync.as_ref());
            self.last_sync = Instant::now();
            self.early_probes = true;
            // Rank 0 gathered per rank of `comm`; the runner keeps models per world rank.
            let members = self.session.hosts.members(comm.size() as u32).to_vec();
            for (&world_rank, model) in members.iter().zip(gathered.models) {
                self.models[world_rank] = model;
            }
        }
    }

    /// Collective on `comm`: whether this block probes early, as rank 0 decides (its flag
    /// is the one kept up to date: it measures every block). Consumes the flag.
    pub(super) fn early_probes_due(&mut self, comm: &SimpleCommunicator) -> bool {
        let mut due = u8::from(self.early_probes);
        comm.process_at_rank(0).broadcast_into(&mut due);
        self.early_probes = false;
        due == 1
    }

    /// A drift-tracking probe round before a block when `every_s` seconds have passed since
    /// the last one; rank 0 decides for all. Returns the probes on rank 0.
    pub(super) fn probe_if_due(
        &mut self,
        comm: &SimpleCommunicator,
        comms: &ProbeComms,
        every_s: f64,
    ) -> Vec<ClockProbe> {
        let mut due = u8::from(self.last_probe.elapsed().as_secs_f64() >= every_s);
        comm.process_at_rank(0).broadcast_into(&mut due);
        if due == 0 {
            return Vec::new();
        }
        self.last_probe = Instant::now();
        probe_clocks(&self.session.timing, comms, 0)
    }

    /// Measures every rank's global clock error at the end (Niethammer et al. 2016, §III-A
    /// check), warns when it is large against the smallest of the blocks' median times
    /// (`medians`, seconds), and makes the footer.
    pub(super) fn end_of_run_check(&mut self, medians: &[f64]) -> Footer {
        let errors = self
            .session
            .global_clock_errors(&self.shared, self.plan.clock_params.nonimproving)
            .unwrap_or_default();
        let now = self.session.timing.clock.now();
        let max_change = errors.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        let smallest = medians.iter().copied().fold(f64::INFINITY, f64::min);
        if self.is_root() && smallest.is_finite() && max_change > 0.1 * smallest {
            self.warn(Warning::ClockDrift {
                max_change_s: max_change,
                smallest_median_s: smallest,
            });
        }
        Footer {
            end_offsets_s: self
                .models
                .iter()
                .zip(&errors)
                .map(|(m, e)| m.offset_at(now + m.intercept_s) + e)
                .collect(),
            offset_change_s: errors,
            max_abs_offset_change_s: max_change,
            wall_time_s: self.started.elapsed().as_secs_f64(),
            warnings: self.warnings.clone(),
        }
    }
}
