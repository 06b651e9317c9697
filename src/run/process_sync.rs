//! Process synchronisation (`--sync`): how the ranks of a sub-communicator start a repetition
//! together. Not the clock synchronisation (`crate::clock::ClockSync`), which agrees on time.

use super::release_clock::ReleaseClock;
use crate::clock::tsc::{self, Stamp};
use crate::plan::ProcessSyncMethod;
use crate::wait::spin_for;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Starts repetitions together; chosen by `--sync`.
pub trait ProcessSync {
    /// Collective on `comm`, before the first repetition of a block.
    fn begin(&mut self, comm: &SimpleCommunicator, timing: &ReleaseClock);
    /// Returns when this rank should enter repetition `rep` after its own `delay_s` (seconds):
    /// the scheduled instant and the reading that released it. Whether it started late is
    /// decided on that recorded start ([`crate::timeline::validity`]), not here. A scheme
    /// that knows the release instant in advance (the window scheme) calls `warm` shortly
    /// before it, so that what the call reads first is in the cache when the rank leaves its
    /// wait; the others do not call it.
    fn start(
        &mut self,
        comm: &SimpleCommunicator,
        timing: &ReleaseClock,
        rep: usize,
        delay_s: f64,
        warm: &mut dyn FnMut(),
    ) -> Release;
    /// The window in seconds, for the window-overrun check; `None` if there is no window.
    fn window_s(&self) -> Option<f64>;
    /// Collective on `comm`, after a pause in the block (a drift-tracking probe) before
    /// repetition `next_rep`: re-anchors a schedule the pause has overtaken.
    fn resume(&mut self, _comm: &SimpleCommunicator, _timing: &ReleaseClock, _next_rep: usize) {}
}

/// How [`ProcessSync::start`] released a rank into a repetition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Release {
    /// Scheduled global start instant of the repetition, seconds (NaN if there is none).
    pub scheduled_g: f64,
    /// The local clock reading (seconds) at which the rank was released: the repetition's
    /// recorded start. The window scheme's is the reading that ended its wait, so that no
    /// clock read lies between the end of the wait and the call.
    pub t_local: f64,
    /// The time-stamp counter and CPU just after that reading: where the path into MPI
    /// starts ([`crate::records::StartPathRecord`]).
    pub stamp: Stamp,
}

/// Clock-based synchronisation: rank 0 broadcasts a global start instant; repetition i starts
/// at start + i·window; each rank waits on its global clock until that instant plus its delay
/// (Niethammer et al. 2016, Listing 2; Hunold and Carpen-Amarie 2015, scheme 4).
pub struct WindowProcessSync {
    pub window_s: f64,
    /// Time from the broadcast to the first start instant, seconds.
    pub lead_s: f64,
    start_g: f64,
    /// This rank's largest lateness since the last check, seconds.
    worst_lateness_s: f64,
}

/// How long before its release a rank warms the path into the call, seconds: long enough
/// for the warm-up to finish even after a long wait has let the caches go cold. At 5 us the
/// warm-up of a rank that had spun for a 10 ms window often ran past the release (measured
/// with the start-path stamps: the release came 0.14-1.18 us late in the median and 2-26 us
/// at the p95, and 30-72 % of the repetitions started late); at 50 us the median lateness is
/// 0.02 us at 10 ms, as at 1 ms, and the path from release to the call is no longer
/// (docs/accuracy.md, "The terms of the start spread, stamped").
const WARM_LEAD_S: f64 = 50e-6;

/// Repetitions between checks of whether the schedule has slipped.
const SLIP_CHECK_EVERY: usize = 16;

impl WindowProcessSync {
    /// A window of `window_s` seconds, the first one `lead_s` seconds after [`ProcessSync::begin`].
    pub fn new(window_s: f64, lead_s: f64) -> Self {
        WindowProcessSync {
            window_s,
            lead_s,
            start_g: f64::NAN,
            worst_lateness_s: 0.0,
        }
    }

