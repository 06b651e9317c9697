//! The repetition loop of one configuration, its warm-up, and the gathering of its records.

use super::interrupt::{self, STOP_CHECK_EVERY};
use super::kernels::{Call, Kernel};
use super::overlap::{Compute, OverlapParts};
use super::process_sync::{ProcessSync, Release};
use super::release_clock::ReleaseClock;
use super::tracking::{probe_clocks, ProbeComms};
use crate::clock::tsc::{self, Stamp};
use crate::clock::{ClockModel, ClockProbe};
use crate::delay::{DetourInjector, DetourStats};
use crate::plan::options::ADAPTIVE_CHECK_EVERY;
use crate::plan::{AdaptiveSpec, Op};
use crate::records::{
    append_chunk, AdaptiveRecord, AppliedDetours, Block, BlockCounts, DetourRecord, F64Array,
    OverlapRecord, PurePass, RecordsWriter, StartPathRecord,
};
use crate::timeline::validity;
use crate::wire::Wire;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// What one rank saw in the repetitions of one block. Times in seconds, one entry per rep.
struct LocalRows {
    scheduled: Vec<f64>,
    start_local: Vec<f64>,
    end_local: Vec<f64>,
    start_global: Vec<f64>,
    end_global: Vec<f64>,
    applied: Vec<f64>,
    flags: Vec<u8>,
    /// Overlap mode only: the parts of each repetition.
    parts: Vec<OverlapParts>,
    /// Adaptive repetitions only: how they ended.
    adaptive: Option<AdaptiveRecord>,
    /// The counter and CPU at the release and at the last instruction before the call.
    release: Vec<Stamp>,
    entry: Vec<Stamp>,
    /// `--start-path` only: run-queue wait and steal since the previous repetition, seconds.
    run_delay: Vec<f64>,
    steal: Vec<f64>,
}

/// Runs `warmup` unrecorded repetitions after a barrier each and returns, per repetition, the
/// slowest rank's operation time in seconds (the same on every rank).
pub fn warm_up(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    warmup: u32,
) -> Vec<f64> {
    slowest_after_barriers(comm, kernel, timing, warmup)
}

/// Runs `nrep` repetitions, each after an `MPI_Barrier`, timed on each rank's local clock,
/// and returns per repetition the slowest rank's time in seconds (the same on every rank).
pub fn slowest_after_barriers(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
) -> Vec<f64> {
    slowest_call_after_barriers(comm, timing, nrep, || kernel.run(comm))
}

/// [`slowest_after_barriers`] for any collective `call` on `comm` (a barrier, say): `nrep`
/// calls, each after an `MPI_Barrier`, and per call the slowest rank's local time, seconds
/// (the same on every rank).
pub fn slowest_call_after_barriers(
    comm: &SimpleCommunicator,
    timing: &ReleaseClock,
    nrep: u32,
    mut call: impl FnMut(),
) -> Vec<f64> {
    let mine: Vec<f64> = (0..nrep)
        .map(|_| {
            comm.barrier();
            let t = timing.clock.now();
            call();
            timing.clock.now() - t
        })
        .collect();
    let mut slowest = vec![0.0; mine.len()];
    if !mine.is_empty() {
        comm.all_reduce_into(&mine[..], &mut slowest[..], SystemOperation::max());
    }
    slowest
}

/// The pure pass of an overlap block, as OSU 7.4 (`osu_iallreduce.c` & co.) and IMB-NBC 2021
/// (`IMB_iallreduce_pure` & co.) time it before their overlapped loop: `nrep` repetitions of
/// (clock, post, wait, clock, `MPI_Barrier`) on every rank. Returns, on every rank, each
/// rank's mean time and each repetition's slowest rank time, seconds. Collective on `comm`.
pub fn pure_pass(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
) -> PurePass {
    comm.barrier();
    let mine: Vec<f64> = (0..nrep)
        .map(|_| {
            let t = timing.clock.now();
            kernel.run(comm);
            let took = timing.clock.now() - t;
            comm.barrier();
            took
        })
        .collect();
    let mean = mine.iter().sum::<f64>() / mine.len().max(1) as f64;
    let mut means = vec![0.0; comm.size() as usize];
    comm.all_gather_into(&mean, &mut means[..]);
    let mut slowest = vec![0.0; mine.len()];
    if !mine.is_empty() {
        comm.all_reduce_into(&mine[..], &mut slowest[..], SystemOperation::max());
    }
    PurePass {
        nrep,
        mean_s: F64Array(means),
        slowest_s: F64Array(slowest),
    }
}

