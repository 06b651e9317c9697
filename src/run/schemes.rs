//! `delaybench schemes`: one operation, size and P timed by every published scheme, side by
//! side (Lastovetsky, Rychkov and O'Flynn 2008, §2; de Supinski and Karonis 1999, Figures 2 and 9; Hunold and Carpen-Amarie 2015, Figure 2).
//! What each measures and why they differ: `docs/nonblocking.md`.

use super::command::{print_table, rows_at_each_p};
use super::kernels::Kernel;
use super::measure::{auto_window, warm_up};
use super::process_sync::windowed_calls;
use super::release_clock::ReleaseClock;
use super::session::Session;
use crate::analysis::{
    compare_with_window, imb_t_avg_max, median, mpiblib_root, osu_avg_latency, SchemeRow,
};
use crate::clock::build;
use crate::export::write_schemes;
use crate::plan::Op;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::process::ExitCode;

/// Tag of the de Supinski ping-pongs and acknowledgements.
const ACK_TAG: i32 = 7003;

/// What `delaybench schemes` measures and how it reports: plain options, filled from the
/// command line at the edge.
#[derive(Debug, Clone)]
pub struct SchemesOptions {
    /// Kernels.
    pub ops: Vec<Op>,
    /// Message sizes, bytes.
    pub sizes: Vec<u64>,
    /// Process counts P; empty: the default for the world size.
    pub procs: Vec<u32>,
    /// Repetitions (or loop iterations) per scheme.
    pub nrep: u32,
    /// Window scheme: largest lateness of a rank's start, seconds (`None`: automatic).
    pub late_tolerance_s: Option<f64>,
    /// Clock synchronisation method for the global clock of the window scheme.
    pub clock_sync: crate::clock::ClockSyncMethod,
    /// Parameters of the clock synchronisation methods.
    pub params: crate::clock::ClockSyncParams,
    /// Per-rank clock offsets and skews to emulate, if any.
    pub emulate_clock: Option<crate::clock::EmulationSpec>,
    /// The clock read.
    pub clock: crate::plan::ClockSource,
    /// Output on stdout.
    pub format: crate::export::Format,
}

/// Runs every scheme under MPI and prints the table on rank 0.
pub fn main(opts: SchemesOptions) -> ExitCode {
    let check = |_: &[u32]| {
        let sizes_ok = opts.sizes.iter().all(|&b| b > 0 && b % 8 == 0);
        (opts.nrep >= 2 && !opts.ops.is_empty() && sizes_ok)
            .then_some(())
            .ok_or_else(|| {
                "schemes needs --nrep >= 2, at least one op, and sizes that are positive \
                 multiples of 8 bytes (reductions sum f64 elements)"
                    .to_string()
            })
    };
    let emulate = opts.emulate_clock.as_ref();
    super::command::command(
        &opts.procs,
        check,
        emulate,
        opts.clock,
        |session, procs, _| run(session, procs, &opts),
    )
}

/// The measurement of [`main`] once MPI and the session are up.
fn run(session: &mut Session, procs: Vec<u32>, opts: &SchemesOptions) -> ExitCode {
    let world = session.world;
    let method = build(opts.clock_sync, &opts.params);
    session.synchronise(world, method.as_ref());
    let tolerance = opts.late_tolerance_s;
    let mut rows = rows_at_each_p(session, &procs, tolerance, |session, comm, _| {
        let mut rows = Vec::new();
        for &op in &opts.ops {
            let sizes = if op.has_payload() {
                opts.sizes.clone()
            } else {
                vec![0]
            };
            for bytes in sizes {
                rows.extend(schemes(comm, &session.timing, op, bytes, opts.nrep));
            }
        }
        rows
    });
    if world.rank() == 0 {
        compare_with_window(&mut rows);
        if let Err(code) = print_table(|out| write_schemes(&rows, opts.format, out)) {
            return code;
        }
    }
    ExitCode::SUCCESS
}

