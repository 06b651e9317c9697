//! The content of a records file: one [`Header`], one [`Block`] per measured configuration,
//! and a [`Footer`] when the run completed (docs/records-format.md; Niethammer et al. 2016, §III-C).
//!
//! Per-repetition arrays are flattened row-major with shape `[nrep][nprocs]`
//! (index `rep * nprocs + rank`) and stored as CBOR byte strings of big-endian f64,
//! the XDR double layout. The byte layout is documented in `docs/records-format.md`.

use crate::clock::{ClockModel, ClockProbe};
use crate::plan::{Op, Plan};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Name in every header, so readers can tell a records file from other CBOR.
pub const FORMAT_NAME: &str = "delaybench-records";
/// Version of the layout described in `docs/records-format.md`. Version 3 added the header's
/// `p2p` one-way times (the lower bound of t_global); version 2 files are read as they are,
/// without them.
pub const FORMAT_VERSION: u32 = 3;
/// The oldest version this delaybench reads.
pub const MIN_FORMAT_VERSION: u32 = 2;

/// Flag bit: the rank reached its start instant after that instant had passed.
pub const FLAG_STARTED_LATE: u8 = 1;
/// Flag bit: the operation ended after the end of its window.
pub const FLAG_WINDOW_OVERRUN: u8 = 2;

/// One item of the CBOR sequence that makes a records file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "lowercase")]
pub enum Item {
    Header(Box<Header>),
    Block(Box<Block>),
    Footer(Box<Footer>),
    /// Repetitions of a block written in chunks, so that a long block is not lost at an interruption.
    Chunk(Box<super::Chunk>),
    /// Closes a block written in chunks.
    #[serde(rename = "block_end")]
    BlockEnd(super::BlockEnd),
}

/// Clock source and the cost of reading it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockInfo {
    /// `monotonic` or `wtime`.
    pub source: String,
    /// Resolution reported by the source, seconds.
    pub resolution_s: f64,
    /// Timer delay Δ: the median cost of one clock read on rank 0, seconds (Niethammer et al. 2016, eq. 3).
    pub timer_delay_s: f64,
}

/// Clock synchronisation: method, parameters and the per-rank result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockSyncInfo {
    /// Method name, e.g. `offset`.
    pub method: String,
    /// Method parameters as `name=value` strings, e.g. `nonimproving=100`.
    pub params: Vec<String>,
    /// Per rank (index = world rank): the clock model found.
    pub models: Vec<ClockModel>,
    /// Per rank: smallest round-trip time seen against rank 0, seconds (0 for rank 0).
    pub min_rtt_s: Vec<f64>,
    /// Per rank: number of ping-pong exchanges done.
    pub exchanges: Vec<u32>,
    /// Wall time of the whole synchronisation on rank 0, seconds.
    pub duration_s: f64,
    /// Per rank (index = world rank): which clock it shares and how that was checked; empty
    /// in files written before shared clocks were detected.
    #[serde(default)]
    pub shared: Vec<SharedClockCheck>,
    /// Per rank: standard error of its fitted slope (s/s); a slope not significantly
    /// different from 0 (95 %) was set to 0. NaN where no slope was fitted.
    #[serde(default)]
    pub slope_se: Vec<f64>,
}

/// One rank's shared-clock check (`crate::clock::shared`): ranks with their leader's clock
/// identity (host, boot, time namespace) measure their offset to the leader with a short
/// min-RTT ping-pong and take the leader's model when it is within the bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SharedClockCheck {
    /// World rank of the leader whose clock identity this rank has (itself for a leader).
    pub leader: u32,
    /// Outcome: leader, shared, failed-check or emulated.
    pub verdict: crate::clock::shared::SharedVerdict,
    /// Offset measured against the leader, seconds (NaN when not checked).
    pub offset_s: f64,
    /// Smallest RTT of that check, seconds (NaN when not checked).
    pub rtt_s: f64,
}

impl crate::wire::Wire for SharedClockCheck {
    const LEN: usize = 4;
    fn put(&self, out: &mut Vec<f64>) {
        out.extend([
            f64::from(self.leader),
            f64::from(self.verdict.code()),
            self.offset_s,
            self.rtt_s,
        ]);
    }
    fn take(xs: &[f64]) -> Self {
        SharedClockCheck {
            leader: xs[0] as u32,
            verdict: crate::clock::shared::SharedVerdict::from_code(xs[1] as u8),
            offset_s: xs[2],
            rtt_s: xs[3],
        }
    }
}