/// Automatic window in seconds: 2 x the 90th percentile of the slowest rank's warm-up
/// operation time, plus 1.1 x the largest delay (the others wait inside the operation for
/// the late rank, then need the operation's own tail), plus twice the waiting margin, plus
/// 20 us of slack. With no warm-up, 1 ms stands in for the operation time.
pub fn auto_window(slowest_s: &[f64], max_delay_s: f64, spin_margin_s: f64) -> f64 {
    let op_s = if slowest_s.is_empty() {
        0.5e-3
    } else {
        let mut sorted = slowest_s.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[((sorted.len() - 1) as f64 * 0.9).round() as usize]
    };
    2.0 * op_s + 1.1 * max_delay_s + 2.0 * spin_margin_s + 20e-6
}

/// The block being measured: its identity for the records, and this rank's delays.
pub struct BlockSpec {
    pub op: Op,
    pub bytes: u64,
    /// Nominal delay in seconds (fixed value or model mean; 0 for the baseline).
    pub delay_s: f64,
    /// Model label (`50us`, `exp:20us`; `0` for the baseline).
    pub delay_model: String,
    pub delayed_ranks: Vec<u32>,
    /// This rank's delay per repetition, seconds (length `nrep`).
    pub my_delays: Vec<f64>,
    /// Kernels that want it (`ref:clairvoyant`): per repetition the planned arrival order,
    /// the ranks sorted by their delay in that repetition (`delay::arrival_orders`, the same
    /// on every rank); `None` for the other kernels.
    pub arrival_orders: Option<Vec<Vec<usize>>>,
    /// Per rank of the communicator: the clock models in use (needed on rank 0 only).
    pub clock_models: Vec<ClockModel>,
    /// Per rank of the communicator: its world rank.
    pub world_ranks: Vec<u32>,
    /// Distinct hosts among the communicator's ranks.
    pub hosts: u32,
    /// Drift-tracking probes taken before the block (on rank 0).
    pub probes: Vec<ClockProbe>,
    /// Probe the clocks after every this many repetitions inside the block (window sync).
    pub track_every_reps: Option<usize>,
    /// Probe also after these repetitions (the first block after a synchronisation:
    /// [`early_probe_reps`]).
    pub early_probe_reps: Vec<usize>,
    /// Overlap mode: what to compute between post and wait (nonblocking kernels only).
    pub compute: Option<Compute>,
    /// Overlap mode: the pure pass the computation was sized from, for the records.
    pub pure_pass: Option<PurePass>,
    /// Overlap mode: message bytes per `MPI_Test` call, for the records.
    pub test_interval_bytes: Option<u64>,
    /// Adaptive repetitions: `my_delays` then covers `nrep_max` repetitions.
    pub adaptive: Option<AdaptiveSpec>,
    /// Gather the repetitions since the last chunk and write them as a chunk after every this
    /// many (the same on every rank), so a rank killed mid-block loses at most one chunk.
    /// `None`: the block is gathered once, at its end.
    pub chunk_every_reps: Option<usize>,
    /// The algorithm the block is measured with and its check, for the records.
    pub algorithm: Option<crate::plan::algorithms::AlgorithmSetting>,
    pub algorithm_check: Option<crate::plan::algorithms::AlgorithmCheck>,
    /// The captured counts the kernel's partitions were sized from, for the records.
    pub counts: Option<BlockCounts>,
    /// Per rank: where it ran and where its buffers were, for the records (rank 0).
    pub placement: Vec<crate::records::BufferPlacement>,
    /// `--start-path`: read the run-queue and steal counters after every repetition.
    pub start_path: bool,
}

/// A measured block: on rank 0 the whole block (`None` elsewhere), and how many of its first
/// repetitions are already in the records file as chunks (0: none, write the block whole;
/// otherwise write the rest as a last chunk and close the block).
pub struct Measured {
    pub block: Option<Block>,
    pub chunked_reps: u32,
    /// Rank 0: the records file refused a chunk; the caller ends the run with this message.
    pub write_error: Option<crate::records::RecordsError>,
}

