//! What every MPI command needs: hosts, this rank's clock (possibly emulated), its clock model,
//! and how it waits; plus clock synchronisation with the per-rank results gathered on rank 0.

use super::gather::gather_one;
use super::hosts::Hosts;
use super::pinning::Pin;
use super::release_clock::ReleaseClock;
use super::transport::{MpiTransport, WtimeClock};
use crate::clock::ClockModel;
use crate::clock::{Clock, ClockSync, EmulatedClock, EmulationSpec, MonotonicClock, SyncOutcome};
use crate::plan::ClockSource;
use crate::records::SharedClockCheck;
use crate::wait::WaitStrategy;
use crate::wire::Wire;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

/// Seconds before a start instant at which a polite waiter stops sleeping and spins.
pub const SPIN_MARGIN_S: f64 = 200e-6;

/// Per-rank results of one clock synchronisation, complete on rank 0 of the communicator.
#[derive(Debug, Clone, Default)]
pub struct Gathered {
    /// Per rank: clock model to rank 0's clock.
    pub models: Vec<ClockModel>,
    /// Per rank: smallest RTT seen while its clock was measured, seconds.
    pub rtt_s: Vec<f64>,
    /// Per rank: ping-pong exchanges it took part in.
    pub exchanges: Vec<u32>,
    /// Wall time of the synchronisation on rank 0, seconds.
    pub duration_s: f64,
    /// Per rank: the shared-clock check (empty for a flat synchronisation).
    pub shared: Vec<SharedClockCheck>,
    /// Per rank: standard error of the fitted slope (NaN where none was fitted).
    pub slope_se: Vec<f64>,
}

/// One rank's part of a synchronisation, as rank 0 gathers it.
#[derive(Debug, Clone, Copy)]
pub struct RankClock {
    pub model: ClockModel,
    /// Smallest RTT seen while this rank's clock was measured, seconds.
    pub rtt_s: f64,
    /// Ping-pong exchanges it took part in.
    pub exchanges: u32,
    /// Standard error of its fitted slope (NaN where none was fitted).
    pub slope_se: f64,
    /// Its shared-clock check, `None` in a flat synchronisation.
    pub check: Option<SharedClockCheck>,
}

impl Wire for RankClock {
    const LEN: usize = ClockModel::LEN + 3 + Option::<SharedClockCheck>::LEN;
    fn put(&self, out: &mut Vec<f64>) {
        self.model.put(out);
        out.extend([self.rtt_s, f64::from(self.exchanges), self.slope_se]);
        self.check.put(out);
    }
    fn take(xs: &[f64]) -> Self {
        let m = ClockModel::LEN;
        RankClock {
            model: ClockModel::take(xs),
            rtt_s: xs[m],
            exchanges: xs[m + 1] as u32,
            slope_se: xs[m + 2],
            check: <Option<SharedClockCheck> as Wire>::take(&xs[m + 3..]),
        }
    }
}

impl Gathered {
    /// Rank 0's collection of every rank's [`RankClock`] (`None` elsewhere gives the empty
    /// default), with the synchronisation's wall time.
    pub fn of(ranks: Option<Vec<RankClock>>, started: Instant) -> Self {
        let Some(ranks) = ranks else {
            return Gathered::default();
        };
        Gathered {
            models: ranks.iter().map(|r| r.model).collect(),
            rtt_s: ranks.iter().map(|r| r.rtt_s).collect(),
            exchanges: ranks.iter().map(|r| r.exchanges).collect(),
            duration_s: started.elapsed().as_secs_f64(),
            shared: ranks.iter().filter_map(|r| r.check).collect(),
            slope_se: ranks.iter().map(|r| r.slope_se).collect(),
        }
    }
}

/// One rank's view of the run's machinery.
pub struct Session<'w> {
    pub world: &'w SimpleCommunicator,
    pub hosts: Hosts,
    pub timing: ReleaseClock,
    /// True when this rank's clock is emulated with a skew: a short check cannot tell it from
    /// a shared clock, so it always synchronises itself.
    pub emulated_skew: bool,
    /// How this rank got its model in the last [`Session::synchronise_shared`].
    pub clock_verdict: crate::clock::shared::SharedVerdict,
}