/// Every scheme for one (op, bytes) on `comm`; the rows on rank 0 (empty elsewhere).
fn schemes(
    comm: &SimpleCommunicator,
    timing: &ReleaseClock,
    op: Op,
    bytes: u64,
    nrep: u32,
) -> Vec<SchemeRow> {
    let mut kernel = Kernel::new(op, bytes, comm.size() as usize);
    let slowest = warm_up(comm, &mut kernel, timing, 20);
    // The window scheme first: it needs the warm-up's operation times to size its window.
    let (window_s, valid) = window(comm, &mut kernel, timing, nrep, &slowest);
    // OSU 7.4 and IMB 2021 time the same loop (clock, op, clock, barrier) and differ in how
    // they combine ranks: one loop serves both.
    let per_rank = timed_then_barrier(comm, &mut kernel, timing, nrep);
    let (imb_avg, imb_max) = imb_t_avg_max(&per_rank);
    let mut times = vec![
        ("osu-7.4-avg", osu_avg_latency(&per_rank), nrep),
        ("imb-2021-tavg", imb_avg, nrep),
        ("imb-2021-tmax", imb_max, nrep),
        (
            "barrier-max",
            barrier_max(comm, &mut kernel, timing, nrep),
            nrep,
        ),
        (
            "pipelined-imb-pre2018",
            pipelined(comm, &mut kernel, timing, nrep),
            nrep,
        ),
        (
            "barrier-loop",
            barrier_loop(comm, &mut kernel, timing, nrep),
            nrep,
        ),
        (
            "root-mpiblib",
            root_mpiblib(comm, &mut kernel, timing, nrep),
            nrep,
        ),
        ("window", window_s, valid),
    ];
    if op == Op::Bcast {
        let mut buf = vec![1u8; bytes as usize];
        times.push(("ol-max", ol_max(comm, &mut buf, timing, nrep), nrep));
        times.push((
            "bcast-rounds",
            bcast_rounds(comm, &mut buf, timing, nrep),
            nrep,
        ));
        times.push((
            "bcast-barrier",
            bcast_barrier(comm, &mut buf, timing, nrep),
            nrep,
        ));
    }
    if comm.rank() != 0 {
        return Vec::new();
    }
    times
        .into_iter()
        .map(|(scheme, time_s, n)| SchemeRow {
            op,
            bytes,
            nprocs: comm.size() as u32,
            scheme: scheme.into(),
            n,
            time_s,
            vs_window: None,
        })
        .collect()
}

/// The largest of the ranks' `value`s, on every rank.
fn max_over_ranks(comm: &SimpleCommunicator, value: f64) -> f64 {
    let mut max = 0.0;
    comm.all_reduce_into(&value, &mut max, SystemOperation::max());
    max
}

/// OSU 7.4 (`osu_allreduce.c` & co.) and IMB-MPI1 2021 (`-sync 1`): one barrier, then
/// `nrep` times (clock, op, clock, `MPI_Barrier`); each rank's mean time per op, seconds,
/// `[rank]`, on every rank.
fn timed_then_barrier(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
) -> Vec<f64> {
    comm.barrier();
    let mut sum = 0.0;
    for _ in 0..nrep {
        let t = timing.clock.now();
        kernel.run(comm);
        sum += timing.clock.now() - t;
        comm.barrier();
    }
    let mine = sum / nrep as f64;
    let mut all = vec![0.0; comm.size() as usize];
    comm.all_gather_into(&mine, &mut all[..]);
    all
}

/// MPIBlib's root timing (Lastovetsky, Rychkov and O'Flynn 2008, §2), rank 0 as the root:
/// first the mean time of one empty confirmation message, from `nrep` ping-pongs with each
/// other rank (half the round trip); then `nrep` times: barrier, the root's clock, the
/// operation, every other rank sends an empty confirmation, the root receives all of them,
/// the root's clock. Returns [`mpiblib_root`] on rank 0, NaN elsewhere.
fn root_mpiblib(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
) -> f64 {
    let (me, root) = (comm.rank(), comm.process_at_rank(0));
    let token = [0u8; 0];
    let mut sink = [0u8; 0];
    // The confirmation's own time, measured here, in this run: half of each round trip.
    let mut one_way = Vec::new();
    for i in 1..comm.size() {
        let rtts = ping_pongs(comm, timing, i, nrep, &mut sink);
        if me == 0 {
            one_way.extend(rtts.iter().map(|rtt| rtt / 2.0));
        }
    }
    let confirmation = one_way.iter().sum::<f64>() / one_way.len().max(1) as f64;
    let mut root_s = Vec::with_capacity(nrep as usize);
    for _ in 0..nrep {
        comm.barrier();
        let t = timing.clock.now();
        kernel.run(comm);
        if me == 0 {
            for _ in 1..comm.size() {
                comm.any_process()
                    .receive_into_with_tag(&mut sink[..], ACK_TAG);
            }
            root_s.push(timing.clock.now() - t);
        } else {
            root.send_with_tag(&token[..], ACK_TAG);
        }
    }
    if me == 0 {
        mpiblib_root(&root_s, confirmation)
    } else {
        f64::NAN
    }
}