/// Measures one block on `comm` and returns it on rank 0. With `detours`, the injector's gate
/// is open only while the operation runs; the caller stops it and passes its stats to
/// [`gather_detours`]. With `spec.chunk_every_reps`, the repetitions are also gathered and
/// written to `sink` (rank 0's records file) chunk by chunk while the block runs.
#[allow(clippy::too_many_arguments)]
pub fn measure_block(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    sync: &mut dyn ProcessSync,
    timing: &ReleaseClock,
    mut spec: BlockSpec,
    detours: Option<&DetourInjector>,
    probes: Option<&ProbeComms>,
    mut sink: Option<&mut RecordsWriter>,
) -> Measured {
    let tracking = probes.zip(spec.track_every_reps);
    interrupt::arm(format!(
        "{} {} B, P = {}, delay {}",
        spec.op,
        spec.bytes,
        comm.size(),
        spec.delay_model
    ));
    let window_s = sync.window_s();
    let mut chunked = 0usize;
    let mut probes_written = 0usize;
    let mut write_error = None;
    // Rank 0: the chunks written so far, joined. The end of the block then gathers only the
    // repetitions since the last chunk, instead of the whole block a second time.
    let mut joined: Option<Block> = None;
    let (rows, taken) = {
        let spec = &spec;
        let mut on_chunk = |rows: &LocalRows, to: usize, taken: &[ClockProbe]| {
            // The block's earlier probes go with its first chunk, later ones with the chunk
            // they were taken in.
            let mut probes = if chunked == 0 {
                spec.probes.clone()
            } else {
                Vec::new()
            };
            probes.extend_from_slice(&taken[probes_written..]);
            probes_written = taken.len();
            let part = gather(comm, rows, chunked..to, spec, probes, window_s, timing);
            if let Some(part) = part {
                if let (Some(w), None) = (sink.as_deref_mut(), &write_error) {
                    if let Err(e) = w.write_chunk(chunked as u32, &part) {
                        write_error = Some(e);
                    }
                }
                join(&mut joined, chunked, part);
            }
            chunked = to;
        };
        let chunking = spec
            .chunk_every_reps
            .map(|every| (every.max(1), &mut on_chunk as &mut ChunkFn));
        repetitions(
            comm, kernel, sync, timing, spec, detours, tracking, chunking,
        )
    };
    let nrep = rows.start_local.len();
    let mut probes = if chunked == 0 {
        std::mem::take(&mut spec.probes)
    } else {
        Vec::new()
    };
    probes.extend_from_slice(&taken[probes_written..]);
    let tail = gather(comm, &rows, chunked..nrep, &spec, probes, window_s, timing);
    let block = tail.map(|tail| {
        join(&mut joined, chunked, tail);
        joined.expect("a block was just joined")
    });
    Measured {
        block,
        chunked_reps: chunked as u32,
        write_error,
    }
}

/// Adds the gathered repetitions `first_rep..` to the block joined so far on rank 0.
fn join(joined: &mut Option<Block>, first_rep: usize, part: Block) {
    match joined {
        None => *joined = Some(part),
        // Both come from this block's own gathers, so they always continue each other.
        Some(block) => append_chunk(block, first_rep as u32, part)
            .expect("the chunks of one measured block continue each other"),
    }
}

/// Called between repetitions with the rows so far, the repetition the chunk ends before and
/// the probes taken inside the block so far; collective on the block's communicator.
type ChunkFn<'a> = dyn FnMut(&LocalRows, usize, &[ClockProbe]) + 'a;

/// Gathers per-rank detour statistics and the applied detours (`events`: start on the global
/// clock and length, seconds) on rank 0 of `comm`.
pub fn gather_detours(
    comm: &SimpleCommunicator,
    spec: String,
    stats: &DetourStats,
    events: &[[f64; 2]],
) -> Option<DetourRecord> {
    let mine = [
        stats.fired as f64,
        stats.lost_s,
        stats.skipped as f64,
        stats.missed as f64,
    ];
    let all = super::gather::gather_one(comm, mine);
    let applied = super::gather::gather_varying(comm, events);
    let (all, applied) = (all?, applied?);
    Some(DetourRecord {
        spec,
        fired: all.iter().map(|r| r[0] as u64).collect(),
        lost_s: all.iter().map(|r| r[1]).collect(),
        skipped: all.iter().map(|r| r[2] as u64).collect(),
        missed: all.iter().map(|r| r[3] as u64).collect(),
        applied: applied
            .into_iter()
            .map(|ev| AppliedDetours {
                start_global_s: F64Array(ev.iter().map(|e| e[0]).collect()),
                duration_s: F64Array(ev.iter().map(|e| e[1]).collect()),
            })
            .collect(),
    })
}

