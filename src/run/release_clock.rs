//! The release clock: this rank's live global clock and how it waits for instants on it, which
//! is what releases it into a repetition (not the published timing schemes of `analysis`).

use crate::clock::LiveClock;
use crate::wait::{WaitStrategy, Waited};
use std::cell::Cell;

/// Largest spin margin a polite waiter grows to, seconds.
const MAX_SPIN_MARGIN_S: f64 = 2e-3;

/// Everything a rank needs to read and wait on the global clock: the clock component's
/// [`LiveClock`] (reachable through `Deref`) and the waiting strategy of the run side.
pub struct ReleaseClock {
    pub live: LiveClock,
    pub wait: WaitStrategy,
    /// A start more than this many seconds after its instant is flagged *started late*.
    pub late_tolerance_s: f64,
    /// A polite waiter's current spin margin, seconds: it starts at the strategy's and grows
    /// whenever a sleep overshoots its instant, because how long a sleeping rank takes to get
    /// a core back (an idle virtual CPU can take hundreds of microseconds) differs by machine.
    pub spin_margin_s: Cell<f64>,
}

impl std::ops::Deref for ReleaseClock {
    type Target = LiveClock;
    fn deref(&self) -> &LiveClock {
        &self.live
    }
}

impl ReleaseClock {
    /// Waits until global time `target_g` (seconds): what the wait found, with `reached` the
    /// *local* clock reading (seconds) that ended it and the lateness in seconds (see
    /// [`WaitStrategy::wait_until`]).
    ///
    /// The wait runs on the local clock towards the instant's local reading: the model is
    /// applied once, not at every reading, so the spin's step is one clock read, and the
    /// reading that releases the rank can be its recorded start, with no further clock read
    /// between it and the call (as ReproMPI records it, Hunold and Carpen-Amarie 2016). The
    /// model only changes between repetitions, so one conversion holds for the whole wait.
    pub fn wait_until_global(&self, target_g: f64) -> Waited {
        let margin = self.spin_margin_s.get();
        let target_l = self.model().to_local(target_g);
        let waited = self
            .wait
            .wait_until_with_margin(|| self.clock.now(), target_l, margin);
        if waited.overslept_s > 0.0 {
            let wider = (margin + 2.0 * waited.overslept_s).min(MAX_SPIN_MARGIN_S);
            self.spin_margin_s.set(wider);
        }
        waited
    }
}