/// How ranks waited for their start instants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitInfo {
    /// The rule: spin while every host has a core per measuring rank, else polite; each block
    /// records the strategy it used.
    pub rule: String,
    /// Per host (in order of first rank): host name, ranks on it, online cores.
    pub hosts: Vec<HostLoad>,
    /// Seconds before the start instant at which a polite waiter stops sleeping.
    pub spin_margin_s: f64,
    /// Fixed late-start tolerance in seconds, or `None` for the strategy's default.
    pub late_tolerance_s: Option<f64>,
}

/// Ranks and cores of one host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostLoad {
    pub host: String,
    pub ranks: u32,
    /// Cores the job may use on this host: the union of its ranks' CPU affinity masks, or the
    /// host's online cores when masks were unavailable (see `cores_from`).
    pub cores: u32,
    /// Those cores as a CPU list (`0-3,8`), empty when counted from the online cores.
    #[serde(default)]
    pub cpus: String,
    /// `affinity` (union of the ranks' masks: Slurm CPU sets, cgroups, launcher binding) or
    /// `online` (`sysconf(_SC_NPROCESSORS_ONLN)`, the fallback).
    #[serde(default)]
    pub cores_from: String,
}

/// Run metadata, written first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// delaybench version that wrote the file.
    pub tool_version: String,
    /// The command line of rank 0.
    pub command_line: Vec<String>,
    /// UTC start time, RFC 3339.
    pub start_utc: String,
    /// Number of MPI ranks launched.
    pub world_size: u32,
    /// Per rank (index = world rank): host name (`MPI_Get_processor_name`).
    pub hosts: Vec<String>,
    /// `MPI_Get_library_version`.
    pub mpi_library: String,
    pub clock: ClockInfo,
    pub clock_sync: ClockSyncInfo,
    pub wait: WaitInfo,
    /// How the window was chosen, in words (e.g. automatic rule or fixed value).
    pub window_rule: String,
    /// The plan (ops, sizes, P, delays, repetitions, sync, seed), after the study file and
    /// the command line were merged.
    pub plan: Plan,
    /// Text of the study file (`--config`), if one was used.
    pub study: Option<String>,
    /// Run id, build revision, `--tag`s, and per host the kernel, CPU, cores and MPI-related
    /// environment (empty in files written before it was recorded).
    #[serde(default)]
    pub provenance: super::Provenance,
    /// The noise check run before measuring (`--no-noise-check` skips it); `None` in files
    /// written without one.
    #[serde(default)]
    pub noise_check: Option<super::NoiseCheck>,
    /// Per rank, the spread of the time the library's first instructions take after the
    /// last stamp before an MPI call, timed before the blocks; absent in files written before
    /// it, in simulated runs and in runs without window synchronisation (no start spread to
    /// widen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_entry: Option<super::CallEntry>,
    /// The batch job and the launch: Slurm job, step, nodes and tasks, the PMI, and per rank
    /// its host, parent process and CPU set (`records::job`); absent in files written before
    /// it was recorded.
    #[serde(default)]
    pub job: Option<super::JobInfo>,
    /// The MPI library's algorithm variables at the start of the run, what `--algorithms` or
    /// `--algorithm-from-env` asked for, and whether any MPI_T performance variable exposes
    /// the algorithm decision; absent in files written before it and in runs that asked for
    /// no algorithm (docs/algorithms.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithms: Option<crate::plan::algorithms::AlgorithmsInfo>,
    /// Set when the run was simulated (`delaybench simulate`): the engine, its version, the
    /// platform and the collective selector; `None` for a measurement.
    #[serde(default)]
    pub simulation: Option<super::Simulation>,
    /// Per message size of the plan, the smallest one-way point-to-point time of a
    /// ping-pong between rank 0 and every other rank before the blocks (the lower bound of
    /// t_global adds it to the last arrival); absent in version 2 files and in simulated
    /// runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p2p: Option<super::P2pTimes>,
    /// The MPI library's point-to-point path variables at the start of the run (eager
    /// limits, rendezvous thresholds, the single-copy mechanism), read through MPI_T on rank
    /// 0: what decides how a message of each size travels. Empty in older files, simulated
    /// runs and libraries whose MPI_T lists none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transport: Vec<TransportVariable>,
}