    /// Every [`SLIP_CHECK_EVERY`] repetitions, collectively: if some rank has fallen more
    /// than half a window behind, start the remaining repetitions afresh `lead_s` after the
    /// latest rank's present. Ranks sharing cores otherwise stay behind for good once a hiccup
    /// puts them there: a repetition that starts late gets no sleeping rank's core and takes
    /// longer than a window. On schedule nothing changes.
    fn recover_slip(&mut self, comm: &SimpleCommunicator, timing: &ReleaseClock, rep: usize) {
        // [worst lateness, present] over the ranks; rank 0 then decides for all, so that the
        // decision, and with it the sequence of collectives, is the same on every rank.
        let mine = [self.worst_lateness_s, timing.global_now()];
        let mut worst = [0.0; 2];
        comm.all_reduce_into(&mine[..], &mut worst[..], SystemOperation::max());
        self.worst_lateness_s = 0.0;
        let mut restart = if worst[0] > 0.5 * self.window_s {
            worst[1] + self.lead_s - rep as f64 * self.window_s
        } else {
            f64::NAN
        };
        comm.process_at_rank(0).broadcast_into(&mut restart);
        if !restart.is_nan() {
            self.start_g = restart;
        }
    }
}

impl ProcessSync for WindowProcessSync {
    fn begin(&mut self, comm: &SimpleCommunicator, timing: &ReleaseClock) {
        let mut start = timing.global_now() + self.lead_s;
        comm.process_at_rank(0).broadcast_into(&mut start);
        self.start_g = start;
        self.worst_lateness_s = 0.0;
    }

    fn start(
        &mut self,
        comm: &SimpleCommunicator,
        timing: &ReleaseClock,
        rep: usize,
        delay_s: f64,
        warm: &mut dyn FnMut(),
    ) -> Release {
        if rep > 0 && rep % SLIP_CHECK_EVERY == 0 {
            self.recover_slip(comm, timing, rep);
        }
        let scheduled_g = self.start_g + rep as f64 * self.window_s;
        let release_g = scheduled_g + delay_s;
        timing.wait_until_global(release_g - WARM_LEAD_S);
        warm();
        let waited = timing.wait_until_global(release_g);
        let stamp = tsc::stamp();
        self.worst_lateness_s = self.worst_lateness_s.max(waited.lateness_s);
        Release {
            scheduled_g,
            t_local: waited.reached,
            stamp,
        }
    }

    fn window_s(&self) -> Option<f64> {
        Some(self.window_s)
    }

    /// Moves the remaining schedule to start `lead_s` after the latest rank's present when the
    /// pause overtook it; every rank computes the same instant from one allreduce.
    fn resume(&mut self, comm: &SimpleCommunicator, timing: &ReleaseClock, next_rep: usize) {
        let now = timing.global_now();
        let mut latest = 0.0;
        comm.all_reduce_into(&now, &mut latest, SystemOperation::max());
        let earliest_next = latest + self.lead_s;
        if self.start_g + next_rep as f64 * self.window_s < earliest_next {
            self.start_g = earliest_next - next_rep as f64 * self.window_s;
        }
        self.worst_lateness_s = 0.0;
    }
}

/// One undelayed call under window synchronisation, as [`windowed_calls`] timed it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowedCall {
    /// Global clock reading at the release into the call, seconds.
    pub entry_g: f64,
    /// Global clock reading just after the call returned, seconds.
    pub exit_g: f64,
    /// Validity flags of the call ([`crate::timeline::validity::flags`]): a late start or
    /// a window overrun.
    pub flags: u8,
}

/// `nrep` calls of `call`, no rank delayed, each released at the next start instant of a
/// window scheme with windows of `window_s` seconds (Hunold and Carpen-Amarie 2015, scheme
/// 4); the first instant comes 10 ms, or two windows if longer, after the start-instant
/// broadcast. Returns this rank's times of each call, in order. Collective on `comm`:
/// every rank must pass the same `window_s` and `nrep`.
pub fn windowed_calls(
    comm: &SimpleCommunicator,
    timing: &ReleaseClock,
    window_s: f64,
    nrep: u32,
    mut call: impl FnMut(),
) -> Vec<WindowedCall> {
    let mut sync = WindowProcessSync::new(window_s, 10e-3_f64.max(2.0 * window_s));
    sync.begin(comm, timing);
    (0..nrep as usize)
        .map(|rep| {
            let release = sync.start(comm, timing, rep, 0.0, &mut || {});
            let (scheduled, entry_g) = (
                release.scheduled_g,
                timing.model().to_global(release.t_local),
            );
            call();
            let exit_g = timing.global_now();
            let flags = crate::timeline::validity::flags(
                scheduled,
                0.0,
                (entry_g, exit_g),
                Some(window_s),
                timing.late_tolerance_s,
            );
            WindowedCall {
                entry_g,
                exit_g,
                flags,
            }
        })
        .collect()
}