impl<'w> Session<'w> {
    /// Collective on `world`: finds the hosts, and sets up the clock (emulated when `emulate`
    /// is given, with its epoch already agreed).
    pub fn new(
        world: &'w SimpleCommunicator,
        hosts: Hosts,
        source: ClockSource,
        emulate: Option<&EmulationSpec>,
    ) -> Self {
        let base: Box<dyn Clock> = match source {
            ClockSource::Monotonic => Box::new(MonotonicClock),
            ClockSource::Wtime => Box::new(WtimeClock),
        };
        let clock: Box<dyn Clock> = match emulate {
            Some(spec) => Box::new(EmulatedClock::for_rank(base, spec, world.rank() as usize)),
            None => base,
        };
        crate::wait::precise_sleeps();
        let emulated_skew =
            emulate.is_some_and(|spec| spec.for_rank(world.rank() as usize).1 != 0.0);
        Session {
            world,
            emulated_skew,
            clock_verdict: crate::clock::shared::SharedVerdict::Leader,
            hosts,
            timing: ReleaseClock {
                live: crate::clock::LiveClock::new(clock),
                wait: WaitStrategy::Spin,
                late_tolerance_s: 0.0,
                spin_margin_s: std::cell::Cell::new(0.0),
            },
        }
    }

    /// Runs `method` collectively on `comm` (whose rank 0 is world rank 0), installs this
    /// rank's new model, and returns every rank's outcome on rank 0 of `comm`.
    pub fn synchronise(&mut self, comm: &SimpleCommunicator, method: &dyn ClockSync) -> Gathered {
        self.synchronise_own(comm, method).1
    }

    /// [`Session::synchronise`], also returning this rank's own outcome.
    pub fn synchronise_own(
        &mut self,
        comm: &SimpleCommunicator,
        method: &dyn ClockSync,
    ) -> (SyncOutcome, Gathered) {
        let started = Instant::now();
        let transport = MpiTransport {
            comm,
            clock: self.timing.clock.as_ref(),
        };
        let outcome = method.synchronize(&transport);
        self.timing
            .set_synchronised(outcome.model, outcome.slope_sxx_s2);
        let mine = RankClock {
            model: outcome.model,
            rtt_s: outcome.rtt_s,
            exchanges: outcome.exchanges,
            slope_se: outcome.slope_se,
            check: None,
        };
        // The wall time is rank 0's, before the gather, as the method took it.
        let duration_s = started.elapsed().as_secs_f64();
        let mut gathered = Gathered::of(gather_one(comm, mine), started);
        gathered.duration_s = duration_s;
        (outcome, gathered)
    }

    /// Chooses how ranks wait while world ranks 0..p-1 measure, with the late-start tolerance
    /// `tolerance_s` or the strategy's default. Returns a warning to print (on rank 0) when
    /// measuring ranks share cores.
    pub fn set_waiting(&mut self, p: u32, tolerance_s: Option<f64>) -> Option<String> {
        let wait = self.hosts.wait_strategy(p, SPIN_MARGIN_S);
        self.timing.wait = wait;
        self.timing.spin_margin_s.set(wait.spin_margin_s());
        self.timing.late_tolerance_s =
            tolerance_s.unwrap_or_else(|| wait.default_late_tolerance_s());
        (wait != WaitStrategy::Spin).then(|| {
            // Name only the crowded hosts, with numbers, so the user sees what to change.
            let crowded: Vec<String> = self
                .hosts
                .loads
                .iter()
                .filter_map(|l| {
                    let n = self.hosts.measuring_on(&l.host, p);
                    (n > l.cores).then(|| format!("{} runs {n} on {} cores", l.host, l.cores))
                })
                .collect();
            format!(
                "oversubscribed at P = {p}: more measuring ranks than cores ({}), so timings \
                 are unreliable and not publishable; give each rank its own core (fewer ranks \
                 per host or more hosts). Meanwhile ranks wait politely (sleep, then spin with \
                 yields for the last {:.0} us) with a late-start tolerance of {:.0} us",
                crowded.join("; "),
                SPIN_MARGIN_S * 1e6,
                self.timing.late_tolerance_s * 1e6
            )
        })
    }