/// One integer control variable of the MPI library, by its MPI_T name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransportVariable {
    pub name: String,
    pub value: i64,
}

/// One measured configuration: (op, bytes, P, nominal delay).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub op: Op,
    /// Message size in bytes as the kernel defines it (0 for barriers).
    pub bytes: u64,
    /// P: ranks 0..nprocs-1 took part.
    pub nprocs: u32,
    /// Nominal delay δ in seconds: the fixed delay, or the mean of a sampled model; 0 for the
    /// undelayed baseline.
    pub delay_s: f64,
    /// The delay model (`50us`, `exp:20us`, ...); `0` for the baseline.
    pub delay_model: String,
    /// Ranks (within the sub-communicator) that were to be delayed in every repetition; empty
    /// for the baseline and for ranks drawn per repetition (see `applied_delay_s`).
    pub delayed_ranks: Vec<u32>,
    /// Window in seconds (window sync), or `None` (barrier sync).
    pub window_s: Option<f64>,
    /// How ranks waited for start instants: `spin` (busy-wait) or `polite` (sleep, then spin
    /// with yields for the last stretch, on hosts with more measuring ranks than cores).
    pub wait_strategy: String,
    /// A rank starting more than this many seconds after its instant flags *started late*.
    pub late_tolerance_s: f64,
    /// Number of repetitions (rows of the arrays).
    pub nrep: u32,
    /// Per repetition: the scheduled global start instant, seconds (NaN with barrier sync).
    pub scheduled_start_s: F64Array,
    /// `[nrep][nprocs]`: local clock reading just before the operation, seconds (under window
    /// synchronisation the reading that ended the rank's wait).
    pub t_start_local_s: F64Array,
    /// `[nrep][nprocs]`: local clock reading just after the operation, seconds.
    pub t_end_local_s: F64Array,
    /// `[nrep][nprocs]`: `t_start_local_s` on the global clock, seconds.
    pub t_start_global_s: F64Array,
    /// `[nrep][nprocs]`: `t_end_local_s` on the global clock, seconds.
    pub t_end_global_s: F64Array,
    /// `[nrep][nprocs]`: delay that rank was given in that repetition, seconds.
    pub applied_delay_s: F64Array,
    /// `[nrep][nprocs]`: OR of `FLAG_*` bits; 0 = fine.
    #[serde(with = "serde_bytes")]
    pub flags: Vec<u8>,
    /// Per rank: the clock model that turned its local times into global ones (changes
    /// when clocks are re-synchronised during a run).
    pub clock_models: Vec<ClockModel>,
    /// What the detour injector did in this block, if detours were on.
    pub detour: Option<DetourRecord>,
    /// Per rank of the block: its world rank (`--subcomm` decides which ranks form P); empty
    /// in files written before it was recorded, meaning world ranks 0..P-1.
    #[serde(default)]
    pub world_ranks: Vec<u32>,
    /// Distinct hosts among the block's ranks (0: not recorded).
    #[serde(default)]
    pub hosts: u32,
    /// Drift-tracking probes taken just before this block and inside it (`--track-every`),
    /// by the ranks that synchronise themselves; each changed that rank's online model.
    #[serde(default)]
    pub clock_probes: Vec<ClockProbe>,
    /// The parts of each overlapped repetition (`--overlap`, nonblocking kernels only).
    #[serde(default)]
    pub overlap: Option<OverlapRecord>,
    /// How adaptive repetitions ended (`--nrep-max`); `nrep` is then the count reached.
    #[serde(default)]
    pub adaptive: Option<AdaptiveRecord>,
    /// Never in a file: set by a reader whose global times differ from the recorded ones
    /// (post-hoc correction) and whose verdicts therefore changed; then the recorded flags,
    /// `[nrep][nprocs]`, as the run's online models decided them. Empty otherwise.
    #[serde(skip)]
    pub flags_online: Vec<u8>,
    /// The collective algorithm this block was measured with (`--algorithms`,
    /// `--algorithm-from-env`): its name (`default` for the library's own choice), the
    /// variable written and the value; absent in other runs and older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<crate::plan::algorithms::AlgorithmSetting>,
    /// How the algorithm was checked: the value read back and the result fingerprint of a
    /// reduction (docs/algorithms.md); absent when no algorithm was set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm_check: Option<crate::plan::algorithms::AlgorithmCheck>,
    /// Where a v-form kernel's counts came from when not from `bytes`: the replayed
    /// capture's count vectors (docs/capture.md, "Replay"). Absent when the counts were
    /// uniform (`bytes` per rank or rank pair) and in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<BlockCounts>,
    /// Per rank of the block: where it ran and where its message buffers were, taken after
    /// the warm-up ([`super::BufferPlacement`]); the same for every block of a configuration.
    /// Empty in older files and simulated runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub placement: Vec<super::BufferPlacement>,
    /// The path from each rank's release to its MPI call, per repetition (time-stamp
    /// counter and CPU, and with `--start-path` the run-queue and steal time); absent in
    /// older files, simulated runs and barrier-synchronised blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_path: Option<super::StartPathRecord>,
}