/// A barrier-like step before each repetition, then the delayed ranks busy-wait their delay
/// (Niethammer et al. 2016, §III-B Listing 1 and §III-D).
pub struct BarrierProcessSync {
    pub kind: BarrierKind,
}

/// Which barrier [`BarrierProcessSync`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierKind {
    /// `MPI_Barrier`.
    Mpi,
    /// `MPI_Barrier` twice.
    DoubleMpi,
    /// delaybench's own dissemination barrier ([`dissemination_barrier`]).
    Dissemination,
    /// None: repetitions run back to back.
    Nothing,
}

impl BarrierKind {
    /// Runs the barrier on `comm`.
    pub fn run(self, comm: &SimpleCommunicator) {
        match self {
            BarrierKind::Mpi => comm.barrier(),
            BarrierKind::DoubleMpi => {
                comm.barrier();
                comm.barrier();
            }
            BarrierKind::Dissemination => dissemination_barrier(comm),
            BarrierKind::Nothing => {}
        }
    }
}

impl ProcessSync for BarrierProcessSync {
    fn begin(&mut self, _: &SimpleCommunicator, _: &ReleaseClock) {}

    fn start(
        &mut self,
        comm: &SimpleCommunicator,
        timing: &ReleaseClock,
        _: usize,
        delay_s: f64,
        _warm: &mut dyn FnMut(),
    ) -> Release {
        self.kind.run(comm);
        if delay_s > 0.0 {
            spin_for(|| timing.clock.now(), delay_s);
        }
        let t_local = timing.clock.now();
        Release {
            scheduled_g: f64::NAN,
            t_local,
            stamp: tsc::stamp(),
        }
    }

    fn window_s(&self) -> Option<f64> {
        None
    }
}

/// The process synchronisation `method` asks for: the window scheme with windows of
/// `window_s` seconds, the first `lead_s` seconds after its start-instant broadcast, or a
/// barrier scheme (which ignores both).
pub fn for_method(method: ProcessSyncMethod, window_s: f64, lead_s: f64) -> Box<dyn ProcessSync> {
    let barrier = |kind| Box::new(BarrierProcessSync { kind }) as Box<dyn ProcessSync>;
    match method {
        ProcessSyncMethod::Window => Box::new(WindowProcessSync::new(window_s, lead_s)),
        ProcessSyncMethod::Barrier => barrier(BarrierKind::Mpi),
        ProcessSyncMethod::DoubleBarrier => barrier(BarrierKind::DoubleMpi),
        ProcessSyncMethod::Dissemination => barrier(BarrierKind::Dissemination),
        ProcessSyncMethod::None => barrier(BarrierKind::Nothing),
    }
}

/// Tag of the dissemination barrier's messages.
const DISSEMINATION_TAG: i32 = 7002;

/// Dissemination barrier (Hensgen, Finkel and Manber 1988): in round k every rank r signals
/// rank (r + 2^k) mod P and waits for rank (r − 2^k) mod P; after ⌈log2 P⌉ rounds every rank
/// has heard, directly or not, from every other. Point-to-point messages only, so it behaves
/// the same under every MPI library (Hunold and Carpen-Amarie 2015, §4).
pub fn dissemination_barrier(comm: &SimpleCommunicator) {
    let (p, r) = (comm.size(), comm.rank());
    let mut distance = 1;
    while distance < p {
        let to = comm.process_at_rank((r + distance) % p);
        let from = comm.process_at_rank((r - distance).rem_euclid(p));
        let token: [u8; 1] = [0];
        let mut got: [u8; 1] = [0];
        mpi::request::scope(|scope| {
            let sent = to.immediate_send_with_tag(scope, &token[..], DISSEMINATION_TAG);
            from.receive_into_with_tag(&mut got[..], DISSEMINATION_TAG);
            sent.wait();
        });
        distance *= 2;
    }
}
