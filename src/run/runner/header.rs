//! The records' header, as rank 0 writes it once the clocks are synchronised.

use super::Runner;
use crate::clock::timer_delay_s;
use crate::records::{
    ClockInfo, ClockSyncInfo, Header, Machine, Provenance, TransportVariable, WaitInfo,
};
use crate::run::session::{Gathered, SPIN_MARGIN_S};

impl Runner<'_> {
    /// The header of the run, from the initial synchronisation (`gathered`) and the
    /// ranks' machines.
    pub(super) fn header(&self, gathered: &Gathered, machines: Vec<Machine>) -> Header {
        let clock = self.session.timing.clock.as_ref();
        let header = Header::new(
            self.plan.clone(),
            self.session.hosts.names.clone(),
            mpi::environment::library_version().unwrap_or_default(),
            ClockInfo {
                source: clock.name().into(),
                resolution_s: clock.resolution_s(),
                timer_delay_s: timer_delay_s(|| clock.now(), 1000),
            },
            ClockSyncInfo {
                method: self.clock_sync.name().into(),
                params: self.clock_sync.params(),
                models: gathered.models.clone(),
                min_rtt_s: gathered.rtt_s.clone(),
                exchanges: gathered.exchanges.clone(),
                duration_s: gathered.duration_s,
                shared: gathered.shared.clone(),
                slope_se: gathered.slope_se.clone(),
            },
            WaitInfo {
                rule: "spin while every host has a core per measuring rank (unbound measuring \
                       ranks are then pinned to a core each); otherwise polite (sleep, then \
                       spin with yields for the last spin_margin_s)"
                    .into(),
                hosts: self.session.hosts.loads.clone(),
                spin_margin_s: SPIN_MARGIN_S,
                late_tolerance_s: self.plan.late_tolerance_s,
            },
            "auto: 2 x 90th percentile of the slowest rank's warm-up operation time \
             + 1.1 x largest delay + 2 x spin margin + 20 us",
            Provenance::new(self.tags.clone(), machines),
        );
        Header {
            study: self.study.clone(),
            noise_check: self.noise_check.clone(),
            call_entry: self.call_entry.clone(),
            job: self.job.clone(),
            algorithms: self.sweep.as_ref().map(|s| s.info()),
            p2p: self.p2p.clone(),
            transport: crate::run::mpit::Mpit::init()
                .map(|m| crate::run::mpit::transport_variables(&m))
                .unwrap_or_default()
                .into_iter()
                .map(|(name, value)| TransportVariable { name, value })
                .collect(),
            ..header
        }
    }
}