#[allow(clippy::too_many_arguments)]
fn repetitions(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    sync: &mut dyn ProcessSync,
    timing: &ReleaseClock,
    spec: &BlockSpec,
    detours: Option<&DetourInjector>,
    tracking: Option<(&ProbeComms, usize)>,
    mut chunking: Option<(usize, &mut ChunkFn)>,
) -> (LocalRows, Vec<ClockProbe>) {
    let my_delays = &spec.my_delays;
    let nrep = my_delays.len();
    let gate = |open: bool| {
        if let Some(d) = detours {
            d.set_gate(open);
        }
    };
    gate(false);
    let mut rows = LocalRows {
        scheduled: Vec::with_capacity(nrep),
        start_local: Vec::with_capacity(nrep),
        end_local: Vec::with_capacity(nrep),
        start_global: Vec::with_capacity(nrep),
        end_global: Vec::with_capacity(nrep),
        applied: Vec::with_capacity(nrep),
        flags: Vec::with_capacity(nrep),
        parts: Vec::new(),
        adaptive: None,
        release: Vec::with_capacity(nrep),
        entry: Vec::with_capacity(nrep),
        run_delay: Vec::new(),
        steal: Vec::new(),
    };
    let mut counters = if spec.start_path {
        super::start_path::ProcCounters::new()
    } else {
        None
    };
    let mut probes = Vec::new();
    sync.begin(comm, timing);
    // Repetition index at which the schedule was last anchored (adaptive checks re-anchor it).
    let mut anchor = 0;
    let call = Call::new(comm);
    // The rank's own one-rank communicator, on which the warm-up runs the operation once
    // before each release where it may ([`Kernel::warm`]), decided once per block.
    let own = mpi::topology::SimpleCommunicator::self_comm();
    let alone = kernel.warms_alone().then(|| Call::new(&own));
    for (rep, &delay) in my_delays.iter().enumerate() {
        let Release {
            scheduled_g: scheduled,
            t_local: t0,
            stamp: released,
        } = sync.start(comm, timing, rep - anchor, delay, &mut || {
            kernel.warm(&call, alone.as_ref())
        });
        // The gate opens after t0 and closes before t1: a detour lengthens the operation, as
        // OS noise does, but never shifts the recorded entry past the rank's start instant.
        gate(true);
        // The last instruction of ours before the kernel's MPI call (a few dispatching
        // instructions follow): the path from `released` to here is what the recorded start
        // cannot see.
        let entered = tsc::stamp();
        match &spec.compute {
            Some(c) => {
                // A punctual rank computes longer by the delay it would otherwise wait for
                // (the late rank catching up); the late rank computes t_b like the baseline.
                let extra = (spec.delay_s - delay).max(0.0);
                let parts = kernel.run_overlapped(comm, c, extra, timing.clock.as_ref());
                rows.parts.push(parts);
            }
            None => {
                let arrival = spec.arrival_orders.as_ref().and_then(|o| o.get(rep));
                kernel.run_call(&call.arriving(arrival.map(Vec::as_slice)))
            }
        }
        gate(false);
        let t1 = timing.clock.now();
        let model = timing.model();
        let (g0, g1) = (model.to_global(t0), model.to_global(t1));
        // Lateness is judged on the recorded start. Under the window scheme that is the
        // reading that ended the wait, so a rank descheduled before it is seen late; one
        // descheduled after it, on its way into MPI, is not (docs/accuracy.md measures that
        // path). Under barrier synchronisation it is read after the barrier and the delay.
        let flags = validity::flags(
            scheduled,
            delay,
            (g0, g1),
            sync.window_s(),
            timing.late_tolerance_s,
        );
        rows.scheduled.push(scheduled);
        rows.start_local.push(t0);
        rows.end_local.push(t1);
        rows.start_global.push(g0);
        rows.end_global.push(g1);
        rows.applied.push(delay);
        rows.flags.push(flags);
        rows.release.push(released);
        rows.entry.push(entered);
        if let Some(c) = counters.as_mut() {
            let (run_delay, steal) = c.advance(entered.cpu);
            rows.run_delay.push(run_delay);
            rows.steal.push(steal);
        }
        interrupt::beat();
        super::report::repetition_done();
        if (rep + 1) % STOP_CHECK_EVERY == 0 && interrupt::agreed(comm) {
            break;
        }
        let next = rep + 1;
        if let Some((every, on_chunk)) = chunking.as_mut() {
            if due_inside(next, *every, nrep) {
                on_chunk(&rows, next, &probes);
                // Gathering and writing took time the schedule did not plan for.
                sync.resume(comm, timing, next - anchor);
            }
        }
        if let Some((comms, every)) = tracking {
            if due_inside(next, every, nrep) || spec.early_probe_reps.contains(&next) {
                probes.extend(probe_clocks(timing, comms, next as u32));
                sync.resume(comm, timing, next - anchor);
            }
        }
        if let Some(a) = &spec.adaptive {
            let done = rep + 1;
            let due = done as u32 >= a.nrep_min
                && ((done as u32 - a.nrep_min) % ADAPTIVE_CHECK_EVERY == 0 || done == nrep);
            if due {
                let record = check_precision(comm, &rows, a);
                let stop = record.converged || done == nrep;
                rows.adaptive = Some(record);
                if stop {
                    break;
                }
                // The check took time the schedule did not plan for: start afresh.
                sync.begin(comm, timing);
                anchor = done;
            }
        }
    }
    (rows, probes)
}