    /// Runs `measure` on the communicator of world ranks 0..p-1 while the other ranks wait
    /// without using the CPU (collective on the world); see [`at_p`].
    pub fn measure_at<R>(
        &mut self,
        p: u32,
        tolerance_s: Option<f64>,
        measure: impl FnOnce(&mut Session<'w>, &SimpleCommunicator) -> R,
    ) -> (Option<R>, Option<String>) {
        at_p(self, p, tolerance_s, measure)
    }

    /// While ranks 0..p-1 busy-wait, gives this rank a core of its own (dropped: restored).
    pub fn pin_for(&self, p: u32) -> Option<Pin> {
        if self.timing.wait != WaitStrategy::Spin {
            return None;
        }
        let rank = self.world.rank() as usize;
        Pin::to_own_core(self.hosts.local_index(rank, p))
    }
}

/// What holds a rank's [`Session`]: the session itself, or a command's state around it (the
/// measurement runner), so that [`at_p`] can hand the whole of it to the measuring closure.
pub trait WithSession<'w> {
    /// The session held.
    fn session(&mut self) -> &mut Session<'w>;

    /// Tells the user, before measuring at P, how ranks wait there ([`at_p`]'s warning
    /// `msg`): by default rank 0 prints it on stderr.
    fn warn_waiting(&mut self, msg: &str) {
        if self.session().world.rank() == 0 {
            eprintln!("delaybench: warning: {msg}");
        }
    }
}

impl<'w> WithSession<'w> for Session<'w> {
    fn session(&mut self) -> &mut Session<'w> {
        self
    }
}

/// The one way every MPI command measures at one P (collective on the world): chooses how
/// ranks wait (late-start tolerance `tolerance_s` or the strategy's default), tells the user
/// the warning about shared cores ([`WithSession::warn_waiting`]), runs `measure` on the communicator of world ranks 0..p-1
/// (each pinned to a core of its own while busy-waiting) while the other ranks wait without
/// using the CPU, and meets every rank again. Returns `measure`'s result (`None` on the idle
/// ranks) and the warning.
pub fn at_p<'w, C: WithSession<'w>, R>(
    ctx: &mut C,
    p: u32,
    tolerance_s: Option<f64>,
    measure: impl FnOnce(&mut C, &SimpleCommunicator) -> R,
) -> (Option<R>, Option<String>) {
    let session = ctx.session();
    let world = session.world;
    let warning = session.set_waiting(p, tolerance_s);
    let members = session.hosts.members(p).to_vec();
    if let Some(msg) = &warning {
        ctx.warn_waiting(msg);
    }
    let result = sub_communicator(world, &members).map(|comm| {
        let _pin = ctx.session().pin_for(p);
        measure(ctx, &comm)
    });
    idle_barrier(world);
    (result, warning)
}

/// The communicator of the world ranks `members`, ranked in that order, or `None` on the
/// other ranks (collective on `world`).
pub fn sub_communicator(
    world: &SimpleCommunicator,
    members: &[usize],
) -> Option<SimpleCommunicator> {
    let me = world.rank() as usize;
    match members.iter().position(|&r| r == me) {
        Some(key) => world.split_by_color_with_key(
            mpi::topology::Color::with_value(0),
            key as mpi::topology::Key,
        ),
        None => world.split_by_color(mpi::topology::Color::undefined()),
    }
}

/// A barrier on `world` that waits with sleeps, so that idle ranks leave the measuring ranks
/// their cores.
pub fn idle_barrier(world: &SimpleCommunicator) {
    let mut request = world.immediate_barrier();
    loop {
        match request.test() {
            Ok(_) => return,
            Err(r) => request = r,
        }
        // Rarely, so that idle ranks do not take the measuring ranks' cores.
        std::thread::sleep(std::time::Duration::from_millis(1));
        super::interrupt::beat();
    }
}
