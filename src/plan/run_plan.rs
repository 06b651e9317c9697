//! The [`Plan`]: kernels, sizes, process counts, delays and repetitions.
//!
//! A [`Plan`] is plain data: rank 0 builds and validates it from the command line and broadcasts
//! it, so every rank runs the same plan. It is also stored in the records header.

use crate::clock::{ClockSyncMethod, ClockSyncParams, EmulationSpec};
use crate::delay::{DelayModel, DetourSpec, NoiseFileSpec, RankError, RankSelection};
use crate::plan::kernel::Op;
use crate::plan::options::{AdaptiveSpec, OverlapSpec};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How the ranks are made to start a repetition together (process synchronisation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ProcessSyncMethod {
    /// Clock-based: busy-wait on the global clock until start + i * window + own delay
    /// (Niethammer et al. 2016, Listing 2; Hunold and Carpen-Amarie 2015, scheme 4).
    Window,
    /// `MPI_Barrier`, then delayed ranks busy-wait their delay (Niethammer et al. 2016, §III-B, Listing 1).
    Barrier,
    /// delaybench's own dissemination barrier over point-to-point messages, then the delay.
    /// The same algorithm under every MPI library, so libraries are compared fairly (Hunold and Carpen-Amarie 2015, §4).
    Dissemination,
    /// `MPI_Barrier` twice, then the delay: the second barrier starts from the first one's
    /// exit skew, as some benchmarks do to reduce it.
    #[value(name = "double-barrier")]
    #[serde(rename = "double-barrier")]
    DoubleBarrier,
    /// No synchronisation: repetitions run back to back (as IMB and mpptest do), delayed ranks
    /// busy-wait their delay before each; shows the pipelining effect.
    None,
}

/// Which world ranks form the sub-communicator of a process count P (for runs on several
/// hosts, see docs/launching.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Subcomm {
    /// World ranks 0..P-1 (Netgauge's choice). With block mapping, small P stay on one host.
    #[default]
    First,
    /// Ranks taken round-robin over the hosts (the first rank of every host, then the second
    /// of every host, ...), so every P >= the number of hosts spans all hosts.
    Spread,
}

impl Subcomm {
    /// Every world rank, in the order in which ranks join sub-communicators: the members of
    /// P are the first P entries, and entry i is their rank i. World rank 0 always comes first,
    /// so it is rank 0 (the clock reference and records writer) of every sub-communicator.
    /// `hosts`: host name per world rank.
    pub fn order(self, hosts: &[String]) -> Vec<usize> {
        match self {
            Subcomm::First => (0..hosts.len()).collect(),
            Subcomm::Spread => {
                let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
                for (rank, host) in hosts.iter().enumerate() {
                    match groups.iter_mut().find(|(h, _)| h == host) {
                        Some((_, ranks)) => ranks.push(rank),
                        None => groups.push((host, vec![rank])),
                    }
                }
                let deepest = groups.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
                (0..deepest)
                    .flat_map(|k| groups.iter().filter_map(move |(_, r)| r.get(k).copied()))
                    .collect()
            }
        }
    }

    /// Host name per member, in sub-communicator rank order, for every world rank (the
    /// members of P are the first P): what rank selections such as `host:I` are read against.
    pub fn ordered_names(self, hosts: &[String]) -> Vec<String> {
        self.order(hosts)
            .into_iter()
            .map(|r| hosts[r].clone())
            .collect()
    }

    /// Number of distinct hosts among the members of P.
    pub fn hosts_spanned(self, hosts: &[String], p: u32) -> u32 {
        let names = self.ordered_names(hosts);
        let mut seen: Vec<&String> = names.iter().take(p as usize).collect();
        seen.sort();
        seen.dedup();
        seen.len() as u32
    }
}

/// The clock every timestamp is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ClockSource {
    /// `clock_gettime(CLOCK_MONOTONIC)` as absolute seconds (shared by the ranks of one host).
    Monotonic,
    /// `MPI_Wtime`.
    Wtime,
}