/// Whether a pause every `every` repetitions (a chunk, a drift-tracking probe) falls before
/// repetition `next`, counted from 1: only between repetitions, never after the last, where the
/// block's end does the same work.
fn due_inside(next: usize, every: usize, nrep: usize) -> bool {
    next % every == 0 && next < nrep
}

/// Repetitions after which the first block after a synchronisation probes the clocks besides
/// every `every` ones: an eighth, a quarter and half of the way to the first regular probe.
/// The synchronisation's slope comes from a fit over tens of milliseconds, which across hosts
/// can be ppm off (module docs of [`crate::clock::tracking`]); probes at doubling distances
/// replace it by the probes' own slope within the first fraction of a second, each time over
/// twice the span, instead of after the first whole tracking interval.
pub fn early_probe_reps(every: usize, nrep: usize) -> Vec<usize> {
    let mut reps: Vec<usize> = [every / 8, every / 4, every / 2]
        .into_iter()
        .filter(|&r| r > 0 && r < nrep)
        .collect();
    reps.dedup();
    reps
}

/// The adaptive stopping rule over the repetitions so far (collective on `comm`): the
/// Student's t interval of the mean valid t_global, decided on rank 0 for every rank.
fn check_precision(
    comm: &SimpleCommunicator,
    rows: &LocalRows,
    a: &AdaptiveSpec,
) -> AdaptiveRecord {
    let n = rows.start_global.len();
    let mut first_start = vec![0.0; n];
    let mut last_end = vec![0.0; n];
    let mut flags = vec![0u8; n];
    comm.all_reduce_into(
        &rows.start_global[..],
        &mut first_start[..],
        SystemOperation::min(),
    );
    comm.all_reduce_into(
        &rows.end_global[..],
        &mut last_end[..],
        SystemOperation::max(),
    );
    comm.all_reduce_into(
        &rows.flags[..],
        &mut flags[..],
        SystemOperation::bitwise_or(),
    );
    let t_globals: Vec<f64> = (0..n)
        .filter(|&i| flags[i] == 0)
        .map(|i| last_end[i] - first_start[i])
        .collect();
    let mut decision = [
        crate::analysis::ci_rel_half_width(&t_globals, a.ci_level).unwrap_or(f64::NAN),
        0.0,
    ];
    decision[1] = f64::from(u8::from(decision[0] <= a.ci_rel));
    comm.process_at_rank(0).broadcast_into(&mut decision[..]);
    AdaptiveRecord {
        nrep_min: a.nrep_min,
        nrep_max: a.nrep_max,
        ci_level: a.ci_level,
        ci_rel: a.ci_rel,
        reached: n as u32,
        rel_error: decision[0],
        converged: decision[1] == 1.0,
    }
}