/// delaybench's own: `MPI_Barrier` before each repetition, the local time of each rank, the
/// maximum over ranks per repetition, the median over repetitions (the *maximum* method of
/// Lastovetsky, Rychkov and O'Flynn 2008 after a barrier; neither OSU nor IMB, which average
/// per rank first).
fn barrier_max(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
) -> f64 {
    let max = super::measure::slowest_after_barriers(comm, kernel, timing, nrep);
    median(&max).unwrap_or(f64::NAN)
}

/// One barrier, then `nrep` operations back to back, the loop time divided by `nrep`, the
/// maximum over ranks: mpptest and IMB before 2018, as Lastovetsky, Rychkov and O'Flynn
/// (2008, §2) describe them (IMB 2018 and later put a barrier after each call, `-sync`).
/// Consecutive operations overlap (pipelining).
fn pipelined(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
) -> f64 {
    let loop_s = back_to_back(comm, timing, nrep, || kernel.run(comm));
    max_over_ranks(comm, loop_s / nrep as f64)
}

/// One barrier, then `nrep` calls of `body` back to back: the loop's time on this rank's
/// clock, seconds (the schemes that time a whole loop and divide).
fn back_to_back(
    comm: &SimpleCommunicator,
    timing: &ReleaseClock,
    nrep: u32,
    mut body: impl FnMut(),
) -> f64 {
    comm.barrier();
    let t = timing.clock.now();
    for _ in 0..nrep {
        body();
    }
    timing.clock.now() - t
}

/// `nrep` ping-pongs of `msg` between rank 0 and rank `peer` of `comm` after one barrier,
/// each timed on the calling rank's clock, seconds: on rank 0 the round-trip times (the
/// other ranks' entries time nothing). Collective on `comm` (the barrier).
fn ping_pongs(
    comm: &SimpleCommunicator,
    timing: &ReleaseClock,
    peer: i32,
    nrep: u32,
    msg: &mut [u8],
) -> Vec<f64> {
    let me = comm.rank();
    let (root, other) = (comm.process_at_rank(0), comm.process_at_rank(peer));
    comm.barrier();
    (0..nrep)
        .map(|_| {
            let t = timing.clock.now();
            if me == 0 {
                other.send_with_tag(&msg[..], ACK_TAG);
                other.receive_into_with_tag(&mut msg[..], ACK_TAG);
            } else if me == peer {
                root.receive_into_with_tag(&mut msg[..], ACK_TAG);
                root.send_with_tag(&msg[..], ACK_TAG);
            }
            timing.clock.now() - t
        })
        .collect()
}

/// A loop of (barrier, operation), its time divided by `nrep`, the maximum over ranks
/// (Phloem): the barrier's own time is included.
fn barrier_loop(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
) -> f64 {
    let t = timing.clock.now();
    for _ in 0..nrep {
        comm.barrier();
        kernel.run(comm);
    }
    max_over_ranks(comm, (timing.clock.now() - t) / nrep as f64)
}

/// Window synchronisation on the global clock: the median t_global of the repetitions
/// that started on time and ended inside their window (Niethammer et al. 2016, eq. 4; Hunold and Carpen-Amarie 2015, scheme 4), and how
/// many those were (NaN seconds if none).
fn window(
    comm: &SimpleCommunicator,
    kernel: &mut Kernel,
    timing: &ReleaseClock,
    nrep: u32,
    slowest: &[f64],
) -> (f64, u32) {
    let w = auto_window(slowest, 0.0, timing.wait.spin_margin_s());
    let mut w_agreed = w;
    comm.process_at_rank(0).broadcast_into(&mut w_agreed);
    let calls = windowed_calls(comm, timing, w_agreed, nrep, || kernel.run(comm));
    let starts: Vec<f64> = calls.iter().map(|c| c.entry_g).collect();
    let ends: Vec<f64> = calls.iter().map(|c| c.exit_g).collect();
    let flags: Vec<u8> = calls.iter().map(|c| c.flags).collect();
    let n = starts.len();
    let (mut first, mut last, mut any) = (vec![0.0; n], vec![0.0; n], vec![0u8; n]);
    comm.all_reduce_into(&starts[..], &mut first[..], SystemOperation::min());
    comm.all_reduce_into(&ends[..], &mut last[..], SystemOperation::max());
    comm.all_reduce_into(&flags[..], &mut any[..], SystemOperation::bitwise_or());
    let t_globals: Vec<f64> = (0..n)
        .filter(|&i| any[i] == 0)
        .map(|i| last[i] - first[i])
        .collect();
    (
        median(&t_globals).unwrap_or(f64::NAN),
        t_globals.len() as u32,
    )
}