/// The validated measurement plan, identical on every rank.
///
/// Sizes are bytes, durations seconds. Every configuration (op, bytes, P) is measured once
/// undelayed (δ = 0) and once per delay model in `delays`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Kernels to measure, in order.
    pub ops: Vec<Op>,
    /// Message sizes in bytes (see [`Op`] for what a size means per kernel).
    pub sizes: Vec<u64>,
    /// Process counts P; each measures on the first P ranks of [`Subcomm::order`].
    pub procs: Vec<u32>,
    /// Which world ranks form each P.
    #[serde(default)]
    pub subcomm: Subcomm,
    /// Ranks (within each sub-communicator) that arrive late, possibly drawn per repetition.
    pub delay_ranks: RankSelection,
    /// Delay models (fixed or sampled per repetition and rank); the baseline δ = 0 is always
    /// measured too.
    pub delays: Vec<DelayModel>,
    /// OS-noise detours while the operation runs, if any.
    pub detour: Option<DetourSpec>,
    /// A noise file replayed as detours while the operation runs (`--detour noise:FILE`),
    /// with its checksum, recorded ranks and length once the run has read it.
    /// (Serialised as `detour_trace`, its name before noise files were called so.)
    #[serde(default, rename = "detour_trace")]
    pub detour_noise_file: Option<NoiseFileSpec>,
    /// Measured repetitions per configuration.
    pub nrep: u32,
    /// Unrecorded warm-up repetitions per (op, bytes, P), also used to size the window.
    pub warmup: u32,
    /// Process synchronisation method.
    pub sync: ProcessSyncMethod,
    /// Fixed window in seconds; `None` = automatic from the warm-up.
    pub window_s: Option<f64>,
    /// A rank starting more than this many seconds after its start instant flags the
    /// repetition *started late*; `None` = the waiting strategy's default (1 us spinning,
    /// 10 us polite).
    pub late_tolerance_s: Option<f64>,
    /// Clock source.
    pub clock: ClockSource,
    /// Seed of the run's random generator.
    pub seed: u64,
    /// Clock synchronisation method and its parameters.
    pub clock_sync: ClockSyncMethod,
    pub clock_params: ClockSyncParams,
    /// Re-synchronise the clocks between configurations once this many seconds have passed
    /// since the last synchronisation; `None` = only at the start.
    pub resync_every_s: Option<f64>,
    /// Emulated per-rank clock offsets and skews (tests on one host), with the epoch set.
    pub emulate_clock: Option<EmulationSpec>,
    /// Probe clock offsets and refit the online models this often, seconds (between blocks,
    /// and inside window-synchronised blocks); `None`: no drift tracking.
    #[serde(default)]
    pub track_every_s: Option<f64>,
    /// A measuring rank whose block makes no progress for this many seconds ends the run
    /// (`--timeout`); `None`: no watchdog.
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Overlap mode of the nonblocking kernels (`--overlap`); `None` = post then wait.
    #[serde(default)]
    pub overlap: Option<OverlapSpec>,
    /// Adaptive repetitions (`--nrep-max`); `None` = exactly `nrep` per configuration.
    #[serde(default)]
    pub adaptive: Option<AdaptiveSpec>,
    /// `--algorithms`: measure every configuration once per collective algorithm of the MPI
    /// library (and its own choice); `None`: the library's choice only, not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithms: Option<crate::plan::algorithms::AlgorithmRequest>,
    /// `--algorithm-from-env`: record the algorithm the launch environment set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub algorithm_from_env: bool,
    /// `--rotate N`: at every P, measure the configurations starting from the N-th (mod
    /// their number) and wrap around, so that launches of one plan given 0, 1, 2, ... put
    /// each configuration early and late in the run (`delaybench launches` does so). Block
    /// streams count in the order measured. 0 in older files.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rotate: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Plan {
    /// The sizes a kernel is measured at: the plan's sizes, or `[0]` for barriers.
    pub fn sizes_for(&self, op: Op) -> Vec<u64> {
        if op.has_payload() {
            self.sizes.clone()
        } else {
            vec![0]
        }
    }

    /// The delays measured per configuration: `None` (the undelayed baseline) first, then the
    /// plan's delay models.
    pub fn delays_with_baseline(&self) -> Vec<Option<DelayModel>> {
        std::iter::once(None)
            .chain(self.delays.iter().cloned().map(Some))
            .collect()
    }

    /// Checks what the plan says by itself, before any world is known: kernels, sizes, P's
    /// and repetitions are given, sizes fit their kernels, delays are positive, a fixed
    /// window is positive. The measurement ([`Plan::validate`]) and `simulate` both run it,
    /// so that the two refuse the same plans in the same words. A delay of 0 would measure
    /// the baseline a second time, in rows that read like the baseline's.
    ///
    /// Errors: the first [`PlanError`] found.
    pub fn check_alone(&self) -> Result<(), PlanError> {
        if self.ops.is_empty() {
            return Err(PlanError::Empty("--ops"));
        }
        if self.ops.iter().any(|op| op.has_payload()) && self.sizes.is_empty() {
            return Err(PlanError::Empty("--sizes"));
        }
        if self.procs.is_empty() {
            return Err(PlanError::Empty("--procs"));
        }
        if self.nrep == 0 {
            return Err(PlanError::ZeroRepetitions);
        }
        for &b in &self.sizes {
            if let Some(op) = self.ops.iter().find(|op| op.is_reduction()) {
                if b == 0 || b % 8 != 0 {
                    return Err(PlanError::ReductionSize { bytes: b, op: *op });
                }
            }
            if b == 0 && self.ops.iter().any(|op| op.has_payload()) {
                return Err(PlanError::ZeroSize);
            }
        }
        if let Some(d) = self
            .delays
            .iter()
            .find(|d| d.validate().is_err() || d.mean_s() <= 0.0 || d.mean_s().is_nan())
        {
            return Err(PlanError::BadDelay(d.label()));
        }
        if let Some(w) = self.window_s {
            if !(w.is_finite() && w > 0.0) {
                return Err(PlanError::BadWindow(w));
            }
        }
        Ok(())
    }

    /// Checks the plan against itself ([`Plan::check_alone`]), the world size and the host
    /// of every world rank (`hosts`, one name per rank), before any measurement.
    ///
    /// Errors: the first [`PlanError`] found.
    pub fn validate(&self, world_size: u32, hosts: &[String]) -> Result<(), PlanError> {
        let hosts = &self.subcomm.ordered_names(hosts);
        if world_size < 2 {
            return Err(PlanError::TooFewRanks(world_size));
        }
        self.check_alone()?;
        if self.clock_params.nonimproving == 0 || self.clock_params.fitpoints < 2 {
            return Err(PlanError::Empty(
                "--sync-nonimproving and --fitpoints (need >= 1 and >= 2)",
            ));
        }
        if let Some(flag) = self.clock_params.zero_count() {
            return Err(PlanError::ZeroClockParam(flag));
        }
        for &p in &self.procs {
            if p < 2 || p > world_size {
                return Err(PlanError::BadProcs { p, world_size });
            }
            self.delay_ranks
                .validate(p, hosts)
                .map_err(PlanError::DelayRanks)?;
        }
        if let Some(spec) = &self.emulate_clock {
            spec.check_ranks(world_size as usize)
                .map_err(|e| PlanError::Emulation(e.to_string()))?;
        }
        if self.overlap.is_some() && !self.ops.iter().any(|op| op.is_nonblocking()) {
            return Err(PlanError::OverlapWithoutNonblocking);
        }
        if let Some(a) = &self.adaptive {
            a.validate().map_err(PlanError::Adaptive)?;
        }
        Ok(())
    }
}

