//! The path from a rank's release to its entry into MPI, per repetition: what the recorded
//! start (the clock reading that ended the wait) cannot see. Under window synchronisation a
//! rank is released by its clock model at the scheduled instant plus its delay; between that
//! reading and the MPI call lie a few instructions, and sometimes a preemption, a migration to
//! another CPU or a vCPU taken away by the hypervisor. A truth measured outside the tool
//! (docs/accuracy.md) sees the entry, so the end-of-run start-spread line is built from these
//! stamps, not from the release alone.
//!
//! Counter cycles are stored relative to each rank's `tsc_base_cycles` so that they stay
//! exact in an `f64`; `base + cycles` is the rank's raw time-stamp counter
//! ([`crate::clock::tsc`]), which ranks on one host share.

use super::F64Array;
use serde::{Deserialize, Serialize};

/// Every rank's release and entry stamps of one block, arrays `[nrep][nprocs]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartPathRecord {
    /// Per rank: the raw counter value the cycles below count from.
    pub tsc_base_cycles: Vec<u64>,
    /// Per rank: counter rate, Hz, from the rank's first and last release against its clock
    /// (NaN when the block lasted under a millisecond).
    pub tsc_hz: Vec<f64>,
    /// Counter at the release (just after the reading that ended the wait), cycles since the
    /// rank's base.
    pub release_cycles: F64Array,
    /// Counter at the last instruction before the kernel's MPI call, cycles since the base.
    pub entry_cycles: F64Array,
    /// Logical CPU at the release and at the entry (they differ when the rank migrated on
    /// its way into MPI).
    pub release_cpu: F64Array,
    pub entry_cpu: F64Array,
    /// `--start-path` only (else empty): the time the rank's thread spent runnable but not
    /// running since the end of its previous repetition (`/proc/self/schedstat`, second
    /// field), seconds: preemption by other tasks of this machine.
    #[serde(default)]
    pub run_delay_s: F64Array,
    /// `--start-path` only (else empty): steal time of the CPU the rank ran on since the end
    /// of its previous repetition (`/proc/stat`, the `steal` column, in the kernel's
    /// USER_HZ ticks, so a multiple of 10 ms on most systems), seconds: the vCPU taken away
    /// by the hypervisor.
    #[serde(default)]
    pub steal_s: F64Array,
}

impl StartPathRecord {
    /// Seconds from release to entry of repetition `rep` on rank `rank` of a block of `p`
    /// ranks; NaN when the counter rate is not known.
    pub fn release_to_entry_s(&self, rep: usize, rank: usize, p: usize) -> f64 {
        let i = rep * p + rank;
        (self.entry_cycles.0[i] - self.release_cycles.0[i]) / self.tsc_hz[rank]
    }

    /// Repetitions `a..b` of a block of `p` ranks: the piece a chunk holds.
    pub fn cut(&self, a: usize, b: usize, p: usize) -> Self {
        let cut = |v: &F64Array| {
            if v.0.is_empty() {
                F64Array(Vec::new())
            } else {
                F64Array(v.0[a * p..b * p].to_vec())
            }
        };
        StartPathRecord {
            tsc_base_cycles: self.tsc_base_cycles.clone(),
            tsc_hz: self.tsc_hz.clone(),
            release_cycles: cut(&self.release_cycles),
            entry_cycles: cut(&self.entry_cycles),
            release_cpu: cut(&self.release_cpu),
            entry_cpu: cut(&self.entry_cpu),
            run_delay_s: cut(&self.run_delay_s),
            steal_s: cut(&self.steal_s),
        }
    }

    /// Appends the repetitions of a later chunk of the same block; the counter rates are the
    /// later chunk's, which saw more of the block.
    pub fn append(&mut self, later: &StartPathRecord) {
        self.tsc_hz.clone_from(&later.tsc_hz);
        self.release_cycles.0.extend(&later.release_cycles.0);
        self.entry_cycles.0.extend(&later.entry_cycles.0);
        self.release_cpu.0.extend(&later.release_cpu.0);
        self.entry_cpu.0.extend(&later.entry_cpu.0);
        self.run_delay_s.0.extend(&later.run_delay_s.0);
        self.steal_s.0.extend(&later.steal_s.0);
    }
}