pub use crate::plan::vcounts::BlockCounts;

/// Overlap mode of a nonblocking kernel (Hoefler et al. 2010, §4.1, Listing 6 and steps 1-8, and §4.2): each
/// rank posts the operation (t_init), computes with optional `MPI_Test` calls spread over
/// the computation, then waits (t_wait). Arrays `[nrep][nprocs]`, seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverlapRecord {
    /// `time-own` (each rank computes for its own mean pure time, as OSU and IMB-NBC do),
    /// `time` (compute for t_pure seconds) or `work` (compute a fixed workload calibrated to
    /// take t_pure on the slowest rank).
    pub mode: String,
    /// t_b: the pure operation time (post then wait, no computation), the median over the
    /// pure pass of the slowest rank's time (files without `pure_pass`: over the warm-up),
    /// seconds.
    pub t_pure_s: f64,
    /// Work-based: the workload λ in loop iterations (maximum over ranks); 0 when time-based.
    pub workload: u64,
    /// Bytes of message between two `MPI_Test` calls, if tests were asked for.
    pub test_interval_bytes: Option<u64>,
    /// `MPI_Test` calls per repetition: N = floor(bytes / interval) + 1, 0 without tests.
    pub tests_per_rep: u32,
    /// Time in the posting call (`MPI_I...`).
    pub post_s: F64Array,
    /// Time computing, tests excluded.
    pub compute_s: F64Array,
    /// Time in the `MPI_Test` calls.
    pub test_s: F64Array,
    /// Time in `MPI_Wait`.
    pub wait_s: F64Array,
    /// The pure pass before the overlapped repetitions, per rank (absent in files written
    /// before it was measured: the OSU and IMB overlap columns are then `n/a`).
    #[serde(default)]
    pub pure_pass: Option<super::PurePass>,
}

/// The end of an adaptive block (Lastovetsky, Rychkov and O'Flynn 2008, §3): repetitions stop once the Student's t confidence
/// interval of the mean valid t_global is narrower than the relative bound.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveRecord {
    pub nrep_min: u32,
    pub nrep_max: u32,
    /// Confidence level of the interval, e.g. 0.95.
    pub ci_level: f64,
    /// Relative bound on the half-width (half-width / mean), e.g. 0.05.
    pub ci_rel: f64,
    /// Repetitions measured when it stopped.
    pub reached: u32,
    /// Half-width / mean at the end (NaN with fewer than 2 valid repetitions).
    pub rel_error: f64,
    /// True when the bound was met, false when `nrep_max` ended it.
    pub converged: bool,
}

/// Detours injected during one block, per rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetourRecord {
    /// The spec, e.g. `1kHz,10us,sync`.
    pub spec: String,
    /// Per rank: detours that ran while the rank was inside the operation.
    pub fired: Vec<u64>,
    /// Per rank: CPU time they took, seconds.
    pub lost_s: Vec<f64>,
    /// Per rank: timer expiries while the rank was outside the operation (no CPU taken).
    pub skipped: Vec<u64>,
    /// Per rank: timer expiries lost because the previous signal was still pending (the rank
    /// was descheduled or had the signal blocked); fired + skipped + missed ≈ FREQ × time.
    pub missed: Vec<u64>,
    /// Per rank: every detour that ran (up to `delay::LOG_CAPACITY` per rank and block), on
    /// the global clock; empty in files written before applied detours were recorded.
    #[serde(default)]
    pub applied: Vec<AppliedDetours>,
}

/// The detours one rank's injector ran in one block, in the order they ran.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AppliedDetours {
    /// Per detour: its start on the global clock, seconds.
    pub start_global_s: F64Array,
    /// Per detour: how long it held the CPU, seconds.
    pub duration_s: F64Array,
}