/// Why a plan cannot be run. Raised before any measurement starts.
#[derive(Debug, Error, PartialEq)]
pub enum PlanError {
    #[error("delaybench needs at least 2 MPI ranks, got {0}: launch it with e.g. `mpirun -np 2 delaybench`")]
    TooFewRanks(u32),
    #[error("{0} is empty: give at least one value")]
    Empty(&'static str),
    #[error("--nrep must be at least 1")]
    ZeroRepetitions,
    #[error("--procs {p} is impossible with {world_size} MPI ranks: each P must be between 2 and the world size")]
    BadProcs { p: u32, world_size: u32 },
    #[error("--delay-rank: {0}")]
    DelayRanks(RankError),
    #[error("size {bytes} B cannot be used for {op}: reductions sum f64 elements, so sizes must be positive multiples of 8 bytes")]
    ReductionSize { bytes: u64, op: Op },
    #[error("size 0 B has no payload: give sizes of at least 1 byte")]
    ZeroSize,
    #[error(
        "delay {0} is not a positive delay: the undelayed baseline is always measured, give \
         delays > 0 (--delay none measures the baseline alone)"
    )]
    BadDelay(String),
    #[error("--emulate-clock: {0}")]
    Emulation(String),
    #[error("--window {0} s must be a positive duration")]
    BadWindow(f64),
    #[error(
        "--overlap applies to nonblocking kernels only: add {} to --ops",
        crate::plan::kernel::names_where(Op::is_nonblocking, " or ")
    )]
    OverlapWithoutNonblocking,
    #[error(
        "{0} must be at least 1: a clock synchronisation without measurements gives no clock model"
    )]
    ZeroClockParam(&'static str),
    #[error("{0}")]
    Adaptive(crate::plan::options::AdaptiveError),
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small valid plan for tests elsewhere in the crate: the synthetic records' plan
    /// (its defaults) with the default kernels, three sizes and 100 repetitions.
    pub(crate) fn plan() -> Plan {
        Plan {
            ops: Op::defaults(),
            sizes: vec![8, 128, 1024],
            procs: vec![2, 4],
            subcomm: Subcomm::First,
            track_every_s: Some(1.0),
            delays: vec!["50us".parse().unwrap()],
            nrep: 100,
            warmup: 10,
            window_s: None,
            seed: 1,
            ..crate::records::testdata::header(4).plan
        }
    }

    fn hosts(n: usize) -> Vec<String> {
        vec!["node0".to_string(); n]
    }

    #[test]
    fn valid_plan_passes() {
        assert_eq!(plan().validate(4, &hosts(4)), Ok(()));
        assert_eq!(plan().sizes_for(Op::Barrier), vec![0]);
        let delays = plan().delays_with_baseline();
        assert_eq!(delays.len(), 2);
        assert!(delays[0].is_none());
        assert_eq!(delays[1].as_ref().unwrap().mean_s(), 50e-6);
    }

    #[test]
    fn invalid_plans_fail() {
        let h = hosts(4);
        assert_eq!(plan().validate(1, &h), Err(PlanError::TooFewRanks(1)));
        let mut p = plan();
        p.delay_ranks = RankSelection::rank(2);
        let err = p.validate(4, &h).unwrap_err();
        assert!(
            err.to_string().contains("rank 2 is not a rank of P = 2"),
            "{err}"
        );
        let mut p = plan();
        p.nrep = 0;
        assert_eq!(p.validate(4, &h), Err(PlanError::ZeroRepetitions));
        let mut p = plan();
        p.procs = vec![8];
        assert!(matches!(p.validate(4, &h), Err(PlanError::BadProcs { .. })));
        let mut p = plan();
        p.sizes = vec![12];
        assert!(matches!(
            p.validate(4, &h),
            Err(PlanError::ReductionSize { .. })
        ));
        let mut p = plan();
        p.delays = vec!["0".parse().unwrap()];
        assert!(matches!(p.validate(4, &h), Err(PlanError::BadDelay(_))));
        let mut p = plan();
        p.ops = vec![Op::Allreduce];
        p.overlap = Some(OverlapSpec {
            mode: crate::plan::options::OverlapMode::Time,
            test_interval_bytes: None,
        });
        let err = p.validate(4, &h).unwrap_err();
        assert_eq!(err, PlanError::OverlapWithoutNonblocking);
        assert!(
            err.to_string().ends_with(
                "ireduce_scatter_block, iscan, iexscan, iallgatherv, igatherv, iscatterv or \
                 ialltoallv to --ops"
            ),
            "{err}"
        );
        let mut p = plan();
        p.adaptive = Some(AdaptiveSpec {
            nrep_min: 1,
            nrep_max: 10,
            ci_level: 0.95,
            ci_rel: 0.05,
        });
        assert!(matches!(p.validate(4, &h), Err(PlanError::Adaptive(_))));
    }

    #[test]
    fn spread_takes_ranks_round_robin_over_hosts() {
        let names: Vec<String> = ["a", "a", "a", "b", "b", "c"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(Subcomm::First.order(&names), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(Subcomm::Spread.order(&names), vec![0, 3, 5, 1, 4, 2]);
        assert_eq!(Subcomm::Spread.hosts_spanned(&names, 2), 2);
        assert_eq!(Subcomm::Spread.hosts_spanned(&names, 3), 3);
        assert_eq!(Subcomm::First.hosts_spanned(&names, 3), 1);
        assert_eq!(Subcomm::First.hosts_spanned(&names, 4), 2);
        assert_eq!(
            Subcomm::Spread.ordered_names(&names)[..3],
            ["a".to_string(), "b".into(), "c".into()]
        );
    }

    #[test]
    fn spread_keeps_world_rank_zero_first_with_cyclic_mapping() {
        let names: Vec<String> = ["a", "b", "a", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(Subcomm::Spread.order(&names), vec![0, 1, 2, 3]);
    }
}