/// What one rank recorded of one repetition, as rank 0 gathers it.
#[derive(Debug, Clone, Copy, Default)]
struct RankRep {
    start_local: f64,
    end_local: f64,
    start_global: f64,
    end_global: f64,
    applied: f64,
    flags: u8,
    /// Zero outside overlap mode.
    parts: OverlapParts,
    /// Counter cycles since the rank's base at release and entry, and the CPUs.
    release_cycles: f64,
    entry_cycles: f64,
    release_cpu: f64,
    entry_cpu: f64,
    /// NaN without `--start-path`.
    run_delay: f64,
    steal: f64,
}

impl Wire for RankRep {
    const LEN: usize = 16;
    fn put(&self, out: &mut Vec<f64>) {
        let p = &self.parts;
        out.extend([
            self.start_local,
            self.end_local,
            self.start_global,
            self.end_global,
            self.applied,
            f64::from(self.flags),
            p.post_s,
            p.compute_s,
            p.test_s,
            p.wait_s,
            self.release_cycles,
            self.entry_cycles,
            self.release_cpu,
            self.entry_cpu,
            self.run_delay,
            self.steal,
        ]);
    }
    fn take(x: &[f64]) -> Self {
        RankRep {
            start_local: x[0],
            end_local: x[1],
            start_global: x[2],
            end_global: x[3],
            applied: x[4],
            flags: x[5] as u8,
            parts: OverlapParts {
                post_s: x[6],
                compute_s: x[7],
                test_s: x[8],
                wait_s: x[9],
            },
            release_cycles: x[10],
            entry_cycles: x[11],
            release_cpu: x[12],
            entry_cpu: x[13],
            run_delay: x[14],
            steal: x[15],
        }
    }
}