/// de Supinski and Karonis (1999, Figure 9), on rank 0 as the root: for each destination i,
/// RTT_i from `nrep` ping-pongs; then `nrep` (broadcast, acknowledgement from i) pairs after
/// one unmeasured pair, E_i their time; OL_i = E_i − RTT_i / 2; the result is the maximum
/// OL_i over i (seconds, on rank 0; NaN elsewhere). Unlike the paper's means over M, RTT_i
/// and E_i are medians of per-iteration times: one descheduling on a shared machine would
/// otherwise inflate a mean RTT past E and make OL_i negative.
fn ol_max(comm: &SimpleCommunicator, buf: &mut [u8], timing: &ReleaseClock, nrep: u32) -> f64 {
    let (me, root) = (comm.rank(), comm.process_at_rank(0));
    let mut token = [0u8; 1];
    let mut ol = f64::NEG_INFINITY;
    for i in 1..comm.size() {
        let peer = comm.process_at_rank(i);
        let rtts = ping_pongs(comm, timing, i, nrep, &mut token);
        comm.barrier();
        // The first pair only brings every rank into step (de Supinski and Karonis 1999, §4).
        let es: Vec<f64> = (0..=nrep)
            .map(|_| {
                let t = timing.clock.now();
                root.broadcast_into(buf);
                if me == 0 {
                    peer.receive_into_with_tag(&mut token[..], ACK_TAG);
                } else if me == i {
                    root.send_with_tag(&token[..], ACK_TAG);
                }
                timing.clock.now() - t
            })
            .skip(1)
            .collect();
        let (rtt, e) = (median(&rtts), median(&es));
        ol = ol.max(e.unwrap_or(f64::NAN) - rtt.unwrap_or(f64::NAN) / 2.0);
    }
    task0(comm, ol)
}

/// Broadcast rounds (de Supinski and Karonis 1999, §3): `nrep` rounds of one broadcast from
/// every root in order 0..P-1, the time per broadcast as task 0 measures it (the paper uses
/// task 0's measurements). Pipelining makes it a lower bound. NaN on other ranks.
fn bcast_rounds(
    comm: &SimpleCommunicator,
    buf: &mut [u8],
    timing: &ReleaseClock,
    nrep: u32,
) -> f64 {
    let loop_s = back_to_back(comm, timing, nrep, || {
        for r in 0..comm.size() {
            comm.process_at_rank(r).broadcast_into(buf);
        }
    });
    let per = loop_s / (nrep as f64 * comm.size() as f64);
    task0(comm, per)
}

/// `value` on rank 0 (task 0, whose measurements de Supinski and Karonis 1999 report), NaN
/// elsewhere; collective-free.
fn task0(comm: &SimpleCommunicator, value: f64) -> f64 {
    if comm.rank() == 0 {
        value
    } else {
        f64::NAN
    }
}

/// Broadcast-barrier (de Supinski and Karonis 1999, §3): `nrep` (broadcast, barrier) pairs,
/// the time per pair as task 0 measures it. Includes the barrier, so an upper bound. NaN on
/// other ranks.
fn bcast_barrier(
    comm: &SimpleCommunicator,
    buf: &mut [u8],
    timing: &ReleaseClock,
    nrep: u32,
) -> f64 {
    let root = comm.process_at_rank(0);
    let loop_s = back_to_back(comm, timing, nrep, || {
        root.broadcast_into(buf);
        comm.barrier();
    });
    task0(comm, loop_s / nrep as f64)
}