impl Block {
    /// The name of the collective algorithm the block was measured with (`ring`,
    /// `default`), empty when the run chose none.
    pub fn algorithm_name(&self) -> &str {
        self.algorithm.as_ref().map_or("", |a| a.name.as_str())
    }

    /// Flat index of (repetition, rank) in the `[nrep][nprocs]` arrays.
    pub fn idx(&self, rep: usize, rank: usize) -> usize {
        rep * self.nprocs as usize + rank
    }

    /// True when no rank of repetition `rep` has a flag set.
    pub fn rep_valid(&self, rep: usize) -> bool {
        let p = self.nprocs as usize;
        self.flags[rep * p..(rep + 1) * p].iter().all(|&f| f == 0)
    }

    /// True when every repetition is a plain late arrival: some ranks got exactly the nominal
    /// delay and at least one rank none, so that δ of eq. 5 of Niethammer et al. 2016 is the nominal delay. False
    /// for the baseline, sampled models, and delays on every rank.
    pub fn is_late_arrival(&self) -> bool {
        let p = self.nprocs as usize;
        self.delay_s > 0.0
            && self
                .applied_delay_s
                .0
                .chunks(p)
                .all(|rep| rep.iter().all(|&d| d == 0.0 || d == self.delay_s) && rep.contains(&0.0))
    }

    /// Checks that every array has the shape `[nrep][nprocs]`.
    pub fn shape_ok(&self) -> bool {
        let n = self.nrep as usize * self.nprocs as usize;
        [
            &self.t_start_local_s,
            &self.t_end_local_s,
            &self.t_start_global_s,
            &self.t_end_global_s,
            &self.applied_delay_s,
        ]
        .iter()
        .all(|a| a.0.len() == n)
            && self.flags.len() == n
            && self.scheduled_start_s.0.len() == self.nrep as usize
            && self.overlap.as_ref().is_none_or(|o| {
                [&o.post_s, &o.compute_s, &o.test_s, &o.wait_s]
                    .iter()
                    .all(|a| a.0.len() == n)
            })
    }
}

/// End-of-run clock check (Niethammer et al. 2016, §III-A) and wall time, written last.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// Per rank: offset of its local clock to rank 0's at the end of the run, seconds (what
    /// its model predicts plus `offset_change_s`).
    pub end_offsets_s: Vec<f64>,
    /// Per rank: how far its global clock was from rank 0's at the end, measured by fresh
    /// min-RTT ping-pongs: the change of the offset that the model did not follow, seconds.
    pub offset_change_s: Vec<f64>,
    /// Largest |offset_change_s|, seconds.
    pub max_abs_offset_change_s: f64,
    /// Wall time of the run on rank 0, seconds.
    pub wall_time_s: f64,
    /// Warnings printed during the run.
    pub warnings: Vec<String>,
}

/// A vector of f64 stored as one CBOR byte string of big-endian doubles (XDR layout).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct F64Array(pub Vec<f64>);

impl Serialize for F64Array {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = self.0.iter().flat_map(|v| v.to_be_bytes()).collect();
        serde_bytes::Bytes::new(&bytes).serialize(s)
    }
}

impl<'de> Deserialize<'de> for F64Array {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes = serde_bytes::ByteBuf::deserialize(d)?;
        if bytes.len() % 8 != 0 {
            return Err(serde::de::Error::custom(format!(
                "f64 array of {} bytes is not a multiple of 8",
                bytes.len()
            )));
        }
        Ok(F64Array(
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_be_bytes(c.try_into().expect("chunk of 8")))
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn late_arrival_pattern() {
        use crate::plan::Op;
        let mut b = crate::records::testdata::block(Op::Allreduce, 8, 3, 50e-6, 4, 1e-5);
        assert!(b.is_late_arrival());
        let base = crate::records::testdata::block(Op::Allreduce, 8, 3, 0.0, 4, 1e-5);
        assert!(!base.is_late_arrival());
        // Every rank delayed alike: no rank is on time, so eq. 5's δ is not the nominal one.
        b.applied_delay_s.0.iter_mut().for_each(|d| *d = 50e-6);
        assert!(!b.is_late_arrival());
        // A sampled delay differs from the nominal (mean) value.
        b.applied_delay_s.0.iter_mut().for_each(|d| *d = 0.0);
        b.applied_delay_s.0[0] = 42e-6;
        assert!(!b.is_late_arrival());
    }
}