/// Gathers repetitions `reps` of every rank's rows on rank 0 as a block (`None` elsewhere);
/// collective on `comm`. `probes` are the clock probes that go with these repetitions.
fn gather(
    comm: &SimpleCommunicator,
    rows: &LocalRows,
    reps: std::ops::Range<usize>,
    spec: &BlockSpec,
    probes: Vec<ClockProbe>,
    window_s: Option<f64>,
    timing: &ReleaseClock,
) -> Option<Block> {
    // Adaptive blocks may have stopped before spec.nrep; every rank stopped at the same count.
    let nrep = reps.len();
    // Counter cycles count from the block's first release, so that they stay exact in an
    // f64 and every chunk of the block shares the base.
    let base = rows.release.first().map_or(0, |s| s.cycles);
    let since = |s: &Stamp| s.cycles.wrapping_sub(base) as f64;
    let nan_or = |v: &[f64], i: usize| v.get(i).copied().unwrap_or(f64::NAN);
    let mine: Vec<RankRep> = reps
        .clone()
        .map(|i| RankRep {
            start_local: rows.start_local[i],
            end_local: rows.end_local[i],
            start_global: rows.start_global[i],
            end_global: rows.end_global[i],
            applied: rows.applied[i],
            flags: rows.flags[i],
            parts: rows.parts.get(i).copied().unwrap_or_default(),
            release_cycles: since(&rows.release[i]),
            entry_cycles: since(&rows.entry[i]),
            release_cpu: f64::from(rows.release[i].cpu),
            entry_cpu: f64::from(rows.entry[i].cpu),
            run_delay: nan_or(&rows.run_delay, i),
            steal: nan_or(&rows.steal, i),
        })
        .collect();
    // The base as two exact halves, and the counter's rate over the repetitions so far.
    let last = reps.end.max(1) - 1;
    let hz = match (rows.release.first(), rows.release.get(last)) {
        (Some(a), Some(b)) => tsc::rate_hz(
            (rows.start_local[0], a.cycles),
            (rows.start_local[last], b.cycles),
        ),
        _ => f64::NAN,
    };
    let counter =
        super::gather::gather_one(comm, [(base >> 32) as f64, (base & 0xffff_ffff) as f64, hz]);
    let per_rank = super::gather::gather(comm, &mine)?;
    let counter = counter?;
    // Per rank, per repetition; the records want [nrep][P].
    let column = |f: fn(&RankRep) -> f64| -> F64Array {
        F64Array(
            (0..nrep)
                .flat_map(|i| per_rank.iter().map(move |r| f(&r[i])))
                .collect(),
        )
    };
    let p = per_rank.len();
    Some(Block {
        op: spec.op,
        bytes: spec.bytes,
        nprocs: p as u32,
        delay_s: spec.delay_s,
        delay_model: spec.delay_model.clone(),
        delayed_ranks: spec.delayed_ranks.clone(),
        window_s,
        wait_strategy: timing.wait.name().into(),
        late_tolerance_s: timing.late_tolerance_s,
        nrep: nrep as u32,
        scheduled_start_s: F64Array(rows.scheduled[reps.clone()].to_vec()),
        t_start_local_s: column(|r| r.start_local),
        t_end_local_s: column(|r| r.end_local),
        t_start_global_s: column(|r| r.start_global),
        t_end_global_s: column(|r| r.end_global),
        applied_delay_s: column(|r| r.applied),
        flags: (0..nrep)
            .flat_map(|i| per_rank.iter().map(move |r| r[i].flags))
            .collect(),
        clock_models: spec.clock_models.clone(),
        detour: None,
        world_ranks: spec.world_ranks.clone(),
        hosts: spec.hosts,
        clock_probes: probes,
        overlap: spec.compute.map(|c| OverlapRecord {
            mode: c.mode.name().into(),
            t_pure_s: c.t_pure_s,
            workload: c.workload,
            test_interval_bytes: spec.test_interval_bytes,
            tests_per_rep: c.tests,
            post_s: column(|r| r.parts.post_s),
            compute_s: column(|r| r.parts.compute_s),
            test_s: column(|r| r.parts.test_s),
            wait_s: column(|r| r.parts.wait_s),
            pure_pass: spec.pure_pass.clone(),
        }),
        adaptive: rows.adaptive.clone(),
        flags_online: Vec::new(),
        algorithm: spec.algorithm.clone(),
        algorithm_check: spec.algorithm_check.clone(),
        counts: spec.counts.clone(),
        placement: spec.placement.clone(),
        start_path: window_s.map(|_| StartPathRecord {
            tsc_base_cycles: counter
                .iter()
                .map(|c| ((c[0] as u64) << 32) | c[1] as u64)
                .collect(),
            tsc_hz: counter.iter().map(|c| c[2]).collect(),
            release_cycles: column(|r| r.release_cycles),
            entry_cycles: column(|r| r.entry_cycles),
            release_cpu: column(|r| r.release_cpu),
            entry_cpu: column(|r| r.entry_cpu),
            run_delay_s: if spec.start_path {
                column(|r| r.run_delay)
            } else {
                F64Array(Vec::new())
            },
            steal_s: if spec.start_path {
                column(|r| r.steal)
            } else {
                F64Array(Vec::new())
            },
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_fall_between_repetitions_only() {
        let due: Vec<usize> = (1..=10).filter(|&n| due_inside(n, 3, 10)).collect();
        assert_eq!(due, [3, 6, 9]);
        assert!(!due_inside(10, 5, 10), "not after the last repetition");
    }

    #[test]
    fn early_probes_double_their_distance_up_to_the_first_regular_one() {
        // 1 ms windows, probes every second: after 125, 250 and 500 repetitions.
        assert_eq!(early_probe_reps(1000, 10_000), [125, 250, 500]);
        // None past the block's end, none at repetition 0, no duplicates.
        assert_eq!(early_probe_reps(1000, 300), [125, 250]);
        assert_eq!(early_probe_reps(3, 100), [1]);
        assert!(early_probe_reps(1, 100).is_empty());
    }

    #[test]
    fn auto_window_rule() {
        let slow = [
            10e-6, 12e-6, 11e-6, 100e-6, 13e-6, 12e-6, 11e-6, 10e-6, 12e-6, 14e-6,
        ];
        // p90 of 10 values is the 9th smallest (index 8 after rounding 8.1): 14 us.
        let w = auto_window(&slow, 50e-6, 100e-6);
        assert!((w - (28e-6 + 55e-6 + 200e-6 + 20e-6)).abs() < 1e-12, "{w}");
        assert!((auto_window(&[], 50e-6, 0.0) - (1e-3 + 55e-6 + 20e-6)).abs() < 1e-12);
        // A 2 ms late arrival leaves room for the operation's tail after it.
        assert!(auto_window(&[1e-6], 2e-3, 0.0) >= 2.2e-3);
    }
}
